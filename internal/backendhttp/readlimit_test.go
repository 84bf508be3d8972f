package backendhttp

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"testing"
	"testing/iotest"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestReadBodyLimitInto: a body of at most limit bytes is read whole,
// whatever the reader's chunks and whether its length is announced; one
// byte more is refused; and no body is read past limit+1 bytes, however
// long (a hostile server cannot make the client hold more).
func TestReadBodyLimitInto(t *testing.T) {
	const limit = 64
	wrap := map[string]func(io.Reader) io.Reader{
		"plain":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"data+EOF": iotest.DataErrReader,
	}
	for _, size := range []int{0, 1, limit - 1, limit, limit + 1, 3 * limit} {
		for name, w := range wrap {
			for _, announce := range []bool{false, true} {
				for _, buf := range [][]byte{nil, make([]byte, 0, 8), make([]byte, 0, 4*limit)} {
					body := bytes.Repeat([]byte{'x'}, size)
					cr := &countingReader{r: w(bytes.NewReader(body))}
					resp := &http.Response{Body: io.NopCloser(cr), ContentLength: -1}
					if announce {
						resp.ContentLength = int64(size)
					}
					got, err := ReadBodyLimitInto(resp, limit, buf)
					if size > limit {
						var tl *BodyTooLargeError
						if !errors.As(err, &tl) || tl.Limit != limit {
							t.Errorf("%s, %d bytes, announced %v: err %v, want a BodyTooLargeError", name, size, announce, err)
						}
					} else if err != nil || !bytes.Equal(got, body) {
						t.Errorf("%s, %d bytes, announced %v: got %d bytes, err %v", name, size, announce, len(got), err)
					}
					if cr.n > limit+1 {
						t.Errorf("%s, %d bytes: read %d bytes, more than limit+1", name, size, cr.n)
					}
				}
			}
		}
	}
	// A read error is returned with what was read before it.
	resp := &http.Response{Body: io.NopCloser(iotest.TimeoutReader(bytes.NewReader([]byte("abcdef")))), ContentLength: -1}
	got, err := ReadBodyLimitInto(resp, limit, nil)
	if !errors.Is(err, iotest.ErrTimeout) || string(got) != "abcdef" {
		t.Errorf("read error: got %q, err %v", got, err)
	}
}
