package backendhttp

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/typevet/typevet-go/judgment"
)

// Limits of the extra-header rules.
const (
	MaxHeaders          = 32
	MaxHeaderValueBytes = 2048
	MaxHeaderBytes      = 8192
	MaxHeaderNameBytes  = 128
)

// DefaultAuthHeader and DefaultAuthScheme are the header and scheme used when
// [judgment.Auth.AuthHeader] and [judgment.Auth.AuthScheme] are empty.
const (
	DefaultAuthHeader = "Authorization"
	DefaultAuthScheme = "Bearer"
)

// AuthNames names the variables (or fields) a [judgment.Auth] came from, so a
// validation error can name the variable without quoting its value. Build
// it with [EnvNames] or [FieldNames].
type AuthNames struct {
	// APIKey names the source of [judgment.Auth.APIKey] (e.g.
	// "TYPEVET_VLLM__API_KEY" or "vllm.Settings.APIKey").
	APIKey string
	// AuthHeader names the source of [judgment.Auth.AuthHeader].
	AuthHeader string
	// AuthScheme names the source of [judgment.Auth.AuthScheme] (and of BareKey,
	// which a set-but-empty scheme variable means).
	AuthScheme string
	// Headers names the source of [judgment.Auth.Headers] (a JSON object variable).
	Headers string
	// UserAgent names the source of [judgment.Auth.UserAgent].
	UserAgent string
}

// EnvNames returns the environment variable names under prefix, for example
// EnvNames("TYPEVET_VLLM__").APIKey == "TYPEVET_VLLM__API_KEY".
func EnvNames(prefix string) AuthNames {
	return AuthNames{
		APIKey:     prefix + "API_KEY",
		AuthHeader: prefix + "AUTH_HEADER",
		AuthScheme: prefix + "AUTH_SCHEME",
		Headers:    prefix + "HEADERS",
		UserAgent:  prefix + "USER_AGENT",
	}
}

// FieldNames returns the Go field names of a settings struct called owner,
// for errors about settings built in code (e.g. "vllm.Settings.APIKey").
func FieldNames(owner string) AuthNames {
	return AuthNames{
		APIKey:     owner + ".APIKey",
		AuthHeader: owner + ".AuthHeader",
		AuthScheme: owner + ".AuthScheme",
		Headers:    owner + ".Headers",
		UserAgent:  owner + ".UserAgent",
	}
}

// HeaderName returns the effective auth header name of a.
func HeaderName(a judgment.Auth) string {
	if a.AuthHeader == "" {
		return DefaultAuthHeader
	}
	return a.AuthHeader
}

// authValue returns the value of the auth header, "" when no key is set.
func authValue(a judgment.Auth) string {
	if a.APIKey == "" {
		return ""
	}
	switch {
	case a.BareKey:
		return a.APIKey
	case a.AuthScheme == "":
		return DefaultAuthScheme + " " + a.APIKey
	default:
		return a.AuthScheme + " " + a.APIKey
	}
}

// forbiddenHeaders may not be set through the extra headers: hop-by-hop
// headers and the ones the client itself controls.
var forbiddenHeaders = map[string]bool{
	"connection": true, "keep-alive": true, "proxy-authenticate": true,
	"proxy-authorization": true, "proxy-connection": true, "te": true,
	"trailer": true, "transfer-encoding": true, "upgrade": true,
	"host": true, "content-length": true, "content-type": true,
	"accept": true, "accept-encoding": true, "user-agent": true,
}

// Validate checks a against typevet's authentication-setting rules
// (key, header name and extra headers). Errors are
// [*judgment.SettingError] values naming the variable from names, never
// its value.
func Validate(a judgment.Auth, names AuthNames) error {
	if !printableASCII(a.APIKey) {
		return settingErr(names.APIKey, "must be printable ASCII")
	}
	if a.AuthHeader != "" {
		if !isToken(a.AuthHeader) || len(a.AuthHeader) > MaxHeaderNameBytes {
			return settingErr(names.AuthHeader, "must be an HTTP token of at most 128 bytes")
		}
		if forbiddenHeaders[strings.ToLower(a.AuthHeader)] {
			return settingErr(names.AuthHeader, "names a header the client controls")
		}
	}
	if a.AuthScheme != "" && (!isToken(a.AuthScheme) || len(a.AuthScheme) > MaxHeaderNameBytes) {
		return settingErr(names.AuthScheme, "must be an HTTP token of at most 128 bytes")
	}
	if !printableASCII(a.UserAgent) {
		return settingErr(names.UserAgent, "must be printable ASCII")
	}
	return validateHeaders(a.Headers, HeaderName(a), names.Headers)
}

func validateHeaders(hs []judgment.Header, authHeader, name string) error {
	if len(hs) > MaxHeaders {
		return settingErr(name, fmt.Sprintf("must hold at most %d headers", MaxHeaders))
	}
	total := 0
	seen := make(map[string]bool, len(hs))
	for _, h := range hs {
		lower := strings.ToLower(h.Name)
		switch {
		case !isToken(h.Name) || len(h.Name) > MaxHeaderNameBytes:
			return settingErr(name, "header names must be HTTP tokens of at most 128 bytes")
		case forbiddenHeaders[lower] || strings.EqualFold(h.Name, authHeader):
			return settingErr(name, "may not set a hop-by-hop, client-controlled or auth header")
		case seen[lower]:
			return settingErr(name, "may not name a header twice")
		case !printableASCII(h.Value) || len(h.Value) > MaxHeaderValueBytes:
			return settingErr(name, "header values must be printable ASCII of at most 2048 bytes")
		}
		seen[lower] = true
		total += len(h.Name) + len(h.Value)
	}
	if total > MaxHeaderBytes {
		return settingErr(name, "header names and values must total at most 8192 bytes")
	}
	return nil
}

// ValidateHeaderName checks a header name setting such as
// TYPEVET_VLLM__REQUEST_ID_HEADER: an HTTP token of at most 128 bytes that
// is neither client-controlled nor the auth header.
func ValidateHeaderName(a judgment.Auth, header, name string) error {
	if !isToken(header) || len(header) > MaxHeaderNameBytes {
		return settingErr(name, "must be an HTTP token of at most 128 bytes")
	}
	if forbiddenHeaders[strings.ToLower(header)] || strings.EqualFold(header, HeaderName(a)) {
		return settingErr(name, "names a header the client controls")
	}
	return nil
}

// isToken reports whether s is a non-empty HTTP token (RFC 9110 tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// printableASCII reports whether every byte of s is in 0x20–0x7E.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// UUID4Hex returns a random UUID version 4 as 32 lower-case hex digits,
// the request id a session stamps in its request-id header.
func UUID4Hex() string {
	var u [16]byte
	rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return hex.EncodeToString(u[:])
}
