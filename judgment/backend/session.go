package backend

import (
	"context"
	"fmt"
	"net/http"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/fake"
	"github.com/typevet/typevet-go/judgment/llamacpp"
	"github.com/typevet/typevet-go/judgment/reader"
	"github.com/typevet/typevet-go/judgment/vllm"
)

// Session is an open backend session as a run needs it.
type Session struct {
	// Port judges requests; every error it returns has the session's
	// secrets masked, once, by the llama.cpp or vLLM session itself
	// ([judgment.Secrets.Mask]: the key everywhere, extra header values as
	// whole tokens). The fake and the reader hold no secret.
	Port judgment.Port
	// Backend is the backend the session talks to.
	Backend Name
	// Model is the pinned model id ("" for the fake, which pins none;
	// "reader" for the reader unless Open was given one).
	Model string
	// ServedTemplate is the receipt's served_template:
	// "native_gemma4_turn" (or another probed family) on llama.cpp,
	// "vllm_chat" on vLLM, "fake" or "reader" offline.
	ServedTemplate string
	// HTTPClient is the configured client (auth and extra headers, no
	// redirects) for /metrics and server-entry reads; nil for the fake and
	// the reader.
	HTTPClient *http.Client
	// BaseURL is the server base URL without a trailing slash; "" for the
	// fake and the reader.
	BaseURL string

	secrets judgment.Secrets
	close   func() error
}

// Open opens the session selected by s. model overrides the settings'
// model when non-empty (llama.cpp: MultimodalModel; vLLM: Model). A
// llama.cpp session probes the server and requires Gemma 4 (see
// [llamacpp.Open]); vLLM, the fake and the reader make no HTTP call.
func Open(ctx context.Context, s Settings, model string) (*Session, error) {
	switch s.Backend {
	case LlamaCPP:
		ls, err := llamacpp.Open(ctx, s.LlamaCPP, llamacpp.OpenOptions{Model: model})
		if err != nil {
			return nil, err
		}
		return newSession(ls, LlamaCPP, ls.Model(), ls.ServedTemplate().String(), ls.HTTPClient(), ls.BaseURL(), ls.Secrets(), ls.Close), nil
	case VLLM:
		vs, err := vllm.Open(ctx, s.VLLM, vllm.OpenOptions{Model: model})
		if err != nil {
			return nil, err
		}
		return newSession(vs, VLLM, vs.Model(), vs.ServedTemplate().String(), vs.HTTPClient(), vs.BaseURL(), vs.Secrets(), vs.Close), nil
	case Fake:
		p, err := fake.Open(s.Fake)
		if err != nil {
			return nil, err
		}
		return newSession(p, Fake, model, "fake", nil, "", judgment.Secrets{}, nil), nil
	case Reader:
		if model == "" {
			model = reader.BackendName
		}
		return newSession(reader.New(reader.Options{}), Reader, model, reader.BackendName, nil, "", judgment.Secrets{}, nil), nil
	}
	return nil, fmt.Errorf("backend: unknown backend %v", s.Backend)
}

func newSession(p judgment.Port, n Name, model, served string, hc *http.Client, base string, secrets judgment.Secrets, closeFn func() error) *Session {
	return &Session{
		Port:           p,
		Backend:        n,
		Model:          model,
		ServedTemplate: served,
		HTTPClient:     hc,
		BaseURL:        base,
		secrets:        secrets,
		close:          closeFn,
	}
}

// Secrets returns the values that must never reach a receipt, a log line
// or an error: the API key and extra header values (the same as
// [Settings.Secrets] of the settings it was opened with). Receipt writers
// check against them ([receipt.Write]); mask other errors of a run (e.g. a
// server-entry read) with Secrets().Mask(err).
func (s *Session) Secrets() judgment.Secrets { return s.secrets.Clone() }

// Close releases the session's idle connections.
func (s *Session) Close() error {
	if s.close == nil {
		return nil
	}
	return s.close()
}
