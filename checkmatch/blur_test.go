package checkmatch

import (
	"bytes"
	"image"
	"math/rand/v2"
	"testing"

	"github.com/disintegration/imaging"
)

// TestBlurMatchesReference checks the two-lanes-per-word blur against a
// plain per-channel transcription of Pillow's ImagingLineBoxBlur (the
// renderer's first implementation): the pixels must be identical, alpha
// untouched, for noise images of odd and tiny sizes (lines shorter than the
// box) and every sigma class the generator uses.
func TestBlurMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name  string
		w, h  int
		sigma float64
	}{
		{name: "generator low end", w: 97, h: 61, sigma: 3.5},
		{name: "generator mid", w: 64, h: 33, sigma: 4.37},
		{name: "generator high end", w: 50, h: 80, sigma: 5.0},
		{name: "small sigma", w: 31, h: 17, sigma: 0.6},
		{name: "one pixel", w: 1, h: 1, sigma: 4},
		{name: "lines shorter than the box", w: 3, h: 2, sigma: 9},
		{name: "large sigma", w: 40, h: 25, sigma: 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := image.NewRGBA(image.Rect(0, 0, tc.w, tc.h))
			for i := range img.Pix {
				img.Pix[i] = uint8(rng.UintN(256))
			}
			want := refGaussianBlur(bytes.Clone(img.Pix), tc.w, tc.h, tc.sigma)
			alpha := bytes.Clone(img.Pix)
			gaussianBlur(img, tc.sigma, nil)
			for i := range img.Pix {
				if i%4 == 3 {
					if img.Pix[i] != alpha[i] {
						t.Fatalf("alpha changed at byte %d", i)
					}
					continue
				}
				if img.Pix[i] != want[i] {
					t.Fatalf("pixel %d channel %d: got %d, reference %d", i/4, i%4, img.Pix[i], want[i])
				}
			}
		})
	}
}

// TestBlurSubImage blurs a sub-image (stride wider than the rows) and
// checks that the pixels outside it are untouched and the inside equals a
// blur of the same pixels as a whole image.
func TestBlurSubImage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	whole := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for i := range whole.Pix {
		whole.Pix[i] = uint8(rng.UintN(256))
	}
	before := bytes.Clone(whole.Pix)
	r := image.Rect(5, 4, 29, 21)
	sub := whole.SubImage(r).(*image.RGBA)
	alone := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := range r.Dy() {
		copy(alone.Pix[y*alone.Stride:], sub.Pix[y*sub.Stride:y*sub.Stride+4*r.Dx()])
	}
	gaussianBlur(sub, 4.2, nil)
	gaussianBlur(alone, 4.2, nil)
	for y := range whole.Rect.Dy() {
		for x := range whole.Rect.Dx() {
			i := whole.PixOffset(x, y)
			got := whole.Pix[i : i+4]
			want := before[i : i+4]
			if (image.Point{x, y}).In(r) {
				j := alone.PixOffset(x-r.Min.X, y-r.Min.Y)
				want = alone.Pix[j : j+4]
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("(%d,%d): got %v, want %v", x, y, got, want)
			}
		}
	}
}

// refGaussianBlur is the reference blur of w×h RGBA pixels: every row, then
// every column, through refBoxBlurLine.
func refGaussianBlur(pix []byte, w, h int, sigma float64) []byte {
	r := boxRadius(float32(sigma), blurPasses)
	for y := range h {
		refBoxBlurLine(pix[4*w*y:4*w*(y+1)], r)
	}
	col := make([]byte, 4*h)
	for x := range w {
		for y := range h {
			copy(col[4*y:4*y+4], pix[4*(w*y+x):])
		}
		refBoxBlurLine(col, r)
		for y := range h {
			copy(pix[4*(w*y+x):4*(w*y+x)+4], col[4*y:])
		}
	}
	return pix
}

// refBoxBlurLine runs blurPasses extended box passes over the R, G, B
// bytes of a line of 4-byte pixels, one channel and one pixel at a time,
// with explicit edge clamping, as Pillow's C code reads.
func refBoxBlurLine(pix []byte, r float32) {
	n := len(pix) / 4
	radius := int(r)
	ww := uint32(float32(1<<24) / (r*2 + 1))
	fw := ((1 << 24) - uint32(radius*2+1)*ww) / 2
	at := func(line []uint32, i int) uint32 { return line[min(max(i, 0), n-1)] }
	for c := range 3 {
		line := make([]uint32, n)
		for x := range n {
			line[x] = uint32(pix[4*x+c])
		}
		for range blurPasses {
			next := make([]uint32, n)
			for x := range n {
				var acc uint32
				for i := x - radius; i <= x+radius; i++ {
					acc += at(line, i)
				}
				v := acc*ww + (at(line, x-radius-1)+at(line, x+radius+1))*fw + 1<<23
				next[x] = v >> 24
			}
			line = next
		}
		for x := range n {
			pix[4*x+c] = uint8(line[x])
		}
	}
}

func BenchmarkBlur(b *testing.B) {
	img, err := RenderImage(seed0Cases(b)[0])
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(img.Pix)))
	var scratch []lanes
	for b.Loop() {
		scratch = gaussianBlur(img, 4.2, scratch)
	}
}

// BenchmarkBlurImaging is the library baseline of [BenchmarkBlur]: a true
// Gaussian of the same sigma over the same render with imaging.Blur.
func BenchmarkBlurImaging(b *testing.B) {
	img, err := RenderImage(seed0Cases(b)[0])
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(img.Pix)))
	for b.Loop() {
		_ = imaging.Blur(img, 4.2)
	}
}
