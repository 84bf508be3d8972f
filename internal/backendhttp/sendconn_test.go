package backendhttp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"runtime"
	"strconv"
	"testing"
	"testing/iotest"
	"time"

	"github.com/typevet/typevet-go/judgment"
)

// TestSendConnBodies: a session's own pool sends request bodies of every
// size around its write chunks byte for byte, whether the body has a
// WriteTo or only a Read, however short its reads, and a file; each
// request goes out on a sendConn.
func TestSendConnBodies(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		n, _ := io.Copy(h, r.Body)
		fmt.Fprintf(w, "%d %x", n, h.Sum(nil))
	}))
	defer srv.Close()
	c := NewHTTPClient(nil, judgment.Auth{}, 10*time.Second)
	defer c.CloseIdleConnections()
	readers := map[string]func([]byte) io.Reader{
		"bytes.Reader": func(b []byte) io.Reader { return bytes.NewReader(b) },
		"Read only":    func(b []byte) io.Reader { return struct{ io.Reader }{bytes.NewReader(b)} },
		"half reads":   func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		"file": func(b []byte) io.Reader { // sent by the TCP connection's own ReadFrom
			f, err := os.CreateTemp(t.TempDir(), "body")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			if _, err := f.Write(b); err != nil {
				t.Fatal(err)
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			return f
		},
	}
	for _, size := range []int{0, 1, 4095, 4096, sendChunk - 1, sendChunk, sendChunk + 1, 150_000, 3*sendChunk + 7} {
		body := make([]byte, size)
		for i := range body {
			body[i] = byte(i*7 + i/251)
		}
		sum := sha256.Sum256(body)
		want := strconv.Itoa(size) + " " + hex.EncodeToString(sum[:])
		for name, reader := range readers {
			t.Run(fmt.Sprintf("%d/%s", size, name), func(t *testing.T) {
				var conn net.Conn
				ctx, end := WithLane(context.Background(), c)
				defer end()
				ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { conn = i.Conn }})
				// A body net/http cannot size itself, as a session's is.
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, io.NopCloser(reader(body)))
				req.ContentLength = int64(size)
				resp, err := c.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				got, err := ReadBodyLimit(resp, 1<<10)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != want {
					t.Fatalf("server got %q, want %q", got, want)
				}
				if _, ok := conn.(sendConn); !ok {
					t.Fatalf("request went out on a %T, want a sendConn", conn)
				}
			})
		}
	}
}

// TestSendConnGarbage: sending a 150 KB body of known length allocates
// well under the 32 KiB buffer a *net.TCPConn makes per body: through a
// sendConn's ReadFrom next to nothing, and as a POST through a session's
// own client about 9 KB with the in-process server's share (41 KB on the
// stock path), so net/http still hands the body to sendConn.
func TestSendConnGarbage(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops buffers at random")
	}
	body := make([]byte, 150_000)
	conn := drainedConn(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	c := NewHTTPClient(nil, judgment.Auth{}, 0)
	defer c.CloseIdleConnections()
	for _, tt := range []struct {
		name string
		max  uint64
		send func()
	}{
		{"ReadFrom", 1 << 10, func() {
			if _, err := conn.ReadFrom(&io.LimitedReader{R: bytes.NewReader(body), N: int64(len(body))}); err != nil {
				t.Fatal(err)
			}
		}},
		{"POST", 24 << 10, func() {
			req, _ := http.NewRequest(http.MethodPost, srv.URL, struct{ io.Reader }{bytes.NewReader(body)})
			req.ContentLength = int64(len(body))
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ReadBodyLimit(resp, 1<<10); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		tt.send() // the connection and the pools' first buffers
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		const sends = 100
		for range sends {
			tt.send()
		}
		runtime.ReadMemStats(&after)
		if per := (after.TotalAlloc - before.TotalAlloc) / sends; per > tt.max {
			t.Errorf("%s: %d bytes allocated per 150 KB body, want at most %d", tt.name, per, tt.max)
		}
	}
}

// BenchmarkSendBody sends a 150 KB body of known length (an image
// question's) to a loopback connection: Stock through a *net.TCPConn's
// own ReadFrom, as net/http's default dialer leaves it, SendConn through
// a sendConn.
func BenchmarkSendBody(b *testing.B) {
	body := make([]byte, 150_000)
	for _, name := range []string{"Stock", "SendConn"} {
		b.Run(name, func(b *testing.B) {
			conn := drainedConn(b)
			var w io.ReaderFrom = conn.TCPConn
			if name == "SendConn" {
				w = conn
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := w.ReadFrom(&io.LimitedReader{R: bytes.NewReader(body), N: int64(len(body))}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// drainedConn returns a sendConn to a loopback listener that reads and
// drops everything; both close when the test ends.
func drainedConn(tb testing.TB) sendConn {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(io.Discard, c)
	}()
	c, err := dialSend(defaultDialer)(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c.(sendConn)
}
