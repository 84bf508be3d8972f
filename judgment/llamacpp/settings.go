package llamacpp

import (
	"fmt"
	"strings"
	"time"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/judgment"
)

// Settings configures a llama.cpp session (TYPEVET_LLAMA__*). The
// zero value means [DefaultSettings]: every empty field takes its default.
// Settings never print the API key or header values (see [Settings.Format]).
type Settings struct {
	// BaseURL is the llama-server address, without a trailing slash; ""
	// means "http://127.0.0.1:8090". TYPEVET_LLAMA__BASE_URL, legacy
	// TYPEVET_LLAMA_URL.
	BaseURL string
	// Timeout bounds each whole HTTP request; 0 means 300 s.
	// TYPEVET_LLAMA__TIMEOUT (seconds).
	Timeout time.Duration
	// DefaultModel is the text model id, "" for none.
	// TYPEVET_LLAMA__DEFAULT_MODEL, legacy TYPEVET_GEMMA_MODEL.
	DefaultModel string
	// MultimodalModel is the vision model [Open] uses when no model is
	// given; "" means "gemma-3-4b-it-q4km-mm" (which fails the Gemma 4
	// requirement: set it). TYPEVET_LLAMA__MULTIMODAL_MODEL.
	MultimodalModel string
	// KeepAliveExpiry is how long the session's own connection pool keeps
	// an idle connection; 0 means 4 s, under the 5 s after which
	// llama-server's cpp-httplib closes one: set it below the server's
	// keep-alive, or below a proxy's idle timeout in front of it. An
	// injected HTTP client keeps its own. TYPEVET_LLAMA__KEEPALIVE_EXPIRY
	// (seconds, finite, > 0).
	KeepAliveExpiry time.Duration
	// Auth holds the API key, the auth header and scheme, the extra
	// headers and the user agent (TYPEVET_LLAMA__API_KEY, AUTH_HEADER,
	// AUTH_SCHEME, HEADERS, USER_AGENT); its fields are promoted, so
	// s.APIKey works. The key and header values are secrets, never printed.
	judgment.Auth
	// RequestIDHeader, when set, names a header that carries a fresh
	// UUID4 hex on each request (typevet #411); a scoring call's id lands
	// in judgment.Response.RequestIDs and every error carries its
	// request's id. It must not name the auth header or an extra header.
	// TYPEVET_LLAMA__REQUEST_ID_HEADER.
	RequestIDHeader string
}

// Defaults of [Settings].
const (
	DefaultBaseURL         = "http://127.0.0.1:8090"
	DefaultTimeout         = 300 * time.Second
	DefaultMultimodalModel = "gemma-3-4b-it-q4km-mm"
	DefaultKeepAliveExpiry = backendhttp.DefaultKeepAliveExpiry
)

// DefaultSettings are the published defaults; the zero [Settings] means
// the same.
var DefaultSettings = Settings{
	BaseURL:         DefaultBaseURL,
	Timeout:         DefaultTimeout,
	MultimodalModel: DefaultMultimodalModel,
	KeepAliveExpiry: DefaultKeepAliveExpiry,
}

// envPrefix is the prefix of every llama.cpp variable.
const envPrefix = "TYPEVET_LLAMA__"

// SettingsFromEnv builds Settings from environment variables read through
// lookup (pass [os.LookupEnv]). An empty variable counts as unset, except
// TYPEVET_LLAMA__AUTH_SCHEME, which set but empty sends the key bare. A
// nested variable wins over its legacy alias. Errors are
// [*judgment.SettingError] values naming the variable, never its value.
func SettingsFromEnv(lookup func(string) (string, bool)) (Settings, error) {
	l := backendhttp.Lookup(lookup)
	s := DefaultSettings
	if v, name, ok := l.Get(envPrefix+"BASE_URL", "TYPEVET_LLAMA_URL"); ok {
		u, err := backendhttp.ParseBaseURL(v, name)
		if err != nil {
			return Settings{}, err
		}
		s.BaseURL = u
	}
	if v, name, ok := l.Get(envPrefix + "TIMEOUT"); ok {
		d, err := backendhttp.ParseSeconds(v, name)
		if err != nil {
			return Settings{}, err
		}
		s.Timeout = d
	}
	if v, name, ok := l.Get(envPrefix + "KEEPALIVE_EXPIRY"); ok {
		d, err := backendhttp.ParseSeconds(v, name)
		if err != nil {
			return Settings{}, err
		}
		s.KeepAliveExpiry = d
	}
	s.DefaultModel, _, _ = l.Get(envPrefix+"DEFAULT_MODEL", "TYPEVET_GEMMA_MODEL")
	if v, _, ok := l.Get(envPrefix + "MULTIMODAL_MODEL"); ok {
		s.MultimodalModel = v
	}
	a, err := backendhttp.AuthFromEnv(l, envPrefix)
	if err != nil {
		return Settings{}, err
	}
	s.Auth = a
	if v, name, ok := l.Get(envPrefix + "REQUEST_ID_HEADER"); ok {
		if err := validateRequestIDHeader(s.Auth, v, name); err != nil {
			return Settings{}, err
		}
		s.RequestIDHeader = v
	}
	return s, nil
}

// withDefaults fills the empty fields of s with [DefaultSettings].
func (s Settings) withDefaults() Settings {
	if s.BaseURL == "" {
		s.BaseURL = DefaultBaseURL
	}
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	if s.MultimodalModel == "" {
		s.MultimodalModel = DefaultMultimodalModel
	}
	if s.KeepAliveExpiry == 0 {
		s.KeepAliveExpiry = DefaultKeepAliveExpiry
	}
	return s
}

// Validate checks settings built in code by the rules [SettingsFromEnv]
// applies; errors name the field ("llamacpp.Settings.Timeout").
func (s Settings) Validate() error {
	s = s.withDefaults()
	if _, err := backendhttp.ParseBaseURL(s.BaseURL, "llamacpp.Settings.BaseURL"); err != nil {
		return err
	}
	if s.Timeout < 0 {
		return &judgment.SettingError{Variable: "llamacpp.Settings.Timeout", Rule: "must be greater than 0"}
	}
	if s.KeepAliveExpiry < 0 {
		return &judgment.SettingError{Variable: "llamacpp.Settings.KeepAliveExpiry", Rule: "must be greater than 0"}
	}
	if err := backendhttp.Validate(s.Auth, backendhttp.FieldNames("llamacpp.Settings")); err != nil {
		return err
	}
	if s.RequestIDHeader != "" {
		return validateRequestIDHeader(s.Auth, s.RequestIDHeader, "llamacpp.Settings.RequestIDHeader")
	}
	return nil
}

// validateRequestIDHeader checks the request-id header name set in name:
// an HTTP token that is neither a header the client controls nor the
// auth header ([backendhttp.ValidateHeaderName]) nor one of the extra
// headers, as typevet refuses (#411).
func validateRequestIDHeader(a judgment.Auth, header, name string) error {
	if err := backendhttp.ValidateHeaderName(a, header, name); err != nil {
		return err
	}
	for _, h := range a.Headers {
		if strings.EqualFold(h.Name, header) {
			return &judgment.SettingError{Variable: name, Rule: "names a header the client controls"}
		}
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
		fmt.Fprintf(f, "llamacpp.Settings{BaseURL:%q, Timeout:%d, DefaultModel:%q, MultimodalModel:%q, KeepAliveExpiry:%d, Auth:%#v, RequestIDHeader:%q}",
			backendhttp.PrintableURL(s.BaseURL), s.Timeout, s.DefaultModel, s.MultimodalModel, s.KeepAliveExpiry, s.Auth, s.RequestIDHeader)
	case verb == 'v' && f.Flag('+'):
		fmt.Fprintf(f, "{BaseURL:%s Timeout:%s DefaultModel:%s MultimodalModel:%s KeepAliveExpiry:%s Auth:%+v RequestIDHeader:%s}",
			backendhttp.PrintableURL(s.BaseURL), s.Timeout, s.DefaultModel, s.MultimodalModel, s.KeepAliveExpiry, s.Auth, s.RequestIDHeader)
	default:
		fmt.Fprintf(f, "{%s %s %s %s %s %v %s}", backendhttp.PrintableURL(s.BaseURL), s.Timeout, s.DefaultModel, s.MultimodalModel, s.KeepAliveExpiry, s.Auth, s.RequestIDHeader)
	}
}
