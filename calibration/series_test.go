package calibration

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestReadSeriesCheckReceipt(t *testing.T) {
	series, src, err := ReadSeries(readFixture(t, "check_match_vllm_receipt.json"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if src.Model != "google/gemma-4-31B-it" || src.Backend != "vllm" {
		t.Errorf("source %+v", src)
	}
	names := []string{"verdict", "payee_matches", "amounts_match"}
	if len(series) != len(names) {
		t.Fatalf("%d series", len(series))
	}
	for i, s := range series {
		if s.Name != names[i] || len(s.IDs) != 140 || len(s.P) != 140 || len(s.Truth) != 140 {
			t.Errorf("series %d: %s with %d rows", i, s.Name, len(s.IDs))
		}
	}
	// Case r00:clean of the receipt: the largest verdict probability, correct.
	if v := series[0]; v.IDs[0] != "r00:clean" || v.P[0] != 0.9999999460762383 || !v.Truth[0] {
		t.Errorf("verdict row 0: %s %v %v", v.IDs[0], v.P[0], v.Truth[0])
	}
	if p := series[1]; p.P[0] != 0.9999999957707868 || !p.Truth[0] {
		t.Errorf("payee row 0: %v %v", p.P[0], p.Truth[0])
	}
}

func TestReadSeriesFile(t *testing.T) {
	s, src, err := ReadSeries([]byte("{\"id\":\"a\",\"p\":0.9,\"truth\":true}\n\n{\"id\":\"b\",\"p\":0,\"truth\":false}\n"), "mine")
	if err != nil || len(s) != 1 || s[0].Name != "mine" || len(s[0].IDs) != 2 || src != (Source{}) {
		t.Fatalf("%+v %+v %v", s, src, err)
	}
	bad := []struct{ name, data string }{
		{"empty", " \n"},
		{"not json", "{id}"},
		{"id missing", `{"p":0.5,"truth":true}`},
		{"p above 1", `{"id":"a","p":1.5,"truth":true}`},
		{"p text", `{"id":"a","p":"0.5","truth":true}`},
		{"truth missing", `{"id":"a","p":0.5}`},
		{"receipt without cases", `{"cases":[]}`},
		{"receipt case without truth", `{"cases":[{"case_id":"a","correct":true,"verdict_probabilities":{"x":0.5},"payee_confidence":0.5,"amounts_confidence":0.5}]}`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ReadSeries([]byte(tt.data), "x")
			var se *SeriesError
			if !errors.As(err, &se) {
				t.Errorf("err = %v, want a SeriesError", err)
			}
		})
	}
}

func TestScoreLevelSeries(t *testing.T) {
	s, err := ScoreLevelSeries("q", []string{"a", "b"}, [][]float64{{0.1, 0.9}, {0.6, 0.4}}, []int{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	if s.Levels != 2 || len(s.IDs) != 4 || s.IDs[1] != "a" || !s.Truth[1] || s.Truth[0] || !s.Truth[2] {
		t.Errorf("%+v", s)
	}
	if _, err := ScoreLevelSeries("q", []string{"a"}, [][]float64{{0.1, 0.9}}, []int{2}); err == nil {
		t.Error("a gold level out of range was taken")
	}
}

// TestDebiasedECE simulates the case: a perfectly calibrated judge
// (truth drawn with probability p) on 70-row evaluation halves. The binned
// ECE averages far from the true 0; the debiased estimate stays near it.
func TestDebiasedECE(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const reps, n = 400, 70
	var binned, debiased float64
	ps, ys := make([]float64, n), make([]bool, n)
	for range reps {
		for i := range ps {
			ps[i] = r.Float64()
			ys[i] = r.Float64() < ps[i]
		}
		binned += ECE(ps, ys)
		debiased += DebiasedECE(ps, ys)
	}
	binned, debiased = binned/reps, debiased/reps
	t.Logf("calibrated judge, %d rows: binned ECE %.3f, debiased L2 %.3f", n, binned, debiased)
	if binned < 0.06 || debiased > binned/2 {
		t.Errorf("binned %.3f, debiased %.3f: want the debiased estimate well below the binned one", binned, debiased)
	}
	// A miscalibrated judge still shows: truth at p², the gap is real.
	var miss float64
	for range reps {
		for i := range ps {
			ps[i] = r.Float64()
			ys[i] = r.Float64() < ps[i]*ps[i]
		}
		miss += DebiasedECE(ps, ys)
	}
	if miss/reps < 0.1 {
		t.Errorf("miscalibrated judge: debiased %.3f, want a clear gap", miss/reps)
	}
	if math.IsNaN(DebiasedECE(nil, nil)) {
		t.Error("empty input is NaN")
	}
}

// FuzzReadSeries holds the series reader to its contract: it never
// panics, and every series it returns has equal-length columns of
// probabilities in [0, 1] that the fitters take.
func FuzzReadSeries(f *testing.F) {
	f.Add([]byte(`{"id":"a","p":0.9,"truth":true}` + "\n" + `{"id":"b","p":0.1,"truth":false}`))
	f.Add(readFixture(f, "check_match_vllm_receipt.json")[:4000])
	f.Add([]byte(`{"model":"m","backend":"vllm","cases":[{"case_id":"a","correct":true,"verdict_probabilities":{"x":0.5},"payee_confidence":0.5,"payee_truth":true,"amounts_confidence":0.5,"amounts_truth":false}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		series, _, err := ReadSeries(data, "fuzz")
		if err != nil {
			return
		}
		for _, s := range series {
			if len(s.IDs) == 0 || len(s.IDs) != len(s.P) || len(s.P) != len(s.Truth) {
				t.Fatalf("columns %d %d %d", len(s.IDs), len(s.P), len(s.Truth))
			}
			for _, p := range s.P {
				if !(p >= 0 && p <= 1) {
					t.Fatalf("p = %v", p)
				}
			}
			_ = Measure(s.P, s.Truth)
			FitIsotonic(s.P, s.Truth)
		}
	})
}
