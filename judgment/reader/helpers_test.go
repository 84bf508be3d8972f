package reader_test

import (
	"bytes"
	"image"
	"image/png"
	"runtime"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/typevet/typevet-go/checkmatch"
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

// renderSet is one seed's renders, shared by the judge tests (through
// Slice) and the read tests (through image).
type renderSet struct {
	// Slice holds one request per case of checkmatch.Cases(seed,
	// testRows()) with its render as PNG. SHA256 is not computed: no test
	// here reads it.
	Slice checkmatch.Slice
	// images are the decoded renders, kept only for the short slices
	// (-short, race detector): a full slice's 140 images would hold
	// 250 MB, and without the race detector decoding the PNG again is
	// cheap.
	images []*image.RGBA
}

// image returns the render of case i as pixels.
func (s *renderSet) image(tb testing.TB, i int) *image.RGBA {
	if s.images != nil {
		return s.images[i]
	}
	return decode(tb, s.Slice.Requests[i].Media[0].Data)
}

// renders caches render sets by seed: rendering (and, under the race
// detector, PNG coding) is the slow part of these tests, so every test
// renders a seed's checks at most once per test binary.
var renders sync.Map // uint64 → *renderSet

// rendersOf returns the render set of seed, built once per test binary:
// checkmatch.RenderImage on GOMAXPROCS goroutines, each image encoded as
// PNG (without compression for the short slices, where PNG decoding under
// the race detector would dominate; fast deflate for the full ones, to
// keep the cache small).
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
	keep := rows < checkmatch.RowCount
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if keep {
		enc.CompressionLevel = png.NoCompression
	}
	set := &renderSet{Slice: checkmatch.Slice{Seed: seed, Rows: rows, Requests: make([]checkmatch.Request, len(cases))}}
	images := make([]*image.RGBA, len(cases))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, c := range cases {
		g.Go(func() error {
			img, err := checkmatch.RenderImage(c)
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := enc.Encode(&buf, img); err != nil {
				return err
			}
			set.Slice.Requests[i] = checkmatch.BuildRequest(c, buf.Bytes())
			images[i] = img
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		tb.Fatal(err)
	}
	if keep {
		set.images = images
	}
	s, _ := renders.LoadOrStore(seed, set)
	return s.(*renderSet)
}

// sliceOf returns the slice of seed with testRows rows ([rendersOf]).
func sliceOf(tb testing.TB, seed uint64) checkmatch.Slice {
	tb.Helper()
	return rendersOf(tb, seed).Slice
}

// defaultSlice returns the full default slice (seed 0, 20 rows) for the
// benchmark, as checkmatch builds it.
func defaultSlice(tb testing.TB) checkmatch.Slice {
	tb.Helper()
	s, err := checkmatch.BuildSlice(0, checkmatch.RowCount)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
