package judgment

import (
	"fmt"
	"strings"
)

// Header is one extra HTTP header sent on every request of a backend
// session.
type Header struct {
	// Name is the header name, an HTTP token.
	Name string
	// Value is the header value: printable ASCII (0x20–0x7E), at most
	// 2048 bytes. It is treated as a secret.
	Value string
}

// Auth holds the credentials and extra headers of an HTTP backend session
// (TYPEVET_LLAMA__* and TYPEVET_VLLM__* API_KEY, AUTH_HEADER, AUTH_SCHEME,
// HEADERS, USER_AGENT); it is embedded in llamacpp.Settings and
// vllm.Settings. The zero value sends no key and no extra header.
//
// Auth never prints its key or header values: String, GoString and Format
// replace them with "***".
type Auth struct {
	// APIKey is sent as "<AuthHeader>: <AuthScheme> <APIKey>"; "" sends no
	// key. Printable ASCII only.
	APIKey string
	// AuthHeader names the header that carries the key; "" means
	// "Authorization". An HTTP token of at most 128 bytes.
	AuthHeader string
	// AuthScheme prefixes the key; "" means "Bearer" unless BareKey is set.
	AuthScheme string
	// BareKey sends the key without a scheme. It is what a set-but-empty
	// AUTH_SCHEME variable means; a bool keeps the zero value of Auth
	// meaning "Bearer".
	BareKey bool
	// Headers are extra headers sent on every request, in order. At most 32,
	// names and values together at most 8192 bytes; hop-by-hop headers,
	// Host, Content-Length, Content-Type, Accept, Accept-Encoding,
	// User-Agent and the auth header are refused.
	Headers []Header
	// UserAgent replaces Go's default User-Agent when non-empty (e.g.
	// "curl/8.9.1" for proxies that block library agents).
	UserAgent string
}

// Secrets returns the values that must never leave a session: the API key,
// masked everywhere, and every non-empty extra header value, masked as a
// whole token (see [Secrets]).
func (a Auth) Secrets() Secrets {
	var s Secrets
	if a.APIKey != "" {
		s.Keys = []string{a.APIKey}
	}
	for _, h := range a.Headers {
		if h.Value != "" {
			s.HeaderValues = append(s.HeaderValues, h.Value)
		}
	}
	return s
}

// String returns a form of a without secrets.
func (a Auth) String() string { return fmt.Sprint(a) }

// GoString returns a Go-syntax form of a without secrets.
func (a Auth) GoString() string { return fmt.Sprintf("%#v", a) }

// Format prints a for every verb with the key and header values replaced
// by "***", so no fmt verb can print a secret.
func (a Auth) Format(f fmt.State, verb rune) {
	fmt.Fprint(f, a.redacted(verb == 'v' && f.Flag('#'), verb == 'v' && f.Flag('+')))
}

func (a Auth) redacted(goSyntax, names bool) string {
	key := ""
	if a.APIKey != "" {
		key = maskText
	}
	var hs strings.Builder
	for i, h := range a.Headers {
		if i > 0 {
			hs.WriteString(", ")
		}
		v := ""
		if h.Value != "" {
			v = maskText
		}
		if goSyntax {
			fmt.Fprintf(&hs, "{Name:%q, Value:%q}", h.Name, v)
		} else {
			fmt.Fprintf(&hs, "%s: %s", h.Name, v)
		}
	}
	switch {
	case goSyntax:
		return fmt.Sprintf("judgment.Auth{APIKey:%q, AuthHeader:%q, AuthScheme:%q, BareKey:%t, Headers:[]judgment.Header{%s}, UserAgent:%q}",
			key, a.AuthHeader, a.AuthScheme, a.BareKey, hs.String(), a.UserAgent)
	case names:
		return fmt.Sprintf("{APIKey:%s AuthHeader:%s AuthScheme:%s BareKey:%t Headers:[%s] UserAgent:%s}",
			key, a.AuthHeader, a.AuthScheme, a.BareKey, hs.String(), a.UserAgent)
	default:
		return fmt.Sprintf("{%s %s %s %t [%s] %s}", key, a.AuthHeader, a.AuthScheme, a.BareKey, hs.String(), a.UserAgent)
	}
}

// SettingError reports a bad setting of a backend (from the environment,
// as llamacpp.SettingsFromEnv reads it, or from settings built in code).
// It names the variable (or field) and the rule it breaks, never the value,
// and it has no cause, so no error chain can show the value.
type SettingError struct {
	// Variable is the environment variable or settings field at fault.
	Variable string
	// Rule says what the value must be.
	Rule string
}

// Error returns "<Variable> <Rule>".
func (e *SettingError) Error() string { return e.Variable + " " + e.Rule }
