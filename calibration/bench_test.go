package calibration

import (
	"fmt"
	"testing"
)

func benchSeries(n int) Series {
	s := Series{Name: "bench"}
	for i := range n {
		s.IDs = append(s.IDs, fmt.Sprint("r", i))
		s.P = append(s.P, float64(i%97)/97)
		s.Truth = append(s.Truth, i%3 != 0)
	}
	return s
}

// BenchmarkFitPlatt140 fits Platt on the calibration half of a 140-row
// series, the size of a check-match receipt.
func BenchmarkFitPlatt140(b *testing.B) {
	cp, cy, _, _ := benchSeries(140).halves()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FitPlatt(cp, cy); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFitSeries140 is one method's whole fit of a 140-row series
// with typevet's 1,000-resample interval, what examples/calibrate does per
// map.
func BenchmarkFitSeries140(b *testing.B) {
	s := benchSeries(140)
	opts := FitOptions{TaskID: "t", Model: "m", Backend: "vllm", Receipt: "r", ReceiptSHA256: "0000000000000000000000000000000000000000000000000000000000000000", Producer: "p"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FitSeries(s, Isotonic, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApply is one calibrated Noul answer: what the wrapper adds to
// each judgment.
func BenchmarkApply(b *testing.B) {
	m := &Map{Method: Platt, Parameters: Parameters{Slope: 0.4, Intercept: -1.9}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Apply(0.73); err != nil {
			b.Fatal(err)
		}
	}
}
