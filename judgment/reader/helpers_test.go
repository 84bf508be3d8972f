package reader_test

import (
	"runtime"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment/reader"
)

// testRows is the number of register rows the slice tests judge: the
// full slice, or two rows in -short mode and under the race detector,
// where rendering and reading are many times slower.
func testRows() int {
	if testing.Short() || raceEnabled {
		return 2
	}
	return checkmatch.RowCount
}

// renderSet is one seed's renders and readings, made once per test
// binary and shared by the judge tests (through Slice) and the read tests
// (through Readings).
type renderSet struct {
	// Slice holds one request per case of checkmatch.Cases(seed,
	// testRows()) with its PNG as checkmatch.Render writes it; it is
	// empty for a seed only read ([readOnly]). SHA256 is not computed: no
	// test here reads it.
	Slice checkmatch.Slice
	// Cases are the seed's cases, in slice order.
	Cases []checkmatch.Case
	// Readings holds reader.Read of each case's pixels, in slice order;
	// a low_legibility case of a read-only seed is not rendered and has
	// the zero Reading (Rendered false).
	Readings []reader.Reading
	// Rendered tells which cases were rendered and read.
	Rendered []bool
}

// renders caches render sets by seed: rendering is the slow part of these
// tests, so every case of a seed is rendered and read at most once per
// test binary, and the read and judge sweeps share the results.
var renders sync.Map // uint64 → *renderSet

// readOnly reports whether seed is read by TestSharpRendersReadExactly
// only: no judge test needs its PNGs or its blurred cases.
func readOnly(seed uint64) bool { return seed > 1 }

// rendersOf returns the render set of seed, built once per test binary on
// GOMAXPROCS goroutines. Each case is drawn by checkmatch.RenderImage and
// read by reader.Read; the judged seeds (0 and 1) also get the PNG a run
// sends (checkmatch.Render), and a read-only seed skips its low_legibility
// cases, which no test reads there. No image is kept: a full slice's 140
// images would hold 250 MB.
func rendersOf(tb testing.TB, seed uint64) *renderSet {
	tb.Helper()
	if s, ok := renders.Load(seed); ok {
		return s.(*renderSet)
	}
	rows := testRows()
	cases, err := checkmatch.Cases(seed, rows)
	if err != nil {
		tb.Fatal(err)
	}
	set := &renderSet{Cases: cases, Readings: make([]reader.Reading, len(cases)), Rendered: make([]bool, len(cases))}
	if !readOnly(seed) {
		set.Slice = checkmatch.Slice{Seed: seed, Rows: rows, Requests: make([]checkmatch.Request, len(cases))}
	}
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, c := range cases {
		if readOnly(seed) && c.Variant == checkmatch.VariantLowLegibility {
			continue
		}
		g.Go(func() error {
			img, err := checkmatch.RenderImage(c)
			if err != nil {
				return err
			}
			set.Readings[i], set.Rendered[i] = reader.Read(img), true
			if readOnly(seed) {
				return nil
			}
			png, err := checkmatch.Render(c)
			if err != nil {
				return err
			}
			set.Slice.Requests[i] = checkmatch.BuildRequest(c, png)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		tb.Fatal(err)
	}
	s, _ := renders.LoadOrStore(seed, set)
	return s.(*renderSet)
}

// sliceOf returns the slice of seed with testRows rows ([rendersOf]);
// seed is 0 or 1.
func sliceOf(tb testing.TB, seed uint64) checkmatch.Slice {
	tb.Helper()
	if readOnly(seed) {
		tb.Fatalf("seed %d is only read; judge seed 0 or 1", seed)
	}
	return rendersOf(tb, seed).Slice
}

// defaultSlice returns the full default slice (seed 0, 20 rows) for the
// benchmark, as checkmatch builds it.
func defaultSlice(tb testing.TB) checkmatch.Slice {
	tb.Helper()
	s, err := checkmatch.BuildSlice(0, checkmatch.RowCount, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
