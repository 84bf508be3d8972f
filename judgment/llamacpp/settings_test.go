package llamacpp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/llamacpp"
)

func TestSettingsFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		check   func(llamacpp.Settings) bool
		wantErr string
		reason  string
	}{
		{name: "defaults", env: nil, check: func(s llamacpp.Settings) bool {
			return s.BaseURL == "http://127.0.0.1:8090" && s.Timeout == 300*time.Second && s.MultimodalModel == "gemma-3-4b-it-q4km-mm" && s.DefaultModel == "" &&
				s.KeepAliveExpiry == 4*time.Second
		}},
		{name: "trailing slash stripped", env: map[string]string{"TYPEVET_LLAMA__BASE_URL": "http://gpu:8080/"},
			check: func(s llamacpp.Settings) bool { return s.BaseURL == "http://gpu:8080" }},
		{name: "legacy url", env: map[string]string{"TYPEVET_LLAMA_URL": "http://old:1"},
			check: func(s llamacpp.Settings) bool { return s.BaseURL == "http://old:1" }},
		{name: "nested wins over legacy", env: map[string]string{"TYPEVET_LLAMA_URL": "http://old:1", "TYPEVET_LLAMA__BASE_URL": "http://new:2"},
			check: func(s llamacpp.Settings) bool { return s.BaseURL == "http://new:2" }},
		{name: "legacy model", env: map[string]string{"TYPEVET_GEMMA_MODEL": "g"},
			check: func(s llamacpp.Settings) bool { return s.DefaultModel == "g" }},
		{name: "models and timeout", env: map[string]string{"TYPEVET_LLAMA__DEFAULT_MODEL": "t", "TYPEVET_LLAMA__MULTIMODAL_MODEL": "gemma-4", "TYPEVET_LLAMA__TIMEOUT": "2.5"},
			check: func(s llamacpp.Settings) bool {
				return s.DefaultModel == "t" && s.MultimodalModel == "gemma-4" && s.Timeout == 2500*time.Millisecond
			}},
		{name: "auth", env: map[string]string{"TYPEVET_LLAMA__API_KEY": "k", "TYPEVET_LLAMA__AUTH_SCHEME": "", "TYPEVET_LLAMA__HEADERS": `{"X-A":"1"}`},
			check: func(s llamacpp.Settings) bool { return s.APIKey == "k" && s.BareKey && len(s.Headers) == 1 }},
		{name: "bad url", env: map[string]string{"TYPEVET_LLAMA__BASE_URL": "ftp://x"}, wantErr: "TYPEVET_LLAMA__BASE_URL must be an http or https URL with a host"},
		{name: "userinfo refused", env: map[string]string{"TYPEVET_LLAMA__BASE_URL": "https://user:pw-SECRET@gpu:8080"},
			wantErr: "TYPEVET_LLAMA__BASE_URL must not hold a user name or password (user:password@)",
			reason:  "credentials in the URL would print with the settings"},
		{name: "userinfo in the legacy url", env: map[string]string{"TYPEVET_LLAMA_URL": "http://pw-SECRET@gpu"},
			wantErr: "TYPEVET_LLAMA_URL must not hold a user name or password (user:password@)"},
		{name: "bad legacy url names the alias", env: map[string]string{"TYPEVET_LLAMA_URL": "nope"}, wantErr: "TYPEVET_LLAMA_URL must be an http or https URL with a host"},
		{name: "keep-alive expiry", env: map[string]string{"TYPEVET_LLAMA__KEEPALIVE_EXPIRY": "3"},
			check: func(s llamacpp.Settings) bool { return s.KeepAliveExpiry == 3*time.Second }},
		{name: "nan keep-alive expiry", env: map[string]string{"TYPEVET_LLAMA__KEEPALIVE_EXPIRY": "nan"}, wantErr: "TYPEVET_LLAMA__KEEPALIVE_EXPIRY must be a finite number of seconds greater than 0"},
		{name: "zero timeout", env: map[string]string{"TYPEVET_LLAMA__TIMEOUT": "0"}, wantErr: "TYPEVET_LLAMA__TIMEOUT must be a finite number of seconds greater than 0"},
		{name: "nan timeout", env: map[string]string{"TYPEVET_LLAMA__TIMEOUT": "nan"}, wantErr: "TYPEVET_LLAMA__TIMEOUT must be a finite number of seconds greater than 0"},
		{name: "inf timeout", env: map[string]string{"TYPEVET_LLAMA__TIMEOUT": "inf"}, wantErr: "TYPEVET_LLAMA__TIMEOUT must be a finite number of seconds greater than 0"},
		{name: "bad key", env: map[string]string{"TYPEVET_LLAMA__API_KEY": "ключ"}, wantErr: "TYPEVET_LLAMA__API_KEY must be printable ASCII"},
		{name: "no request-id header on llama.cpp", env: map[string]string{"TYPEVET_LLAMA__REQUEST_ID_HEADER": "X-Id"},
			check: func(s llamacpp.Settings) bool { return true }, reason: "the variable does not exist; it is ignored"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := llamacpp.SettingsFromEnv(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if tt.wantErr != "" {
				var se *judgment.SettingError
				if !errors.As(err, &se) || err.Error() != tt.wantErr || errors.Unwrap(err) != nil {
					t.Fatalf("err = %v, want %q with no cause", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(s) {
				t.Errorf("got %+v, %v", s, err)
			}
		})
	}
}

func TestSettingsNeverPrintSecrets(t *testing.T) {
	s := llamacpp.Settings{Auth: judgment.Auth{APIKey: "sk-live-SECRET", Headers: []judgment.Header{{Name: "X-Team", Value: "TOKEN-1"}}}}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(verb, s); strings.Contains(out, "SECRET") || strings.Contains(out, "TOKEN") || !strings.Contains(out, "***") {
			t.Errorf("%s: %s", verb, out)
		}
	}
	if out := fmt.Sprintf("%v", &s); strings.Contains(out, "SECRET") {
		t.Errorf("pointer: %s", out)
	}
}

// TestBaseURLUserinfo checks that a base URL with user information is
// refused by Open (naming the field, never the value) and never printed.
func TestBaseURLUserinfo(t *testing.T) {
	s := llamacpp.Settings{BaseURL: "https://user:pw-SECRET@gpu:8080"}
	_, err := llamacpp.Open(context.Background(), s, llamacpp.OpenOptions{})
	var se *judgment.SettingError
	if !errors.As(err, &se) || err.Error() != "llamacpp.Settings.BaseURL must not hold a user name or password (user:password@)" {
		t.Errorf("Open err = %v", err)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(verb, s); strings.Contains(out, "SECRET") || strings.Contains(out, "user") || !strings.Contains(out, "https://***@gpu:8080") {
			t.Errorf("%s: %s", verb, out)
		}
	}
}

// With a key configured every error leaving the session is masked,
// including a 401 body that echoes the auth header.
func TestSecretsMasked(t *testing.T) {
	const key = `sk-live-"Q"-SECRET`
	srv := newServer(t, judgmenttest.CheckModel(), func(s *judgmenttest.Server) { s.APIKey = "other"; s.EchoAuth = true })
	_, err := llamacpp.Open(context.Background(), llamacpp.Settings{BaseURL: srv.URL, Auth: judgment.Auth{APIKey: key,
		Headers: []judgment.Header{{Name: "X-Team", Value: "team-TOKEN"}}}}, llamacpp.OpenOptions{})
	var he *judgment.BackendHTTPError
	if !errors.As(err, &he) || he.StatusCode != 401 {
		t.Fatalf("err = %v, want HTTP 401", err)
	}
	if strings.Contains(err.Error(), "SECRET") || strings.Contains(he.BodySnippet, "SECRET") || !strings.Contains(he.BodySnippet, "Bearer ***") {
		t.Errorf("unmasked: %q / %q", err, he.BodySnippet)
	}
	if got := srv.Requests()[0].Header.Get("X-Team"); got != "team-TOKEN" {
		t.Errorf("extra header sent as %q", got)
	}

	// A transport error with secrets keeps no cause chain that could hold
	// request headers: only the context sentinel survives masking, so a
	// caller can still tell a timeout (judgment.Secrets.Mask).
	srv2 := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv2, llamacpp.Settings{Auth: judgment.Auth{APIKey: key}, Timeout: 100 * time.Millisecond}, llamacpp.OpenOptions{})
	srv2.Inject(judgmenttest.Fault{Path: "/tokenize", Delay: time.Second})
	_, err = sess.Judge(context.Background(), judgmenttest.CheckRequest(nil))
	var te *judgment.TransportError
	if !errors.As(err, &te) || te.Err != context.DeadlineExceeded || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %#v, want a TransportError whose only cause is context.DeadlineExceeded", err)
	}
}
