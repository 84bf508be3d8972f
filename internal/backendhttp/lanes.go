package backendhttp

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// Lanes is the round tripper of a session's own pool ([NewHTTPClient]
// with no base client): it keeps the calls of one judgment on one
// connection (issue 17). A judgment's questions are scored one after
// another, so each judgment holds a lane ([WithLane]): a transport
// ([NewTransport]) of its own whose one connection carries all its calls,
// so that a prefix-cache-aware router or load balancer in front of
// several replicas (which routes by connection) sends a case's four
// questions, that share the image and most of the prompt, to one replica.
// A lane is given back when its judgment ends and taken by a later one, so
// a run opens as many connections as it ran judgments at once, as one
// shared pool does. Calls outside a judgment (/metrics, /v1/models) use a
// shared pool.
type Lanes struct {
	shared *http.Transport

	mu   sync.Mutex
	free []*http.Transport // idle lanes, the last given back last
	all  []*http.Transport
}

// NewLanes returns a Lanes with no lane yet.
func NewLanes() *Lanes { return &Lanes{shared: NewTransport()} }

// laneKey is the context key of a judgment's lane.
type laneKey struct{}

// lane is the lane a judgment holds.
type lane struct {
	owner *Lanes
	tr    *http.Transport
}

// RoundTrip sends r on the lane of its context's judgment, else on the
// shared pool.
func (l *Lanes) RoundTrip(r *http.Request) (*http.Response, error) {
	if ln, ok := r.Context().Value(laneKey{}).(*lane); ok && ln.owner == l {
		return ln.tr.RoundTrip(r)
	}
	return l.shared.RoundTrip(r)
}

// CloseIdleConnections closes the idle connections of every lane and of
// the shared pool.
func (l *Lanes) CloseIdleConnections() {
	l.mu.Lock()
	all := append([]*http.Transport(nil), l.all...)
	l.mu.Unlock()
	for _, t := range all {
		t.CloseIdleConnections()
	}
	l.shared.CloseIdleConnections()
}

// setIdleTimeout sets the idle timeout of the shared pool and of every
// lane, and of the lanes cloned from it later.
func (l *Lanes) setIdleTimeout(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.shared.IdleConnTimeout = d
	for _, t := range l.all {
		t.IdleConnTimeout = d
	}
}

// acquire takes the lane given back last, or a new one.
func (l *Lanes) acquire() *http.Transport {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.free); n > 0 {
		t := l.free[n-1]
		l.free = l.free[:n-1]
		return t
	}
	t := l.shared.Clone()
	l.all = append(l.all, t)
	return t
}

// release gives a lane back.
func (l *Lanes) release(t *http.Transport) {
	l.mu.Lock()
	l.free = append(l.free, t)
	l.mu.Unlock()
}

// WithLane returns a context whose calls through hc go out on one lane
// of hc's [Lanes], held until end is called (once; later calls do
// nothing). Sessions call it at the start of each Judge. When hc's
// transport is not a Lanes (an injected client) ctx is returned as it is.
func WithLane(ctx context.Context, hc *http.Client) (_ context.Context, end func()) {
	l := lanesOf(hc)
	if l == nil {
		return ctx, func() {}
	}
	ln := &lane{owner: l, tr: l.acquire()}
	var once sync.Once
	return context.WithValue(ctx, laneKey{}, ln), func() { once.Do(func() { l.release(ln.tr) }) }
}

// lanesOf returns the Lanes under hc's transport, or nil.
func lanesOf(hc *http.Client) *Lanes {
	rt := hc.Transport
	if h, ok := rt.(*headerTransport); ok {
		rt = h.base
	}
	l, _ := rt.(*Lanes)
	return l
}
