package stats

import (
	"bytes"
	"math"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/internal/resample"
)

// fixture is typevet's committed 140-case vLLM receipt (gemma-4-31B-it,
// seed 0), copied from /work/shared/fixtures/typevet-receipts.
const fixture = "testdata/check_match_vllm_receipt.json"

func readFixture(t testing.TB) checkmatch.Receipt {
	t.Helper()
	raw, err := os.ReadFile(fixture)
	require.NoError(t, err)
	r, err := checkmatch.ReadReceipt(bytes.NewReader(raw))
	require.NoError(t, err)
	return r
}

// TestWilsonHandChecked compares Wilson bounds with values worked by hand
// from the closed form (z = 1.959964, four decimals) and with the issue's
// vectors.
func TestWilsonHandChecked(t *testing.T) {
	for _, tc := range []struct {
		k, n      int
		low, high float64
	}{
		{11, 20, 0.3421, 0.7418},   // the blurred variant
		{0, 100, 0, 0.0370},        // 0 false clears in 100: z²/(n+z²)
		{130, 140, 0.8735, 0.9607}, // typevet's published accuracy
		{20, 20, 0.8389, 1},        // n/(n+z²) = 20/23.8415
		{1, 2, 0.0945, 0.9055},
		{0, 1, 0, 0.7935},
	} {
		lo, hi, err := Wilson(tc.k, tc.n, 0.95)
		require.NoError(t, err)
		assert.InDelta(t, tc.low, lo, 5e-5, "%d/%d low", tc.k, tc.n)
		assert.InDelta(t, tc.high, hi, 5e-5, "%d/%d high", tc.k, tc.n)
	}
	lo, _, _ := Wilson(0, 10, 0.95)
	assert.Equal(t, 0.0, lo, "k = 0 gives exactly 0")
	lo, hi, _ := Wilson(10, 10, 0.95)
	assert.Equal(t, 1.0, hi, "k = n gives exactly 1")
	assert.Less(t, lo, 1.0)

	// Independent closed form at another level (z from the 0.995
	// quantile, 2.5758293035489).
	z := 2.5758293035489
	p, n := 0.3, 50.0
	c := (p + z*z/(2*n)) / (1 + z*z/n)
	h := z / (1 + z*z/n) * math.Sqrt(p*(1-p)/n+z*z/(4*n*n))
	lo, hi, err := Wilson(15, 50, 0.99)
	require.NoError(t, err)
	assert.InDelta(t, c-h, lo, 1e-9)
	assert.InDelta(t, c+h, hi, 1e-9)

	for _, bad := range [][3]float64{{1, 0, 0.95}, {-1, 5, 0.95}, {6, 5, 0.95}, {1, 5, 1}, {1, 5, 0}, {1, 5, math.NaN()}} {
		_, _, err := Wilson(int(bad[0]), int(bad[1]), bad[2])
		assert.Error(t, err, "%v", bad)
	}
	pr, err := NewProportion(0, 0, 0.95)
	require.NoError(t, err)
	assert.Nil(t, pr.Estimate)
	assert.Nil(t, pr.Low)
}

// exactMcNemar is the two-sided exact p-value in rational arithmetic:
// 2·Σ_{i≤min(b,c)} C(n, i) / 2ⁿ, capped at 1.
func exactMcNemar(b, c int) float64 {
	n := b + c
	sum := new(big.Int)
	for i := 0; i <= min(b, c); i++ {
		sum.Add(sum, new(big.Int).Binomial(int64(n), int64(i)))
	}
	r := new(big.Rat).SetFrac(new(big.Int).Lsh(sum, 1), new(big.Int).Lsh(big.NewInt(1), uint(n)))
	if r.Cmp(big.NewRat(1, 1)) > 0 {
		return 1
	}
	f, _ := r.Float64()
	return f
}

func TestMcNemarExact(t *testing.T) {
	p, err := McNemarExact(3, 11)
	require.NoError(t, err)
	assert.InDelta(t, 0.0574, p, 5e-5, "the issue's vector")
	assert.InDelta(t, 940.0/16384, p, 1e-12, "2·(1+14+91+364)/2¹⁴ by hand")
	for _, bc := range [][2]int{{0, 0}, {5, 5}, {7, 7}} {
		p, _ := McNemarExact(bc[0], bc[1])
		assert.Equal(t, 1.0, p, "%v", bc)
	}
	for b := range 40 {
		for c := range 40 {
			p, err := McNemarExact(b, c)
			require.NoError(t, err)
			want := exactMcNemar(b, c)
			assert.InDelta(t, want, p, 1e-9*max(want, 1e-6), "b=%d c=%d", b, c)
			q, _ := McNemarExact(c, b)
			assert.Equal(t, p, q, "symmetric")
		}
	}
	_, err = McNemarExact(-1, 2)
	assert.Error(t, err)
}

// TestBrierAndLogLossByHand checks a three-case vector worked by hand and
// typevet's receipt against an independent computation (Python 3.11
// math.fsum over the same confidences).
func TestBrierAndLogLossByHand(t *testing.T) {
	conf, truth := []float64{0.9, 0.2, 0.6}, []bool{true, false, false}
	b, err := Brier(conf, truth)
	require.NoError(t, err)
	assert.InDelta(t, (0.01+0.04+0.36)/3, b, 1e-15)
	l, err := LogLoss(conf, truth)
	require.NoError(t, err)
	assert.InDelta(t, (0.10536051565782628+0.2231435513142097+0.916290731874155)/3, l, 1e-15)

	l, _ = LogLoss([]float64{0}, []bool{true})
	assert.Equal(t, -math.Log(LogLossEpsilon), l, "clipped, not +Inf")
	l, _ = LogLoss([]float64{1}, []bool{false})
	assert.InDelta(t, -math.Log(LogLossEpsilon), l, 1e-3, "1 − ε is not exact in binary")
	c, _ := Brier([]float64{0.5, 0.5}, []bool{true, false})
	assert.Equal(t, 0.25, c)

	_, err = Brier(nil, nil)
	assert.Error(t, err)
	_, err = Brier([]float64{0.1}, nil)
	assert.Error(t, err)
	_, err = LogLoss([]float64{1.5}, []bool{true})
	assert.ErrorContains(t, err, "1.5 is not in [0, 1]")

	doc, err := ReceiptIntervals(readFixture(t), Options{Resamples: 50})
	require.NoError(t, err)
	// python3: math.fsum((p-y)**2 …)/140 and the clipped log loss.
	for name, want := range map[string][2]float64{
		"payee_matches": {8.125591352594244e-16, 8.38082317876184e-09},
		"amounts_match": {0.0071434060620693875, 0.0644205670994678},
	} {
		n, ok := doc.Nouls.Get(name)
		require.True(t, ok)
		assert.InDelta(t, want[0], *n.Brier, 1e-15*max(1, want[0]), name)
		assert.InEpsilon(t, want[1], *n.LogLoss, 1e-12, name)
	}
}

// TestReceiptIntervalsMatchReceipt checks every estimate against the
// receipt's own metrics, bit for bit, and each interval contains its
// estimate.
func TestReceiptIntervalsMatchReceipt(t *testing.T) {
	r := readFixture(t)
	doc, err := ReceiptIntervals(r, Options{Resamples: 200})
	require.NoError(t, err)
	m := r.Metrics
	assert.Equal(t, IntervalsSchema, doc.Schema)
	assert.Equal(t, 1, doc.Version)
	assert.Equal(t, 140, doc.Bootstrap.Units)
	assert.Equal(t, *m.Accuracy, *doc.Overall.Accuracy.Estimate)
	assert.Equal(t, *m.FalseClearRate, *doc.Overall.FalseClearRate.Estimate)
	assert.Equal(t, m.FalseClearCases, doc.Overall.FalseClearRate.N)
	assert.Equal(t, *m.CannotTellRate, *doc.Overall.CannotTellRate.Estimate)
	require.Len(t, doc.ByVariant, len(m.AccuracyByVariant))
	for _, e := range m.AccuracyByVariant {
		got, ok := doc.ByVariant.Get(e.Name)
		require.True(t, ok, e.Name)
		assert.Equal(t, e.Value, *got.Accuracy.Estimate, e.Name)
	}
	for _, e := range m.FalseClearByVariant {
		got, _ := doc.ByVariant.Get(e.Name)
		assert.Equal(t, e.Value, *got.FalseClearRate.Estimate, e.Name)
	}
	for _, e := range m.CannotTellByVariant {
		got, _ := doc.ByVariant.Get(e.Name)
		assert.Equal(t, e.Value, *got.CannotTellRate.Estimate, e.Name)
	}
	clean, _ := doc.ByVariant.Get("clean")
	assert.Equal(t, 0, clean.FalseClearRate.N, "clean never counts for false clear")
	assert.Nil(t, clean.FalseClearRate.Estimate)
	require.Len(t, doc.ByClass, len(m.AccuracyByClass))
	for i, e := range m.AccuracyByClass {
		assert.Equal(t, e.Name, doc.ByClass[i].Name)
		assert.Equal(t, e.Value, *doc.ByClass[i].Value.Accuracy.Estimate, e.Name)
	}
	for _, want := range []struct {
		name string
		s    checkmatch.NoulSummary
	}{{"payee_matches", m.Nouls.PayeeMatches}, {"amounts_match", m.Nouls.AmountsMatch}} {
		got, ok := doc.Nouls.Get(want.name)
		require.True(t, ok)
		assert.Equal(t, *want.s.ROCAUC, *got.ROCAUC.Estimate, want.name)
		assert.Equal(t, *want.s.ECE, *got.ECE.Estimate, want.name)
		assert.Equal(t, want.s.Positives, got.Positives)
		assert.Equal(t, want.s.Negatives, got.Negatives)
		assert.LessOrEqual(t, *got.ECE.Low, *got.ECE.High)
		assert.Equal(t, 200, got.ECE.Defined)
	}
	// Blurred: the issue's [0.34, 0.74].
	low, _ := doc.ByVariant.Get("low_legibility")
	assert.Equal(t, 11, low.Accuracy.K)
	assert.InDelta(t, 0.3421, *low.Accuracy.Low, 5e-5)
}

// TestBootstrapIsTypevetResampling recomputes the amounts_match ECE
// interval with a plain loop over resample.Indices and
// resample.PercentileInterval, one resample at a time, and compares
// (single cases and register rows).
func TestBootstrapIsTypevetResampling(t *testing.T) {
	r := readFixture(t)
	const resamples = 300
	for _, cluster := range []Cluster{ClusterCase, ClusterRegisterRow} {
		doc, err := ReceiptIntervals(r, Options{Resamples: resamples, Seed: 3, Cluster: cluster})
		require.NoError(t, err)
		rows := map[string][]int{}
		var order []string
		for i, c := range r.Cases {
			row := strings.SplitN(c.CaseID, ":", 2)[0]
			if rows[row] == nil {
				order = append(order, row)
			}
			rows[row] = append(rows[row], i)
		}
		nUnits := len(r.Cases)
		if cluster == ClusterRegisterRow {
			nUnits = len(order)
		}
		assert.Equal(t, nUnits, doc.Bootstrap.Units)
		var eces []float64
		for b := range resamples {
			var conf []float64
			var truth []bool
			for _, u := range resample.Indices(nUnits, 3, b) {
				members := []int{u}
				if cluster == ClusterRegisterRow {
					members = rows[order[u]]
				}
				for _, i := range members {
					conf = append(conf, r.Cases[i].AmountsConfidence)
					truth = append(truth, r.Cases[i].AmountsTruth)
				}
			}
			s, err := checkmatch.SummarizeNoul(conf, truth)
			require.NoError(t, err)
			eces = append(eces, *s.ECE)
		}
		lo, hi, err := resample.PercentileInterval(eces, 0.95)
		require.NoError(t, err)
		got, _ := doc.Nouls.Get("amounts_match")
		assert.Equal(t, lo, *got.ECE.Low, cluster)
		assert.Equal(t, hi, *got.ECE.High, cluster)
		assert.Less(t, lo, hi, "a non-degenerate interval")
	}
}

func TestIntervalsDeterministic(t *testing.T) {
	r := readFixture(t)
	a, err := ReceiptIntervals(r, Options{Resamples: 500})
	require.NoError(t, err)
	b, err := ReceiptIntervals(r, Options{Resamples: 500})
	require.NoError(t, err)
	ba, err := Marshal(a)
	require.NoError(t, err)
	bb, err := Marshal(b)
	require.NoError(t, err)
	assert.Equal(t, ba, bb)
	back, err := ReadIntervals(bytes.NewReader(ba))
	require.NoError(t, err)
	again, err := Marshal(back)
	require.NoError(t, err)
	assert.Equal(t, string(ba), string(again), "read then written back is the same bytes")
	assert.True(t, strings.HasPrefix(string(ba), "{\n  \"schema\": \"typevet-go/check-match-intervals\",\n  \"version\": 1,"))
}

func TestOptionsRefused(t *testing.T) {
	r := readFixture(t)
	for _, o := range []Options{{Level: 1.5}, {Resamples: -1}, {Seed: -2}, {Cluster: "row"}} {
		_, err := ReceiptIntervals(r, o)
		assert.Error(t, err, "%+v", o)
	}
	r.Cases = nil
	_, err := ReceiptIntervals(r, Options{})
	assert.ErrorContains(t, err, "no cases")
}

func TestRegisterRow(t *testing.T) {
	row, err := RegisterRow("r07:clean")
	require.NoError(t, err)
	assert.Equal(t, "r07", row)
	for _, bad := range []string{"", "r07", ":clean"} {
		_, err := RegisterRow(bad)
		assert.Error(t, err, bad)
	}
	us, err := units([]string{"r00:a", "r01:a", "r00:b"}, ClusterRegisterRow)
	require.NoError(t, err)
	assert.Equal(t, [][]int{{0, 2}, {1}}, us)
}

func TestFormat(t *testing.T) {
	p, _ := NewProportion(11, 20, 0.95)
	assert.Equal(t, "low_legibility 0.5500 [0.3421, 0.7418] (11/20)", FormatHeadline("low_legibility", p))
	assert.Equal(t, "0.5500 [0.3421, 0.7418] (11/20)", FormatHeadline("", p))
	assert.Equal(t, "x n/a (0/0)", FormatHeadline("x", Proportion{}))
	d, lo, hi := -0.0214, -0.05, 0.0071
	assert.Equal(t, "-0.0214 [-0.0500, 0.0071]", FormatDifference(Difference{Difference: &d, Low: &lo, High: &hi}))
	z := 0.0
	assert.Equal(t, "+0.0000", FormatDifference(Difference{Difference: &z}))
	assert.Equal(t, "n/a", FormatEstimate(Estimate{}))
}

// TestScorerEqualsSummarizeNoul checks the resampling fast path against
// checkmatch.SummarizeNoul over the drawn confidences in draw order, bit
// for bit, on every resample of three real receipts (typevet's vLLM run,
// and this module's fake and reader runs, whose confidences tie a lot).
func TestScorerEqualsSummarizeNoul(t *testing.T) {
	for _, path := range []string{fixture, "testdata/fake_seed0.json", "testdata/reader_seed0.json"} {
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		r, err := checkmatch.ReadReceipt(bytes.NewReader(raw))
		require.NoError(t, err)
		sc := scorers(r.Cases)
		for b := range 500 {
			idx := resample.Indices(len(r.Cases), 0, b)
			for n := range nouls {
				conf, truth := noulValues(r.Cases, n)
				dc, dt := make([]float64, len(idx)), make([]bool, len(idx))
				for k, i := range idx {
					dc[k], dt[k] = conf[i], truth[i]
				}
				want, err := checkmatch.SummarizeNoul(dc, dt)
				require.NoError(t, err)
				auc, ece := sc[n].score(idx)
				if want.ROCAUC == nil {
					assert.Nil(t, auc)
				} else if assert.NotNil(t, auc) {
					require.Equal(t, *want.ROCAUC, *auc, "%s resample %d noul %d", path, b, n)
				}
				require.Equal(t, *want.ECE, *ece, "%s resample %d noul %d", path, b, n)
			}
		}
	}
}
