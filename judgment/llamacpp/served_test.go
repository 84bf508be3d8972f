package llamacpp_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/llamacpp"
)

// A single-model llama-server ignores the request's model, so Open must
// refuse a model the server does not list before any scoring request; a
// router refuses it on /props and Open says what it serves instead.
func TestOpenRefusesUnservedModel(t *testing.T) {
	tests := []struct {
		name       string
		knobs      func(*judgmenttest.Server)
		model      *judgmenttest.Model
		open       string
		wantServed []string // nil = opens
		reason     string
	}{
		{name: "single-model, mistyped", open: "gemma-4-typo", wantServed: []string{judgmenttest.DefaultModelID},
			reason: "the fake, like llama-server, answers any name as its own"},
		{name: "single-model, the served id", open: judgmenttest.DefaultModelID},
		{name: "single-model, an alias", model: &judgmenttest.Model{Aliases: []string{"g4"}}, open: "g4"},
		{name: "single-model, names every served name", model: &judgmenttest.Model{Aliases: []string{"g4"}}, open: "typo",
			wantServed: []string{judgmenttest.DefaultModelID, "g4"}},
		{name: "no /v1/models: /props alone decides", open: "typo", wantServed: []string{judgmenttest.DefaultModelID},
			knobs: func(s *judgmenttest.Server) {
				s.Inject(judgmenttest.Fault{Path: "/v1/models", Status: 404, Body: "{}"})
			}},
		{name: "router, unknown model", open: "typo", wantServed: []string{judgmenttest.DefaultModelID, "other"},
			knobs: func(s *judgmenttest.Server) { s.Router, s.RouterModels = true, []string{"other"} }},
		{name: "router, a listed model", open: "other",
			knobs: func(s *judgmenttest.Server) { s.Router, s.RouterModels = true, []string{"other"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.model
			if m == nil {
				m = judgmenttest.CheckModel()
			}
			srv := newServer(t, m, tt.knobs)
			sess, err := llamacpp.Open(context.Background(), llamacpp.Settings{BaseURL: srv.URL}, llamacpp.OpenOptions{Model: tt.open})
			if tt.wantServed == nil {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				sess.Close()
				return
			}
			var ue *llamacpp.UnservedModelError
			if !errors.As(err, &ue) || ue.Model != tt.open || !slices.Equal(ue.Served, tt.wantServed) {
				t.Fatalf("Open error = %v, want UnservedModelError for %q serving %v (%s)", err, tt.open, tt.wantServed, tt.reason)
			}
			if n := srv.Count("/completion") + srv.Count("/apply-template") + srv.Count("/tokenize"); n != 0 {
				t.Errorf("%d scoring-path requests before the refusal, want none", n)
			}
		})
	}
}

func TestUnservedModelErrorMessage(t *testing.T) {
	err := &llamacpp.UnservedModelError{Model: "x", Served: []string{"a", "b"}}
	if got, want := err.Error(), "llama.cpp server does not serve model 'x'; it serves 'a', 'b'"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// A served name that holds the API key or a header value is never repeated
// in the refusal: it is masked as errors are (judgment.Secrets.Redact).
func TestUnservedModelErrorHidesSecrets(t *testing.T) {
	const key = "sk-served-0123456789"
	srv := newServer(t, &judgmenttest.Model{ID: "model-" + key}, nil)
	_, err := llamacpp.Open(context.Background(), llamacpp.Settings{BaseURL: srv.URL, Auth: judgment.Auth{APIKey: key,
		Headers: []judgment.Header{{Name: "X-Team", Value: "model"}}}}, llamacpp.OpenOptions{Model: "typo"})
	var ue *llamacpp.UnservedModelError
	if !errors.As(err, &ue) || strings.Contains(err.Error(), key) || !slices.Equal(ue.Served, []string{"***-***"}) {
		t.Fatalf("Open error = %v, want the refusal without the key", err)
	}
}
