package backendhttp

import (
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/typevet/typevet-go/internal/pyjson"
	"github.com/typevet/typevet-go/judgment"
)

func settingErr(variable, rule string) *judgment.SettingError {
	return &judgment.SettingError{Variable: variable, Rule: rule}
}

// Lookup is the shape of [os.LookupEnv]: the value of a variable and
// whether it is set.
type Lookup func(string) (string, bool)

// Get returns the value of the first of names that is set and not empty,
// with the name it came from. Names are tried in order, so the nested
// variable goes first and a legacy alias after it.
func (l Lookup) Get(names ...string) (value, name string, ok bool) {
	for _, n := range names {
		if v, set := l(n); set && v != "" {
			return v, n, true
		}
	}
	return "", names[0], false
}

// AuthFromEnv reads the API_KEY, AUTH_HEADER, AUTH_SCHEME, HEADERS and
// USER_AGENT variables under prefix (e.g. "TYPEVET_VLLM__") and validates
// them. A set-but-empty AUTH_SCHEME sends the key bare; an empty
// AUTH_HEADER means "Authorization"; an empty HEADERS means none.
func AuthFromEnv(lookup Lookup, prefix string) (judgment.Auth, error) {
	names := EnvNames(prefix)
	var a judgment.Auth
	a.APIKey, _, _ = lookup.Get(names.APIKey)
	a.AuthHeader, _, _ = lookup.Get(names.AuthHeader)
	if v, set := lookup(names.AuthScheme); set {
		a.AuthScheme = v
		a.BareKey = v == ""
	}
	a.UserAgent, _, _ = lookup.Get(names.UserAgent)
	if v, _, ok := lookup.Get(names.Headers); ok {
		hs, err := ParseHeaders(v, names.Headers)
		if err != nil {
			return judgment.Auth{}, err
		}
		a.Headers = hs
	}
	if err := Validate(a, names); err != nil {
		return judgment.Auth{}, err
	}
	return a, nil
}

// ParseHeaders decodes a JSON object of string values into headers in
// document order ([pyjson.DecodeObject]). A repeated name is refused (JSON
// would silently keep the last one), as is anything but one object.
// Errors name variable, never the text.
func ParseHeaders(text, variable string) ([]judgment.Header, error) {
	var hs []judgment.Header
	var bad error // a rule broken inside the object
	err := pyjson.DecodeObject([]byte(text), func(name string, raw json.RawMessage) error {
		var value string
		if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &value) != nil {
			bad = settingErr(variable, "must be a JSON object of string values")
			return bad
		}
		if len(hs) >= MaxHeaders {
			bad = settingErr(variable, "must hold at most 32 headers")
			return bad
		}
		hs = append(hs, judgment.Header{Name: name, Value: value})
		return nil
	})
	var rk *pyjson.RepeatedKeyError
	switch {
	case bad != nil:
		return nil, bad
	case errors.As(err, &rk):
		return nil, settingErr(variable, "may not name a header twice")
	case err != nil:
		return nil, settingErr(variable, "must be a JSON object of string values")
	}
	return hs, nil
}

// ParseSeconds parses a timeout in seconds: a finite number greater than 0
// that fits a [time.Duration].
func ParseSeconds(text, variable string) (time.Duration, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 || f*1e9 >= math.MaxInt64 {
		return 0, settingErr(variable, "must be a finite number of seconds greater than 0")
	}
	d := time.Duration(f * 1e9)
	if d <= 0 {
		d = 1
	}
	return d, nil
}

// ParseBaseURL parses an http or https base URL with a host and strips any
// trailing slash. User information (https://user:password@host) is
// refused: it would travel in every request and print with the settings;
// send credentials with the API key or the extra headers instead.
func ParseBaseURL(text, variable string) (string, error) {
	s := strings.TrimRight(strings.TrimSpace(text), "/")
	if _, ok := userinfo(s); ok {
		return "", settingErr(variable, "must not hold a user name or password (user:password@)")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", settingErr(variable, "must be an http or https URL with a host")
	}
	return s, nil
}

// userinfo returns the span of the user information of a URL text
// (between "//" and the last '@' of the authority), found without parsing
// so that a URL Go cannot parse is caught too.
func userinfo(s string) (span [2]int, ok bool) {
	start := strings.Index(s, "//")
	if start < 0 {
		return span, false
	}
	start += 2
	end := len(s)
	if i := strings.IndexAny(s[start:], "/?#"); i >= 0 {
		end = start + i
	}
	at := strings.LastIndexByte(s[start:end], '@')
	if at < 0 {
		return span, false
	}
	return [2]int{start, start + at + 1}, true
}

// PrintableURL returns a base URL for printing: any user information is
// replaced by "***@", so settings built in code with a refused URL still
// never print a password.
func PrintableURL(s string) string {
	span, ok := userinfo(s)
	if !ok {
		return s
	}
	return s[:span[0]] + "***@" + s[span[1]:]
}

// ParsePositiveInt parses a whole number of at least 1.
func ParsePositiveInt(text, variable string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil || n < 1 {
		return 0, settingErr(variable, "must be a whole number of at least 1")
	}
	return n, nil
}
