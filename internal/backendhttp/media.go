package backendhttp

import (
	"context"
	"encoding/base64"
	"sync"
	"unsafe"

	asmbase64 "github.com/segmentio/asm/base64"

	"github.com/typevet/typevet-go/judgment"
)

// mediaKey is the context key of a [mediaCache].
type mediaKey struct{}

// mediaCache holds the data URIs of one judgment's images, each built on
// first use. The judgment algorithm sends one scoring request per question,
// each carrying the same images; the cache makes the base64 encoding happen
// once per judgment instead of once per question.
type mediaCache struct {
	media []judgment.Image
	once  []sync.Once
	uris  []string
}

// WithMedia returns a context whose scoring calls reuse one encoding of each
// image of media. Sessions call it at the start of each Judge.
func WithMedia(ctx context.Context, media []judgment.Image) context.Context {
	if len(media) == 0 {
		return ctx
	}
	return context.WithValue(ctx, mediaKey{}, &mediaCache{
		media: media,
		once:  make([]sync.Once, len(media)),
		uris:  make([]string, len(media)),
	})
}

// lookup returns the cache of ctx and the index of img in it (same
// backing array, length and type).
func lookup(ctx context.Context, img judgment.Image) (*mediaCache, int, bool) {
	c, ok := ctx.Value(mediaKey{}).(*mediaCache)
	if !ok || len(img.Data) == 0 {
		return nil, 0, false
	}
	for i, m := range c.media {
		if len(m.Data) == len(img.Data) && &m.Data[0] == &img.Data[0] && m.MIMEType == img.MIMEType {
			return c, i, true
		}
	}
	return nil, 0, false
}

// uri returns the URI of image i, encoding it on first use.
func (c *mediaCache) uri(i int) string {
	c.once[i].Do(func() { c.uris[i] = encodeDataURI(c.media[i]) })
	return c.uris[i]
}

// DataURI returns "data:<mime>;base64,<standard base64 of img.Data>",
// from the judgment's cache when img is one of the images passed to
// [WithMedia] (same backing array and length), else freshly encoded.
func DataURI(ctx context.Context, img judgment.Image) string {
	if c, i, ok := lookup(ctx, img); ok {
		return c.uri(i)
	}
	return encodeDataURI(img)
}

// Base64 returns the standard base64 of img.Data (no data: prefix), sharing
// the cached data URI's bytes.
func Base64(ctx context.Context, img judgment.Image) string {
	uri := DataURI(ctx, img)
	return uri[len("data:")+len(img.MIMEType)+len(";base64,"):]
}

func dataURIPrefix(img judgment.Image) string { return "data:" + img.MIMEType + ";base64," }

// dataURILen is the length of img's data URI.
func dataURILen(img judgment.Image) int {
	return len("data:") + len(img.MIMEType) + len(";base64,") + base64.StdEncoding.EncodedLen(len(img.Data))
}

// encodeDataURI encodes img in one pass into the bytes the returned
// string shares (nothing writes them after).
func encodeDataURI(img judgment.Image) string {
	return encodeDataURIInto(make([]byte, dataURILen(img)), img)
}

// encodeDataURIInto encodes img into b (of dataURILen(img) bytes) and
// returns a string sharing b. The base64 is github.com/segmentio/asm's
// (AVX2 on amd64, NEON on arm64, encoding/base64 elsewhere): the same
// bytes as encoding/base64's StdEncoding (TestDataURIMatchesStdlib,
// FuzzDataURI), about 12× faster on a check-sized image (BenchmarkDataURI:
// 6 µs against 75 µs for 110 KB), and it
// was the largest client CPU cost of a vLLM judgment that the floor of
// BenchmarkSliceVLLM does not pay (issue 18).
func encodeDataURIInto(b []byte, img judgment.Image) string {
	prefix := dataURIPrefix(img)
	copy(b, prefix)
	asmbase64.StdEncoding.Encode(b[len(prefix):], img.Data)
	return unsafe.String(unsafe.SliceData(b), len(b))
}
