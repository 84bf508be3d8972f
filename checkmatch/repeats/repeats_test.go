package repeats

import (
	"bytes"
	"encoding/json"
	"github.com/typevet/typevet-go/internal/golden"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/internal/resample"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
)

// repeatFixture is the fixture receipt of typevet's repeat unit tests:
// commit c0ffee, code digests runner aaaa and metrics bbbb,
// wall 10.0, four cases with verdicts consistent, payee_mismatch, unsigned,
// consistent and the given correct flags, payee ECE e. typevet's fixture
// has legibility probabilities {"0": 0.1, "4": 0.9}; a Go receipt holds
// every level, so levels 1..3 are 0 here, which changes no result.
func repeatFixture(correct [4]bool, e float64) checkmatch.Receipt {
	verdicts := [4]string{checkmatch.VerdictConsistent, checkmatch.VerdictPayeeMismatch, checkmatch.VerdictUnsigned, checkmatch.VerdictConsistent}
	r := checkmatch.Receipt{
		Issue:       receiptIssue,
		WallSeconds: 10.0,
		Identity: receipt.Identity{
			BaselineCommit:  "c0ffee",
			CodePathDigests: receipt.Digests{{Name: "runner", Value: "aaaa"}, {Name: "metrics", Value: "bbbb"}},
		},
	}
	right := 0
	for i := range 4 {
		if correct[i] {
			right++
		}
		r.Cases = append(r.Cases, checkmatch.CaseRecord{
			CaseID:                  "r0" + string(rune('0'+i)) + ":v",
			Verdict:                 verdicts[i],
			Correct:                 correct[i],
			VerdictProbabilities:    judgment.Probabilities{{Label: checkmatch.VerdictConsistent, P: 0.7}, {Label: checkmatch.VerdictUnsigned, P: 0.3}},
			LegibilityProbabilities: checkmatch.ByLevel[float64]{0.1, 0, 0, 0, 0.9},
			PayeeConfidence:         0.9,
			AmountsConfidence:       0.8,
		})
	}
	acc, fcr, zero := float64(right)/4, 0.0, 0.0
	r.Metrics.Accuracy = &acc
	r.Metrics.FalseClearRate = &fcr
	r.Metrics.Nouls.PayeeMatches.ECE = &e
	r.Metrics.Nouls.AmountsMatch.ECE = &zero
	return r
}

var normalCorrect = [4]bool{true, true, false, true}

func normal() checkmatch.Receipt { return repeatFixture(normalCorrect, 0.02) }

func named(rs ...checkmatch.Receipt) []NamedReceipt {
	out := make([]NamedReceipt, len(rs))
	for i, r := range rs {
		out[i] = NamedReceipt{Name: "run" + string(rune('0'+i)), Receipt: r}
	}
	return out
}

func withDigest(r checkmatch.Receipt, name, value string) checkmatch.Receipt {
	d := make(receipt.Digests, len(r.Identity.CodePathDigests))
	copy(d, r.Identity.CodePathDigests)
	for i := range d {
		if d[i].Name == name {
			d[i].Value = value
		}
	}
	r.Identity.CodePathDigests = d
	return r
}

func withVerdict(r checkmatch.Receipt, cases []int, verdict string) checkmatch.Receipt {
	r.Cases = append([]checkmatch.CaseRecord(nil), r.Cases...)
	for _, i := range cases {
		r.Cases[i].Verdict = verdict
	}
	return r
}

func TestRepeatSummaryExcludesOddDigests(t *testing.T) {
	odd := withDigest(repeatFixture(normalCorrect, 0.5), "runner", "zzzz")
	rep, err := Summary(named(odd, normal(), normal(), normal()))
	require.NoError(t, err)
	assert.Equal(t, []string{"run1", "run2", "run3"}, rep.Included)
	assert.Equal(t, []ExcludedRun{{Run: "run0", DifferingDigests: []string{"runner"}, Reason: excludedCode, DifferingPins: []string{}}}, rep.Excluded)
	b, err := json.Marshal(rep.Excluded)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "zzzz")
	ece, _ := rep.Statistics.ECE.Get(checkmatch.QuestionPayeeMatches)
	assert.Equal(t, 0.02, ece.Max, "the odd run's ECE 0.5 is left out")
	assert.False(t, rep.Runs[0].Included)
	assert.Equal(t, 0.75, *rep.Runs[0].Accuracy)
}

func TestDigestOutliers(t *testing.T) {
	tests := []struct {
		name     string
		receipts []checkmatch.Receipt
		want     map[int][]string
		reason   string
	}{
		{name: "one differs", receipts: []checkmatch.Receipt{normal(), withDigest(normal(), "metrics", "cccc"), normal()}, want: map[int][]string{1: {"metrics"}}},
		{name: "none differs", receipts: []checkmatch.Receipt{normal(), normal()}, want: map[int][]string{}},
		{name: "tie goes to the earliest", receipts: []checkmatch.Receipt{withDigest(normal(), "runner", "xxxx"), normal()}, want: map[int][]string{1: {"runner"}},
			reason: "one receipt each: the first is the reference"},
		{name: "missing name differs", receipts: func() []checkmatch.Receipt {
			r := normal()
			r.Identity.CodePathDigests = r.Identity.CodePathDigests[:1]
			return []checkmatch.Receipt{normal(), r, normal()}
		}(), want: map[int][]string{1: {"metrics"}}},
		{name: "names sorted", receipts: []checkmatch.Receipt{normal(), normal(), withDigest(withDigest(normal(), "runner", "1"), "metrics", "2")}, want: map[int][]string{2: {"metrics", "runner"}}},
		{name: "no receipts", receipts: nil, want: map[int][]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, digestOutliers(tt.receipts), tt.reason)
		})
	}
}

func TestCaseAgreement(t *testing.T) {
	for _, i := range []int{0, 2, 3} {
		got, err := caseAgreement([]checkmatch.Receipt{normal(), withVerdict(normal(), []int{i}, checkmatch.VerdictCannotTell), normal()})
		require.NoError(t, err)
		assert.Equal(t, 0.75, got, "case %d changed in the middle receipt", i)
	}
	got, err := caseAgreement([]checkmatch.Receipt{normal(), normal()})
	require.NoError(t, err)
	assert.Equal(t, 1.0, got)
	got, err = caseAgreement([]checkmatch.Receipt{normal(), withVerdict(normal(), []int{0, 3}, checkmatch.VerdictCannotTell)})
	require.NoError(t, err)
	assert.Equal(t, 0.5, got)

	short := normal()
	short.Cases = short.Cases[:3]
	_, err = caseAgreement([]checkmatch.Receipt{normal(), short})
	assert.EqualError(t, err, "case ids differ between the receipts")
	renamed := normal()
	renamed.Cases = append([]checkmatch.CaseRecord(nil), renamed.Cases...)
	renamed.Cases[1].CaseID = "r99:v"
	_, err = caseAgreement([]checkmatch.Receipt{normal(), renamed})
	assert.EqualError(t, err, "case ids differ between the receipts", "same count, other ids")
}

func TestMaxProbabilityDifference(t *testing.T) {
	changed := normal()
	changed.Cases = append([]checkmatch.CaseRecord(nil), changed.Cases...)
	changed.Cases[2].LegibilityProbabilities = checkmatch.ByLevel[float64]{0.1, 0, 0, 0, 0.875}
	got, err := MaxProbabilityDifference([]checkmatch.Receipt{normal(), changed})
	require.NoError(t, err)
	assert.InDelta(t, 0.025, got, 1e-15)

	got, err = MaxProbabilityDifference([]checkmatch.Receipt{normal(), normal(), normal()})
	require.NoError(t, err)
	assert.Equal(t, 0.0, got, "bit-equal runs")

	payee := normal()
	payee.Cases = append([]checkmatch.CaseRecord(nil), payee.Cases...)
	payee.Cases[0].PayeeConfidence = 0.5
	got, err = MaxProbabilityDifference([]checkmatch.Receipt{normal(), payee})
	require.NoError(t, err)
	assert.InDelta(t, 0.4, got, 1e-15)

	missing := normal()
	missing.Cases = append([]checkmatch.CaseRecord(nil), missing.Cases...)
	missing.Cases[1].VerdictProbabilities = judgment.Probabilities{{Label: checkmatch.VerdictConsistent, P: 1}}
	_, err = MaxProbabilityDifference([]checkmatch.Receipt{normal(), missing})
	assert.ErrorContains(t, err, `case r01:v: run 1 has no verdict probability "unsigned"`)
}

func TestPooledAccuracyInterval(t *testing.T) {
	// typevet's repeat vector: rows [1,1,0,1,1,0,0,1] → (0.25, 0.875).
	worse := repeatFixture([4]bool{true, false, false, true}, 0.02)
	got, err := pooledAccuracyInterval([]checkmatch.Receipt{normal(), worse})
	require.NoError(t, err)
	assert.Equal(t, AccuracyInterval{Low: 0.25, High: 0.875, Level: 0.95, Resamples: 10000, Seed: 0, Rows: 8}, got)
	assert.True(t, 0 <= got.Low && got.Low < 0.625 && 0.625 < got.High && got.High <= 1)
	again, err := pooledAccuracyInterval([]checkmatch.Receipt{normal(), worse})
	require.NoError(t, err)
	assert.Equal(t, got, again, "deterministic")

	// The reference computation, one resample at a time.
	rows := []int{1, 1, 0, 1, 1, 0, 0, 1}
	shares := make([]float64, 10000)
	for b := range shares {
		k := 0
		for _, i := range resample.Indices(len(rows), 0, b) {
			k += rows[i]
		}
		shares[b] = float64(k) / 8
	}
	lo, hi, err := resample.PercentileInterval(shares, 0.95)
	require.NoError(t, err)
	assert.Equal(t, [2]float64{lo, hi}, [2]float64{got.Low, got.High})

	all := repeatFixture([4]bool{true, true, true, true}, 0.02)
	got, err = pooledAccuracyInterval([]checkmatch.Receipt{all, all})
	require.NoError(t, err)
	assert.Equal(t, [2]float64{1, 1}, [2]float64{got.Low, got.High})

	_, err = pooledAccuracyInterval([]checkmatch.Receipt{{}})
	assert.ErrorContains(t, err, "at least one case")
}

func TestStabilityVerdict(t *testing.T) {
	tests := []struct {
		name     string
		accuracy float64
		ece      receipt.Ordered[float64]
		want     bool
	}{
		{name: "all zero", accuracy: 0, ece: receipt.Ordered[float64]{{Name: "a", Value: 0}}, want: true},
		{name: "just below", accuracy: 0.0099, ece: receipt.Ordered[float64]{{Name: "a", Value: 0.0099}}, want: true},
		{name: "accuracy at the limit", accuracy: 0.01, ece: receipt.Ordered[float64]{{Name: "a", Value: 0}}, want: false},
		{name: "one ECE at the limit", accuracy: 0, ece: receipt.Ordered[float64]{{Name: "a", Value: 0}, {Name: "b", Value: 0.01}}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, stabilityVerdict(tt.accuracy, tt.ece))
		})
	}
	assert.Equal(t, 0.01, StabilityRangeLimit)
}

func TestSpread(t *testing.T) {
	s, err := Spread([]float64{0.75, 0.5})
	require.NoError(t, err)
	require.NotNil(t, s.SD)
	assert.Equal(t, 0.1767766952966369, *s.SD)
	assert.Equal(t, SpreadStats{Mean: 0.625, SD: s.SD, Min: 0.5, Max: 0.75, Range: 0.25}, s)

	one, err := Spread([]float64{0.3})
	require.NoError(t, err)
	assert.Nil(t, one.SD, "sd is null for one run")
	assert.Equal(t, 0.0, one.Range)

	_, err = Spread(nil)
	assert.Error(t, err)
}

func TestRepeatSummaryTwoRuns(t *testing.T) {
	worse := repeatFixture([4]bool{true, false, false, true}, 0.04)
	rep, err := Summary(named(normal(), worse))
	require.NoError(t, err)
	acc := rep.Statistics.Accuracy
	assert.Equal(t, 0.625, acc.Mean)
	assert.Equal(t, 0.1767766952966369, *acc.SD)
	assert.Equal(t, 0.5, acc.Min)
	assert.Equal(t, 0.75, acc.Max)
	assert.Equal(t, 0.25, acc.Range)
	assert.False(t, rep.Stable)
	assert.Equal(t, 1.0, rep.Agreement)
	e04, e0, one := 0.04, 0.0, 1.0
	assert.Equal(t, Run{
		Run: "run1", Commit: "c0ffee", Accuracy: rep.Runs[1].Accuracy, FalseClearRate: rep.Runs[1].FalseClearRate,
		ECE:         receipt.Ordered[*float64]{{Name: "payee_matches", Value: &e04}, {Name: "amounts_match", Value: &e0}},
		WallSeconds: 10, Included: true, Agreement: &one, MaxAbsDifference: &e0,
	}, rep.Runs[1])
	assert.Equal(t, 0.5, *rep.Runs[1].Accuracy)

	b, err := json.Marshal(rep)
	require.NoError(t, err)
	golden.InOrder(t, string(b), `"runs"`, `"included"`, `"excluded"`, `"statistics"`, `"accuracy_interval"`, `"agreement"`, `"max_abs_difference"`, `"stable"`, `"warnings":[]`)
	golden.InOrder(t, string(b), `"run":"run0"`, `"commit"`, `"accuracy"`, `"false_clear_rate"`, `"ece"`, `"wall_seconds"`, `"included"`, `"agreement"`, `"max_abs_difference"`)
	golden.InOrder(t, string(b), `"accuracy_interval":{"low"`, `"high"`, `"level"`, `"resamples"`, `"seed"`, `"rows":8`)
	golden.InOrder(t, string(b), `"mean"`, `"sd"`, `"min"`, `"max"`, `"range"`)
}

func TestRepeatSummaryWarnings(t *testing.T) {
	other := normal()
	other.Model = "other-model"
	other.Identity.PromptDigests = receipt.Digests{{Name: "verdict", Value: "x"}}
	rep, err := Summary(named(normal(), other, normal()))
	require.NoError(t, err)
	assert.Equal(t, []string{
		"run run1: model differs from the first included run's",
		"run run1: identity.prompt_digests differs from the first included run's",
	}, rep.Warnings)
	b, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"warnings":["run run1: model differs from the first included run's",`, "warnings are part of the summary JSON")

	rep, err = Summary(named(normal(), normal()))
	require.NoError(t, err)
	assert.Equal(t, []string{}, rep.Warnings)
	assert.True(t, rep.Stable)
}

// TestRepeatSummaryOtherSlice: a run of another seed is not a repeat. It
// is excluded with its reason and pins, its agreement is null, and the one
// run left is not called stable.
func TestRepeatSummaryOtherSlice(t *testing.T) {
	seed1 := normal()
	seed1.Pins.GeneratorSeed = 1
	seed1.Pins.SliceSHA256 = "ffff"
	rep, err := Summary(named(normal(), seed1))
	require.NoError(t, err)
	assert.Equal(t, []string{"run0"}, rep.Included)
	assert.Equal(t, []ExcludedRun{{Run: "run1", DifferingDigests: []string{}, Reason: ExcludedSlice,
		DifferingPins: []string{"pins.slice_sha256", "pins.generator_seed"}}}, rep.Excluded)
	assert.False(t, rep.Runs[1].Included)
	assert.Nil(t, rep.Runs[1].Agreement)
	assert.Nil(t, rep.Runs[1].MaxAbsDifference)
	assert.False(t, rep.Stable, "one included run is never stable")
	assert.Equal(t, []string{
		"run run1 excluded: another slice (pins.slice_sha256, pins.generator_seed differ from the majority's); runs of another seed, row count or renderer are not repeats",
		errOneRun.Error(),
	}, rep.Warnings)

	// Another row count: other case ids, still excluded, not an error.
	short := normal()
	short.Cases = short.Cases[:2]
	short.Pins.RegisterRows = 1
	rep, err = Summary(named(short, normal(), normal()))
	require.NoError(t, err)
	assert.Equal(t, []string{"run1", "run2"}, rep.Included, "the majority's slice is the reference")
	assert.Equal(t, []string{"pins.register_rows"}, rep.Excluded[0].DifferingPins)
	assert.True(t, rep.Stable)

	// A single receipt: not stable.
	rep, err = Summary(named(normal()))
	require.NoError(t, err)
	assert.False(t, rep.Stable)
	assert.Equal(t, []string{errOneRun.Error()}, rep.Warnings)
}

func TestRepeatSummaryRefusals(t *testing.T) {
	_, err := Summary(nil)
	assert.EqualError(t, err, "repeat_summary needs at least one receipt")

	short := normal()
	short.Cases = short.Cases[:3]
	_, err = Summary(named(normal(), short))
	assert.ErrorContains(t, err, "case ids differ")

	null := normal()
	null.Metrics.FalseClearRate = nil
	_, err = Summary(named(normal(), null))
	assert.EqualError(t, err, "run run1: false_clear_rate is null")
}

// vllmFixture is typevet's committed 140-case vLLM receipt, shared with the
// receipt tests (checkmatch/testdata/receipt_typevet/README.md).
const vllmFixture = "../testdata/receipt_typevet/check_match_vllm_receipt.json"

// writeRepeatCopies writes n copies of typevet's vLLM receipt into dir as
// repeat0.json …; the copy at odd (if ≥ 0) has its "runner" code digest
// replaced by changed. It returns the paths.
func writeRepeatCopies(t testing.TB, dir string, n, odd int, changed string) []string {
	t.Helper()
	raw, err := os.ReadFile(vllmFixture)
	require.NoError(t, err)
	r, err := checkmatch.ReadReceipt(bytes.NewReader(raw))
	require.NoError(t, err)
	old, ok := r.Identity.CodePathDigests.Get("runner")
	require.True(t, ok)
	var paths []string
	for i := range n {
		b := raw
		if i == odd {
			require.Equal(t, 1, bytes.Count(raw, []byte(old)), "the runner digest occurs once")
			b = bytes.Replace(raw, []byte(old), []byte(changed), 1)
		}
		p := filepath.Join(dir, "repeat"+string(rune('0'+i))+".json")
		require.NoError(t, os.WriteFile(p, b, 0o644))
		paths = append(paths, p)
	}
	return paths
}

func TestRepeatSummaryOverTypevetReceipt(t *testing.T) {
	changed := strings.Repeat("d", 64)
	paths := writeRepeatCopies(t, t.TempDir(), 3, 1, changed)
	runs, err := ReadRuns(paths)
	require.NoError(t, err)
	assert.Equal(t, "repeat1", runs[1].Name)
	rep, err := Summary(runs)
	require.NoError(t, err)
	assert.Equal(t, []string{"repeat0", "repeat2"}, rep.Included)
	assert.Equal(t, []ExcludedRun{{Run: "repeat1", DifferingDigests: []string{"runner"}, Reason: excludedCode, DifferingPins: []string{}}}, rep.Excluded)
	b, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.NotContains(t, string(b), changed, "digest values never appear")

	// Identical copies: every spread is zero, bit-equal, stable.
	assert.Equal(t, 0.0, rep.Statistics.Accuracy.Range)
	assert.Equal(t, 0.0, *rep.Statistics.Accuracy.SD)
	assert.Equal(t, 1.0, rep.Agreement)
	assert.Equal(t, 0.0, rep.MaxAbsDifference)
	assert.True(t, rep.Stable)
	assert.Equal(t, 280, rep.AccuracyInterval.Rows)
	acc := *runs[0].Receipt.Metrics.Accuracy
	assert.True(t, rep.AccuracyInterval.Low <= acc && acc <= rep.AccuracyInterval.High)
	assert.Equal(t, acc, rep.Statistics.Accuracy.Mean)
}

func TestFileStem(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"runs/repeat1.json", "repeat1"},
		{"a.b.json", "a.b"},
		{"noext", "noext"},
		{".hidden", ".hidden"},
	} {
		assert.Equal(t, tt.want, fileStem(tt.in), tt.in)
	}
}

// repeatBenchRuns builds 5 receipts × 140 cases from typevet's receipt.
func repeatBenchRuns(b *testing.B) []NamedReceipt {
	f, err := os.Open(vllmFixture)
	require.NoError(b, err)
	defer f.Close()
	r, err := checkmatch.ReadReceipt(f)
	require.NoError(b, err)
	require.Len(b, r.Cases, 140)
	runs := make([]NamedReceipt, 5)
	for i := range runs {
		runs[i] = NamedReceipt{Name: "run" + string(rune('0'+i)), Receipt: r}
	}
	return runs
}

// BenchmarkRepeatSummary is the whole summary of 5 receipts × 140 cases,
// including the 10,000-resample pooled interval (7 million SHA-256 draws).
func BenchmarkRepeatSummary(b *testing.B) {
	runs := repeatBenchRuns(b)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Summary(runs); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRepeatSummarySparseTypevetReceipts: typevet's repeat summary reads
// receipts without an issue key and with sparse legibility_probabilities;
// so does Summary. As in typevet's max_probability_difference, the
// levels come from the first receipt: a level it lacks is not compared,
// and a level it has that a later receipt lacks is an error.
func TestRepeatSummarySparseTypevetReceipts(t *testing.T) {
	raw, err := os.ReadFile(vllmFixture)
	require.NoError(t, err)
	edit := func(f func(cases []any)) []byte {
		var m map[string]any
		require.NoError(t, json.Unmarshal(raw, &m))
		delete(m, "issue")
		f(m["cases"].([]any))
		b, err := json.Marshal(m)
		require.NoError(t, err)
		return b
	}
	levels := func(c any) map[string]any { return c.(map[string]any)["legibility_probabilities"].(map[string]any) }
	first := edit(func(cases []any) {
		for _, c := range cases {
			delete(levels(c), "2")
		}
	})
	// The dense receipt as published: its level 2 is not in the first run,
	// so not compared. (A changed level 2 would no longer sum to 1, which
	// ReadReceipt refuses.)
	second := edit(func([]any) {})
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	runs, err := ReadRuns([]string{write("sparse.json", first), write("dense.json", second)})
	require.NoError(t, err)
	assert.Equal(t, receiptIssue, runs[0].Receipt.Issue, "filled in")
	assert.True(t, math.IsNaN(runs[0].Receipt.Cases[0].LegibilityProbabilities[2]))
	rep, err := Summary(runs)
	require.NoError(t, err)
	assert.Equal(t, 0.0, rep.MaxAbsDifference)
	assert.Equal(t, 1.0, rep.Agreement)
	assert.True(t, rep.Stable)

	third := edit(func(cases []any) { delete(levels(cases[3]), "3") })
	runs, err = ReadRuns([]string{write("a.json", first), write("b.json", third)})
	require.NoError(t, err)
	_, err = Summary(runs)
	assert.ErrorContains(t, err, "run 1 has no legibility probability 3")
}

// receiptIssue is the issue number of a check-match receipt (typevet #316).
const receiptIssue = 316
