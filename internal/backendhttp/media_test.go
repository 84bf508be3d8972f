package backendhttp

import (
	"encoding/base64"
	"math/rand/v2"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

// stdDataURI is the data URI as encoding/base64 writes it: the oracle of
// encodeDataURI.
func stdDataURI(img judgment.Image) string {
	return "data:" + img.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}

// TestDataURIMatchesStdlib checks that the data URI of every length up to
// 1,100 bytes (each tail and block boundary of the vector encoder) and of
// a check-image-sized buffer is the bytes encoding/base64 writes.
func TestDataURIMatchesStdlib(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 150_000)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	lengths := []int{len(data), 110_003, 65_536, 4097}
	for n := 1; n <= 1100; n++ {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		img := judgment.Image{Data: data[:n], MIMEType: "image/png"}
		if got, want := encodeDataURI(img), stdDataURI(img); got != want {
			t.Fatalf("data URI of %d bytes differs from encoding/base64's", n)
		}
		b := make([]byte, dataURILen(img))
		if got, want := encodeDataURIInto(b, img), stdDataURI(img); got != want {
			t.Fatalf("pooled data URI of %d bytes differs from encoding/base64's", n)
		}
	}
}

// FuzzDataURI: the data URI of any bytes is encoding/base64's.
func FuzzDataURI(f *testing.F) {
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	f.Add(make([]byte, 97))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		img := judgment.Image{Data: data, MIMEType: "image/jpeg"}
		if got, want := encodeDataURI(img), stdDataURI(img); got != want {
			t.Fatalf("data URI of %d bytes differs from encoding/base64's", len(data))
		}
	})
}

// BenchmarkDataURI encodes a 110 KB image (about a rendered check PNG)
// into a reused buffer: Vector is encodeDataURIInto, Stdlib the
// encoding/base64 encoder it replaced (issue 18).
func BenchmarkDataURI(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 110_000)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	img := judgment.Image{Data: data, MIMEType: "image/png"}
	buf := make([]byte, dataURILen(img))
	b.Run("Vector", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			encodeDataURIInto(buf, img)
		}
	})
	b.Run("Stdlib", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		prefix := dataURIPrefix(img)
		for b.Loop() {
			copy(buf, prefix)
			base64.StdEncoding.Encode(buf[len(prefix):], img.Data)
		}
	})
}
