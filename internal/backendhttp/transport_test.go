package backendhttp

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typevet/typevet-go/judgment"
)

// TestNewTransportReusesConnections: a client of a session's own pool
// runs 64 requests at once, then 64 more, on the connections of the first
// 64 (DefaultTransport's pool of 2 would redial 62 of them).
func TestNewTransportReusesConnections(t *testing.T) {
	var busy sync.WaitGroup // the first round's requests, all held until 64 are in
	busy.Add(64)
	var held atomic.Bool
	held.Store(true)
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if held.Load() {
			busy.Done()
			busy.Wait()
		}
		io.WriteString(w, "ok")
	})
	c := NewHTTPClient(nil, judgment.Auth{}, 10*time.Second)
	defer c.CloseIdleConnections()
	round := func() {
		var wg sync.WaitGroup
		for range 64 {
			wg.Go(func() {
				resp, err := c.Get(srv.URL)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		wg.Wait()
	}
	round()
	first := conns.Load()
	held.Store(false)
	round()
	if first != 64 || conns.Load() != first {
		t.Fatalf("connections: %d for the first 64 requests, %d after 64 more; want 64 and no new one", first, conns.Load())
	}
}

// TestNewTransportHTTP2: over TLS the pool speaks HTTP/2 when the server
// offers it, also with a TLS configuration of its own (which turns
// HTTP/2 off in a transport that does not force the attempt).
func TestNewTransportHTTP2(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Proto)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	tr := NewTransport()
	tr.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	defer tr.CloseIdleConnections()
	c := NewHTTPClient(&http.Client{Transport: tr}, judgment.Auth{}, 10*time.Second)
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.ProtoMajor != 2 || string(body) != "HTTP/2.0" {
		t.Fatalf("protocol %s (server saw %s), want HTTP/2", resp.Proto, body)
	}
}

// TestLanes: a judgment's calls take one lane, a lane given back is the
// next judgment's (so a run opens as many as it held at once), two
// judgments at once hold two, and a client on an injected transport has
// no lanes.
func TestLanes(t *testing.T) {
	c := NewHTTPClient(nil, judgment.Auth{UserAgent: "ua"}, time.Second)
	l := lanesOf(c)
	if l == nil {
		t.Fatal("a session's own client has no lanes")
	}
	laneOf := func(ctx context.Context) *http.Transport { return ctx.Value(laneKey{}).(*lane).tr }
	a, endA := WithLane(context.Background(), c)
	b, endB := WithLane(context.Background(), c)
	if laneOf(a) == laneOf(b) {
		t.Fatal("two judgments at once share a lane")
	}
	endB()
	endB()
	endA()
	d, endD := WithLane(context.Background(), c)
	defer endD()
	if laneOf(d) != laneOf(a) || len(l.all) != 2 || len(l.free) != 1 {
		t.Fatalf("lanes: %d made, %d free; the last given back must be taken first", len(l.all), len(l.free))
	}
	injected := NewHTTPClient(&http.Client{Transport: NewTransport()}, judgment.Auth{}, time.Second)
	if ctx, _ := WithLane(context.Background(), injected); ctx.Value(laneKey{}) != nil {
		t.Fatal("an injected transport got a lane")
	}
}

// TestLaneKeepsOneConnection: the sequential calls of one judgment, each
// body read by ReadBodyLimit and each next call starting the moment the
// last body is read, stay on the lane's one connection: the lane keeps it
// alive and the read leaves it reusable.
func TestLaneKeepsOneConnection(t *testing.T) {
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"ok": true}`))
	})
	c := NewHTTPClient(nil, judgment.Auth{}, 10*time.Second)
	ctx, end := WithLane(context.Background(), c)
	defer end()
	for i := range 2000 {
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ReadBodyLimit(resp, 1<<10); err != nil {
			t.Fatal(err)
		}
		if n := conns.Load(); n != 1 {
			t.Fatalf("call %d: %d connections, want 1", i, n)
		}
	}
}

// countingServer starts a server answering with h and counts the
// connections it accepts; it is closed when the test ends.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	conns := new(atomic.Int64)
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, conns
}

// recordingTransport keeps the requests it is given and answers 204.
type recordingTransport struct{ got []*http.Request }

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rt.got = append(rt.got, r)
	return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: r}, nil
}

// TestSessionHeaders: the session transport adds its headers to a copy of
// a request that lacks one (a header already set wins, the caller's
// request is left as it was), and passes on as it is a request that
// AddSessionHeaders completed.
func TestSessionHeaders(t *testing.T) {
	base := &recordingTransport{}
	a := judgment.Auth{APIKey: "k", UserAgent: "ua/1", Headers: []judgment.Header{{Name: "x-extra", Value: "e"}, {Name: "X-Extra", Value: "second"}}}
	c := NewHTTPClient(&http.Client{Transport: base}, a, 0) // no timeout: Do then passes the request itself on
	hs := SessionHeaders(c)
	if len(hs) != 4 || SessionHeaders(http.DefaultClient) != nil {
		t.Fatalf("session headers %d, want 4; a client of another kind has %v", len(hs), SessionHeaders(http.DefaultClient))
	}
	send := func(r *http.Request) *http.Request {
		t.Helper()
		resp, err := c.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return base.got[len(base.got)-1]
	}
	want := http.Header{"Authorization": {"Bearer k"}, "User-Agent": {"mine"}, "X-Extra": {"e"}}

	lacking, _ := http.NewRequest(http.MethodGet, "http://server.invalid/", nil)
	lacking.Header.Set("User-Agent", "mine")
	sent := send(lacking)
	if sent == lacking || !reflect.DeepEqual(sent.Header, want) {
		t.Fatalf("a request lacking headers went as itself (%v) with %v, want a copy with %v", sent == lacking, sent.Header, want)
	}
	if len(lacking.Header) != 1 {
		t.Fatalf("the caller's request was changed: %v", lacking.Header)
	}

	complete, _ := http.NewRequest(http.MethodGet, "http://server.invalid/", nil)
	complete.Header.Set("User-Agent", "mine")
	AddSessionHeaders(complete.Header, hs)
	if sent := send(complete); sent != complete || !reflect.DeepEqual(sent.Header, want) {
		t.Fatalf("a complete request went as a copy (%v) with %v, want itself with %v", sent != complete, sent.Header, want)
	}
}
