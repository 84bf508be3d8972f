package judgment_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

func TestMaskSecrets(t *testing.T) {
	// spec §8.2: a masked error keeps its class and holds no secret in any
	// form, in any field, under any formatting, and has no cause chain.
	const key = `sk-"sec\ret"<&>`
	const extra = "hdr-value-123"
	pyEscaped := `sk-\"sec\\ret\"<&>`
	goBytes, _ := json.Marshal(key)
	goEscaped := string(goBytes[1 : len(goBytes)-1])
	all := key + " " + pyEscaped + " " + goEscaped + " " + extra
	cause := &url.Error{Op: "Post", URL: "http://x/?key=" + key, Err: errors.New("header Authorization: Bearer " + key)}
	tests := []struct {
		name  string
		err   error
		class string
	}{
		{name: "transport", class: "TransportError",
			err: &judgment.TransportError{Msg: "post failed: " + all, RequestID: "id-" + extra, Err: cause}},
		{name: "http", class: "BackendHttpError",
			err: &judgment.BackendHTTPError{Backend: "vLLM", StatusCode: 401, Msg: "vLLM HTTP 401: " + all, BodySnippet: all,
				RetryAfterSeconds: ptr(2.0), RateLimit: [][2]string{{"x-ratelimit-remaining", extra}}, RequestID: "r"}},
		{name: "generation", class: "GenerationError", err: &judgment.GenerationError{Msg: all}},
		{name: "schema", class: "SchemaValidationError", err: &judgment.SchemaValidationError{Msg: all}},
		{name: "gen capability", class: "GenerationUnsupportedCapabilityError", err: &judgment.GenerationUnsupportedCapabilityError{Msg: all}},
		{name: "decision", class: "DecisionExecutionError", err: &judgment.DecisionExecutionError{Msg: all}},
		{name: "scoring", class: "ScoringError", err: &judgment.ScoringError{Msg: all}},
		{name: "scoring validation", class: "ScoringValidationError", err: &judgment.ScoringValidationError{Msg: all}},
		{name: "scoring capability", class: "ScoringUnsupportedCapabilityError", err: &judgment.ScoringUnsupportedCapabilityError{Msg: all}},
		{name: "judgment", class: "JudgmentError", err: &judgment.JudgmentError{Msg: all}},
		{name: "judgment validation", class: "JudgmentValidationError", err: &judgment.JudgmentValidationError{Msg: all}},
		{name: "gemma", class: "GemmaTemplateError", err: &judgment.GemmaTemplateError{Msg: all}},
		{name: "wrapped", class: "TransportError", err: fmt.Errorf("judge case r00 (%s): %w", key,
			&judgment.TransportError{Msg: "x", Err: cause})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := judgment.MaskSecrets(tt.err, []string{"", key, extra})
			if judgment.ErrorClass(m) != tt.class {
				t.Errorf("class = %q, want %q", judgment.ErrorClass(m), tt.class)
			}
			if errors.Unwrap(m) != nil {
				t.Errorf("masked error has a cause: %v", errors.Unwrap(m))
			}
			for _, f := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
				text := fmt.Sprintf(f, m)
				if e, ok := m.(*judgment.BackendHTTPError); ok {
					text += fmt.Sprintf("%#v", *e)
				}
				for _, secret := range []string{key, pyEscaped, goEscaped, extra, "sec"} {
					if strings.Contains(text, secret) {
						t.Errorf("%s output holds %q: %s", f, secret, text)
					}
				}
			}
			if !strings.Contains(m.Error(), "***") {
				t.Errorf("nothing masked in %q", m.Error())
			}
		})
	}
}

func TestMaskSecretsKeepsFields(t *testing.T) {
	in := &judgment.BackendHTTPError{Backend: "vLLM", StatusCode: 429, Msg: "vLLM HTTP 429: slow down", BodySnippet: "slow down",
		RetryAfterSeconds: ptr(1.5), RateLimit: [][2]string{{"retry-after", "1.5"}}, RequestID: "abcd"}
	out := judgment.MaskSecrets(in, []string{"k3y"})
	var he *judgment.BackendHTTPError
	if !errors.As(out, &he) {
		t.Fatalf("class lost: %T", out)
	}
	if fmt.Sprintf("%v %v %v %v %v", he.StatusCode, *he.RetryAfterSeconds, he.RateLimit, he.RequestID, he.Msg) != "429 1.5 [[retry-after 1.5]] abcd vLLM HTTP 429: slow down" {
		t.Errorf("fields changed: %#v", he)
	}
	if he == in || he.RetryAfterSeconds == in.RetryAfterSeconds {
		t.Error("masked error shares memory with the original")
	}
}

func TestMaskSecretsPassThrough(t *testing.T) {
	te := &judgment.TransportError{Msg: "x", Err: http.ErrHandlerTimeout}
	plain := errors.New("key k3y")
	tests := []struct {
		name    string
		err     error
		secrets []string
	}{
		{name: "nil", err: nil, secrets: []string{"k3y"}},
		{name: "not a generation error", err: plain, secrets: []string{"k3y"}},
		{name: "no secret", err: te, secrets: nil},
		{name: "only empty secrets", err: te, secrets: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := judgment.MaskSecrets(tt.err, tt.secrets); got != tt.err {
				t.Errorf("got %v, want the input unchanged", got)
			}
		})
	}
}

func TestMaskPort(t *testing.T) {
	const key = "sk-live-123"
	fail := judgment.PortFunc(func(ctx context.Context, req judgment.Request) (judgment.Response, error) {
		if req.Model == "ok" {
			return judgment.Response{Model: "echo " + key}, nil
		}
		return judgment.Response{}, &judgment.BackendHTTPError{Msg: "401 " + key, BodySnippet: key}
	})
	p := judgment.MaskPort(fail, []string{key})
	_, err := p.Judge(context.Background(), judgment.Request{})
	if err == nil || strings.Contains(fmt.Sprintf("%#v", err), key) || judgment.ErrorClass(err) != "BackendHttpError" {
		t.Errorf("masked port error = %#v", err)
	}
	resp, err := p.Judge(context.Background(), judgment.Request{Model: "ok"})
	if err != nil || resp.Model != "echo "+key {
		t.Errorf("successful response altered: %q %v", resp.Model, err)
	}
	if judgment.MaskPort(fail, nil) == nil {
		t.Error("MaskPort(nil secrets) = nil")
	}
}
