package backendhttp

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"

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

// encodeDataURI returns img's data URI, encoded with encoding/base64.
func encodeDataURI(img judgment.Image) string {
	prefix := "data:" + img.MIMEType + ";base64,"
	var b strings.Builder
	b.Grow(len(prefix) + base64.StdEncoding.EncodedLen(len(img.Data)))
	b.WriteString(prefix)
	enc := base64.NewEncoder(base64.StdEncoding, &b)
	enc.Write(img.Data) // a strings.Builder never fails
	enc.Close()
	return b.String()
}
