package backendhttp

import (
	"context"
	"encoding/base64"
	"sync"
	"unsafe"

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

// DataURI returns "data:<mime>;base64,<standard base64 of img.Data>",
// from the judgment's cache when img is one of the images passed to
// [WithMedia] (same backing array and length), else freshly encoded.
func DataURI(ctx context.Context, img judgment.Image) string {
	if c, ok := ctx.Value(mediaKey{}).(*mediaCache); ok && len(img.Data) > 0 {
		for i, m := range c.media {
			if len(m.Data) == len(img.Data) && &m.Data[0] == &img.Data[0] && m.MIMEType == img.MIMEType {
				c.once[i].Do(func() { c.uris[i] = encodeDataURI(img) })
				return c.uris[i]
			}
		}
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

// encodeDataURI encodes img in one pass into the bytes the returned
// string shares (nothing writes them after).
func encodeDataURI(img judgment.Image) string {
	prefix := dataURIPrefix(img)
	b := make([]byte, len(prefix)+base64.StdEncoding.EncodedLen(len(img.Data)))
	copy(b, prefix)
	base64.StdEncoding.Encode(b[len(prefix):], img.Data)
	return unsafe.String(unsafe.SliceData(b), len(b))
}
