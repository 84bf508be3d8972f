package reader_test

import (
	"sync"
	"testing"

	"github.com/typevet/typevet-go/checkmatch"
)

// slices caches built slices by seed: rendering is the slow part of these
// tests.
var slices sync.Map // uint64 → checkmatch.Slice

// sliceOf returns the full 20-row slice of seed, built once per test
// binary.
func sliceOf(tb testing.TB, seed uint64) checkmatch.Slice {
	tb.Helper()
	if s, ok := slices.Load(seed); ok {
		return s.(checkmatch.Slice)
	}
	s, err := checkmatch.BuildSlice(seed, checkmatch.RowCount)
	if err != nil {
		tb.Fatal(err)
	}
	slices.Store(seed, s)
	return s
}

func defaultSlice(tb testing.TB) checkmatch.Slice { return sliceOf(tb, 0) }
