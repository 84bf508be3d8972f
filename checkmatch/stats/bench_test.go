package stats

import (
	"testing"

	"github.com/typevet/typevet-go/checkmatch/internal/resample"
)

// BenchmarkReceiptIntervals is the whole intervals document of typevet's
// 140-case receipt at 10,000 resamples (1.4 million SHA-256 draws, two
// Noul summaries per resample).
func BenchmarkReceiptIntervals(b *testing.B) {
	r := readFixture(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReceiptIntervals(r, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompare is the paired comparison of the receipt with itself at
// 10,000 resamples (four Noul summaries per resample).
func BenchmarkCompare(b *testing.B) {
	r := readFixture(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compare(r, r, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDrawsOnly is the floor: the 10,000 × 140 draws alone, as
// the repeat study's pooled accuracy interval makes them, with nothing computed per
// resample.
func BenchmarkDrawsOnly(b *testing.B) {
	n := len(readFixture(b).Cases)
	b.ReportAllocs()
	for b.Loop() {
		resample.ForEach(n, resample.Seed, resample.Resamples, func() func(int, []int) { return func(int, []int) {} })
	}
}
