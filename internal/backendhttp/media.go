package backendhttp

import (
	"context"
	"encoding/base64"
	"sync"
	"sync/atomic"
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

	// A pooled cache ([WithPooledMedia]) encodes into buffers of uriPool
	// and gives them back once nothing can read them: refs counts the
	// judgment (until its end function) and every reference taken by
	// [HoldDataURI] and not yet released (a URI handed out by [DataURI]
	// holds one for good).
	pooled bool
	bufs   []*[]byte
	refs   atomic.Int64
}

// uriPool holds data URI buffers of finished judgments: a check image's
// URI is about 150 KB, and a fresh one per judgment cost more client CPU
// (zeroing, page faults, the scavenger) than the base64 encoding itself.
var uriPool sync.Pool

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

// WithPooledMedia is [WithMedia] whose data URIs live in pooled buffers,
// reused by later judgments: end, called when the judgment is over, and
// the release of every [HoldDataURI] reference give them back. A URI
// taken by [DataURI] or [Base64] keeps them out of the pool.
func WithPooledMedia(ctx context.Context, media []judgment.Image) (_ context.Context, end func()) {
	if len(media) == 0 {
		return ctx, func() {}
	}
	c := &mediaCache{
		media:  media,
		once:   make([]sync.Once, len(media)),
		uris:   make([]string, len(media)),
		pooled: true,
		bufs:   make([]*[]byte, len(media)),
	}
	c.refs.Store(1)
	var ended atomic.Bool
	return context.WithValue(ctx, mediaKey{}, c), func() {
		if ended.CompareAndSwap(false, true) {
			c.release()
		}
	}
}

// release drops one reference; the last gives the buffers back.
func (c *mediaCache) release() {
	if c.refs.Add(-1) != 0 {
		return
	}
	for i, b := range c.bufs {
		if b != nil {
			c.bufs[i], c.uris[i] = nil, ""
			uriPool.Put(b)
		}
	}
}

// acquire takes a reference unless the buffers were given back already.
func (c *mediaCache) acquire() bool {
	for {
		r := c.refs.Load()
		if r == 0 {
			return false
		}
		if c.refs.CompareAndSwap(r, r+1) {
			return true
		}
	}
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
	c.once[i].Do(func() {
		img := c.media[i]
		if c.pooled {
			c.bufs[i] = pooledBuffer(dataURILen(img))
			c.uris[i] = encodeDataURIInto(*c.bufs[i], img)
		} else {
			c.uris[i] = encodeDataURI(img)
		}
	})
	return c.uris[i]
}

// DataURI returns "data:<mime>;base64,<standard base64 of img.Data>",
// from the judgment's cache when img is one of the images passed to
// [WithMedia] or [WithPooledMedia] (same backing array and length), else
// freshly encoded. The string stays valid for good: it holds a reference
// to a pooled cache that is never released, so its buffers are not
// reused.
func DataURI(ctx context.Context, img judgment.Image) string {
	uri, _ := HoldDataURI(ctx, img) // never released: held for good
	return uri
}

// URIRef is a holder's reference to a pooled data URI ([HoldDataURI]).
// The zero value holds nothing.
type URIRef struct{ c *mediaCache }

// Release gives the reference back. It must be called exactly once per
// held reference (a holder that may be closed twice guards it); after it
// the URI must not be read.
func (r URIRef) Release() {
	if r.c != nil {
		r.c.release()
	}
}

// HoldDataURI is [DataURI] for a holder that says when it is done: the
// string may be read until the reference's Release, called once, and must
// not be read or kept after. From a [WithPooledMedia] cache it shares a
// pooled buffer. A vLLM request body holds one reference per image.
func HoldDataURI(ctx context.Context, img judgment.Image) (string, URIRef) {
	c, i, ok := lookup(ctx, img)
	if !ok {
		return encodeDataURI(img), URIRef{}
	}
	if !c.pooled {
		return c.uri(i), URIRef{}
	}
	if !c.acquire() {
		// The judgment is over and its buffers are back in the pool.
		return encodeDataURI(img), URIRef{}
	}
	return c.uri(i), URIRef{c: c}
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

// pooledBuffer returns a buffer of n bytes from uriPool, or a new one
// with room for a slightly larger image next time.
func pooledBuffer(n int) *[]byte {
	if b, _ := uriPool.Get().(*[]byte); b != nil && cap(*b) >= n {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n, n+n/8)
	return &b
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
