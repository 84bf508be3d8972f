package checkmatch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/internal/golden"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
)

// answer is one scripted judge answer of typevet's runner fixture.
type answer struct {
	verdict        string
	payee, amounts float64
	level          int
}

// rightAnswers is the _RIGHT fixture: one right answer per variant, in enum
// order.
func rightAnswers() []answer {
	return []answer{
		{"consistent", 0.9, 0.9, 4},
		{"payee_mismatch", 0.1, 0.9, 4},
		{"amount_mismatch", 0.9, 0.2, 4},
		{"amount_mismatch", 0.9, 0.1, 4},
		{"date_mismatch", 0.9, 0.9, 4},
		{"unsigned", 0.9, 0.9, 3},
		{"cannot_tell", 0.8, 0.8, 1},
	}
}

// rightOutcomes builds the outcomes typevet's fake runner port produces for seed 0,
// row 0: verdict probabilities 0.75 for the chosen label and 0.05 for the
// others, a one-hot legibility at the given level with score float(level),
// 500 input tokens, image bytes "synthetic check bytes" and a clock that
// advances 0.5 per read (so every latency is 0.5).
func rightOutcomes(t testing.TB, answers []answer) []Outcome {
	t.Helper()
	cases, err := Cases(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("synthetic check bytes"))
	out := make([]Outcome, len(answers))
	for i, a := range answers {
		probs := make(judgment.Probabilities, 0, len(VerdictLabels))
		for _, l := range VerdictLabels {
			p := 0.05
			if l == a.verdict {
				p = 0.75
			}
			probs = append(probs, judgment.Probability{Label: l, P: p})
		}
		leg := make([]float64, LegibilityLevels)
		leg[a.level] = 1
		tokens := 500
		out[i] = Outcome{
			CaseID: cases[i].ID(), Variant: cases[i].Variant, Expected: cases[i].Expected,
			Verdict: a.verdict, VerdictProbabilities: probs,
			PayeeConfidence: a.payee, AmountsConfidence: a.amounts,
			LegibilityScore: float64(a.level), LegibilityLevel: a.level, LegibilityProbabilities: leg,
			RenderSHA256: hex.EncodeToString(sum[:]), Latency: 0.5, InputTokens: &tokens,
		}
	}
	return out
}

func f(x float64) *float64 { return &x }

func TestAccuracyByGroup(t *testing.T) {
	got, err := accuracyByGroup([]string{"a", "b", "a", "c", "c", "c"}, []bool{true, true, false, false, false, true})
	want := receipt.Ordered[float64]{{Name: "a", Value: 0.5}, {Name: "b", Value: 1.0}, {Name: "c", Value: 0.3333333333333333}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("AccuracyByGroup = %v, %v; want %v", got, err, want)
	}
	_, err = accuracyByGroup([]string{"a"}, nil)
	var le *LengthError
	if !errors.As(err, &le) || err.Error() != "inputs must have equal length: 1 != 0" {
		t.Errorf("AccuracyByGroup length error = %v", err)
	}
}

func TestFalseClearRate(t *testing.T) {
	ex := func(vs ...Variant) []Expected {
		out := make([]Expected, len(vs))
		for i, v := range vs {
			out[i] = ExpectedLabels(v)
		}
		return out
	}
	tests := []struct {
		name        string
		verdicts    []string
		expected    []Expected
		want        *float64
		wantCounted int
		reason      string
	}{
		{name: "spec vector",
			verdicts: []string{"consistent", "consistent", "amount_mismatch", "cannot_tell", "date_mismatch", "consistent", "consistent"},
			expected: ex(variantPayeeChanged, VariantClean, variantWrittenAmountChanged,
				variantBothAmountsChanged, variantWrongDate, variantUnsigned, VariantLowLegibility),
			want: f(0.4), wantCounted: 5, reason: "2 of 5 counted cleared: payee_changed and unsigned"},
		{name: "low legibility never counts", verdicts: []string{"consistent"}, expected: ex(VariantLowLegibility),
			want: nil, reason: "its counts_for_false_clear flag is false"},
		{name: "clean never counts", verdicts: []string{"consistent"}, expected: ex(VariantClean),
			want: nil, reason: "its flag is true but it accepts consistent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, counted, err := falseClearRate(tt.verdicts, tt.expected)
			if err != nil || !reflect.DeepEqual(got, tt.want) || (tt.want != nil && counted != tt.wantCounted) {
				t.Errorf("FalseClearRate = %v, %d, %v; want %v, %d", ptrText(got), counted, err, ptrText(tt.want), tt.wantCounted)
			}
		})
	}
	if _, _, err := falseClearRate([]string{"consistent"}, nil); err == nil || !strings.Contains(err.Error(), "equal length") {
		t.Errorf("FalseClearRate length error = %v", err)
	}
}

func TestSummarizeAgreement(t *testing.T) {
	yes, no := true, false
	got := summarizeAgreement([]*bool{&yes, nil, &no, &yes})
	if want := (Agreement{Rate: f(0.6666666666666666), Counted: 3, ExcludedCannotTell: 1}); !reflect.DeepEqual(got, want) {
		t.Errorf("SummarizeAgreement([T, null, F, T]) = %+v, want %+v", got, want)
	}
	got = summarizeAgreement([]*bool{nil})
	if got.Rate != nil || got.Counted != 0 || got.ExcludedCannotTell != 1 {
		t.Errorf("SummarizeAgreement([null]) = %+v, want rate null", got)
	}
}

func TestSummarizeScores(t *testing.T) {
	got, err := summarizeScores([]float64{4.0, 3.0, 2.5}, []int{4, 3, 3}, 5)
	want := ScoreSummary{Count: 3, Mean: f(3.1666666666666665), Distribution: ByLevel[int]{0, 0, 0, 2, 1}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("SummarizeScores = %+v, %v; want %+v", got, err, want)
	}
	b, _ := json.Marshal(got)
	if string(b) != `{"count":3,"mean":3.1666666666666665,"distribution":{"0":0,"1":0,"2":0,"3":2,"4":1}}` {
		t.Errorf("score summary JSON = %s", b)
	}
	if _, err := summarizeScores([]float64{1.0}, []int{5}, 5); err == nil || err.Error() != "level 5 is not in 0..4" {
		t.Errorf("SummarizeScores level 5 error = %v", err)
	}
	if _, err := summarizeScores([]float64{1.0}, nil, 5); err == nil || !strings.Contains(err.Error(), "equal length") {
		t.Errorf("SummarizeScores length error = %v", err)
	}
	empty, err := summarizeScores(nil, nil, 5)
	if err != nil || empty.Mean != nil || len(empty.Distribution) != 5 {
		t.Errorf("SummarizeScores(empty) = %+v, %v; want mean null and 5 zero levels", empty, err)
	}
}

func TestLegibilityGap(t *testing.T) {
	both := receipt.Ordered[ScoreSummary]{
		{Name: "clean", Value: ScoreSummary{Mean: f(3.75)}},
		{Name: "low_legibility", Value: ScoreSummary{Mean: f(1.25)}},
	}
	if got := legibilityGap(both); got == nil || *got != 2.5 {
		t.Errorf("LegibilityGap = %v, want 2.5", ptrText(got))
	}
	if got := legibilityGap(both[:1]); got != nil {
		t.Errorf("LegibilityGap(clean only) = %v, want null", *got)
	}
}

func TestSummarizeNoul(t *testing.T) {
	tests := []struct {
		name    string
		conf    []float64
		truth   []bool
		auc     *float64
		ece     *float64
		bins    map[int]int // bin index -> count
		wantErr string
		reason  string
	}{
		{name: "tie between true and false", conf: []float64{0.5, 0.5}, truth: []bool{true, false}, auc: f(0.5), ece: f(0),
			bins: map[int]int{5: 2}, reason: "a tie between a true and a false case counts ½"},
		{name: "inverted", conf: []float64{0.1, 0.9}, truth: []bool{true, false}, auc: f(0), bins: map[int]int{1: 1, 9: 1}},
		{name: "one is in the last bin", conf: []float64{1.0, 0.0}, truth: []bool{true, false}, auc: f(1), ece: f(0),
			bins: map[int]int{9: 1, 0: 1}, reason: "int(1.0*10) = 10 is clamped to 9: the last bin is closed"},
		{name: "product rounding", conf: []float64{0.7, 0.3, 0.6}, truth: []bool{true, true, true},
			bins: map[int]int{7: 1, 3: 1, 6: 1}, auc: nil,
			reason: "0.7 is stored as 0.69999999999999996, but the float64 product 0.7*10 rounds to exactly 7.0 before int() truncates it: bin 7, as in Python (likewise 0.3); no negatives, so no AUC"},
		{name: "just below a boundary", conf: []float64{0.29999999999999993, 0.19999999999999998}, truth: []bool{false, false},
			bins: map[int]int{2: 1, 1: 1}, reason: "the floats just below 0.3 and 0.2 give products 2.999999999999999 and 1.9999999999999998: bins 2 and 1"},
		{name: "empty", conf: nil, truth: nil, auc: nil, ece: nil, bins: map[int]int{}},
		{name: "above one", conf: []float64{1.5}, truth: []bool{true}, wantErr: "confidence 1.5 is not in [0, 1]"},
		{name: "nan", conf: []float64{math.NaN()}, truth: []bool{true}, wantErr: "confidence nan is not in [0, 1]",
			reason: "NaN fails the range check; Python's repr spells it nan"},
		{name: "negative", conf: []float64{-1e-07}, truth: []bool{true}, wantErr: "confidence -1e-07 is not in [0, 1]"},
		{name: "lengths", conf: []float64{0.5}, truth: nil, wantErr: "inputs must have equal length: 1 != 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SummarizeNoul(tt.conf, tt.truth)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.ROCAUC, tt.auc) {
				t.Errorf("roc_auc = %v, want %v", ptrText(got.ROCAUC), ptrText(tt.auc))
			}
			if tt.ece != nil || tt.conf == nil {
				if !reflect.DeepEqual(got.ECE, tt.ece) {
					t.Errorf("ece = %v, want %v", ptrText(got.ECE), ptrText(tt.ece))
				}
			}
			if len(got.Reliability) != 10 {
				t.Fatalf("%d bins, want 10", len(got.Reliability))
			}
			for i, b := range got.Reliability {
				if b.Count != tt.bins[i] {
					t.Errorf("bin %d count = %d, want %d", i, b.Count, tt.bins[i])
				}
				if (b.Count == 0) != (b.MeanConfidence == nil) || (b.Count == 0) != (b.FractionTrue == nil) {
					t.Errorf("bin %d: count %d with mean %v, fraction %v", i, b.Count, ptrText(b.MeanConfidence), ptrText(b.FractionTrue))
				}
			}
		})
	}
}

// TestReliabilityEdges checks the bin edges are i/10 by division (0.3, not
// 0.30000000000000004 = 3*0.1).
func TestReliabilityEdges(t *testing.T) {
	got, err := SummarizeNoul(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}
	for i, b := range got.Reliability {
		if b.Lower != want[i] || b.Upper != want[i+1] {
			t.Errorf("bin %d = [%v, %v), want [%v, %v)", i, b.Lower, b.Upper, want[i], want[i+1])
		}
	}
}

func TestMetricsRight(t *testing.T) {
	m, err := outcomeMetrics(rightOutcomes(t, rightAnswers()))
	if err != nil {
		t.Fatal(err)
	}
	ones := func(keys ...string) receipt.Ordered[float64] {
		o := receipt.Ordered[float64]{}
		for _, k := range keys {
			o = append(o, receipt.Entry[float64]{Name: k, Value: 1})
		}
		return o
	}
	check := func(name string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", name, fmtAny(got), fmtAny(want))
		}
	}
	check("cases", m.Cases, 7)
	check("accuracy", m.Accuracy, f(1))
	check("accuracy_by_class", m.AccuracyByClass, ones("amount_mismatch", "cannot_tell|consistent", "consistent", "date_mismatch", "payee_mismatch", "unsigned"))
	check("accuracy_by_variant", m.AccuracyByVariant, ones("both_amounts_changed", "clean", "low_legibility", "payee_changed", "unsigned", "written_amount_changed", "wrong_date"))
	check("false_clear_rate", m.FalseClearRate, f(0))
	check("false_clear_cases", m.FalseClearCases, 5)
	zeroes := ones("payee_changed", "written_amount_changed", "both_amounts_changed", "wrong_date", "unsigned")
	for i := range zeroes {
		zeroes[i].Value = 0
	}
	check("false_clear_by_variant", m.FalseClearByVariant, zeroes)
	check("cannot_tell_rate", m.CannotTellRate, f(0.14285714285714285))
	ct := ones("clean", "payee_changed", "written_amount_changed", "both_amounts_changed", "wrong_date", "unsigned", "low_legibility")
	for i := range 6 {
		ct[i].Value = 0
	}
	check("cannot_tell_by_variant", m.CannotTellByVariant, ct)

	p := m.Nouls.PayeeMatches
	check("payee positives/negatives", [2]int{p.Positives, p.Negatives}, [2]int{6, 1})
	check("payee roc_auc", p.ROCAUC, f(1))
	check("payee ece", p.ECE, f(0.11428571428571425))
	check("payee bins", nonEmptyBins(p), []string{"[0.1,0.2) n1 0.1/0", "[0.8,0.9) n1 0.8/1", "[0.9,1] n5 0.9/1"})
	a := m.Nouls.AmountsMatch
	check("amounts positives/negatives", [2]int{a.Positives, a.Negatives}, [2]int{5, 2})
	check("amounts roc_auc", a.ROCAUC, f(1))
	check("amounts ece", a.ECE, f(0.12857142857142856))
	check("amounts bins", nonEmptyBins(a), []string{"[0.1,0.2) n1 0.1/0", "[0.2,0.3) n1 0.2/0", "[0.8,0.9) n1 0.8/1", "[0.9,1] n4 0.9/1"})

	var means []string
	for _, e := range m.ScoreByVariant {
		means = append(means, fmt.Sprintf("%s %d %v %v", e.Name, e.Value.Count, *e.Value.Mean, e.Value.Distribution))
	}
	check("score_by_variant", means, []string{
		"clean 1 4 [0 0 0 0 1]", "payee_changed 1 4 [0 0 0 0 1]", "written_amount_changed 1 4 [0 0 0 0 1]",
		"both_amounts_changed 1 4 [0 0 0 0 1]", "wrong_date 1 4 [0 0 0 0 1]", "unsigned 1 3 [0 0 0 1 0]",
		"low_legibility 1 1 [0 1 0 0 0]"})
	check("legibility_gap_clean_minus_low", m.LegibilityGapCleanMinusLow, f(3))
	check("noul_choice_agreement", m.NoulChoiceAgreement, Agreement{Rate: f(1), Counted: 6, ExcludedCannotTell: 1})
	check("mean_latency_seconds", m.MeanLatencySeconds, f(0.5))
	check("confidence_note", m.ConfidenceNote, confidenceNote)
	check("warnings", m.Warnings, []error(nil))

	// Metrics over the records gives the same block, with the rounded-latency warning.
	records, err := records(rightOutcomes(t, rightAnswers()))
	if err != nil {
		t.Fatal(err)
	}
	fromRecords, err := recordMetrics(records)
	if err != nil {
		t.Fatal(err)
	}
	if len(fromRecords.Warnings) != 1 || !errors.Is(fromRecords.Warnings[0], errRoundedLatencies) {
		t.Errorf("Metrics(records).Warnings = %v, want ErrRoundedLatencies", fromRecords.Warnings)
	}
	fromRecords.Warnings = nil
	check("Metrics(records)", fromRecords, m)
}

func fmtAny(v any) string {
	if p, ok := v.(*float64); ok {
		return fmt.Sprint(ptrText(p))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// nonEmptyBins renders the non-empty bins as "[lower,upper) nCount mean/fraction".
func nonEmptyBins(s NoulSummary) []string {
	var out []string
	for _, b := range s.Reliability {
		if b.Count == 0 {
			continue
		}
		closer := ")"
		if b.Upper == 1 {
			closer = "]"
		}
		out = append(out, fmt.Sprintf("[%v,%v%s n%d %v/%v", b.Lower, b.Upper, closer, b.Count, *b.MeanConfidence, *b.FractionTrue))
	}
	return out
}

func TestMetricsRightVariants(t *testing.T) {
	t.Run("answers 1 and 4 cleared", func(t *testing.T) {
		answers := rightAnswers()
		answers[1] = answer{"consistent", 0.9, 0.9, 4}
		answers[4] = answer{"consistent", 0.9, 0.9, 4}
		m, err := outcomeMetrics(rightOutcomes(t, answers))
		if err != nil {
			t.Fatal(err)
		}
		get := func(o receipt.Ordered[float64], k string) float64 {
			v, ok := o.Get(k)
			if !ok {
				t.Fatalf("no key %q in %v", k, o)
			}
			return v
		}
		got := []float64{*m.FalseClearRate, get(m.FalseClearByVariant, "payee_changed"), get(m.FalseClearByVariant, "wrong_date"),
			get(m.FalseClearByVariant, "unsigned"), *m.Accuracy, get(m.AccuracyByVariant, "payee_changed"),
			get(m.AccuracyByClass, "payee_mismatch"), get(m.AccuracyByClass, "date_mismatch"),
			*m.Nouls.PayeeMatches.ROCAUC, *m.Nouls.PayeeMatches.ECE, *m.NoulChoiceAgreement.Rate}
		want := []float64{0.4, 1, 1, 0, 0.7142857142857143, 0, 0, 0, 0.4166666666666667, 0.0857142857142857, 1}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got  %v\nwant %v", got, want)
		}
		if ag := m.NoulChoiceAgreement; ag.Counted != 6 || ag.ExcludedCannotTell != 1 {
			t.Errorf("agreement = %+v, want counted 6, excluded 1", ag)
		}
	})
	t.Run("answer 1 disagrees with its Nouls", func(t *testing.T) {
		answers := rightAnswers()
		answers[1] = answer{"payee_mismatch", 0.9, 0.9, 4}
		m, err := outcomeMetrics(rightOutcomes(t, answers))
		if err != nil {
			t.Fatal(err)
		}
		if r := m.NoulChoiceAgreement.Rate; r == nil || *r != 0.8333333333333334 {
			t.Errorf("agreement rate = %v, want 0.8333333333333334 (5/6)", ptrText(r))
		}
	})
}

func TestMetricsNoOutcomes(t *testing.T) {
	for name, compute := range map[string]func() (MetricsBlock, error){
		"OutcomeMetrics": func() (MetricsBlock, error) { return outcomeMetrics(nil) },
		"Metrics":        func() (MetricsBlock, error) { return recordMetrics(nil) },
	} {
		t.Run(name, func(t *testing.T) {
			m, err := compute()
			if err != nil {
				t.Fatal(err)
			}
			nulls := map[string]*float64{"accuracy": m.Accuracy, "false_clear_rate": m.FalseClearRate,
				"cannot_tell_rate": m.CannotTellRate, "payee roc_auc": m.Nouls.PayeeMatches.ROCAUC,
				"payee ece": m.Nouls.PayeeMatches.ECE, "amounts roc_auc": m.Nouls.AmountsMatch.ROCAUC,
				"amounts ece": m.Nouls.AmountsMatch.ECE, "legibility_gap_clean_minus_low": m.LegibilityGapCleanMinusLow,
				"mean_latency_seconds": m.MeanLatencySeconds, "agreement rate": m.NoulChoiceAgreement.Rate}
			for k, v := range nulls {
				if v != nil {
					t.Errorf("%s = %v, want null", k, *v)
				}
			}
			if m.Cases != 0 || m.FalseClearCases != 0 || m.Nouls.PayeeMatches.Positives != 0 || m.Nouls.AmountsMatch.Negatives != 0 || len(m.Warnings) != 0 {
				t.Errorf("counts not zero: %+v", m)
			}
			b, err := receipt.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`"accuracy_by_class": {}`, `"accuracy_by_variant": {}`, `"false_clear_by_variant": {}`,
				`"cannot_tell_by_variant": {}`, `"score_by_variant": {}`, `"rate": null`} {
				if !bytes.Contains(b, []byte(want)) {
					t.Errorf("JSON lacks %s", want)
				}
			}
			if n := bytes.Count(b, []byte(`"mean_confidence": null`)); n != 20 {
				t.Errorf("%d empty bins in JSON, want 20 (10 per Noul)", n)
			}
		})
	}
}

func TestMetricsErrors(t *testing.T) {
	base, err := records(rightOutcomes(t, rightAnswers()))
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	tests := []struct {
		name   string
		edit   func(r *CaseRecord)
		want   string
		reason string
	}{
		{name: "unknown verdict", edit: func(r *CaseRecord) { r.Verdict = "maybe" },
			want: "case r00:payee_changed: unknown verdict label: maybe"},
		{name: "unknown variant", edit: func(r *CaseRecord) { r.Variant = "smudged" },
			want: `case r00:payee_changed: unknown check-match variant: "smudged"`},
		{name: "correct disagrees", edit: func(r *CaseRecord) { r.Correct = false },
			want:   `case r00:payee_changed: correct is false but verdict "payee_mismatch" with expected_verdicts ["payee_mismatch"] gives true`,
			reason: "a record must agree with itself; a changed flag would change accuracy silently"},
		{name: "agreement disagrees", edit: func(r *CaseRecord) { r.NoulChoiceAgreement = nil },
			want: "case r00:payee_changed: noul_choice_agreement is null but the verdict and confidences give true"},
		{name: "agreement on cannot_tell", edit: func(r *CaseRecord) {
			r.Verdict, r.ExpectedVerdicts, r.Correct, r.NoulChoiceAgreement = "cannot_tell", []string{"cannot_tell"}, true, &yes
		}, want: "case r00:payee_changed: noul_choice_agreement is true but the verdict and confidences give null"},
		{name: "confidence", edit: func(r *CaseRecord) { r.PayeeConfidence, r.NoulChoiceAgreement = 1.25, new(bool) },
			want: "case r00:payee_changed: payee_confidence: confidence 1.25 is not in [0, 1]"},
		{name: "nan confidence", edit: func(r *CaseRecord) { r.AmountsConfidence = math.NaN() },
			want: "case r00:payee_changed: amounts_confidence: confidence nan is not in [0, 1]"},
		{name: "level", edit: func(r *CaseRecord) { r.LegibilityLevel = 5 },
			want: "case r00:payee_changed: legibility_level: level 5 is not in 0..4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			records := append([]CaseRecord(nil), base...)
			tt.edit(&records[1])
			if _, err := recordMetrics(records); err == nil || err.Error() != tt.want {
				t.Errorf("Metrics error = %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestMetricsRightGolden compares the _RIGHT metrics block, as the receipt
// writer serialises it, with testdata/metrics_right.golden.
func TestMetricsRightGolden(t *testing.T) {
	m, err := outcomeMetrics(rightOutcomes(t, rightAnswers()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := receipt.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, "testdata/metrics_right.golden", got)
}

// typevetReceipt is the path of the real 140-case vLLM receipt.
const typevetReceipt = "testdata/receipt_typevet/check_match_vllm_receipt.json"

// loadTypevetParts decodes the metrics and cases of the real receipt
// straight from JSON, independent of ReadReceipt.
func loadTypevetParts(t testing.TB) (MetricsBlock, []CaseRecord) {
	t.Helper()
	b, err := os.ReadFile(typevetReceipt)
	if err != nil {
		t.Fatal(err)
	}
	var parts struct {
		Metrics MetricsBlock `json:"metrics"`
		Cases   []CaseRecord `json:"cases"`
	}
	if err := json.Unmarshal(b, &parts); err != nil {
		t.Fatal(err)
	}
	if len(parts.Cases) != 140 {
		t.Fatalf("%d cases, want 140", len(parts.Cases))
	}
	return parts.Metrics, parts.Cases
}

// TestMetricsReproduceTypevetReceipt is the key test: the metrics recomputed
// from the 140 cases of typevet's real vLLM receipt equal every recorded
// metric, floats bit for bit, except mean_latency_seconds, which typevet
// took over unrounded latencies the receipt does not keep (within 5e-4 s).
func TestMetricsReproduceTypevetReceipt(t *testing.T) {
	recorded, cases := loadTypevetParts(t)
	got, err := recordMetrics(cases)
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(*got.MeanLatencySeconds - *recorded.MeanLatencySeconds); d > 5e-4 {
		t.Errorf("mean_latency_seconds = %v, recorded %v: %v apart, want within 5e-4", *got.MeanLatencySeconds, *recorded.MeanLatencySeconds, d)
	}
	got.MeanLatencySeconds, recorded.MeanLatencySeconds = nil, nil
	got.Warnings = nil
	var c bitComparer
	c.compare("metrics", reflect.ValueOf(got), reflect.ValueOf(recorded))
	for _, d := range c.diffs {
		t.Error(d)
	}
	// Guard against a vacuous comparison: the block holds 89 floats (28 rates
	// and accuracies, per Noul roc_auc, ece, 10 bin edges pairs and the
	// non-empty bins' mean and fraction, 7 score means, the gap and the
	// agreement rate).
	if c.floats != 89 {
		t.Errorf("compared %d floats, want 89", c.floats)
	}
	t.Logf("compared %d floats bit for bit and %d other values", c.floats, c.others)

	// The compensated sum matters: a plain left-to-right mean misses the
	// recorded score mean of most variants.
	plainMisses := 0
	for _, e := range recorded.ScoreByVariant {
		s, n := 0.0, 0
		for _, r := range cases {
			if string(r.Variant) == e.Name {
				s += r.LegibilityScore
				n++
			}
		}
		if s/float64(n) != *e.Value.Mean {
			plainMisses++
		}
	}
	if plainMisses == 0 {
		t.Error("a plain sum reproduced every score mean; the test no longer shows the Python 3.12 sum is needed")
	}
}

// bitComparer walks two values of the same type and records every
// difference; floats compare by their bits.
type bitComparer struct {
	diffs          []string
	floats, others int
}

func (c *bitComparer) compare(path string, a, b reflect.Value) {
	switch a.Kind() {
	case reflect.Float64:
		c.floats++
		if math.Float64bits(a.Float()) != math.Float64bits(b.Float()) {
			c.diffs = append(c.diffs, fmt.Sprintf("%s = %v (%#x), recorded %v (%#x)", path, a.Float(), math.Float64bits(a.Float()), b.Float(), math.Float64bits(b.Float())))
		}
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				c.diffs = append(c.diffs, fmt.Sprintf("%s: nil %v, recorded nil %v", path, a.IsNil(), b.IsNil()))
			}
			return
		}
		c.compare(path, a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			field := a.Type().Field(i)
			name := strings.Split(field.Tag.Get("json"), ",")[0]
			if name == "-" {
				continue
			}
			if field.Name == "Name" && a.Type().Name() != "" && strings.HasPrefix(a.Type().Name(), "Entry") {
				name = "(key)"
			}
			c.compare(path+"."+name, a.Field(i), b.Field(i))
		}
	case reflect.Slice:
		if a.Len() != b.Len() {
			c.diffs = append(c.diffs, fmt.Sprintf("%s: %d elements, recorded %d", path, a.Len(), b.Len()))
			return
		}
		for i := range a.Len() {
			c.compare(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
		}
	default:
		c.others++
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			c.diffs = append(c.diffs, fmt.Sprintf("%s = %v, recorded %v", path, a.Interface(), b.Interface()))
		}
	}
}

// BenchmarkMetrics140 measures Metrics over the 140 records of the real
// receipt (one full slice).
func BenchmarkMetrics140(b *testing.B) {
	_, cases := loadTypevetParts(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := recordMetrics(cases); err != nil {
			b.Fatal(err)
		}
	}
}

// Metrics over three judged cases: the judge cleared the changed payee, so
// one of the two counted cases is a false clear.
func ExampleMetrics() {
	expected := func(v Variant) Expected { return ExpectedLabels(v) }
	outcomes := []Outcome{
		{CaseID: "r00:clean", Variant: VariantClean, Expected: expected(VariantClean),
			Verdict: "consistent", PayeeConfidence: 0.97, AmountsConfidence: 0.95, LegibilityScore: 3.9, LegibilityLevel: 4},
		{CaseID: "r00:payee_changed", Variant: variantPayeeChanged, Expected: expected(variantPayeeChanged),
			Verdict: "consistent", PayeeConfidence: 0.62, AmountsConfidence: 0.96, LegibilityScore: 3.8, LegibilityLevel: 4},
		{CaseID: "r00:wrong_date", Variant: variantWrongDate, Expected: expected(variantWrongDate),
			Verdict: "date_mismatch", PayeeConfidence: 0.94, AmountsConfidence: 0.93, LegibilityScore: 4, LegibilityLevel: 4},
	}
	records, err := records(outcomes)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := recordMetrics(records)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("accuracy:", *m.Accuracy)
	fmt.Println("false_clear_rate:", *m.FalseClearRate, "of", m.FalseClearCases, "cases")
	fmt.Println("payee roc_auc:", *m.Nouls.PayeeMatches.ROCAUC)
	// Output:
	// accuracy: 0.6666666666666666
	// false_clear_rate: 0.5 of 2 cases
	// payee roc_auc: 1
}
