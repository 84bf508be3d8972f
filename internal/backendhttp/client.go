package backendhttp

import (
	"net/http"
	"time"

	"github.com/typevet/typevet-go/judgment"
)

// NewHTTPClient returns the client a backend session uses: every request
// carries the auth header, the extra headers and the user agent of a
// (a header already set on the request wins), redirects are never followed
// (the 3xx response comes back to the caller), and timeout bounds
// each whole request.
//
// When base is nil the client gets its own connection pool, in lanes that
// keep each judgment's calls on one connection ([Lanes], [WithLane]);
// otherwise base's transport, jar and settings are reused and base itself
// is not modified.
func NewHTTPClient(base *http.Client, a judgment.Auth, timeout time.Duration) *http.Client {
	var c http.Client
	var rt http.RoundTripper
	if base != nil {
		c = *base
		rt = base.Transport
	}
	if rt == nil {
		rt = NewLanes()
	}
	c.Transport = &headerTransport{base: rt, set: sentHeaders(a)}
	c.Timeout = timeout
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// MaxIdleConnsPerHost is the idle pool of a [NewTransport] for the
// server: as many connections as checkmatch's largest concurrency.
const MaxIdleConnsPerHost = 1 << 20

// DefaultKeepAliveExpiry is how long a session's own pool keeps an idle
// connection: 4 s, under the 5 s after which the servers close one (vLLM's
// uvicorn, timeout_keep_alive; llama-server's cpp-httplib,
// CPPHTTPLIB_KEEPALIVE_TIMEOUT_SECOND), so that no request goes out on a
// connection the server is closing at that moment. typevet's httpx client
// expires idle connections after 5 s.
const DefaultKeepAliveExpiry = 4 * time.Second

// NewTransport returns the transport of a backend session's own pool: a
// clone of [http.DefaultTransport] whose idle pool keeps every connection
// a run had open at once (DefaultTransport keeps 2 per host, so a run of
// concurrency 16 redialed, and paid a TLS handshake per redial, on most
// calls), and that speaks HTTP/2 where a TLS server offers it. A pool never
// holds more idle connections than were in use together, so the bound is
// the run's concurrency; idle ones close after [DefaultKeepAliveExpiry]
// ([SetKeepAliveExpiry] changes it).
func NewTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 0 // no limit across hosts; MaxIdleConnsPerHost bounds the one server
	t.MaxIdleConnsPerHost = MaxIdleConnsPerHost
	t.ForceAttemptHTTP2 = true
	t.IdleConnTimeout = DefaultKeepAliveExpiry
	return t
}

// SetKeepAliveExpiry sets how long the session's own pool of hc (a client
// of [NewHTTPClient] with no base client) keeps an idle connection; d
// must be positive. Call it before the first request. An injected client's
// transport is the caller's and is left as it is.
func SetKeepAliveExpiry(hc *http.Client, d time.Duration) {
	if l := lanesOf(hc); l != nil && d > 0 {
		l.setIdleTimeout(d)
	}
}

// sentHeaders lists the headers a client adds to each request.
func sentHeaders(a judgment.Auth) []judgment.Header {
	var hs []judgment.Header
	if v := authValue(a); v != "" {
		hs = append(hs, judgment.Header{Name: HeaderName(a), Value: v})
	}
	hs = append(hs, a.Headers...)
	if a.UserAgent != "" {
		hs = append(hs, judgment.Header{Name: "User-Agent", Value: a.UserAgent})
	}
	return hs
}

// SentHeaderNames returns the lower-cased names of the headers a client
// built from a adds; rate-limit recording skips them.
func SentHeaderNames(a judgment.Auth) []string {
	hs := sentHeaders(a)
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = http.CanonicalHeaderKey(h.Name)
	}
	return out
}

// headerTransport adds the session headers to each request.
type headerTransport struct {
	base http.RoundTripper
	set  []judgment.Header
}

// RoundTrip sends a copy of r with the session headers added, or r itself
// when it holds them all ([AddSessionHeaders]).
func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if hasHeaders(r.Header, t.set) {
		return t.base.RoundTrip(r)
	}
	r2 := r.Clone(r.Context())
	AddSessionHeaders(r2.Header, t.set)
	return t.base.RoundTrip(r2)
}

// SessionHeaders returns the headers the transport of hc (a client of
// [NewHTTPClient]) adds to each request, nil for another client. They
// hold the auth header: they never go into a message.
func SessionHeaders(hc *http.Client) []judgment.Header {
	if t, ok := hc.Transport.(*headerTransport); ok {
		return t.set
	}
	return nil
}

// AddSessionHeaders sets each header of hs, in order, that h does not hold
// with a value yet (a header already set wins), as the transport of
// [NewHTTPClient] does to a copy of each request. A client that builds its
// own requests adds [SessionHeaders] itself, so the transport need not
// copy each request to add them.
func AddSessionHeaders(h http.Header, hs []judgment.Header) {
	for _, s := range hs {
		if h.Get(s.Name) == "" {
			h.Set(s.Name, s.Value)
		}
	}
}

// hasHeaders reports whether h holds every header of hs with a value, so
// that [AddSessionHeaders] would change nothing.
func hasHeaders(h http.Header, hs []judgment.Header) bool {
	for _, s := range hs {
		if h.Get(s.Name) == "" {
			return false
		}
	}
	return true
}

// CloseIdleConnections closes the idle connections of the wrapped transport.
func (t *headerTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
