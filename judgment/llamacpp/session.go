package llamacpp

import (
	"context"
	"net/http"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/internal/pytext"
	"github.com/typevet/typevet-go/judgment"
)

// OpenOptions tunes [Open]. The zero value means: the settings' multimodal
// model, Gemma 4 required, a private connection pool, [DefaultNVocab].
type OpenOptions struct {
	// Model is the model id; "" means Settings.MultimodalModel.
	Model string
	// AllowGemma3 also accepts a native Gemma 3 served template (typevet
	// require_gemma4=False). The zero value requires Gemma 4.
	AllowGemma3 bool
	// HTTPClient supplies the transport, as in [ClientOptions].
	HTTPClient *http.Client
	// NVocab is the vocabulary size, as in [ClientOptions].
	NVocab int
	// TextParts substitutes the prompt templates; the zero value means
	// typevet's defaults.
	TextParts judgment.TextParts
}

// Session is an open llama.cpp judgment session (typevet
// open_gemma_native_vision_judgment). It implements [judgment.Port], pinned
// to its model, and is safe for concurrent use.
type Session struct {
	client *Client
	judge  *judgment.Judge
	model  string
	family judgment.Family
	props  Props
}

// Open probes the server and returns a session:
//
//  1. GET /props?model=: a vision model's media marker is cached for
//     scoring; a text-only model opens too (typevet #438), and only a
//     request with images is refused, as a
//     [judgment.ScoringUnsupportedCapabilityError] before any scoring call;
//  2. POST /apply-template: the rendered template is classified with
//     [judgment.ClassifyTemplate]; anything but native_gemma4_turn is a
//     [*ProbeError] "expected NATIVE_GEMMA4_TURN, got <family> for model
//     '<model>' from <source>; name a Gemma 4 model whose template renders
//     <|turn>" (typevet #425; the source is "the model argument" for
//     OpenOptions.Model, else "settings.multimodal_model
//     (TYPEVET_LLAMA__MULTIMODAL_MODEL)"), unless AllowGemma3 is set, when
//     a non-native family is refused with "unsupported served template for
//     native vision: <family>".
//
// Between the two, GET /v1/models is read: when neither it (ids and
// aliases) nor the /props model_alias lists the model, Open returns an
// [*UnservedModelError] (a single-model llama-server ignores the request's
// model and would answer as its own).
//
// Invalid settings give a [*judgment.SettingError]; HTTP failures the
// judgment error classes, masked of the session's secrets ([Session.Secrets]).
// A [*ProbeError] or [*UnservedModelError] is returned as is: its text
// holds only model names.
func Open(ctx context.Context, s Settings, opts OpenOptions) (*Session, error) {
	c, err := NewClient(s, ClientOptions{HTTPClient: opts.HTTPClient, NVocab: opts.NVocab})
	if err != nil {
		return nil, err
	}
	model := opts.Model
	if model == "" {
		model = s.withDefaults().MultimodalModel
	}
	source := "the model argument"
	if opts.Model == "" {
		source = "settings.multimodal_model (TYPEVET_LLAMA__MULTIMODAL_MODEL)"
	}
	sess, err := open(ctx, c, model, source, opts)
	if err != nil {
		if c.owned {
			c.http.CloseIdleConnections()
		}
		switch err.(type) {
		case *ProbeError, *UnservedModelError:
			return nil, err
		}
		return nil, c.secrets.Mask(err)
	}
	return sess, nil
}

// open probes model, which source set (named in a template error as
// typevet #425 names it), and returns its session.
func open(ctx context.Context, c *Client, model, source string, opts OpenOptions) (*Session, error) {
	props, err := c.Props(ctx, model)
	if err != nil {
		// A router refuses an unknown model on /props with HTTP 400
		// "model '<name>' not found"; say what it serves instead.
		if unknownModel(err) {
			if uerr := c.checkServed(ctx, model, Props{}); uerr != nil {
				return nil, uerr
			}
		}
		return nil, err
	}
	// A text-only model opens (typevet #438): only a request with images
	// is refused, by the client's media capability check.
	if err := c.checkServed(ctx, model, props); err != nil {
		return nil, err
	}
	rendered, err := c.ApplyTemplate(ctx, model)
	if err != nil {
		return nil, err
	}
	family := judgment.ClassifyTemplate(rendered)
	switch {
	case family == judgment.FamilyGemma4Turn:
	case !opts.AllowGemma3:
		return nil, &ProbeError{Msg: "expected NATIVE_GEMMA4_TURN, got " + family.String() + " for model " + pytext.Repr(model) +
			" from " + source + "; name a Gemma 4 model whose template renders <|turn>"}
	case family != judgment.FamilyGemma3Turn:
		return nil, &ProbeError{Msg: "unsupported served template for native vision: " + family.String()}
	}
	if props.Vision {
		c.remember(model, props)
	}
	return &Session{
		client: c,
		judge:  judgment.NewJudge(c, judgment.JudgeOptions{Model: model, Family: family, TextParts: opts.TextParts}),
		model:  model,
		family: family,
		props:  props,
	}, nil
}

// Judge judges req (see [judgment.Port]). Each image is base64-encoded
// once for all the questions of req, and on the session's own pool the
// questions go out on one connection ([backendhttp.WithLane]). Every error
// is masked of the session's secrets ([Session.Secrets],
// [judgment.Secrets.Mask]), the one place a judgment's errors are masked
// (a body snippet is redacted before it is cut, in backendhttp).
func (s *Session) Judge(ctx context.Context, req judgment.Request) (judgment.Response, error) {
	ctx, leave := backendhttp.WithLane(ctx, s.client.http)
	defer leave()
	resp, err := s.judge.Judge(backendhttp.WithMedia(ctx, req.Media), req)
	return resp, s.client.secrets.Mask(err)
}

// Model returns the pinned model id.
func (s *Session) Model() string { return s.model }

// ServedTemplate returns the probed served-template family; its String is
// the receipt's served_template ("native_gemma4_turn").
func (s *Session) ServedTemplate() judgment.Family { return s.family }

// Props returns what the opening /props read reported (build, alias,
// context size, media marker), for receipts.
func (s *Session) Props() Props { return s.props }

// Client returns the session's client (a [judgment.Scorer]).
func (s *Session) Client() *Client { return s.client }

// HTTPClient returns the configured HTTP client, with the session's auth
// and extra headers, for other reads of the same server.
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
