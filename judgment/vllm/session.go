package vllm

import (
	"context"
	"net/http"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/judgment"
)

// OpenOptions tunes [Open]. The zero value means defaults.
type OpenOptions struct {
	// Model overrides Settings.Model when non-empty.
	Model string
	// HTTPClient supplies the transport (e.g. an httptest server's
	// client); nil means a private connection pool. It is not modified.
	HTTPClient *http.Client
	// TextParts substitutes the prompt templates; the zero value means
	// typevet's defaults.
	TextParts judgment.TextParts
}

// Session is an open vLLM judgment session (typevet open_vllm_judgment).
// It implements [judgment.Port], pinned to the served model name, and is
// safe for concurrent use by many goroutines over one pooled client.
type Session struct {
	client *Client
	judge  *judgment.Judge
	model  string
}

// Open returns a session. It makes no HTTP call: the first one happens in
// the first Judge. Invalid settings give a [*judgment.SettingError].
func Open(ctx context.Context, s Settings, opts OpenOptions) (*Session, error) {
	if opts.Model != "" {
		s.Model = opts.Model
	}
	c, err := NewClient(s, opts.HTTPClient)
	if err != nil {
		return nil, err
	}
	return &Session{
		client: c,
		judge:  judgment.NewJudge(c, judgment.JudgeOptions{Model: s.Model, Family: judgment.FamilyChat, TextParts: opts.TextParts}),
		model:  s.Model,
	}, nil
}

// Judge judges req (see [judgment.Port]). Each image is base64-encoded
// once for all the questions of req, and on the session's own pool the
// questions go out on one connection ([backendhttp.WithLane]). Every error
// is masked of the session's secrets ([Session.Secrets],
// [judgment.Secrets.Mask]), the one place a judgment's errors are masked
// (a body snippet is redacted before it is cut, in backendhttp).
func (s *Session) Judge(ctx context.Context, req judgment.Request) (judgment.Response, error) {
	ctx = backendhttp.WithMedia(ctx, req.Media)
	ctx, leave := backendhttp.WithLane(ctx, s.client.http)
	defer leave()
	resp, err := s.judge.Judge(ctx, req)
	return resp, s.client.secrets.Mask(err)
}

// Model returns the pinned served model name.
func (s *Session) Model() string { return s.model }

// ServedTemplate returns [judgment.FamilyChat]; its String is the
// receipt's served_template ("vllm_chat").
func (s *Session) ServedTemplate() judgment.Family { return judgment.FamilyChat }

// Client returns the session's client (a [judgment.Scorer]).
func (s *Session) Client() *Client { return s.client }

// HTTPClient returns the configured HTTP client, with the session's auth
// and extra headers, for /metrics, /version and /v1/models reads.
func (s *Session) HTTPClient() *http.Client { return s.client.http }

// BaseURL returns the server base URL without a trailing slash.
func (s *Session) BaseURL() string { return s.client.BaseURL() }

// Secrets returns the values the session masks from its errors and that
// must never reach a receipt or a log line: the API key (masked
// everywhere) and the extra header values (masked as whole tokens).
func (s *Session) Secrets() judgment.Secrets { return s.client.secrets.Clone() }

// Close releases the idle connections of the session's own pool; an
// injected OpenOptions.HTTPClient belongs to the caller and is left alone.
// The session must not be used after.
func (s *Session) Close() error {
	if s.client.owned {
		s.client.http.CloseIdleConnections()
	}
	return nil
}
