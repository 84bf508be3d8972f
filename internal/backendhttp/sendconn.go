package backendhttp

import (
	"context"
	"io"
	"net"
	"os"
	"time"
)

// sendChunk is the most bytes a session's own pool hands the kernel in
// one write of a request body.
const sendChunk = 64 << 10

// sendBuffers holds the buffers [sendConn.ReadFrom] sends through.
var sendBuffers bufferPool

// sendConn is a TCP connection that sends a request body through a
// pooled buffer. Over plain HTTP, net/http hands what follows the first
// 4 KiB of a body of known length (all of a session's) to the
// connection's ReadFrom, which for a *net.TCPConn copies it through a
// fresh 32 KiB buffer per request: 128 KiB of garbage per check judgment,
// most of what a vLLM session allocated, and the garbage collections it
// drove were a third of the client's CPU at concurrency 16 (issue 18;
// BenchmarkSliceVLLMPair). Over TLS net/http writes to the *tls.Conn
// instead, which sendConn cannot reach (HTTP/2 pools its own buffers).
type sendConn struct{ *net.TCPConn }

// ReadFrom sends r's bytes to the connection, at most [sendChunk] per
// write. A reader with a WriteTo (a *bytes.Reader) writes itself, and a
// file or socket, bare or in an *io.LimitedReader, goes to the
// *net.TCPConn's own ReadFrom, which can splice or sendfile it.
func (c sendConn) ReadFrom(r io.Reader) (int64, error) {
	src := r
	if lr, ok := r.(*io.LimitedReader); ok {
		src = lr.R
	}
	switch src.(type) {
	case *os.File, *net.TCPConn, *net.UnixConn:
		return c.TCPConn.ReadFrom(r)
	}
	bp := sendBuffers.get()
	if bp == nil {
		b := make([]byte, sendChunk)
		bp = &b
	}
	defer sendBuffers.put(bp)
	return io.CopyBuffer(writerOnly{c.TCPConn}, r, *bp)
}

// writerOnly hides a writer's ReadFrom from io.CopyBuffer.
type writerOnly struct{ io.Writer }

// dialSend returns the DialContext of a [NewTransport]: d's, with each
// TCP connection a [sendConn].
func dialSend(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			return sendConn{tc}, nil
		}
		return c, err
	}
}

// defaultDialer is the dialer of http.DefaultTransport.
var defaultDialer = &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
