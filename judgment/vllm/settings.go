package vllm

import (
	"fmt"
	"strings"
	"time"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/judgment"
)

// Settings configures a vLLM session (TYPEVET_VLLM__*). BaseURL
// and Model are required; every other zero field means its default.
// Settings never print the API key or header values.
type Settings struct {
	// BaseURL is the server address without a trailing slash (required).
	// TYPEVET_VLLM__BASE_URL.
	BaseURL string
	// Model is the served model name, equal to --served-model-name
	// (required). TYPEVET_VLLM__MODEL.
	Model string
	// Timeout bounds each whole HTTP request; 0 means 300 s.
	// TYPEVET_VLLM__TIMEOUT (seconds, finite, > 0).
	Timeout time.Duration
	// Auth holds the API key, the auth header and scheme, the extra
	// headers and the user agent (TYPEVET_VLLM__API_KEY, AUTH_HEADER,
	// AUTH_SCHEME, HEADERS, USER_AGENT); its fields are promoted, so
	// s.APIKey works. The key and header values are secrets, never printed.
	judgment.Auth
	// RequestIDHeader, when set, names a header that carries a fresh UUID4
	// hex on each request; scoring ids land in judgment.Response.RequestIDs.
	// TYPEVET_VLLM__REQUEST_ID_HEADER.
	RequestIDHeader string
	// KeepAliveExpiry is how long the session's own connection pool keeps
	// an idle connection; 0 means 4 s, under the 5 s after which vLLM's
	// uvicorn closes one (VLLM_HTTP_TIMEOUT_KEEP_ALIVE): set it below the
	// server's keep-alive, or below a proxy's idle timeout in front of it.
	// An injected HTTP client keeps its own. TYPEVET_VLLM__KEEPALIVE_EXPIRY
	// (seconds, finite, > 0).
	KeepAliveExpiry time.Duration
	// MaxConcurrency is typevet's async generation POST limit; 0 means 1.
	// Judgment sessions do not use it (one pooled client serves any number
	// of goroutines); it is parsed and kept for receipts and callers.
	// TYPEVET_VLLM__MAX_CONCURRENCY.
	MaxConcurrency int
}

// Defaults of [Settings].
const (
	DefaultTimeout         = 300 * time.Second
	DefaultMaxConcurrency  = 1
	DefaultKeepAliveExpiry = backendhttp.DefaultKeepAliveExpiry
)

// envPrefix is the prefix of every vLLM variable.
const envPrefix = "TYPEVET_VLLM__"

// SettingsFromEnv builds Settings from environment variables read through
// lookup (pass [os.LookupEnv]). TYPEVET_VLLM__BASE_URL and
// TYPEVET_VLLM__MODEL are required; other empty variables count as unset,
// except TYPEVET_VLLM__AUTH_SCHEME, which set but empty sends the key bare.
// Errors are [*judgment.SettingError] values naming the variable, never
// its value.
func SettingsFromEnv(lookup func(string) (string, bool)) (Settings, error) {
	l := backendhttp.Lookup(lookup)
	s := Settings{Timeout: DefaultTimeout, MaxConcurrency: DefaultMaxConcurrency}
	v, name, ok := l.Get(envPrefix + "BASE_URL")
	if !ok {
		return Settings{}, &judgment.SettingError{Variable: name, Rule: "is required"}
	}
	var err error
	if s.BaseURL, err = backendhttp.ParseBaseURL(v, name); err != nil {
		return Settings{}, err
	}
	if s.Model, name, ok = l.Get(envPrefix + "MODEL"); !ok || isBlank(s.Model) {
		return Settings{}, &judgment.SettingError{Variable: name, Rule: "is required"}
	}
	if v, name, ok := l.Get(envPrefix + "TIMEOUT"); ok {
		if s.Timeout, err = backendhttp.ParseSeconds(v, name); err != nil {
			return Settings{}, err
		}
	}
	if v, name, ok := l.Get(envPrefix + "KEEPALIVE_EXPIRY"); ok {
		if s.KeepAliveExpiry, err = backendhttp.ParseSeconds(v, name); err != nil {
			return Settings{}, err
		}
	}
	if v, name, ok := l.Get(envPrefix + "MAX_CONCURRENCY"); ok {
		if s.MaxConcurrency, err = backendhttp.ParsePositiveInt(v, name); err != nil {
			return Settings{}, err
		}
	}
	a, err := backendhttp.AuthFromEnv(l, envPrefix)
	if err != nil {
		return Settings{}, err
	}
	s.Auth = a
	if v, name, ok := l.Get(envPrefix + "REQUEST_ID_HEADER"); ok {
		if err := backendhttp.ValidateHeaderName(s.Auth, v, name); err != nil {
			return Settings{}, err
		}
		s.RequestIDHeader = v
	}
	return s, nil
}

// isBlank reports whether s holds only whitespace.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// withDefaults fills the zero optional fields.
func (s Settings) withDefaults() Settings {
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	if s.MaxConcurrency == 0 {
		s.MaxConcurrency = DefaultMaxConcurrency
	}
	if s.KeepAliveExpiry == 0 {
		s.KeepAliveExpiry = DefaultKeepAliveExpiry
	}
	return s
}

// Validate checks settings built in code by the rules [SettingsFromEnv]
// applies; errors name the field ("vllm.Settings.BaseURL").
func (s Settings) Validate() error {
	if s.BaseURL == "" {
		return &judgment.SettingError{Variable: "vllm.Settings.BaseURL", Rule: "is required"}
	}
	if _, err := backendhttp.ParseBaseURL(s.BaseURL, "vllm.Settings.BaseURL"); err != nil {
		return err
	}
	if isBlank(s.Model) {
		return &judgment.SettingError{Variable: "vllm.Settings.Model", Rule: "is required"}
	}
	if s.Timeout < 0 {
		return &judgment.SettingError{Variable: "vllm.Settings.Timeout", Rule: "must be greater than 0"}
	}
	if s.KeepAliveExpiry < 0 {
		return &judgment.SettingError{Variable: "vllm.Settings.KeepAliveExpiry", Rule: "must be greater than 0"}
	}
	if s.MaxConcurrency < 0 {
		return &judgment.SettingError{Variable: "vllm.Settings.MaxConcurrency", Rule: "must be a whole number of at least 1"}
	}
	if err := backendhttp.Validate(s.Auth, backendhttp.FieldNames("vllm.Settings")); err != nil {
		return err
	}
	if s.RequestIDHeader != "" {
		return backendhttp.ValidateHeaderName(s.Auth, s.RequestIDHeader, "vllm.Settings.RequestIDHeader")
	}
	return nil
}

// String returns s without secrets.
func (s Settings) String() string { return fmt.Sprint(s) }

// GoString returns a Go-syntax form of s without secrets.
func (s Settings) GoString() string { return fmt.Sprintf("%#v", s) }

// Format prints s for every verb with the API key, header values and any
// user information of the base URL replaced by "***".
func (s Settings) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		fmt.Fprintf(f, "vllm.Settings{BaseURL:%q, Model:%q, Timeout:%d, Auth:%#v, RequestIDHeader:%q, KeepAliveExpiry:%d, MaxConcurrency:%d}",
			backendhttp.PrintableURL(s.BaseURL), s.Model, s.Timeout, s.Auth, s.RequestIDHeader, s.KeepAliveExpiry, s.MaxConcurrency)
	case verb == 'v' && f.Flag('+'):
		fmt.Fprintf(f, "{BaseURL:%s Model:%s Timeout:%s Auth:%+v RequestIDHeader:%s KeepAliveExpiry:%s MaxConcurrency:%d}",
			backendhttp.PrintableURL(s.BaseURL), s.Model, s.Timeout, s.Auth, s.RequestIDHeader, s.KeepAliveExpiry, s.MaxConcurrency)
	default:
		fmt.Fprintf(f, "{%s %s %s %v %s %s %d}", backendhttp.PrintableURL(s.BaseURL), s.Model, s.Timeout, s.Auth, s.RequestIDHeader, s.KeepAliveExpiry, s.MaxConcurrency)
	}
}
