package view

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/png"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/typevet/typevet-go/checkmatch"
)

// sliceKey names one seeded slice: renders are shared by every receipt of
// the same seed and rows.
type sliceKey struct {
	seed uint64
	rows int
}

// render is one case re-rendered here.
type render struct {
	c      checkmatch.Case
	png    []byte // the PNG bytes [checkmatch.Render] wrote
	sha256 string // lower-case hex SHA-256 of png
}

// renderCase is checkmatch.Render; the tests share one render per case
// across their many sites through it.
var renderCase = checkmatch.Render

// halfScaleCase is [halfScaleOf]; the tests share one half-scale view per
// case across their many sites through it.
var halfScaleCase = halfScaleOf

// halfScaleOf returns the half-scale view of case c's render. The pixels
// are drawn again: cheaper than decoding the PNG whose digest matched.
func halfScaleOf(c checkmatch.Case) ([]byte, error) {
	img, err := checkmatch.RenderImage(c)
	if err != nil {
		return nil, err
	}
	return halfScale(img)
}

// renders re-renders the cases of every slice the receipts name, once per
// slice and case, in parallel. A slice whose rows are out of range has no
// renders (every case of it is then not reproducible).
func renders(inputs []Input) (map[sliceKey]map[string]render, error) {
	type job struct {
		key sliceKey
		c   checkmatch.Case
	}
	var jobs []job
	out := map[sliceKey]map[string]render{}
	for _, in := range inputs {
		key := sliceKey{in.Receipt.Pins.GeneratorSeed, in.Receipt.Pins.RegisterRows}
		if _, done := out[key]; done {
			continue
		}
		out[key] = map[string]render{}
		cases, err := checkmatch.Cases(key.seed, key.rows)
		if err != nil {
			continue // rows out of range: nothing to re-render
		}
		wanted := map[string]bool{}
		for _, in2 := range inputs {
			if (sliceKey{in2.Receipt.Pins.GeneratorSeed, in2.Receipt.Pins.RegisterRows}) == key {
				for _, rec := range in2.Receipt.Cases {
					wanted[rec.CaseID] = true
				}
			}
		}
		for _, c := range cases {
			if wanted[c.ID()] {
				jobs = append(jobs, job{key, c})
			}
		}
	}
	results := make([]render, len(jobs))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, j := range jobs {
		g.Go(func() error {
			b, err := renderCase(j.c)
			if err != nil {
				return fmt.Errorf("re-render %s: %w", j.c.ID(), err)
			}
			sum := sha256.Sum256(b)
			results[i] = render{c: j.c, png: b, sha256: hex.EncodeToString(sum[:])}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i, j := range jobs {
		out[j.key][j.c.ID()] = results[i]
	}
	return out, nil
}

// rendererReason explains, for a receipt whose renders do not match, why
// they differ: typevet's Pillow renderer, another Go renderer build, or the
// same renderer pin with different bytes.
func rendererReason(p checkmatch.Pins) string {
	here := checkmatch.RendererPin()
	switch {
	case p.Renderer == nil && p.PillowVersion != "":
		return "typevet rendered this slice with Pillow " + p.PillowVersion + "; the Go renderer here draws other pixels, so the judged images cannot be re-made"
	case p.Renderer == nil:
		return "the receipt pins no renderer, and the renders made here have other SHA-256 digests"
	}
	var diffs []string
	r := *p.Renderer
	if r.Module != here.Module {
		diffs = append(diffs, "module "+r.Module)
	}
	if r.ModuleVersion != here.ModuleVersion {
		diffs = append(diffs, "module version "+quoteOrNone(r.ModuleVersion)+" (here "+quoteOrNone(here.ModuleVersion)+")")
	}
	if r.FontSHA256 != here.FontSHA256 {
		diffs = append(diffs, "font "+r.Font)
	}
	if r.XImageVersion != here.XImageVersion {
		diffs = append(diffs, "golang.org/x/image "+r.XImageVersion+" (here "+here.XImageVersion+")")
	}
	if r.Blur != here.Blur {
		diffs = append(diffs, "blur "+r.Blur)
	}
	if r.PNG != here.PNG {
		diffs = append(diffs, "PNG encoding "+r.PNG)
	}
	if len(diffs) == 0 {
		return "the receipt's renderer pin equals this build's, yet the renders made here have other SHA-256 digests"
	}
	return "the receipt's renderer differs from this build's: " + strings.Join(diffs, ", ")
}

func quoteOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return fmt.Sprintf("%q", s)
}

// halfScale returns the PNG of a half-scale view of img: each pixel the
// rounded mean of a 2×2 block (an odd last row or column is dropped).
// Lossless PNG, so the view adds no compression artefacts of its own.
func halfScale(img *image.RGBA) ([]byte, error) {
	w, h := img.Rect.Dx()/2, img.Rect.Dy()/2
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		r0 := img.Pix[(2*y)*img.Stride:]
		r1 := img.Pix[(2*y+1)*img.Stride:]
		d := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		for x := 0; x < 4*w; x += 4 {
			s := 2 * x
			for k := range 4 {
				sum := uint(r0[s+k]) + uint(r0[s+4+k]) + uint(r1[s+k]) + uint(r1[s+4+k])
				d[x+k] = uint8((sum + 2) / 4)
			}
		}
	}
	var out bytes.Buffer
	if err := halfEncoder.Encode(&out, dst); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// halfEncoder encodes the half-scale views, reusing its buffers.
var halfEncoder = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: new(encoderBuffers)}

// encoderBuffers is a png.EncoderBufferPool over a sync.Pool.
type encoderBuffers struct{ p sync.Pool }

func (b *encoderBuffers) Get() *png.EncoderBuffer {
	if e, ok := b.p.Get().(*png.EncoderBuffer); ok {
		return e
	}
	return nil
}

func (b *encoderBuffers) Put(e *png.EncoderBuffer) { b.p.Put(e) }
