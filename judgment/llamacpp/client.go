package llamacpp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"syscall"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/judgment"
)

// DefaultNVocab is the vocabulary size sent as n_probs when none is known
// (Gemma 4 class, typevet DEFAULT_N_VOCAB).
const DefaultNVocab = 262144

// DiscoverNVocab as [ClientOptions.NVocab] makes the client read the size
// from GET /v1/models after the first scoring call of each model (typevet
// #321) instead of assuming [DefaultNVocab].
const DiscoverNVocab = -1

// maxVocabReads bounds the /v1/models reads per model that find no size.
const maxVocabReads = 3

// ClientOptions tunes a [Client]. The zero value means defaults.
type ClientOptions struct {
	// HTTPClient supplies the transport (e.g. an httptest server's client);
	// nil means a private connection pool. It is not modified: the session
	// headers and the timeout of the settings are added to a copy.
	HTTPClient *http.Client
	// NVocab is the model vocabulary size: 0 means [DefaultNVocab],
	// [DiscoverNVocab] reads it from /v1/models. The off-option mass is
	// reported only when the server returns exactly NVocab entries.
	NVocab int
}

// Client speaks the llama-server HTTP API. It implements
// [judgment.Scorer] and is safe for concurrent use: one pooled HTTP
// client, and the media-capability and vocabulary caches behind a mutex.
type Client struct {
	base      *url.URL
	http      *http.Client
	secrets   judgment.Secrets // masked from every error a Session returns
	nVocab    int
	owned     bool   // the connection pool is the client's own (no injected HTTPClient)
	requestID string // the request-id header, "" for none

	mu          sync.Mutex
	caps        map[string]Props // vision-capable models only
	vocab       map[string]int
	vocabMisses map[string]int
}

// NewClient returns a client for the server of s. It makes no HTTP call.
// Invalid settings give a [*judgment.SettingError].
func NewClient(s Settings, opts ClientOptions) (*Client, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s = s.withDefaults()
	base, _ := url.Parse(strings.TrimRight(s.BaseURL, "/"))
	nVocab := opts.NVocab
	if nVocab == 0 {
		nVocab = DefaultNVocab
	}
	hc := backendhttp.NewHTTPClient(opts.HTTPClient, s.Auth, s.Timeout)
	backendhttp.SetKeepAliveExpiry(hc, s.KeepAliveExpiry)
	return &Client{
		base:        base,
		requestID:   s.RequestIDHeader,
		http:        hc,
		secrets:     s.Auth.Secrets(),
		nVocab:      nVocab,
		owned:       opts.HTTPClient == nil,
		caps:        make(map[string]Props),
		vocab:       make(map[string]int),
		vocabMisses: make(map[string]int),
	}, nil
}

// Props reads GET /props?model=.
func (c *Client) Props(ctx context.Context, model string) (Props, error) {
	body, err := c.do(ctx, http.MethodGet, "/props", url.Values{"model": {model}}, nil)
	if err != nil {
		return Props{}, err
	}
	return decodeProps(body)
}

// ApplyTemplate renders the served chat template for one user turn
// "hello" with the generation prompt (POST /apply-template) and returns the
// rendered text.
func (c *Client) ApplyTemplate(ctx context.Context, model string) (string, error) {
	body, err := c.do(ctx, http.MethodPost, "/apply-template", nil, ApplyTemplateRequest{
		Model:               model,
		Messages:            []Message{{Role: "user", Content: "hello"}},
		AddGenerationPrompt: true,
	})
	if err != nil {
		return "", err
	}
	return decodeApplyTemplate(body)
}

// Tokenize returns the token ids of text without special tokens
// (POST /tokenize, add_special false).
func (c *Client) Tokenize(ctx context.Context, model, text string) ([]int, error) {
	body, err := c.do(ctx, http.MethodPost, "/tokenize", nil, TokenizeRequest{Model: model, Content: text})
	if err != nil {
		return nil, err
	}
	return decodeTokenize(body)
}

// NVocab reads the vocabulary size of model from GET /v1/models: the entry
// whose id or aliases name the model, or the only entry. It
// returns 0 when the server lists no positive size.
func (c *Client) NVocab(ctx context.Context, model string) (int, error) {
	body, err := c.do(ctx, http.MethodGet, "/v1/models", nil, nil)
	if err != nil {
		return 0, err
	}
	return decodeNVocab(body, model), nil
}

// ScoreCandidates scores one request with POST /completion:
// the candidates' pre-sampling logprobs at the answer position. A media
// request uses the server's media marker, probed once per model, and is
// repaired once when the marker went stale (typevet #322).
func (c *Client) ScoreCandidates(ctx context.Context, req judgment.ScoringRequest) (judgment.ScoringResult, error) {
	if err := req.Validate(); err != nil {
		return judgment.ScoringResult{}, err
	}
	var props Props
	if len(req.Media) > 0 {
		var err error
		if props, err = c.capability(ctx, req.Model, false); err != nil {
			return judgment.ScoringResult{}, err
		}
	}
	nProbs := c.nProbs(req.Model)
	id := c.newRequestID()
	resp, err := c.exchange(ctx, id, http.MethodPost, "/completion", nil, completionBody(ctx, req, props.MediaMarker, nProbs))
	if len(req.Media) > 0 && staleMarker(err) {
		if props, perr := c.capability(ctx, req.Model, true); perr == nil {
			id = c.newRequestID()
			resp, err = c.exchange(ctx, id, http.MethodPost, "/completion", nil, completionBody(ctx, req, props.MediaMarker, nProbs))
			err = staleAgain(err)
		}
	}
	if err != nil {
		return judgment.ScoringResult{}, err
	}
	res, err := c.result(ctx, req, resp, nProbs)
	if err != nil {
		return judgment.ScoringResult{}, withRequestID(err, id)
	}
	res.RequestID = id
	return res, nil
}

// newRequestID returns the request id of a new request: "" when no
// request-id header is configured, else a fresh UUID4 hex (typevet #411).
func (c *Client) newRequestID() string {
	if c.requestID == "" {
		return ""
	}
	return backendhttp.UUID4Hex()
}

// do sends one request and returns the body of a 2xx answer (see
// [Client.exchange]).
func (c *Client) do(ctx context.Context, method, path string, query url.Values, in any) ([]byte, error) {
	id := c.newRequestID()
	resp, err := c.exchange(ctx, id, method, path, query, in)
	if err != nil {
		return nil, err
	}
	body, err := backendhttp.ReadBody(resp)
	if err != nil {
		return nil, withRequestID(transportError(ctx, err), id)
	}
	return body, nil
}

// exchange sends one request and returns a 2xx response, whose body the
// caller must read and close. in, when not nil, is sent as JSON. A
// connection the server closed before answering is retried once on a
// fresh connection (every call of this client is read-only).
// Failures are [judgment.TransportError] and [judgment.BackendHTTPError]
// values carrying the request id id (sent in the request-id header when
// one is configured; "" for none); the body of an error answer is read
// and closed here.
func (c *Client) exchange(ctx context.Context, id, method, path string, query url.Values, in any) (*http.Response, error) {
	var payload []byte
	if raw, ok := in.(rawJSON); ok {
		payload = raw
	} else if in != nil {
		var err error
		if payload, err = json.Marshal(in); err != nil {
			return nil, &judgment.GenerationError{Msg: "llama.cpp request could not be encoded"}
		}
	}
	u := c.base.JoinPath(path)
	u.RawQuery = query.Encode()
	resp, err := c.send(ctx, id, method, u.String(), payload)
	if err != nil && closedEarly(err) && ctx.Err() == nil {
		c.http.CloseIdleConnections()
		resp, err = c.send(ctx, id, method, u.String(), payload)
	}
	if err != nil {
		return nil, withRequestID(transportError(ctx, err), id)
	}
	if resp.StatusCode >= 300 {
		body, err := backendhttp.ReadBody(resp)
		if err != nil {
			return nil, withRequestID(transportError(ctx, err), id)
		}
		return nil, withRequestID(c.statusError(resp, body), id)
	}
	return resp, nil
}

// send makes one attempt: exactly one send to the server. Go's transport
// resends a replayable request (a GET without a body, or any request with
// GetBody) by itself when a reused keep-alive connection turns out closed,
// which with [Client.exchange]'s own resend would make three sends of a
// GET. So a GET carries an empty body without GetBody: not replayable, and
// still sent without a body (the transport probes an empty body of a GET
// and drops it). A POST's GetBody is cleared for the same reason.
func (c *Client) send(ctx context.Context, id, method, u string, payload []byte) (*http.Response, error) {
	var body io.Reader = emptyBody{}
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	r, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	r.GetBody = nil
	if payload != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	r.Header.Set("Accept", "application/json")
	if id != "" {
		r.Header.Set(c.requestID, id)
	}
	return c.http.Do(r)
}

// emptyBody is the body of a GET: empty, and not one of the bodies
// net/http recognises as replayable.
type emptyBody struct{}

func (emptyBody) Read([]byte) (int, error) { return 0, io.EOF }

// closedEarly reports whether err means the server closed the connection
// after reading the request and before a status line (Python httpx
// "Server disconnected without sending a response"), or reset it, or
// closed it as the request went out (a keep-alive connection the server
// expired at that moment: [backendhttp.Unsent]). Timeouts and
// cancellations never count.
func closedEarly(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || backendhttp.Unsent(err) ||
		strings.Contains(err.Error(), "server closed idle connection")
}

// staleMarker reports whether err is the HTTP 400 a router sends for a
// media marker it no longer knows: the body holds "failed to tokenize
// prompt" in any case.
func staleMarker(err error) bool {
	var he *judgment.BackendHTTPError
	return errors.As(err, &he) && he.StatusCode == http.StatusBadRequest &&
		strings.Contains(strings.ToLower(he.BodySnippet), "failed to tokenize prompt")
}

// staleAgain marks the error of a resend that met a stale marker again
// (the router reloaded the model between the re-probe and the resend,
// e.g. while another client swaps models under --models-max 1): the
// message says so and how to pin the marker; the class stays
// BackendHttpError.
func staleAgain(err error) error {
	var stale *judgment.BackendHTTPError
	if !staleMarker(err) || !errors.As(err, &stale) {
		return err
	}
	he := *stale
	he.Msg = "media marker went stale again after the re-probe of /props (the router keeps reloading the model; " +
		"start llama-server with LLAMA_MEDIA_MARKER set to pin the marker across reloads): " + he.Msg
	return &he
}

// capability returns the media capability of model, from the cache unless
// refresh is set. A model without image input is an error and is never
// cached; a refresh removes the old entry first (typevet #323).
func (c *Client) capability(ctx context.Context, model string, refresh bool) (Props, error) {
	c.mu.Lock()
	p, ok := c.caps[model]
	if refresh {
		delete(c.caps, model)
		ok = false
	}
	c.mu.Unlock()
	if ok {
		return p, nil
	}
	p, err := c.Props(ctx, model)
	if err != nil {
		return Props{}, err
	}
	if !p.Vision {
		return Props{}, &judgment.ScoringUnsupportedCapabilityError{
			Msg: "llama.cpp model '" + model + "' does not declare image input support; scoring with media is refused",
		}
	}
	c.remember(model, p)
	return p, nil
}

// remember caches the probed capability of a vision model.
func (c *Client) remember(model string, p Props) {
	c.mu.Lock()
	c.caps[model] = p
	c.mu.Unlock()
}

// nProbs returns the n_probs of a scoring request for model: the
// configured size, else the discovered one, else [DefaultNVocab].
func (c *Client) nProbs(model string) int {
	if c.nVocab > 0 {
		return c.nVocab
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.vocab[model]; ok {
		return n
	}
	return DefaultNVocab
}

// knownNVocab returns the vocabulary size used for the off-option mass,
// reading /v1/models when discovery is on and the size is unknown (at most
// [maxVocabReads] fruitless reads per model; a failed read gives 0, never
// an error).
func (c *Client) knownNVocab(ctx context.Context, model string) int {
	if c.nVocab > 0 {
		return c.nVocab
	}
	c.mu.Lock()
	if n, ok := c.vocab[model]; ok {
		c.mu.Unlock()
		return n
	}
	if c.vocabMisses[model] >= maxVocabReads {
		c.mu.Unlock()
		return 0
	}
	c.vocabMisses[model]++
	c.mu.Unlock()
	n, err := c.NVocab(ctx, model)
	if err != nil || n <= 0 {
		return 0
	}
	c.mu.Lock()
	c.vocab[model] = n
	c.mu.Unlock()
	return n
}

// markerShape matches a media marker of llama-server's random form,
// "<__media_" + letters and digits + "__>", which /props publishes per
// process (or per router load).
var markerShape = regexp.MustCompile(`<__media_[A-Za-z0-9]+__>`)

// neutralizeMarkers returns text with every media marker of llama-server's
// random form, and the live marker (the one /props published, which
// LLAMA_MEDIA_MARKER may set to any text), escaped as typevet escapes
// [judgment.MediaMarker] in caller text (typevet #433): each "_" as
// "\_". Only real images then produce markers; a caller text holding the
// live marker would otherwise make llama-server count one marker more
// than images and refuse the prompt ("Failed to tokenize prompt"). The
// constant [judgment.MediaMarker] is left for the caller to replace.
func neutralizeMarkers(text, live string) string {
	escape := func(m string) string { return strings.ReplaceAll(m, "_", `\_`) }
	if live != "" && live != judgment.MediaMarker && strings.Contains(text, live) {
		text = strings.ReplaceAll(text, live, escape(live))
	}
	if strings.Contains(text, "<__media_") {
		text = markerShape.ReplaceAllStringFunc(text, escape)
	}
	return text
}

// rawJSON is a request body already encoded, passed to do as is.
type rawJSON []byte

// completionBody encodes the /completion body of req ([CompletionRequest]).
// With images the prefix's "<__media__>" markers become marker and
// multimodal_data holds each image's base64, encoded once per judgment
// (see [backendhttp.WithMedia]) and spliced into the encoded body rather
// than passed through encoding/json: base64 needs no JSON escaping, and
// scanning ~100 KB per image per question was the client's largest cost.
func completionBody(ctx context.Context, req judgment.ScoringRequest, marker string, nProbs int) rawJSON {
	r := CompletionRequest{Prompt: req.Prefix, Model: req.Model, NProbs: nProbs, TopP: 1}
	if len(req.Media) == 0 {
		b, _ := json.Marshal(r)
		return b
	}
	r.Prompt = &MultimodalPrompt{PromptString: strings.ReplaceAll(neutralizeMarkers(req.Prefix, marker), judgment.MediaMarker, marker)}
	b, _ := json.Marshal(r)
	// The encoded body holds "multimodal_data":null exactly once: the same
	// bytes inside the prompt string would have escaped quotes.
	const slot = `"multimodal_data":null`
	i := bytes.Index(b, []byte(slot))
	data := make([]string, len(req.Media))
	size := len(b)
	for k, im := range req.Media {
		data[k] = backendhttp.Base64(ctx, im)
		size += len(data[k]) + 3
	}
	out := make([]byte, 0, size)
	out = append(out, b[:i+len(`"multimodal_data":`)]...)
	out = append(out, '[')
	for k, d := range data {
		if k > 0 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, d...)
		out = append(out, '"')
	}
	out = append(out, ']')
	return append(out, b[i+len(slot):]...)
}

// HTTPClient returns the configured HTTP client: session headers, timeout,
// no redirects. Other packages use it for /props and /v1/models reads.
func (c *Client) HTTPClient() *http.Client { return c.http }

// BaseURL returns the server base URL without a trailing slash.
func (c *Client) BaseURL() string { return c.base.String() }
