package judgmenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server is a fake llama-server or vLLM server on a local loopback port,
// shaped like [httptest.Server]. Create it with [NewLlamaCPP], [NewVLLM] or
// their NewUnstarted variants; set the exported knobs before [Server.Start]
// (changing a field while the server runs is a data race). The methods are
// safe for concurrent use while it runs; use them for run-time changes
// ([Server.Inject], [Server.ClearFaults], [Server.RotateMarker]).
type Server struct {
	// URL is the base URL of the form http://ipaddr:port with no trailing
	// slash; set by Start.
	URL string

	// Template is the family llama.cpp /apply-template renders
	// (default TemplateGemma4).
	Template Template
	// MediaMarker is the first media marker llama.cpp /props reports
	// ("" = a random one of the real form, "<__media_" + 32 letters and
	// digits + "__>", which llama-server draws per process, single-model
	// or router; set "<__media__>" to play an old server that has no
	// random marker).
	MediaMarker string
	// MarkerSeed seeds the generated markers; 0 draws a seed at Start, so
	// each server has its own marker, as each llama-server process does.
	MarkerSeed uint64
	// RotateMarkerEvery, when positive, makes the llama.cpp router pick a
	// new media marker after every N successful media /completion answers,
	// as after a model reload (typevet issue #322). A request carrying the
	// old marker then fails with HTTP 400 "Failed to tokenize prompt".
	RotateMarkerEvery int
	// Router makes the llama.cpp fake a router (llama-server --models-dir
	// DIR --models-max 1): it serves Model.ID and RouterModels, all
	// answering with the one Model, with no model loaded at Start.
	// Every model-bound request must name a model (else HTTP 400 "model
	// name is missing from the request"; an unknown name is HTTP 400
	// "model '<name>' not found"); one naming a model that is not loaded
	// loads it (LoadDelay) and draws a new media marker unless PinMarker is
	// set; a load while the loaded model has requests in flight is HTTP 500
	// "model limit reached, try again later". /props without a model
	// answers the router's own props ("role":"router", no modalities);
	// /v1/models lists every model with its load status. Without Router
	// the fake is a single-model llama-server, which ignores the "model"
	// of every request.
	Router bool
	// RouterModels are the router's models besides Model.ID.
	RouterModels []string
	// LoadDelay is how long a router load takes (0 = 20 ms; the real
	// server takes seconds).
	LoadDelay time.Duration
	// PinMarker keeps the media marker across router loads, as starting
	// llama-server with LLAMA_MEDIA_MARKER set does.
	PinMarker bool
	// BuildInfo is llama.cpp /props build_info ("" = "b11277-eae11d221").
	BuildInfo string
	// NCtx is the context size: llama.cpp n_ctx, vLLM max_model_len
	// (0 = 8192).
	NCtx int
	// MaxImagesPerPrompt is vLLM's --limit-mm-per-prompt image limit
	// (0 = no limit).
	MaxImagesPerPrompt int
	// ModelPath is the model vLLM loaded (vllm serve's --model, a hub id
	// or weights path), the root of every /v1/models card; "" = Model.ID,
	// as when no --served-model-name is given. vLLM's served names are
	// Model.ID then Model.Aliases, and vLLM answers a request for any of
	// them under the first, Model.ID.
	ModelPath string
	// NoLogprobTokenIDs plays a vLLM from before logprob_token_ids on
	// chat completions (vLLM PR #43463): it ignores the field, and every
	// answer's top_logprobs is empty.
	NoLogprobTokenIDs bool
	// Version is vLLM /version ("" = "0.30.0").
	Version string
	// Metrics renders vLLM /metrics from the running counters
	// (nil = DefaultMetrics).
	Metrics func(MetricCounters) string
	// NoCacheConfig leaves vllm:cache_config_info out of DefaultMetrics'
	// page (MetricCounters.NoCacheConfig), as an old vLLM build that
	// lacks the gauge.
	NoCacheConfig bool

	// APIKey, when non-empty, is required on the authenticated paths
	// (llama.cpp: all but /health, /v1/health, /models, /v1/models; vLLM:
	// paths starting with /v1, as vLLM's --api-key middleware does).
	// A missing or wrong key gets HTTP 401 (vLLM: {"error":
	// "Unauthorized"}).
	APIKey string
	// AuthHeader carries the key ("" = "Authorization"). llama.cpp only:
	// vLLM's --api-key middleware accepts the key only as
	// "Authorization: Bearer <key>" and answers anything else with
	// HTTP 401 {"error": "Unauthorized"}, and so does the vLLM fake.
	AuthHeader string
	// AuthScheme precedes the key and a space ("" = "Bearer"); llama.cpp
	// only.
	AuthScheme string
	// BareKey expects the key alone, without AuthScheme; llama.cpp only.
	BareKey bool
	// HideVocab makes llama.cpp /v1/models list no meta block (a router
	// lists meta only for loaded models), so n_vocab is unknown.
	HideVocab bool

	// EchoAuth puts the received auth header value into the 401 body, as
	// a careless proxy might, to test secret masking downstream.
	EchoAuth bool

	// IdleTimeout is how long the server keeps an idle keep-alive
	// connection open before it closes it (0 = [DefaultServerIdleTimeout],
	// the 5 s of uvicorn's timeout_keep_alive under vLLM and of
	// cpp-httplib's keep-alive timeout under llama-server; negative =
	// never, as a Go server with no IdleTimeout).
	IdleTimeout time.Duration

	backend string // "llama.cpp" or "vLLM"
	model   *model
	ts      *httptest.Server
	closing chan struct{}
	chatIDs atomic.Int64

	mu       sync.Mutex
	started  bool
	closed   bool
	marker   string
	rng      *rand.Rand
	mediaOK  int           // successful media answers since the last rotation
	loaded   string        // the router's loaded model, "" for none
	loading  bool          // a router load is under way
	loadDone chan struct{} // closed when that load ends
	loads    int           // router loads so far
	inFlight int           // model-bound requests past routing, not yet answered
	faults   []*injected
	records  []RecordedRequest
	counters MetricCounters
}

type injected struct {
	Fault
	seen int
}

// RecordedRequest is one request the server received, for assertions.
type RecordedRequest struct {
	// Index is the arrival order across all paths, from 0.
	Index int
	// Method, Path and Query are the request line.
	Method, Path, Query string
	// Header is a copy of the request headers.
	Header http.Header
	// Body is the raw request body.
	Body []byte
	// JSON is Body decoded by encoding/json into any (nil when Body is not
	// JSON).
	JSON any
	// Images is the number of images the request carried (multimodal_data
	// entries on llama.cpp, image_url blocks on vLLM).
	Images int
	// Markers is the number of media markers in the prompt text, of any
	// form: "<__media__>" or a router marker "<__media_X__>".
	Markers int
	// Status is the status code answered; 0 when the connection was closed
	// without a response.
	Status int
	// Fault is true when an injected fault applied to the request.
	Fault bool
}

// DefaultServerIdleTimeout is how long a fake keeps an idle connection
// by default: 5 s, as vLLM's uvicorn (timeout_keep_alive,
// VLLM_HTTP_TIMEOUT_KEEP_ALIVE) and llama-server's cpp-httplib
// (CPPHTTPLIB_KEEPALIVE_TIMEOUT_SECOND) do.
const DefaultServerIdleTimeout = 5 * time.Second

// NewLlamaCPP starts and returns a fake llama-server speaking the wire API
// typevet's llama.cpp client uses for m (nil = the zero Model). The caller should call Close.
func NewLlamaCPP(m *Model) *Server {
	s := NewUnstartedLlamaCPP(m)
	s.Start()
	return s
}

// NewUnstartedLlamaCPP returns a fake llama-server that is not yet started.
func NewUnstartedLlamaCPP(m *Model) *Server { return newServer("llama.cpp", m) }

// NewVLLM starts and returns a fake vLLM OpenAI-compatible server speaking
// the wire API typevet's vLLM client uses for m (nil = the zero Model). The caller should
// call Close.
func NewVLLM(m *Model) *Server {
	s := NewUnstartedVLLM(m)
	s.Start()
	return s
}

// NewUnstartedVLLM returns a fake vLLM server that is not yet started.
func NewUnstartedVLLM(m *Model) *Server { return newServer("vLLM", m) }

func newServer(backend string, m *Model) *Server {
	s := &Server{backend: backend, model: newModel(m), closing: make(chan struct{})}
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.ts.Config.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, connRequestsKey{}, new(atomic.Int64))
	}
	return s
}

// Start starts a server from NewUnstarted*. It panics when called twice or
// when a knob is invalid.
func (s *Server) Start() {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		panic("judgmenttest: Server already started")
	}
	if s.RotateMarkerEvery < 0 || s.NCtx < 0 || s.MaxImagesPerPrompt < 0 {
		s.mu.Unlock()
		panic("judgmenttest: negative RotateMarkerEvery, NCtx or MaxImagesPerPrompt")
	}
	if s.Template < TemplateGemma4 || s.Template > TemplatePlain {
		s.mu.Unlock()
		panic("judgmenttest: unknown Template")
	}
	s.started = true
	seed := s.MarkerSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	s.rng = rand.New(rand.NewPCG(seed, 322))
	s.marker = s.MediaMarker
	if s.marker == "" {
		s.marker = s.newMarker()
	}
	s.mu.Unlock()
	switch {
	case s.IdleTimeout == 0:
		s.ts.Config.IdleTimeout = DefaultServerIdleTimeout
	case s.IdleTimeout > 0:
		s.ts.Config.IdleTimeout = s.IdleTimeout
	}
	s.ts.Start()
	s.URL = s.ts.URL
}

// Close shuts the server down and blocks until all in-flight requests have
// finished; waits of Fault.Delay and Model.Delay end at once. Calling it
// twice is harmless.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.closing)
	s.mu.Unlock()
	s.ts.Close()
}

// Client returns the HTTP client configured for the server; its idle
// connections close with the server. The client is shared: copy the struct
// before changing a field. It follows redirects (the http.Client default);
// set CheckRedirect on a copy to stop that.
func (s *Server) Client() *http.Client {
	if !s.isStarted() {
		panic("judgmenttest: Client called before Start")
	}
	return s.ts.Client()
}

func (s *Server) isStarted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// Inject adds a fault. It may be called before Start or while the server
// runs; Fault.Nth counts matching requests from this call.
func (s *Server) Inject(f Fault) {
	if f.Nth < 0 || f.Status < 0 || f.Delay < 0 {
		panic("judgmenttest: negative Fault.Nth, Status or Delay")
	}
	if f.Status != 0 && (f.Status < 100 || f.Status > 999) {
		panic("judgmenttest: Fault.Status must be a three-digit status code")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &injected{Fault: f})
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// CurrentMarker returns the media marker llama.cpp /props reports now.
func (s *Server) CurrentMarker() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.marker
}

// RotateMarker makes the llama.cpp router pick a new media marker now, as
// after a model reload, and returns it. Requests with the old marker fail
// with HTTP 400 "Failed to tokenize prompt".
func (s *Server) RotateMarker() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.marker = s.newMarker()
	s.mediaOK = 0
	return s.marker
}

const markerAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// newMarker returns a fresh router marker; s.mu must be held.
func (s *Server) newMarker() string {
	for {
		b := []byte("<__media_")
		for range 32 {
			b = append(b, markerAlphabet[s.rng.IntN(len(markerAlphabet))])
		}
		m := string(append(b, "__>"...))
		if m != s.marker {
			return m
		}
	}
}

// Requests returns a copy of every request received so far, in arrival
// order.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RecordedRequest, len(s.records))
	copy(out, s.records)
	s.mu.Unlock()
	// Decoding here, not per request, keeps the servers cheap in
	// benchmarks of the clients.
	for i := range out {
		if len(bytes.TrimSpace(out[i].Body)) > 0 {
			var v any
			if json.Unmarshal(out[i].Body, &v) == nil {
				out[i].JSON = v
			}
		}
	}
	s.mu.Lock()
	return out
}

// Count returns the number of requests received for path ("" = all paths).
func (s *Server) Count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if path == "" {
		return len(s.records)
	}
	n := 0
	for _, r := range s.records {
		if r.Path == path {
			n++
		}
	}
	return n
}

// Counters returns the vLLM metric counters now.
func (s *Server) Counters() MetricCounters {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.counters
	c.Model = s.model.ID
	c.E2ESeconds = slices.Clone(c.E2ESeconds)
	c.images = nil
	c.NoCacheConfig = s.NoCacheConfig
	return c
}

// connRequestsKey keys a connection's request counter in the request
// context.
type connRequestsKey struct{}

// exchange is one request being answered.
type exchange struct {
	s       *Server
	w       http.ResponseWriter
	r       *http.Request
	body    []byte
	tamper  Tamper
	status  int
	images  int
	markers int
	index   int  // the request's record
	fault   bool // a fault was injected
}

// record writes what the exchange did into the request's record. It runs
// before the client can see the answer (or the hang-up), so a client that
// reads [Server.Requests] right after its call sees the finished record.
func (x *exchange) record() {
	x.s.mu.Lock()
	r := &x.s.records[x.index]
	r.Status, r.Images, r.Markers, r.Fault = x.status, x.images, x.markers, x.fault
	x.s.mu.Unlock()
}

func (x *exchange) raw(status int, contentType string, body []byte) {
	x.status = status
	x.record()
	x.w.Header().Set("Content-Type", contentType)
	x.w.WriteHeader(status)
	x.w.Write(body)
}

// json answers v as JSON without HTML escaping, as the real servers write
// "<__media_…__>" and "<bos>".
func (x *exchange) json(status int, v any) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		panic("judgmenttest: " + err.Error())
	}
	x.raw(status, "application/json", bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// hangUp closes the connection without a response.
func (x *exchange) hangUp() {
	conn, _, err := http.NewResponseController(x.w).Hijack()
	if err != nil {
		panic("judgmenttest: cannot hijack the connection: " + err.Error())
	}
	x.status = 0
	x.record()
	conn.Close()
}

// wait sleeps for d; false when the request context ended or the server
// closed first.
func (x *exchange) wait(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-x.r.Context().Done():
	case <-x.s.closing:
	}
	x.hangUp()
	return false
}

var markerRE = regexp.MustCompile(`<__media(_[A-Za-z0-9]+)?__>`)

func countMarkers(text string) int { return len(markerRE.FindAllStringIndex(text, -1)) }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	rec := RecordedRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: body}
	s.mu.Lock()
	rec.Index = len(s.records)
	s.records = append(s.records, rec)
	var fault *Fault
	for _, f := range s.faults {
		if f.Path != "" && f.Path != r.URL.Path {
			continue
		}
		f.seen++
		if fault == nil && (f.Nth == 0 || f.Nth == f.seen) {
			fault = &f.Fault
		}
	}
	s.mu.Unlock()

	// llama-server (cpp-httplib, keep-alive max 100) closes a connection
	// after its 100th request.
	if n, ok := r.Context().Value(connRequestsKey{}).(*atomic.Int64); ok && s.backend == "llama.cpp" &&
		n.Add(1) >= keepAliveMaxPerCon {
		w.Header().Set("Connection", "close")
	}
	x := &exchange{s: s, w: w, r: r, body: body, index: rec.Index, fault: fault != nil}
	s.respond(x, fault)
	x.record() // also when no answer was written (a wait cut short)
}

func (s *Server) respond(x *exchange, f *Fault) {
	if f != nil {
		for k, vs := range f.Header {
			for _, v := range vs {
				x.w.Header().Add(k, v)
			}
		}
		if !x.wait(f.Delay) {
			return
		}
		if f.Close {
			x.hangUp()
			return
		}
		if f.Status != 0 {
			ct := f.ContentType
			if ct == "" {
				ct = "text/plain; charset=utf-8"
				if t := strings.TrimSpace(f.Body); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
					ct = "application/json"
				}
			}
			x.raw(f.Status, ct, []byte(f.Body))
			return
		}
		x.tamper = f.Tamper
	}
	if !s.authorized(x) {
		return
	}
	if s.backend == "llama.cpp" {
		s.llamaRoute(x)
	} else {
		s.vllmRoute(x)
	}
}

// authorized checks the API key; on failure it answers 401 and returns
// false.
func (s *Server) authorized(x *exchange) bool {
	if s.APIKey == "" {
		return true
	}
	p := x.r.URL.Path
	if s.backend == "llama.cpp" {
		switch p {
		case "/health", "/v1/health", "/models", "/v1/models":
			return true
		}
	} else if !strings.HasPrefix(p, "/v1") {
		return true
	}
	header := s.AuthHeader
	if header == "" || s.backend == "vLLM" {
		header = "Authorization"
	}
	want := s.APIKey
	if s.backend == "vLLM" {
		want = "Bearer " + s.APIKey
	} else if !s.BareKey {
		scheme := s.AuthScheme
		if scheme == "" {
			scheme = "Bearer"
		}
		want = scheme + " " + s.APIKey
	}
	got := x.r.Header.Get(header)
	if got == want {
		return true
	}
	msg := "Invalid API Key"
	if s.backend == "vLLM" {
		msg = "Unauthorized"
	}
	if s.EchoAuth {
		msg += "; received " + header + ": " + got
	}
	if s.backend == "llama.cpp" {
		x.json(http.StatusUnauthorized, llamaError(401, msg, "authentication_error"))
	} else {
		x.json(http.StatusUnauthorized, map[string]string{"error": msg})
	}
	return false
}

// waitModel applies Model.Delay for prompt; false when the wait was cut.
func (x *exchange) waitModel(prompt string) bool {
	if x.s.model.Delay == nil {
		return true
	}
	return x.wait(x.s.model.Delay(prompt))
}
