package vllm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/vllm"
)

func TestSettingsFromEnv(t *testing.T) {
	base := map[string]string{"TYPEVET_VLLM__BASE_URL": "https://pod.example/", "TYPEVET_VLLM__MODEL": "gemma-4-31b-it"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "<unset>" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		check   func(vllm.Settings) bool
		wantErr string
		reason  string
	}{
		{name: "required only", env: base, check: func(s vllm.Settings) bool {
			return s.BaseURL == "https://pod.example" && s.Model == "gemma-4-31b-it" && s.Timeout == 300*time.Second && s.MaxConcurrency == 1
		}},
		{name: "everything", env: with("TYPEVET_VLLM__TIMEOUT", "30", "TYPEVET_VLLM__MAX_CONCURRENCY", "8", "TYPEVET_VLLM__API_KEY", "k",
			"TYPEVET_VLLM__AUTH_HEADER", "X-Api-Key", "TYPEVET_VLLM__AUTH_SCHEME", "", "TYPEVET_VLLM__USER_AGENT", "curl/8.9.1",
			"TYPEVET_VLLM__HEADERS", `{"X-Team":"a"}`, "TYPEVET_VLLM__REQUEST_ID_HEADER", "X-Request-Id"),
			check: func(s vllm.Settings) bool {
				return s.Timeout == 30*time.Second && s.MaxConcurrency == 8 && s.APIKey == "k" && s.AuthHeader == "X-Api-Key" &&
					s.BareKey && s.UserAgent == "curl/8.9.1" && len(s.Headers) == 1 && s.RequestIDHeader == "X-Request-Id"
			}},
		{name: "base url required", env: with("TYPEVET_VLLM__BASE_URL", "<unset>"), wantErr: "TYPEVET_VLLM__BASE_URL is required"},
		{name: "userinfo refused", env: with("TYPEVET_VLLM__BASE_URL", "https://user:pw-SECRET@gpu"),
			wantErr: "TYPEVET_VLLM__BASE_URL must not hold a user name or password (user:password@)"},
		{name: "model required", env: with("TYPEVET_VLLM__MODEL", "<unset>"), wantErr: "TYPEVET_VLLM__MODEL is required"},
		{name: "blank model", env: with("TYPEVET_VLLM__MODEL", "  "), wantErr: "TYPEVET_VLLM__MODEL is required"},
		{name: "nan timeout", env: with("TYPEVET_VLLM__TIMEOUT", "NaN"), wantErr: "TYPEVET_VLLM__TIMEOUT must be a finite number of seconds greater than 0"},
		{name: "inf timeout", env: with("TYPEVET_VLLM__TIMEOUT", "Infinity"), wantErr: "TYPEVET_VLLM__TIMEOUT must be a finite number of seconds greater than 0"},
		{name: "huge timeout", env: with("TYPEVET_VLLM__TIMEOUT", "1e300"), wantErr: "TYPEVET_VLLM__TIMEOUT must be a finite number of seconds greater than 0",
			reason: "does not fit a time.Duration"},
		{name: "keep-alive expiry", env: with("TYPEVET_VLLM__KEEPALIVE_EXPIRY", "2.5"), check: func(s vllm.Settings) bool { return s.KeepAliveExpiry == 2500*time.Millisecond }},
		{name: "zero keep-alive expiry", env: with("TYPEVET_VLLM__KEEPALIVE_EXPIRY", "0"),
			wantErr: "TYPEVET_VLLM__KEEPALIVE_EXPIRY must be a finite number of seconds greater than 0"},
		{name: "zero concurrency", env: with("TYPEVET_VLLM__MAX_CONCURRENCY", "0"), wantErr: "TYPEVET_VLLM__MAX_CONCURRENCY must be a whole number of at least 1"},
		{name: "request id header is auth header", env: with("TYPEVET_VLLM__REQUEST_ID_HEADER", "authorization"),
			wantErr: "TYPEVET_VLLM__REQUEST_ID_HEADER names a header the client controls"},
		{name: "request id header not a token", env: with("TYPEVET_VLLM__REQUEST_ID_HEADER", "x id"),
			wantErr: "TYPEVET_VLLM__REQUEST_ID_HEADER must be an HTTP token of at most 128 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := vllm.SettingsFromEnv(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if tt.wantErr != "" {
				var se *judgment.SettingError
				if !errors.As(err, &se) || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q (%s)", err, tt.wantErr, tt.reason)
				}
				return
			}
			if err != nil || !tt.check(s) {
				t.Errorf("got %+v, %v", s, err)
			}
		})
	}
}

// TestBaseURLUserinfo checks that a base URL with user information is
// refused by Open (naming the field, never the value) and never printed.
func TestBaseURLUserinfo(t *testing.T) {
	s := vllm.Settings{BaseURL: "https://user:pw-SECRET@gpu", Model: "m"}
	_, err := vllm.Open(context.Background(), s, vllm.OpenOptions{})
	var se *judgment.SettingError
	if !errors.As(err, &se) || err.Error() != "vllm.Settings.BaseURL must not hold a user name or password (user:password@)" {
		t.Errorf("Open err = %v", err)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(verb, s); strings.Contains(out, "SECRET") || strings.Contains(out, "user") || !strings.Contains(out, "https://***@gpu") {
			t.Errorf("%s: %s", verb, out)
		}
	}
}

func TestSettingsNeverPrintSecrets(t *testing.T) {
	s := vllm.Settings{BaseURL: "https://x", Model: "m", Auth: judgment.Auth{APIKey: "sk-live-SECRET", Headers: []judgment.Header{{Name: "X-Team", Value: "TOKEN-1"}}}}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(verb, s); strings.Contains(out, "SECRET") || strings.Contains(out, "TOKEN") || !strings.Contains(out, "***") {
			t.Errorf("%s: %s", verb, out)
		}
	}
}

// With a key configured every error leaving the session is masked, and
// the key goes out as "<AuthHeader>: <AuthScheme> <key>".
func TestSecretsMaskedAndSent(t *testing.T) {
	const key = `sk-live-"Q"-SECRET`
	srv := newServer(t, judgmenttest.CheckModel(), func(s *judgmenttest.Server) { s.APIKey = "other"; s.EchoAuth = true })
	sess := openSession(t, srv, vllm.Settings{Auth: judgment.Auth{APIKey: key, Headers: []judgment.Header{{Name: "X-Team", Value: "team-TOKEN"}}}})
	_, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(nil))
	if judgment.ErrorClass(err) != "BackendHttpError" {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(fmt.Sprintf("%#v", err), "SECRET") || !strings.Contains(err.Error(), "***") {
		t.Errorf("unmasked: %#v", err)
	}

	ok := newServer(t, judgmenttest.CheckModel(), func(s *judgmenttest.Server) { s.APIKey = "k1" })
	sess = openSession(t, ok, vllm.Settings{Auth: judgment.Auth{APIKey: "k1", UserAgent: "curl/8.9.1"}})
	if _, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(nil)); err != nil {
		t.Fatalf("Authorization: Bearer k1: %v", err)
	}
	if r := ok.Requests()[0]; r.Header.Get("User-Agent") != "curl/8.9.1" || r.Header.Get("Authorization") != "Bearer k1" {
		t.Errorf("User-Agent %q, Authorization %q", r.Header.Get("User-Agent"), r.Header.Get("Authorization"))
	}
}

// TestOnlyBearerAuth: vLLM's --api-key middleware accepts the key only as
// "Authorization: Bearer <key>": a custom auth header or a bare key, which
// the client sends as set (for a proxy in front of vLLM), gets HTTP 401
// {"error":"Unauthorized"}.
func TestOnlyBearerAuth(t *testing.T) {
	for _, a := range []judgment.Auth{
		{APIKey: "k1", AuthHeader: "X-Api-Key", BareKey: true},
		{APIKey: "k1", BareKey: true},
		{APIKey: "k1", AuthScheme: "Token"},
	} {
		srv := newServer(t, judgmenttest.CheckModel(), func(s *judgmenttest.Server) { s.APIKey = "k1" })
		sess := openSession(t, srv, vllm.Settings{Auth: a})
		_, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(nil))
		var he *judgment.BackendHTTPError
		if !errors.As(err, &he) || he.StatusCode != 401 || he.BodySnippet != `{"error":"Unauthorized"}` {
			t.Errorf("%+v: error %v, want HTTP 401 {\"error\":\"Unauthorized\"}", a, err)
		}
		header := a.AuthHeader
		if header == "" {
			header = "Authorization"
		}
		if got := srv.Requests()[0].Header.Get(header); !strings.HasSuffix(got, "k1") {
			t.Errorf("%+v: the key went out as %q", a, got)
		}
	}
}
