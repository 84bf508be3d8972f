package checkmatch

import (
	"bytes"
	"compress/zlib"
	"hash/adler32"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"testing"
)

// TestAdler32Update checks the zero-word shortcut against hash/adler32 on
// data with long zero runs (filtered paper), dense noise, lengths that are
// not multiples of 8, and inputs longer than one reduction chunk.
func TestAdler32Update(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	noise := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = uint8(rng.UintN(256))
		}
		return b
	}
	sparse := make([]byte, 200_003)
	for i := 0; i < len(sparse); i += 997 {
		sparse[i] = 0xff
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{name: "empty", data: nil},
		{name: "short", data: []byte("abc")},
		{name: "all 0xff, longer than a chunk", data: bytes.Repeat([]byte{0xff}, 3<<16+5)},
		{name: "zeros", data: make([]byte, 100_001)},
		{name: "sparse", data: sparse},
		{name: "noise", data: noise(70_001)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := adler32Update(1, tc.data), adler32.Checksum(tc.data); got != want {
				t.Fatalf("one call: %#08x, hash/adler32 %#08x", got, want)
			}
			// Row by row, as the encoder calls it.
			sum := uint32(1)
			for rest := tc.data; len(rest) > 0; {
				k := min(len(rest), 1+int(rng.UintN(3001)))
				sum, rest = adler32Update(sum, rest[:k]), rest[k:]
			}
			if want := adler32.Checksum(tc.data); sum != want {
				t.Fatalf("in pieces: %#08x, hash/adler32 %#08x", sum, want)
			}
		})
	}
}

// TestAdler32ZeroRow checks the closed form for a filtered row that is all
// zeros after its filter-type byte.
func TestAdler32ZeroRow(t *testing.T) {
	for _, n := range []int{1, 2, 3001, 70_000} {
		row := make([]byte, n)
		row[0] = 2
		for _, start := range []uint32{1, 0xfff0_fff0, adler32.Checksum([]byte("typevet"))} {
			want := adler32Update(start, row)
			if got := adler32ZeroRow(start, n); got != want {
				t.Errorf("n %d from %#08x: %#08x, want %#08x", n, start, got, want)
			}
		}
	}
}

// TestUpFilter compares the two-pixels-per-word filter with the byte-wise
// definition, for odd and even widths.
func TestUpFilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, w := range []int{1, 2, 3, 8, 999, 1000} {
		cur, prev := make([]byte, 4*w), make([]byte, 4*w)
		for i := range cur {
			cur[i], prev[i] = uint8(rng.UintN(256)), uint8(rng.UintN(256))
		}
		got := make([]byte, 3*w+2)
		upFilter(got, cur, prev)
		for x := range w {
			for c := range 3 {
				if want := cur[4*x+c] - prev[4*x+c]; got[3*x+c] != want {
					t.Fatalf("width %d, pixel %d channel %d: %d, want %d", w, x, c, got[3*x+c], want)
				}
			}
		}
	}
}

// TestEncodeRGBPNGStream decodes the zlib stream of an encoded noise image
// with compress/zlib (which verifies the Adler-32) and image/png, and
// compares both with the filtered rows and the pixels.
func TestEncodeRGBPNGStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	img := image.NewRGBA(image.Rect(0, 0, 37, 23))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.UintN(256))
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	// Rows equal to the row above take the all-zero path: rows 1 and 2
	// repeat row 0, row 5 repeats row 4, the last rows repeat each other.
	for _, y := range []int{1, 2, 5, 21, 22} {
		copy(img.Pix[y*img.Stride:(y+1)*img.Stride], img.Pix[(y-1)*img.Stride:])
	}
	b, err := encodeRGBPNG(img)
	if err != nil {
		t.Fatal(err)
	}
	// Signature, IHDR (8+4+4+13+4 bytes), then the IDAT chunk.
	const idat = 8 + 25
	if string(b[idat+4:idat+8]) != "IDAT" {
		t.Fatalf("second chunk %q, want IDAT", b[idat+4:idat+8])
	}
	n := int(b[idat])<<24 | int(b[idat+1])<<16 | int(b[idat+2])<<8 | int(b[idat+3])
	zr, err := zlib.NewReader(bytes.NewReader(b[idat+8 : idat+8+n]))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr) // fails on a wrong Adler-32
	if err != nil {
		t.Fatal(err)
	}
	if want := 23 * (1 + 3*37); len(raw) != want {
		t.Fatalf("%d filtered bytes, want %d", len(raw), want)
	}
	dec, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := dec.(*image.RGBA)
	if !ok {
		t.Fatalf("decoded %T, want *image.RGBA", dec)
	}
	if !bytes.Equal(got.Pix, img.Pix) {
		t.Fatal("decoded pixels differ from the encoded image")
	}
}

func BenchmarkEncodeRGBPNG(b *testing.B) {
	img, err := RenderImage(seed0Cases(b)[0])
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(img.Pix)))
	for b.Loop() {
		if _, err := encodeRGBPNG(img); err != nil {
			b.Fatal(err)
		}
	}
}
