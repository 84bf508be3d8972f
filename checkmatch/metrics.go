package checkmatch

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/typevet/typevet-go/internal/pyjson"
	"github.com/typevet/typevet-go/internal/pymath"
	"github.com/typevet/typevet-go/receipt"
)

// confidenceNote is the fixed text of the metrics block's confidence_note.
const confidenceNote = "Noul values are model confidence, not calibrated match percentages. The checks are generated; the results are not evidence about real checks. VOID crosses the signature line on every render, including unsigned."

// ReliabilityBins is the number of equal-width bins of a reliability table.
const ReliabilityBins = 10

// LegibilityLevels is the number of levels of the legibility Score (0..4).
const LegibilityLevels = 5

// errRoundedLatencies is the warning recordMetrics attaches when it averages the
// latencies of receipt records, which are rounded to 3 decimals: the mean
// then matches the run's own mean_latency_seconds (taken over the unrounded
// latencies) only to within 5e-4 s.
var errRoundedLatencies = errors.New("mean_latency_seconds is the mean of latencies rounded to 3 decimals; the run's value, over unrounded latencies, may differ by up to 5e-4 s")

// MetricsBlock is the "metrics" block of a check-match receipt:
// its fields, in order, are the block's keys. Values are bit for bit what
// typevet's Python 3.12 code computes from the same cases. A rate is null
// (nil) when no case counts toward it.
type MetricsBlock struct {
	// Cases is the number of judged cases.
	Cases int `json:"cases"`
	// Accuracy is the share of cases whose verdict is accepted; null when
	// there are no cases.
	Accuracy *float64 `json:"accuracy"`
	// AccuracyByClass is the accuracy per class ([ClassKey]: the accepted
	// verdicts joined with "|"), keys sorted ascending.
	AccuracyByClass receipt.Ordered[float64] `json:"accuracy_by_class"`
	// AccuracyByVariant is the accuracy per variant, keys sorted
	// alphabetically (not in enum order).
	AccuracyByVariant receipt.Ordered[float64] `json:"accuracy_by_variant"`
	// FalseClearRate is the share of counted cases answered "consistent"
	// (typevet's false_clear_rate): the mismatch and unsigned cases a
	// judge cleared.
	// null when no case counts.
	FalseClearRate *float64 `json:"false_clear_rate"`
	// FalseClearCases is the number of cases that count for the false-clear
	// rate (100 in a full 20-row slice).
	FalseClearCases int `json:"false_clear_cases"`
	// FalseClearByVariant is the false-clear rate per variant, in enum
	// order, leaving out variants where no case counts (clean and
	// low_legibility never count).
	FalseClearByVariant receipt.Ordered[float64] `json:"false_clear_by_variant"`
	// CannotTellRate is the share of verdicts equal to cannot_tell; null
	// when there are no cases.
	CannotTellRate *float64 `json:"cannot_tell_rate"`
	// CannotTellByVariant is the cannot_tell share per variant, in enum
	// order, for the variants present.
	CannotTellByVariant receipt.Ordered[float64] `json:"cannot_tell_by_variant"`
	// Nouls scores the two Noul questions against the truth of each case.
	Nouls NoulsBlock `json:"nouls"`
	// ScoreByVariant summarises the legibility Score per variant, in enum
	// order, for the variants present.
	ScoreByVariant receipt.Ordered[ScoreSummary] `json:"score_by_variant"`
	// LegibilityGapCleanMinusLow is the clean mean legibility score minus
	// the low_legibility mean; null when either group is missing.
	LegibilityGapCleanMinusLow *float64 `json:"legibility_gap_clean_minus_low"`
	// NoulChoiceAgreement is how often the verdict agrees with the Nouls.
	NoulChoiceAgreement Agreement `json:"noul_choice_agreement"`
	// MeanLatencySeconds is the mean client latency per judgment; null when
	// there are no cases. A run averages the unrounded latencies
	// ([BuildReceipt]); [Receipt.Recompute] over receipt records can only
	// average the rounded ones, and says so in Warnings.
	MeanLatencySeconds *float64 `json:"mean_latency_seconds"`
	// ConfidenceNote is always the same text: "Noul values are model
	// confidence, not calibrated match percentages. …"
	ConfidenceNote string `json:"confidence_note"`

	// Warnings lists doubts about the values that did not stop the
	// computation, such as the note that a mean over rounded latencies
	// differs from the run's. Not part of the receipt.
	Warnings []error `json:"-"`
}

// NoulsBlock holds the per-Noul blocks, in typevet's key order.
type NoulsBlock struct {
	// PayeeMatches scores payee_confidence against payee_truth.
	PayeeMatches NoulSummary `json:"payee_matches"`
	// AmountsMatch scores amounts_confidence against amounts_truth.
	AmountsMatch NoulSummary `json:"amounts_match"`
}

// NoulSummary scores one Noul's confidences against the truth.
type NoulSummary struct {
	// Positives is the number of cases whose truth is true.
	Positives int `json:"positives"`
	// Negatives is the number of cases whose truth is false.
	Negatives int `json:"negatives"`
	// ROCAUC is the Mann–Whitney area under the ROC curve with average
	// ranks for ties (a tie between a true and a false case counts ½); null
	// when there are no positives or no negatives.
	ROCAUC *float64 `json:"roc_auc"`
	// ECE is the expected calibration error over the reliability bins: Σ
	// count·|mean_confidence − fraction_true| / cases; null when there are
	// no cases.
	ECE *float64 `json:"ece"`
	// Reliability is the reliability table: always [ReliabilityBins] bins.
	Reliability []ReliabilityBin `json:"reliability"`
}

// ReliabilityBin is one bin of a reliability table. Bin i holds confidences
// in [i/10, (i+1)/10); the last bin also holds 1.0.
type ReliabilityBin struct {
	// Lower is the bin's lower edge, i/10 (computed by division).
	Lower float64 `json:"lower"`
	// Upper is the bin's upper edge, (i+1)/10.
	Upper float64 `json:"upper"`
	// Count is the number of confidences in the bin.
	Count int `json:"count"`
	// MeanConfidence is the mean confidence in the bin; null when empty.
	MeanConfidence *float64 `json:"mean_confidence"`
	// FractionTrue is the share of the bin's cases whose truth is true;
	// null when empty.
	FractionTrue *float64 `json:"fraction_true"`
}

// ScoreSummary summarises Score answers.
type ScoreSummary struct {
	// Count is the number of answers.
	Count int `json:"count"`
	// Mean is the mean score; null when there are none.
	Mean *float64 `json:"mean"`
	// Distribution counts the answers at each most probable level; every
	// level is present, written {"0": k0, …, "4": k4}.
	Distribution ByLevel[int] `json:"distribution"`
}

// Agreement summarises Noul–Choice agreement.
type Agreement struct {
	// Rate is the share of counted cases that agree; null when none count.
	Rate *float64 `json:"rate"`
	// Counted is the number of cases with a verdict other than cannot_tell.
	Counted int `json:"counted"`
	// ExcludedCannotTell is the number of cannot_tell verdicts.
	ExcludedCannotTell int `json:"excluded_cannot_tell"`
}

// LengthError reports inputs that must have equal length but do not. Its
// message is typevet's: "inputs must have equal length: 1 != 0".
type LengthError struct {
	// A and B are the two lengths.
	A, B int
}

// Error returns "inputs must have equal length: <A> != <B>", typevet's
// message.
func (e *LengthError) Error() string {
	return fmt.Sprintf("inputs must have equal length: %d != %d", e.A, e.B)
}

func checkLengths(a, b int) error {
	if a != b {
		return &LengthError{A: a, B: b}
	}
	return nil
}

// ratio returns num/den as typevet's Python does (int / int, correctly
// rounded), or nil when den is 0.
func ratio(num, den int) *float64 {
	if den == 0 {
		return nil
	}
	r := float64(num) / float64(den)
	return &r
}

// mean returns Python's sum(xs) / len(xs) (3.12 compensated sum), or nil
// for no values.
func mean(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	m := pymath.Sum(xs) / float64(len(xs))
	return &m
}

// accuracyByGroup returns right/total per key, keys sorted ascending.
// keys and correct must have equal length (*LengthError).
func accuracyByGroup(keys []string, correct []bool) (receipt.Ordered[float64], error) {
	if err := checkLengths(len(keys), len(correct)); err != nil {
		return nil, err
	}
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make(receipt.Ordered[float64], len(sorted))
	for i, k := range sorted {
		right, total := 0, 0
		for j, key := range keys {
			if key == k {
				total++
				if correct[j] {
					right++
				}
			}
		}
		out[i] = receipt.Entry[float64]{Name: k, Value: *ratio(right, total)}
	}
	return out, nil
}

// countsForFalseClear reports whether a case counts toward the false-clear
// rate: its flag is set and "consistent" is not an accepted verdict.
func countsForFalseClear(e Expected) bool {
	return e.CountsForFalseClear && !slices.Contains(e.Verdicts, VerdictConsistent)
}

// falseClearRate returns the share of counting cases whose verdict is
// exactly "consistent", and the number of counting cases. A case
// counts when its CountsForFalseClear flag is set and "consistent" is not
// accepted, so clean and low_legibility cases never count. The rate is nil
// when no case counts. verdicts and expected must have equal length.
func falseClearRate(verdicts []string, expected []Expected) (*float64, int, error) {
	if err := checkLengths(len(verdicts), len(expected)); err != nil {
		return nil, 0, err
	}
	cleared, counted := 0, 0
	for i, e := range expected {
		if countsForFalseClear(e) {
			counted++
			if verdicts[i] == VerdictConsistent {
				cleared++
			}
		}
	}
	return ratio(cleared, counted), counted, nil
}

// summarizeAgreement summarises per-case agreements (noulChoiceAgreement):
// nil entries (cannot_tell) are excluded from the rate and counted apart.
func summarizeAgreement(agreements []*bool) Agreement {
	agree, counted := 0, 0
	for _, a := range agreements {
		if a != nil {
			counted++
			if *a {
				agree++
			}
		}
	}
	return Agreement{Rate: ratio(agree, counted), Counted: counted, ExcludedCannotTell: len(agreements) - counted}
}

// summarizeScores returns the count, mean score and level distribution of
// Score answers with nLevels levels. scores and levels must have
// equal length; a level outside 0..nLevels-1 is an error ("level 5 is not in
// 0..4").
func summarizeScores(scores []float64, levels []int, nLevels int) (ScoreSummary, error) {
	if err := checkLengths(len(scores), len(levels)); err != nil {
		return ScoreSummary{}, err
	}
	dist := make(ByLevel[int], nLevels)
	for _, l := range levels {
		if l < 0 || l >= nLevels {
			return ScoreSummary{}, fmt.Errorf("level %d is not in 0..%d", l, nLevels-1)
		}
		dist[l]++
	}
	return ScoreSummary{Count: len(scores), Mean: mean(scores), Distribution: dist}, nil
}

// legibilityGap returns the clean mean score minus the low_legibility mean
// score from a score_by_variant block; nil when either group or its mean is
// missing.
func legibilityGap(byVariant receipt.Ordered[ScoreSummary]) *float64 {
	clean, ok1 := byVariant.Get(string(VariantClean))
	low, ok2 := byVariant.Get(string(VariantLowLegibility))
	if !ok1 || !ok2 || clean.Mean == nil || low.Mean == nil {
		return nil
	}
	gap := *clean.Mean - *low.Mean
	return &gap
}

// SummarizeNoul scores Noul confidences against the truth:
// positives, negatives, ROC-AUC, ECE and the reliability table.
// confidences and truth must have equal length, and every confidence must be
// in [0, 1] ("confidence 1.5 is not in [0, 1]"; NaN fails too).
func SummarizeNoul(confidences []float64, truth []bool) (NoulSummary, error) {
	if err := checkLengths(len(confidences), len(truth)); err != nil {
		return NoulSummary{}, err
	}
	for _, p := range confidences {
		if err := checkConfidence(p); err != nil {
			return NoulSummary{}, err
		}
	}
	pos := 0
	for _, t := range truth {
		if t {
			pos++
		}
	}
	bins := reliability(confidences, truth)
	s := NoulSummary{
		Positives:   pos,
		Negatives:   len(truth) - pos,
		ROCAUC:      rocAUC(confidences, truth, pos),
		Reliability: bins,
	}
	if len(confidences) > 0 {
		e := ece(bins, len(confidences))
		s.ECE = &e
	}
	return s, nil
}

// checkConfidence refuses a confidence outside [0, 1], NaN included, with
// typevet's message (the value in Python's repr).
func checkConfidence(p float64) error {
	if !(p >= 0 && p <= 1) {
		return fmt.Errorf("confidence %s is not in [0, 1]", pyjson.FormatFloat(p))
	}
	return nil
}

// rocAUC is the Mann–Whitney ROC-AUC with average ranks, nil without
// positives or negatives. Ranks come from a stable argsort
// (gonum floats.ArgsortStable); each run of equal confidences at sorted
// positions start..end gets rank (start+end)/2 + 1. The ranks are
// half-integers, so their sum is exact in any order; Python's sum is used
// anyway, as typevet does.
func rocAUC(confidences []float64, truth []bool, pos int) *float64 {
	n := len(confidences)
	neg := n - pos
	if pos == 0 || neg == 0 {
		return nil
	}
	sorted := slices.Clone(confidences)
	order := make([]int, n)
	floats.ArgsortStable(sorted, order)
	ranks := make([]float64, n)
	for start := 0; start < n; {
		end := start
		for end+1 < n && sorted[end+1] == sorted[start] {
			end++
		}
		r := float64(start+end)/2 + 1
		for k := start; k <= end; k++ {
			ranks[order[k]] = r
		}
		start = end + 1
	}
	trueRanks := ranks[:0] // reuse: each index i is read before it is overwritten
	for i, t := range truth {
		if t {
			trueRanks = append(trueRanks, ranks[i])
		}
	}
	u := pymath.Sum(trueRanks) - float64(pos*(pos+1))/2
	auc := u / float64(pos*neg)
	return &auc
}

// binIndex is min(int(p*10), 9): the product is rounded to float64 first
// (0.7*10 is 7.000000000000001, 0.3*10 is 3.0000000000000004) and then
// truncated, as Python does.
func binIndex(p float64) int {
	return min(int(float64(p*10)), ReliabilityBins-1)
}

// reliability builds the 10-bin reliability table of validated confidences.
func reliability(confidences []float64, truth []bool) []ReliabilityBin {
	var members [ReliabilityBins][]float64
	var trues [ReliabilityBins]int
	for i, p := range confidences {
		b := binIndex(p)
		members[b] = append(members[b], p)
		if truth[i] {
			trues[b]++
		}
	}
	bins := make([]ReliabilityBin, ReliabilityBins)
	for i := range bins {
		bins[i] = ReliabilityBin{
			Lower:          float64(i) / ReliabilityBins,
			Upper:          float64(i+1) / ReliabilityBins,
			Count:          len(members[i]),
			MeanConfidence: mean(members[i]),
			FractionTrue:   ratio(trues[i], len(members[i])),
		}
	}
	return bins
}

// ece is Σ count·|mean_confidence − fraction_true| over the non-empty bins in
// bin order (Python sum), divided by the total count.
func ece(bins []ReliabilityBin, total int) float64 {
	terms := make([]float64, 0, len(bins))
	for _, b := range bins {
		if b.Count > 0 {
			terms = append(terms, float64(float64(b.Count)*math.Abs(*b.MeanConfidence-*b.FractionTrue)))
		}
	}
	return pymath.Sum(terms) / float64(total)
}

// recordMetrics computes the metrics block from receipt case records, as
// typevet computes it from outcomes. A run and [Receipt.Recompute] share this code:
// a run converts its outcomes to records first (outcomeMetrics).
//
// Each record's own fields are the input: expected_verdicts, payee_truth and
// amounts_truth as recorded, and whether it counts for false clear from its
// variant (the one input a record does not store). correct and
// noul_choice_agreement are recomputed, and a record whose stored value
// disagrees with its own verdict and confidences is an error, as is an
// unknown variant or verdict label or a confidence outside [0, 1]; errors
// name the case.
//
// mean_latency_seconds is the mean of the records' latencies, which are
// rounded to 3 decimals, and Warnings holds errRoundedLatencies.
func recordMetrics(records []CaseRecord) (MetricsBlock, error) {
	return metrics(records, nil)
}

// outcomeMetrics computes the metrics block of a run: recordMetrics over the
// outcomes' records (records), except that mean_latency_seconds is taken
// over the unrounded latencies, as typevet's run does (so no
// errRoundedLatencies warning).
func outcomeMetrics(outcomes []Outcome) (MetricsBlock, error) {
	records, err := records(outcomes)
	if err != nil {
		return MetricsBlock{}, err
	}
	latencies := make([]float64, len(outcomes))
	for i, o := range outcomes {
		latencies[i] = o.Latency
	}
	return metrics(records, latencies)
}

// metrics is Metrics with the latencies to average: the records' rounded
// ones when latencies is nil.
func metrics(records []CaseRecord, unrounded []float64) (MetricsBlock, error) {
	n := len(records)
	var (
		correct         = make([]bool, n)
		classes         = make([]string, n)
		variants        = make([]string, n)
		verdicts        = make([]string, n)
		expected        = make([]Expected, n)
		agreements      = make([]*bool, n)
		payee, amounts  = make([]float64, n), make([]float64, n)
		payeeT, amountT = make([]bool, n), make([]bool, n)
		latencies       = make([]float64, n)
		groups          = make(map[Variant][]int)
	)
	// The false-clear flag of each variant, looked up once.
	counts := make(map[Variant]bool, VariantsPerRow)
	for _, v := range Variants() {
		counts[v] = ExpectedLabels(v).CountsForFalseClear
	}
	for i, r := range records {
		v, e, ok, agree, err := checkRecord(r, counts)
		if err != nil {
			return MetricsBlock{}, fmt.Errorf("case %s: %w", r.CaseID, err)
		}
		correct[i], classes[i], variants[i], verdicts[i], expected[i] = ok, ClassKey(e), string(v), r.Verdict, e
		agreements[i] = agree
		payee[i], amounts[i], payeeT[i], amountT[i] = r.PayeeConfidence, r.AmountsConfidence, r.PayeeTruth, r.AmountsTruth
		latencies[i] = r.LatencySeconds
		groups[v] = append(groups[v], i)
	}

	m := MetricsBlock{
		Cases:               n,
		FalseClearByVariant: receipt.Ordered[float64]{},
		CannotTellByVariant: receipt.Ordered[float64]{},
		ScoreByVariant:      receipt.Ordered[ScoreSummary]{},
		ConfidenceNote:      confidenceNote,
	}
	right := 0
	for _, c := range correct {
		if c {
			right++
		}
	}
	m.Accuracy = ratio(right, n)
	m.AccuracyByClass, _ = accuracyByGroup(classes, correct)    // lengths equal by construction
	m.AccuracyByVariant, _ = accuracyByGroup(variants, correct) // lengths equal by construction
	m.FalseClearRate, m.FalseClearCases, _ = falseClearRate(verdicts, expected)
	m.CannotTellRate = cannotTellRate(verdicts, nil)
	// Confidences, levels and lengths were checked above, so the summaries
	// below cannot fail.
	m.Nouls.PayeeMatches, _ = SummarizeNoul(payee, payeeT)
	m.Nouls.AmountsMatch, _ = SummarizeNoul(amounts, amountT)
	for _, v := range Variants() {
		idx := groups[v]
		if len(idx) == 0 {
			continue
		}
		gv := make([]string, len(idx))
		ge := make([]Expected, len(idx))
		scores := make([]float64, len(idx))
		levels := make([]int, len(idx))
		for j, i := range idx {
			gv[j], ge[j] = verdicts[i], expected[i]
			scores[j], levels[j] = records[i].LegibilityScore, records[i].LegibilityLevel
		}
		if rate, _, _ := falseClearRate(gv, ge); rate != nil {
			m.FalseClearByVariant = append(m.FalseClearByVariant, receipt.Entry[float64]{Name: string(v), Value: *rate})
		}
		m.CannotTellByVariant = append(m.CannotTellByVariant, receipt.Entry[float64]{Name: string(v), Value: *cannotTellRate(verdicts, idx)})
		summary, _ := summarizeScores(scores, levels, LegibilityLevels)
		m.ScoreByVariant = append(m.ScoreByVariant, receipt.Entry[ScoreSummary]{Name: string(v), Value: summary})
	}
	m.LegibilityGapCleanMinusLow = legibilityGap(m.ScoreByVariant)
	m.NoulChoiceAgreement = summarizeAgreement(agreements)
	if unrounded != nil {
		m.MeanLatencySeconds = mean(unrounded)
	} else {
		m.MeanLatencySeconds = mean(latencies)
		if n > 0 {
			m.Warnings = []error{errRoundedLatencies}
		}
	}
	return m, nil
}

// checkRecord validates one record and derives what the metrics need: its
// variant, its expected labels (as recorded, plus the variant's false-clear
// flag from counts, which holds every known variant), and correct and agreement recomputed and checked against the
// recorded values.
func checkRecord(r CaseRecord, counts map[Variant]bool) (v Variant, e Expected, correct bool, agree *bool, err error) {
	v = r.Variant
	countsForFalseClear, known := counts[v]
	if !known {
		_, err = ParseVariant(string(v)) // the error names the variant
		return
	}
	for _, c := range []struct {
		name string
		p    float64
	}{{"payee_confidence", r.PayeeConfidence}, {"amounts_confidence", r.AmountsConfidence}} {
		if err = checkConfidence(c.p); err != nil {
			err = fmt.Errorf("%s: %w", c.name, err)
			return
		}
	}
	if l := r.LegibilityLevel; l < 0 || l >= LegibilityLevels {
		err = fmt.Errorf("legibility_level: level %d is not in 0..%d", l, LegibilityLevels-1)
		return
	}
	e = Expected{
		Verdicts:            r.ExpectedVerdicts,
		PayeeTruth:          r.PayeeTruth,
		AmountsTruth:        r.AmountsTruth,
		CountsForFalseClear: countsForFalseClear,
	}
	if correct, err = verdictCorrect(r.Verdict, e); err != nil {
		return
	}
	if correct != r.Correct {
		err = fmt.Errorf("correct is %t but verdict %q with expected_verdicts %q gives %t", r.Correct, r.Verdict, r.ExpectedVerdicts, correct)
		return
	}
	if agree, err = noulChoiceAgreement(r.Verdict, r.PayeeConfidence, r.AmountsConfidence); err != nil {
		return
	}
	if !sameAgreement(agree, r.NoulChoiceAgreement) {
		err = fmt.Errorf("noul_choice_agreement is %s but the verdict and confidences give %s", triState(r.NoulChoiceAgreement), triState(agree))
	}
	return
}

// cannotTellRate is the share of cannot_tell verdicts among verdicts[idx]
// (all verdicts when idx is nil); nil when there are none.
func cannotTellRate(verdicts []string, idx []int) *float64 {
	if idx == nil {
		idx = make([]int, len(verdicts))
		for i := range idx {
			idx[i] = i
		}
	}
	k := 0
	for _, i := range idx {
		if verdicts[i] == VerdictCannotTell {
			k++
		}
	}
	return ratio(k, len(idx))
}

func sameAgreement(a, b *bool) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func triState(a *bool) string {
	if a == nil {
		return "null"
	}
	if *a {
		return "true"
	}
	return "false"
}
