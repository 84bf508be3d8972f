package reader_test

import (
	"sync"
	"testing"

	"github.com/typevet/typevet-go/checkmatch"
)

// slices caches built slices by seed: rendering is the slow part of these
// tests.
var slices sync.Map // uint64 → checkmatch.Slice

// testRows is the number of register rows the slice tests judge: the
// full slice, or two rows in -short mode and under the race detector,
// where rendering and reading are many times slower.
func testRows() int {
	if testing.Short() || raceEnabled {
		return 2
	}
	return checkmatch.RowCount
}

// sliceOf returns the slice of seed with testRows rows, built once per
// test binary.
func sliceOf(tb testing.TB, seed uint64) checkmatch.Slice {
	tb.Helper()
	if s, ok := slices.Load(seed); ok {
		return s.(checkmatch.Slice)
	}
	s, err := checkmatch.BuildSlice(seed, testRows())
	if err != nil {
		tb.Fatal(err)
	}
	slices.Store(seed, s)
	return s
}

// defaultSlice returns the full default slice (seed 0, 20 rows) for the
// benchmark.
func defaultSlice(tb testing.TB) checkmatch.Slice {
	tb.Helper()
	s, err := checkmatch.BuildSlice(0, checkmatch.RowCount)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
