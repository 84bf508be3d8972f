package calibration

import (
	"bufio"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strconv"
	"testing"
)

type vectorMethod struct {
	Error      string            `json:"error"`
	Parameters map[string]any    `json:"parameters"`
	After      map[string]string `json:"after"`
	RuleMet    bool              `json:"rule_met"`
	Interval   []string          `json:"interval"`
}

type vectorSeries struct {
	Name         string                  `json:"name"`
	IDs          []string                `json:"ids"`
	P            []string                `json:"p"`
	Truth        []bool                  `json:"truth"`
	NCalibration int                     `json:"n_calibration"`
	Before       map[string]string       `json:"before"`
	Methods      map[string]vectorMethod `json:"methods"`
}

func parseF(t testing.TB, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("vector float %q: %v", s, err)
	}
	return f
}

func readVectors(t testing.TB) []vectorSeries {
	t.Helper()
	f, err := os.Open("testdata/fit_vectors.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []vectorSeries
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var v vectorSeries
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

func checkMetrics(t *testing.T, what string, got Metrics, want map[string]string) {
	t.Helper()
	for _, c := range []struct {
		key string
		got float64
	}{{"ece", got.ECE}, {"brier", got.Brier}, {"accuracy", got.Accuracy}} {
		if w := parseF(t, want[c.key]); !sameBits(c.got, w) {
			t.Errorf("%s %s = %v, reference %v", what, c.key, c.got, w)
		}
	}
}

// TestFitVectors holds the fitters, the metrics, the rule and the bootstrap
// interval to testdata/fit_vectors.py, an independent Python reference of
// typevet's #343 study with CPython 3.12's sum and glibc's exp, log and
// log1p and its ** 2, bit for bit, on 240 seeded series: overconfident, tied, heavily
// tied, separable (Platt runs to a large slope), clipped, underconfident,
// all-true calibration halves, all-false evaluation halves, and constant
// probabilities where Platt's determinant is zero.
func TestFitVectors(t *testing.T) {
	vectors := readVectors(t)
	if len(vectors) < 200 {
		t.Fatalf("%d series, want at least 200", len(vectors))
	}
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			s := Series{Name: v.Name, IDs: v.IDs, Truth: v.Truth}
			for _, p := range v.P {
				s.P = append(s.P, parseF(t, p))
			}
			cp, cy, ep, ey := s.halves()
			if len(cp) != v.NCalibration {
				t.Fatalf("calibration half %d rows, reference %d", len(cp), v.NCalibration)
			}
			before := Measure(ep, ey)
			checkMetrics(t, "before", before, v.Before)
			for _, method := range Methods {
				want := v.Methods[string(method)]
				c, err := Fit(method, cp, cy)
				if want.Error != "" {
					if !errors.Is(err, ErrSingular) {
						t.Errorf("%s: err %v, reference %s", method, err, want.Error)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", method, err)
				}
				checkParameters(t, method, c.Parameters, want.Parameters)
				after := make([]float64, len(ep))
				for i, p := range ep {
					after[i] = c.Apply(p)
				}
				am := Measure(after, ey)
				checkMetrics(t, string(method)+" after", am, want.After)
				if got := RuleMet(before, am); got != want.RuleMet {
					t.Errorf("%s rule met %v, reference %v", method, got, want.RuleMet)
				}
				if want.Interval != nil && !testing.Short() {
					iv := BootstrapECEChange(ep, ey, c, BootstrapResamples)
					if !sameBits(iv.Low, parseF(t, want.Interval[0])) || !sameBits(iv.High, parseF(t, want.Interval[1])) {
						t.Errorf("%s interval %v, reference %v", method, iv, want.Interval)
					}
				}
			}
		})
	}
}

func checkParameters(t *testing.T, method Method, got Parameters, want map[string]any) {
	t.Helper()
	one := func(key string, g float64) {
		if w := parseF(t, want[key].(string)); !sameBits(g, w) {
			t.Errorf("%s %s = %v, reference %v", method, key, g, w)
		}
	}
	list := func(key string, g []float64) {
		w := want[key].([]any)
		if len(w) != len(g) {
			t.Errorf("%s %s: %d entries, reference %d", method, key, len(g), len(w))
			return
		}
		for i := range w {
			if x := parseF(t, w[i].(string)); !sameBits(g[i], x) {
				t.Errorf("%s %s[%d] = %v, reference %v", method, key, i, g[i], x)
			}
		}
	}
	switch method {
	case Temperature:
		one("temperature", got.Temperature)
	case Platt:
		one("slope", got.Slope)
		one("intercept", got.Intercept)
	default:
		list("knots", got.Knots)
		list("values", got.Values)
	}
}

func nan() float64 { return math.NaN() }
func inf() float64 { return math.Inf(1) }
