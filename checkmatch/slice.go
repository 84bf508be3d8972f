package checkmatch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"

	"golang.org/x/sync/errgroup"
)

// dataset is the dataset name a check-match receipt pins.
const dataset = "synthetic checks (#315 generator)"

// Slice is the judged slice of a run: one [Request] per case
// of [Cases] in case order, each with the case's render, and the digest of
// the whole.
type Slice struct {
	// Seed is the generator seed.
	Seed uint64
	// Rows is the number of register rows (1..[RowCount]).
	Rows int
	// Requests holds one request per case, in case order (Rows × 7).
	Requests []Request
	// SHA256 is the slice_sha256 pin: one SHA-256 stream over, for each
	// request in order, the UTF-8 case id and then the 32 raw bytes of the
	// SHA-256 of its image, without separators; lower-case hex.
	SHA256 string
}

// Pins returns the slice's pins in a [Pins] block: dataset,
// generator_seed, register_rows, variants_per_row and slice_sha256 (in that
// key order). A run adds finished_utc, concurrency, renderer, server and
// model_revision.
func (s Slice) Pins() Pins {
	return Pins{
		Dataset:        dataset,
		GeneratorSeed:  s.Seed,
		RegisterRows:   s.Rows,
		VariantsPerRow: VariantsPerRow,
		SliceSHA256:    s.SHA256,
	}
}

// BuildSlice builds the slice of seed with rows register rows: it
// renders every case once with [Render] and computes slice_sha256. Renders
// run in parallel on GOMAXPROCS goroutines; the result does not depend on
// the schedule (the same seed and rows give the same Slice, byte for
// byte). rows outside 1..[RowCount] is an error, before any render.
// rendered, when not nil, is called after each render from the rendering
// goroutine, so a caller can show progress; the Slice is the same.
func BuildSlice(seed uint64, rows int, rendered func()) (Slice, error) {
	cases, err := Cases(seed, rows)
	if err != nil {
		return Slice{}, err
	}
	images := make([][]byte, len(cases))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, c := range cases {
		g.Go(func() error {
			png, err := Render(c)
			if err != nil {
				return fmt.Errorf("render %s: %w", c.ID(), err)
			}
			images[i] = png
			if rendered != nil {
				rendered()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return Slice{}, err
	}
	return newSlice(seed, rows, cases, images), nil
}

// PlannedSlice returns the slice of seed and rows before rendering: every
// request but without its image, and SHA256 empty. It is for checks that
// must run before the first render and the first request, such as
// refusing a key that occurs in the receipt's fixed text
// ([PreviewReceipt]: case ids, question and label words).
func PlannedSlice(seed uint64, rows int) (Slice, error) {
	cases, err := Cases(seed, rows)
	if err != nil {
		return Slice{}, err
	}
	reqs := make([]Request, len(cases))
	for i, c := range cases {
		reqs[i] = BuildRequest(c, nil)
	}
	return Slice{Seed: seed, Rows: rows, Requests: reqs}, nil
}

// newSlice builds a slice from cases and their images (one per case, in
// order). Tests feed it synthetic image bytes.
func newSlice(seed uint64, rows int, cases []Case, images [][]byte) Slice {
	reqs := make([]Request, len(cases))
	for i, c := range cases {
		reqs[i] = BuildRequest(c, images[i])
	}
	return Slice{Seed: seed, Rows: rows, Requests: reqs, SHA256: sliceSHA256(reqs)}
}

// sliceSHA256 computes slice_sha256 over requests.
func sliceSHA256(reqs []Request) string {
	h := sha256.New()
	for _, r := range reqs {
		h.Write([]byte(r.CaseID()))
		sum := r.imageSum()
		h.Write(sum[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}
