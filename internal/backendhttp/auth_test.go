package backendhttp

import (
	"fmt"
	"github.com/typevet/typevet-go/judgment"
	"strings"
	"testing"
)

func TestAuthFromEnv(t *testing.T) {
	const p = "TYPEVET_VLLM__"
	tests := []struct {
		name    string
		env     map[string]string
		want    judgment.Auth
		wantErr string // the whole message: variable and rule, never the value
		reason  string
	}{
		{name: "nothing set", env: map[string]string{}, want: judgment.Auth{}},
		{name: "key with defaults", env: map[string]string{p + "API_KEY": "sk-123"}, want: judgment.Auth{APIKey: "sk-123"}},
		{name: "empty scheme sends the key bare", env: map[string]string{p + "API_KEY": "k", p + "AUTH_SCHEME": ""},
			want: judgment.Auth{APIKey: "k", BareKey: true}, reason: "set-but-empty differs from unset"},
		{name: "empty auth header is the default", env: map[string]string{p + "AUTH_HEADER": ""}, want: judgment.Auth{}},
		{name: "custom header and scheme", env: map[string]string{p + "AUTH_HEADER": "X-Api-Key", p + "AUTH_SCHEME": "Token", p + "USER_AGENT": "curl/8.9.1"},
			want: judgment.Auth{AuthHeader: "X-Api-Key", AuthScheme: "Token", UserAgent: "curl/8.9.1"}},
		{name: "headers keep order", env: map[string]string{p + "HEADERS": `{"X-B": "2", "X-A": "1"}`},
			want: judgment.Auth{Headers: []judgment.Header{{Name: "X-B", Value: "2"}, {Name: "X-A", Value: "1"}}}},
		{name: "non-ASCII key", env: map[string]string{p + "API_KEY": "sk-é"}, wantErr: p + "API_KEY must be printable ASCII"},
		{name: "key with newline", env: map[string]string{p + "API_KEY": "sk\nx"}, wantErr: p + "API_KEY must be printable ASCII", reason: "header injection"},
		{name: "auth header not a token", env: map[string]string{p + "AUTH_HEADER": "X Api"}, wantErr: p + "AUTH_HEADER must be an HTTP token of at most 128 bytes"},
		{name: "auth header too long", env: map[string]string{p + "AUTH_HEADER": strings.Repeat("a", 129)}, wantErr: p + "AUTH_HEADER must be an HTTP token of at most 128 bytes"},
		{name: "auth header is Host", env: map[string]string{p + "AUTH_HEADER": "host"}, wantErr: p + "AUTH_HEADER names a header the client controls"},
		{name: "headers not an object", env: map[string]string{p + "HEADERS": `["X-A"]`}, wantErr: p + "HEADERS must be a JSON object of string values"},
		{name: "headers trailing data", env: map[string]string{p + "HEADERS": `{} {}`}, wantErr: p + "HEADERS must be a JSON object of string values"},
		{name: "header value not a string", env: map[string]string{p + "HEADERS": `{"X-A": 1}`}, wantErr: p + "HEADERS must be a JSON object of string values"},
		{name: "too many headers", env: map[string]string{p + "HEADERS": manyHeaders(33)}, wantErr: p + "HEADERS must hold at most 32 headers"},
		{name: "32 headers pass", env: map[string]string{p + "HEADERS": manyHeaders(32)}, want: judgment.Auth{Headers: manyHeaderList(32)}},
		{name: "hop-by-hop header", env: map[string]string{p + "HEADERS": `{"Connection": "close"}`}, wantErr: p + "HEADERS may not set a hop-by-hop, client-controlled or auth header"},
		{name: "content type header", env: map[string]string{p + "HEADERS": `{"content-type": "text/plain"}`}, wantErr: p + "HEADERS may not set a hop-by-hop, client-controlled or auth header"},
		{name: "auth header in headers", env: map[string]string{p + "AUTH_HEADER": "X-Key", p + "HEADERS": `{"x-key": "v"}`}, wantErr: p + "HEADERS may not set a hop-by-hop, client-controlled or auth header",
			reason: "case-insensitive, against the configured auth header"},
		{name: "repeated header", env: map[string]string{p + "HEADERS": `{"X-A": "1", "x-a": "2"}`}, wantErr: p + "HEADERS may not name a header twice", reason: "JSON would keep the last silently"},
		{name: "value with control byte", env: map[string]string{p + "HEADERS": `{"X-A": "a\u0001b"}`}, wantErr: p + "HEADERS header values must be printable ASCII of at most 2048 bytes"},
		{name: "value too long", env: map[string]string{p + "HEADERS": `{"X-A": "` + strings.Repeat("v", 2049) + `"}`}, wantErr: p + "HEADERS header values must be printable ASCII of at most 2048 bytes"},
		{name: "total too long", env: map[string]string{p + "HEADERS": bigHeaders()}, wantErr: p + "HEADERS header names and values must total at most 8192 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			got, err := AuthFromEnv(lookup, p)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q (%s)", err, tt.wantErr, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%#v", got.Headers) != fmt.Sprintf("%#v", tt.want.Headers) || got.APIKey != tt.want.APIKey ||
				got.AuthHeader != tt.want.AuthHeader || got.AuthScheme != tt.want.AuthScheme || got.BareKey != tt.want.BareKey || got.UserAgent != tt.want.UserAgent {
				t.Errorf("got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func manyHeaderList(n int) []judgment.Header {
	var hs []judgment.Header
	for i := range n {
		hs = append(hs, judgment.Header{Name: fmt.Sprintf("X-H%d", i), Value: "v"})
	}
	return hs
}

func manyHeaders(n int) string {
	var parts []string
	for _, h := range manyHeaderList(n) {
		parts = append(parts, fmt.Sprintf("%q: %q", h.Name, h.Value))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func bigHeaders() string {
	var parts []string
	for i := range 5 {
		parts = append(parts, fmt.Sprintf(`"X-H%d": "%s"`, i, strings.Repeat("v", 2000)))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func TestSentHeaders(t *testing.T) {
	tests := []struct {
		name string
		a    judgment.Auth
		want string
	}{
		{name: "bearer default", a: judgment.Auth{APIKey: "k"}, want: "Authorization: Bearer k"},
		{name: "custom scheme", a: judgment.Auth{APIKey: "k", AuthScheme: "Token"}, want: "Authorization: Token k"},
		{name: "bare key", a: judgment.Auth{APIKey: "k", AuthHeader: "X-Api-Key", BareKey: true}, want: "X-Api-Key: k"},
		{name: "no key", a: judgment.Auth{UserAgent: "curl/8.9.1"}, want: "User-Agent: curl/8.9.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := sentHeaders(tt.a)
			if len(hs) != 1 || hs[0].Name+": "+hs[0].Value != tt.want {
				t.Errorf("sent %v, want %q", hs, tt.want)
			}
		})
	}
}

func TestParseBaseURL(t *testing.T) {
	tests := []struct {
		name, in, want, wantErr, printed string
		reason                           string
	}{
		{name: "plain", in: "http://gpu:8080/", want: "http://gpu:8080", printed: "http://gpu:8080/"},
		{name: "user and password", in: "https://user:pw@gpu", wantErr: "V must not hold a user name or password (user:password@)", printed: "https://***@gpu"},
		{name: "user only", in: "https://tok@gpu/v1", wantErr: "V must not hold a user name or password (user:password@)", printed: "https://***@gpu/v1"},
		{name: "at sign in password", in: "https://u:p@ss@gpu", wantErr: "V must not hold a user name or password (user:password@)", printed: "https://***@gpu",
			reason: "the last @ of the authority ends the user information"},
		{name: "unparsable with userinfo", in: "http://u:p w%zz@gpu", wantErr: "V must not hold a user name or password (user:password@)", printed: "http://***@gpu",
			reason: "found without parsing, so a URL Go cannot parse is caught and never printed"},
		{name: "at sign in path", in: "http://gpu/a@b", want: "http://gpu/a@b", printed: "http://gpu/a@b"},
		{name: "ftp", in: "ftp://gpu", wantErr: "V must be an http or https URL with a host", printed: "ftp://gpu"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseBaseURL(tt.in, "V")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
			} else if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
			if p := PrintableURL(tt.in); p != tt.printed {
				t.Errorf("PrintableURL = %q, want %q", p, tt.printed)
			}
		})
	}
}
