package resample

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResampleIndices(t *testing.T) {
	// Vectors (seed 0) computed by typevet's resample_indices.
	tests := []struct {
		name        string
		n, resample int
		want        []int
	}{
		{name: "n6 b0", n: 6, resample: 0, want: []int{0, 5, 3, 4, 0, 1}},
		{name: "n6 b1", n: 6, resample: 1, want: []int{0, 0, 2, 0, 5, 3}},
		{name: "n8 b0", n: 8, resample: 0, want: []int{2, 5, 3, 4, 0, 3, 0, 6}},
		{name: "n8 b1", n: 8, resample: 1, want: []int{0, 4, 6, 2, 3, 7, 5, 4}},
		{name: "n8 b9999", n: 8, resample: 9999, want: []int{3, 0, 6, 6, 3, 6, 5, 4}},
		{name: "n21 b0", n: 21, resample: 0, want: []int{6, 11, 9, 13, 15, 13, 20, 9, 16, 2, 18, 17, 18, 10, 1, 9, 7, 11, 15, 9, 1}},
		{name: "n0", n: 0, resample: 0, want: []int{} /* Python's range(0) draws nothing */},
		{name: "negative n", n: -3, resample: 0, want: []int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Indices(tt.n, 0, tt.resample))
		})
	}
}

// The reused key buffer writes the same keys as formatting each position,
// across every digit-count change up to 10,000.
func TestResampleIndicesKeys(t *testing.T) {
	const n = 10001
	got := Indices(n, 12, 345)
	for i := range n {
		sum := sha256.Sum256(fmt.Appendf(nil, "12:345:%d", i))
		want := int(binary.BigEndian.Uint64(sum[:8]) % n)
		if got[i] != want {
			t.Fatalf("position %d: got %d, want %d", i, got[i], want)
		}
	}
}

func TestResampleIndicesSeedMatters(t *testing.T) {
	a := Indices(50, 0, 3)
	b := Indices(50, 1, 3)
	assert.NotEqual(t, a, b, "seed is part of the key")
	assert.Equal(t, a, Indices(50, 0, 3), "same key, same draws")
	for _, i := range a {
		assert.True(t, i >= 0 && i < 50)
	}
}

// The parallel fast path draws exactly what Indices draws, resample
// by resample, on every schedule.
func TestForEachResampleMatchesResampleIndices(t *testing.T) {
	for _, tt := range []struct {
		name         string
		n, resamples int
	}{
		{name: "one resample", n: 5, resamples: 1},
		{name: "fewer resamples than workers", n: 3, resamples: 2},
		{name: "many", n: 21, resamples: 1000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := make([][]int, tt.resamples)
			var mu sync.Mutex
			calls := 0
			ForEach(tt.n, 0, tt.resamples, func() func(int, []int) {
				return func(b int, idx []int) {
					got[b] = append([]int(nil), idx...)
					mu.Lock()
					calls++
					mu.Unlock()
				}
			})
			require.Equal(t, tt.resamples, calls)
			for b := range tt.resamples {
				require.Equal(t, Indices(tt.n, 0, b), got[b], "resample %d", b)
			}
		})
	}
}

func TestPercentileIntervalRanks(t *testing.T) {
	// Rank vectors of typevet's percentile_interval: with values 0..B-1 the interval ends are the
	// ranks themselves.
	tests := []struct {
		name   string
		b      int
		lo, hi float64
		reason string
	}{
		{name: "B=1000", b: 1000, lo: 25, hi: 974, reason: "(1-0.95)/2*1000 = 25.000000000000025 rounds to 25, not 26"},
		{name: "B=2000", b: 2000, lo: 50, hi: 1949},
		{name: "B=10000", b: 10000, lo: 250, hi: 9749},
		{name: "B=1", b: 1, lo: 0, hi: 0, reason: "hi = ceil(0.975)-1 = 0"},
		{name: "B=6", b: 6, lo: 0, hi: 5, reason: "floor(0.15)=0, ceil(5.85)-1=5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			values := make([]float64, tt.b)
			for i := range values { // reversed, so sorting matters
				values[i] = float64(tt.b - 1 - i)
			}
			lo, hi, err := PercentileInterval(values, 0.95)
			require.NoError(t, err)
			assert.Equal(t, tt.lo, lo, tt.reason)
			assert.Equal(t, tt.hi, hi, tt.reason)
			assert.Equal(t, float64(tt.b-1), values[0], "input not sorted in place")
		})
	}
}

func TestPercentileIntervalErrors(t *testing.T) {
	_, _, err := PercentileInterval(nil, 0.95)
	assert.True(t, errors.Is(err, errEmptyInterval))
	assert.EqualError(t, err, "cannot take an interval of an empty sequence")

	for _, level := range []float64{1.5, -2, nanLevel()} {
		t.Run(fmt.Sprint(level), func(t *testing.T) {
			_, _, err := PercentileInterval([]float64{1, 2, 3}, level)
			assert.ErrorContains(t, err, "level")
		})
	}
}

func nanLevel() float64 {
	zero := 0.0
	return zero / zero
}

func BenchmarkResampleIndices700(b *testing.B) {
	b.ReportAllocs()
	for i := range b.N {
		_ = Indices(700, 0, i)
	}
}

// BenchmarkBootstrap10k draws the 10,000 resamples of 700 rows of the
// pooled accuracy interval (7 million SHA-256 draws) on GOMAXPROCS workers.
func BenchmarkBootstrap10k(b *testing.B) {
	b.ReportAllocs()
	counts := make([]int, 10000)
	for range b.N {
		ForEach(700, 0, 10000, func() func(int, []int) {
			return func(r int, idx []int) { counts[r] = idx[0] }
		})
	}
}
