package vllm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/internal/pytext"
	"github.com/typevet/typevet-go/judgment"
)

// MaxLogprobTokenIDs is the most logprob_token_ids vLLM accepts; a request
// with more candidates is refused before any HTTP call.
const MaxLogprobTokenIDs = 128

// Client speaks the vLLM OpenAI-compatible API. It implements
// [judgment.Scorer], holds no mutable state and is safe for concurrent use.
type Client struct {
	base *url.URL
	http *http.Client
	// calls is http without its Timeout: do bounds each call by a
	// context deadline instead, since net/http's Client.Timeout over a
	// wrapping transport (the session headers) costs a goroutine, a timer
	// and three channels per request.
	calls     *http.Client
	timeout   time.Duration
	urls      map[string]string // the URL of each path do posts to
	secrets   judgment.Secrets  // masked from every error a Session returns
	requestID string            // request-id header name, "" for none
	fixedID   string            // the request id when the extra headers set it
	sent      []string          // canonical names of the headers every request sends
	headers   []judgment.Header // the session headers do adds (backendhttp.SessionHeaders)
	now       func() time.Time
	owned     bool // the connection pool is the client's own (hc was nil)
}

// NewClient returns a client for the server of s. It makes no HTTP call.
// hc supplies the transport (nil: a private pool) and is not modified.
// Invalid settings give a [*judgment.SettingError].
func NewClient(s Settings, hc *http.Client) (*Client, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s = s.withDefaults()
	base, _ := url.Parse(strings.TrimRight(s.BaseURL, "/"))
	c := &Client{
		base:      base,
		http:      backendhttp.NewHTTPClient(hc, s.Auth, s.Timeout),
		secrets:   s.Auth.Secrets(),
		requestID: s.RequestIDHeader,
		sent:      append(backendhttp.SentHeaderNames(s.Auth), "Content-Type", "Accept"),
		now:       time.Now,
		owned:     hc == nil,
		timeout:   s.Timeout,
	}
	backendhttp.SetKeepAliveExpiry(c.http, s.KeepAliveExpiry)
	c.headers = backendhttp.SessionHeaders(c.http)
	calls := *c.http
	calls.Timeout = 0
	c.calls = &calls
	c.urls = map[string]string{}
	for _, p := range []string{"/tokenize", "/v1/chat/completions"} {
		c.urls[p] = base.JoinPath(p).String()
	}
	if c.requestID != "" {
		c.sent = append(c.sent, http.CanonicalHeaderKey(c.requestID))
		for _, h := range s.Headers {
			if strings.EqualFold(h.Name, c.requestID) {
				c.fixedID = h.Value
			}
		}
	}
	return c, nil
}

// Tokenize returns the token ids of text without special tokens
// (POST /tokenize, add_special_tokens false).
func (c *Client) Tokenize(ctx context.Context, model, text string) ([]int, error) {
	b, err := json.Marshal(TokenizeRequest{Model: model, Prompt: text})
	if err != nil {
		return nil, &judgment.GenerationError{Msg: "vLLM request could not be encoded"}
	}
	body, _, err := c.do(ctx, "/tokenize", func() *splicedReader { return oneJSON(b) })
	if err != nil {
		return nil, err
	}
	defer putBody(body)
	return decodeTokenize(*body)
}

// ScoreCandidates scores one request with POST /v1/chat/completions:
// the raw logprobs of exactly the candidate ids at the first
// generated position. More than [MaxLogprobTokenIDs] candidates are
// refused before any HTTP call. The result's RequestID is the id sent in
// the request-id header, if one is configured.
func (c *Client) ScoreCandidates(ctx context.Context, req judgment.ScoringRequest) (judgment.ScoringResult, error) {
	if n := len(req.Candidates); n > MaxLogprobTokenIDs {
		return judgment.ScoringResult{}, &judgment.ScoringUnsupportedCapabilityError{
			Msg: "vLLM accepts at most 128 logprob_token_ids; got " + itoa(n) + " candidates"}
	}
	if err := req.Validate(); err != nil {
		return judgment.ScoringResult{}, err
	}
	body, id, err := c.do(ctx, "/v1/chat/completions", func() *splicedReader { return chatBody(ctx, req) })
	if err != nil {
		return judgment.ScoringResult{}, err
	}
	res, err := decodeChat(*body, req)
	putBody(body)
	if err != nil {
		return judgment.ScoringResult{}, ignoredTokenIDs(err, req)
	}
	res.RequestID = id
	return res, nil
}

// LogprobTokenIDsSince names the first vLLM that honours
// logprob_token_ids on chat completions.
const LogprobTokenIDsSince = "vLLM PR #43463 (merged 2026-07-13)"

// ignoredTokenIDs returns err, or a [judgment.ScoringUnsupportedCapabilityError]
// when err says that the answer scored none of req's candidates: a vLLM
// from before logprob_token_ids on chat completions ignores the field and
// answers with no requested id at all (a newer one lists every requested
// id), so every judgment would fail the same way.
func ignoredTokenIDs(err error, req judgment.ScoringRequest) error {
	labels := make([]string, len(req.Candidates))
	for i, c := range req.Candidates {
		labels[i] = c.Label
	}
	var ve *judgment.ScoringValidationError
	if len(labels) == 0 || !errors.As(err, &ve) || ve.Error() != "missing scores for requested candidates: "+pytext.ReprList(labels) {
		return err
	}
	return &judgment.ScoringUnsupportedCapabilityError{Msg: "vLLM answered with none of the requested logprob_token_ids: the server " +
		"predates logprob_token_ids on chat completions, which needs a vLLM built with " + LogprobTokenIDsSince + " or later; upgrade vLLM"}
}

// MaxResponseBytes bounds a vLLM response body: a real scoring answer (up
// to 128 token ids with logprobs) is under 20 KB, a /tokenize or
// /v1/models answer smaller still, so 4 MiB leaves a wide margin while
// a hostile 100 MB answer is refused after 4 MiB, not held whole.
const MaxResponseBytes = 4 << 20

// bodies holds response buffers: decoding keeps nothing of a body (a
// result's strings are copies), so each goes back after its decode.
var bodies = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBody is the largest buffer put back in bodies.
const maxPooledBody = 1 << 20

// putBody gives the buffer of a body from [Client.do] back to bodies; the
// body must not be read after.
func putBody(b *[]byte) {
	if cap(*b) <= maxPooledBody {
		*b = (*b)[:0]
		bodies.Put(b)
	}
}

// do sends one POST of the JSON body makeBody makes and returns the body
// of a 2xx answer, in a pooled buffer for [putBody] once decoded, and the
// request id sent. A request the server cannot have served, because its
// connection closed before any byte of an answer (a keep-alive connection
// the server closed as the request went out), is sent once more with a
// new body from makeBody and the same request id ([Client.post]); nothing
// else is retried here. A body over [MaxResponseBytes] is a
// [judgment.GenerationError]. Failures are [judgment.TransportError] and
// [judgment.BackendHTTPError] values carrying the request id.
func (c *Client) do(ctx context.Context, path string, makeBody func() *splicedReader) (*[]byte, string, error) {
	u, ok := c.urls[path]
	if !ok {
		u = c.base.JoinPath(path).String()
	}
	callCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	id := c.requestIDValue()
	resp, resent, err := c.post(callCtx, u, makeBody, id)
	if err != nil && !*resent && backendhttp.Unsent(err) && callCtx.Err() == nil {
		resp, _, err = c.post(callCtx, u, makeBody, id)
	}
	if err != nil {
		return nil, id, c.transportError(ctx, callCtx, err, id)
	}
	buf := bodies.Get().(*[]byte)
	body, err := backendhttp.ReadBodyLimitInto(resp, MaxResponseBytes, *buf)
	if err != nil {
		if large := (*backendhttp.BodyTooLargeError)(nil); errors.As(err, &large) {
			return nil, id, &judgment.GenerationError{Msg: "vLLM " + path + " response is larger than any answer needs (" + large.Error() + ")"}
		}
		return nil, id, c.transportError(ctx, callCtx, err, id)
	}
	*buf = body
	if resp.StatusCode >= 300 {
		err := c.statusError(resp, body, id) // copies what it keeps
		putBody(buf)
		return nil, id, err
	}
	return buf, id, nil
}

// transportError is the [judgment.TransportError] of a call under ctx
// that failed with err; callCtx is ctx with the call's timeout, whose
// expiry the message names as the session's timeout.
func (c *Client) transportError(ctx, callCtx context.Context, err error, id string) error {
	cause := backendhttp.Cause(ctx, err)
	msg := cause.Error()
	if ctx.Err() == nil && callCtx.Err() != nil {
		msg += " (no answer within the session's timeout of " + c.timeout.String() + ")"
	}
	return &judgment.TransportError{Msg: "vLLM request failed: " + msg, RequestID: id, Err: cause}
}

// post sends one POST of makeBody's JSON to u with the session headers
// and the request id id ("" for none). net/http itself resends a request
// that failed on a reused connection before it wrote a byte, or before it
// read a byte of the answer, only when it can make the body again
// (GetBody) and the request is idempotent: a POST is when its header map
// holds an Idempotency-Key entry, which with no value is not sent
// ((*http.Request).isReplayable). Scoring and tokenizing change nothing
// on the server, and a request on a connection the server closed under
// it was not served. A failure while writing after the first byte is
// [Client.do]'s to resend; resent, read once post returns, tells whether
// net/http resent the request already.
func (c *Client) post(ctx context.Context, u string, makeBody func() *splicedReader, id string) (_ *http.Response, resent *bool, _ error) {
	resent = new(bool)
	sent := makeBody()
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, u, sent)
	if err != nil {
		sent.Close()
		return nil, resent, err
	}
	r.ContentLength = sent.size()
	r.GetBody = func() (io.ReadCloser, error) { *resent = true; return makeBody(), nil }
	r.Header["Idempotency-Key"] = nil
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json")
	if id != "" && c.fixedID == "" {
		r.Header.Set(c.requestID, id)
	}
	backendhttp.AddSessionHeaders(r.Header, c.headers)
	resp, err := c.calls.Do(r)
	return resp, resent, err
}

// requestIDValue returns the request id of a new call: "" when no
// request-id header is configured, the id the extra headers fix, else a
// fresh UUID4 hex.
func (c *Client) requestIDValue() string {
	if c.requestID == "" {
		return ""
	}
	if c.fixedID != "" {
		return c.fixedID
	}
	return backendhttp.UUID4Hex()
}

// splicedJSON is a request body already encoded, in pieces: json[0],
// uris[0], json[1], …, json[len(uris)]. It is sent as one stream of its
// pieces, never joined, so an image's data URI (encoded once per judgment,
// see [backendhttp.WithMedia]) is not copied into every question's body.
type splicedJSON struct {
	json [][]byte
	uris []string
	// buf, when not nil, holds the json pieces and goes back to
	// chatBuffers on Close.
	buf *[]byte
}

// oneJSON is the body of one encoded JSON value.
func oneJSON(b []byte) *splicedReader {
	r := &splicedReader{}
	r.jsonRoom[0] = b
	r.p.json = r.jsonRoom[:1]
	return r
}

// size returns the body's length.
func (r *splicedReader) size() int64 {
	var n int64
	for _, j := range r.p.json {
		n += int64(len(j))
	}
	for _, u := range r.p.uris {
		n += int64(len(u))
	}
	return n
}

// errBodyClosed is what a splicedReader reads after Close.
var errBodyClosed = errors.New("vllm: request body read after close")

// splicedReader reads the pieces of a splicedJSON in order. Read and
// Close hold mu: net/http may close a request body on one goroutine
// while another reads it, and after Close the JSON buffer may belong to
// another body. Once closed it reads nothing more. It is not pooled
// (net/http may hold it after Close), but it holds the piece lists of a
// body with one image, so such a body is one allocation besides its
// pooled JSON buffer.
type splicedReader struct {
	mu     sync.Mutex
	closed bool
	p      splicedJSON
	i      int // piece 2k is json[k], piece 2k+1 is uris[k]
	off    int // bytes of piece i read

	jsonRoom [2][]byte
	uriRoom  [1]string
}

// Close gives the JSON buffer back; later reads fail.
func (r *splicedReader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		if r.p.buf != nil && cap(*r.p.buf) <= maxPooledBody {
			chatBuffers.Put(r.p.buf)
		}
		r.p = splicedJSON{}
		r.jsonRoom, r.uriRoom = [2][]byte{}, [1]string{}
	}
	return nil
}

// Read fills b across pieces, so the body goes out in as few writes as
// one joined body would.
func (r *splicedReader) Read(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, errBodyClosed
	}
	total := 0
	for r.i < 2*len(r.p.json)-1 && total < len(b) {
		var n, size int
		if r.i%2 == 0 {
			n, size = copy(b[total:], r.p.json[r.i/2][r.off:]), len(r.p.json[r.i/2])
		} else {
			n, size = copy(b[total:], r.p.uris[r.i/2][r.off:]), len(r.p.uris[r.i/2])
		}
		total += n
		if r.off += n; r.off == size {
			r.i, r.off = r.i+1, 0
		}
	}
	if total == 0 && len(b) > 0 {
		return 0, io.EOF
	}
	return total, nil
}

// chatBody encodes the [ChatRequest] of a scoring request, byte for byte
// as encoding/json encodes it (appendChatJSON; TestChatBodyBytes and
// FuzzChatBodyBytes compare the two), except that each image's data URI
// is not written into the JSON: the body is the JSON pieces around each
// image's "url":"" slot with the URI sent between them (splicedJSON). A
// data URI of a supported image type needs no JSON escaping, and scanning
// ~130 KB per image per question was the client's largest cost, copying it
// the next.
func chatBody(ctx context.Context, req judgment.ScoringRequest) *splicedReader {
	bp := chatBuffers.Get().(*[]byte)
	var slotRoom [4]int
	b, slots := appendChatJSON((*bp)[:0], req, slotRoom[:0])
	*bp = b
	r := &splicedReader{}
	r.p.buf = bp
	r.p.json = r.jsonRoom[:0]
	if n := len(req.Media); n > len(r.uriRoom) {
		r.p.json = make([][]byte, 0, n+1)
		r.p.uris = make([]string, n)
	} else {
		r.p.uris = r.uriRoom[:n]
	}
	last := 0
	for i, im := range req.Media {
		r.p.uris[i] = backendhttp.DataURI(ctx, im)
		r.p.json = append(r.p.json, b[last:slots[i]])
		last = slots[i]
	}
	r.p.json = append(r.p.json, b[last:])
	return r
}

// chatBuffers holds the JSON buffers of closed request bodies.
var chatBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// appendChatJSON appends the JSON of req's [ChatRequest] as encoding/json
// writes it, each image block's url empty, and returns the offset just
// inside each url's quotes, appended to slots.
func appendChatJSON(b []byte, req judgment.ScoringRequest, slots []int) ([]byte, []int) {
	b = append(b, `{"model":`...)
	b = appendJSONString(b, req.Model)
	b = append(b, `,"messages":[{"role":"user","content":`...)
	if len(req.Media) == 0 {
		b = appendJSONString(b, req.Prefix)
	} else {
		first := true
		block := func(text string) {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, `{"type":"text","text":`...)
			b = appendJSONString(b, text)
			b = append(b, '}')
		}
		b = append(b, '[')
		rest := req.Prefix
		piece, rest, _ := strings.Cut(rest, judgment.MediaMarker)
		if piece != "" {
			block(piece)
		}
		for range req.Media {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, `{"type":"image_url","image_url":{"url":"`...)
			slots = append(slots, len(b))
			b = append(b, `"}}`...)
			if rest == "" {
				continue
			}
			var more bool
			piece, rest, more = strings.Cut(rest, judgment.MediaMarker)
			if t := strings.TrimPrefix(piece, "\n"); t != "" {
				block(t)
			}
			if !more {
				rest = ""
			}
		}
		b = append(b, ']')
	}
	b = append(b, `}],"max_tokens":1,"temperature":0,"logprobs":true,"logprob_token_ids":[`...)
	for i, c := range req.Candidates {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(c.TokenID), 10)
	}
	b = append(b, `],"return_tokens_as_token_ids":true,"add_generation_prompt":true,"chat_template_kwargs":{"enable_thinking":false}}`...)
	return b, slots
}

// appendJSONString appends s quoted as encoding/json quotes a string:
// HTML-safe (<, > and & as \u003c, \u003e, \u0026), control characters
// as \b, \f, \n, \r, \t or \u00XX, U+2028 and U+2029 escaped, invalid
// UTF-8 as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// HTTPClient returns the configured HTTP client: session headers, timeout,
// no redirects. Other packages use it for /metrics, /version and
// /v1/models reads.
func (c *Client) HTTPClient() *http.Client { return c.http }

// BaseURL returns the server base URL without a trailing slash.
func (c *Client) BaseURL() string { return c.base.String() }
