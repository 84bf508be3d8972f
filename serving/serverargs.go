package serving

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/typevet/typevet-go/internal/pyjson"
	"github.com/typevet/typevet-go/internal/pytext"
)

// Names of the server_args block.
const (
	// ServerArgsEnv is the variable whose raw value is the block's
	// caller_stated; see [StatedServerArgs].
	ServerArgsEnv = "TYPEVET_VLLM_SERVER_ARGS"
	// CacheConfigGauge is the vLLM gauge whose labels are the CacheConfig
	// fields; its value is always 1.
	CacheConfigGauge = "vllm:cache_config_info"
	// CacheConfigSource is the block's cache_config_source: the server
	// reported the configuration on /metrics.
	CacheConfigSource = "metrics"
)

// Label is one label of the vllm:cache_config_info gauge.
type Label struct {
	// Name is the label name (block_size, engine, …).
	Name string
	// Value is the unescaped label value, a string exactly as the server
	// wrote it ("16", "True", "None", "0.9").
	Value string
}

// Labels is an ordered label map: the cache_config object of the
// server_args block, in the order the server wrote the labels. It
// marshals as a JSON object in slice order; a nil Labels marshals as null
// (no reading held the gauge) and an empty non-nil Labels as {}, the way
// encoding/json treats nil and empty maps. Unmarshalling keeps the input
// order; null gives nil and a repeated key is refused (Python's json
// module would keep its first position and its last value; typevet never
// writes one).
type Labels []Label

// Get returns the value of the label name.
func (l Labels) Get(name string) (string, bool) {
	for _, x := range l {
		if x.Name == name {
			return x.Value, true
		}
	}
	return "", false
}

// set adds name or, when present, replaces its value in place.
func (l Labels) set(name, value string) Labels {
	for i := range l {
		if l[i].Name == name {
			l[i].Value = value
			return l
		}
	}
	return append(l, Label{name, value})
}

// MarshalJSON writes null for nil, else one JSON object in slice order,
// with text as UTF-8 and <, > and & unescaped (the receipt writer escapes
// the text as the receipt needs). A name given twice is an error: a Python
// dict cannot hold it ([CacheConfig] never builds one).
func (l Labels) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("null"), nil
	}
	obj := make(pyjson.Object, len(l))
	for i, x := range l {
		obj[i] = pyjson.Member{Key: x.Name, Value: x.Value}
	}
	b, err := pyjson.Marshal(obj, pyjson.Options{Compact: true})
	if err != nil {
		return nil, fmt.Errorf("serving: cache_config: %w", err)
	}
	return b, nil
}

// UnmarshalJSON reads null or a JSON object of strings, keeping its order
// ([pyjson.DecodeObject]). A label given twice is refused, as every
// ordered object of a receipt is.
func (l *Labels) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*l = nil
		return nil
	}
	out := Labels{}
	err := pyjson.DecodeObject(b, func(name string, raw json.RawMessage) error {
		var value string
		if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &value) != nil {
			return fmt.Errorf("serving: cache_config label %q must be a string", name)
		}
		out = append(out, Label{name, value})
		return nil
	})
	var rk *pyjson.RepeatedKeyError
	switch {
	case errors.As(err, &rk):
		return fmt.Errorf("serving: cache_config label %q given twice", rk.Key)
	case errors.Is(err, pyjson.ErrNotObject):
		return errors.New("serving: cache_config must be an object of strings or null")
	case err != nil:
		return err
	}
	*l = out
	return nil
}

// CacheConfig returns the labels of the first vllm:cache_config_info sample
// of a /metrics text, or ok false when no line holds
// the gauge. When ok, the Labels is non-nil; a sample written with {}
// gives empty Labels.
//
// It reads the text with its own line scanner, which is typevet's rule
// exactly, not with the exposition parser: expfmt cannot tell {} from no
// braces, refuses a repeated label name and the \t escape, and would lose
// the whole page to one bad line elsewhere. So a page that [ParseSnapshot]
// refuses can still give its cache configuration. The rule:
//
//   - Lines split as Python's str.splitlines splits them (\n, \r\n, \r,
//     \v, \f, \x1c–\x1e, U+0085, U+2028, U+2029); the first matching line
//     wins.
//   - A line matches when it starts with vllm:cache_config_info{ (so
//     vllm:cache_config_info_extra{…} and a label-less sample do not), its
//     label text runs to the last } that lets the rest match (a } inside a
//     label value is fine), then whitespace, a value, optionally whitespace
//     and an integer timestamp (#347), optionally whitespace, end of line.
//     Anything else after the value (a float timestamp, an exemplar, a
//     word) makes the line not match. Whitespace is Python's Unicode \s.
//   - Labels are the name="value" pairs of the label text, left to right;
//     a name starts with an ASCII letter or _ and goes on with Unicode word
//     characters; text between pairs is skipped. A repeated name keeps its
//     first position and its last value.
//   - Values are unescaped in one pass: \\ to \, \" to ", \n to a newline;
//     any other backslash pair stays as written (\t stays two characters).
//   - The engine label is kept like any other.
func CacheConfig(text string) (Labels, bool) {
	var found Labels
	for line := range pytext.Lines(text) {
		if labelText, ok := cacheConfigLine(line); ok {
			found = parseLabelPairs(labelText)
			break
		}
	}
	return found, found != nil
}

// FirstCacheConfig returns the [CacheConfig] of the first reading that
// holds the gauge, walking the readings in order: for
// an image run, the reading before the run, else the one after. Missing
// readings are skipped; ok is false when no reading holds the gauge.
func FirstCacheConfig(readings ...Reading) (Labels, bool) {
	for _, r := range readings {
		if !r.OK {
			continue
		}
		if l, ok := CacheConfig(r.Text); ok {
			return l, true
		}
	}
	return nil, false
}

// ServerArgsBlock is the server_args block of a receipt: which vLLM configuration made the receipt. JSON key
// order: cache_config, cache_config_source, caller_stated. Receipts
// written before typevet #341 have no server_args key.
type ServerArgsBlock struct {
	// CacheConfig holds the labels of vllm:cache_config_info as strings,
	// engine included, from the reading before the run (else after); nil
	// (null) when no reading held the gauge, as on llama.cpp.
	CacheConfig Labels `json:"cache_config"`
	// CacheConfigSource is always "metrics".
	CacheConfigSource string `json:"cache_config_source"`
	// CallerStated is TYPEVET_VLLM_SERVER_ARGS verbatim, never parsed or
	// checked: what the caller says the server runs with (--max-num-seqs
	// and other flags /metrics does not show). nil (null) when the
	// variable is unset, "" when it is set but empty. A pointer because
	// unset and empty differ.
	CallerStated *string `json:"caller_stated"`
}

// ServerArgs builds the server_args block from a cache configuration (nil
// for none) and the caller's statement (nil for none). The Labels are
// copied.
func ServerArgs(cache Labels, callerStated *string) ServerArgsBlock {
	var c Labels
	if cache != nil {
		c = append(Labels{}, cache...)
	}
	var stated *string
	if callerStated != nil {
		s := *callerStated
		stated = &s
	}
	return ServerArgsBlock{CacheConfig: c, CacheConfigSource: CacheConfigSource, CallerStated: stated}
}

// StatedServerArgs returns the raw value of TYPEVET_VLLM_SERVER_ARGS from
// lookup (pass os.LookupEnv): not trimmed, never parsed; nil when unset
// and "" when set but empty.
func StatedServerArgs(lookup func(string) (string, bool)) *string {
	v, ok := lookup(ServerArgsEnv)
	if !ok {
		return nil
	}
	return &v
}

// isPyWord reports whether r is a word character for Python's re \w on str.
func isPyWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// cacheConfigLine matches one line against the cache-config pattern and
// returns its label text.
func cacheConfigLine(line string) (string, bool) {
	const prefix = CacheConfigGauge + "{"
	if !strings.HasPrefix(line, prefix) {
		return "", false
	}
	rest := line[len(prefix):]
	// Greedy label text: try each "}" from the last one back.
	for end := strings.LastIndexByte(rest, '}'); end >= 0; end = strings.LastIndexByte(rest[:end], '}') {
		if valueTail(rest[end+1:]) {
			return rest[:end], true
		}
	}
	return "", false
}

// valueTail matches `\s+\S+(?:\s+-?\d+)?\s*$`.
func valueTail(s string) bool {
	s, n := trimSpaceLeft(s)
	if n == 0 {
		return false
	}
	value := nonSpacePrefix(s)
	if value == "" {
		return false
	}
	s, n = trimSpaceLeft(s[len(value):])
	if s == "" {
		return true
	}
	if n == 0 {
		return false
	}
	s = strings.TrimPrefix(s, "-")
	digits := 0
	for s != "" {
		r, size := utf8.DecodeRuneInString(s)
		if !unicode.IsDigit(r) {
			break
		}
		digits++
		s = s[size:]
	}
	if digits == 0 {
		return false
	}
	s, _ = trimSpaceLeft(s)
	return s == ""
}

// nonSpacePrefix returns the run of non-whitespace (Python's \S+) that s
// starts with.
func nonSpacePrefix(s string) string {
	for i, r := range s {
		if pytext.IsSpace(r) {
			return s[:i]
		}
	}
	return s
}

// trimSpaceLeft drops leading Python whitespace and counts it.
func trimSpaceLeft(s string) (string, int) {
	n := 0
	for s != "" {
		r, size := utf8.DecodeRuneInString(s)
		if !pytext.IsSpace(r) {
			break
		}
		s = s[size:]
		n++
	}
	return s, n
}

// parseLabelPairs takes every name="value" pair of a label text, left to
// right, as Python's re.findall would.
func parseLabelPairs(text string) Labels {
	out := Labels{}
	for i := 0; i < len(text); {
		name, value, end, ok := labelPairAt(text, i)
		if !ok {
			_, size := utf8.DecodeRuneInString(text[i:])
			i += size
			continue
		}
		out = out.set(name, unescapeLabel(value))
		i = end
	}
	return out
}

// labelPairAt matches `([A-Za-z_]\w*)="((?:[^"\\]|\\.)*)"` at text[i:].
func labelPairAt(text string, i int) (name, value string, end int, ok bool) {
	c := text[i]
	if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
		return "", "", 0, false
	}
	j := i + 1
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		if !isPyWord(r) {
			break
		}
		j += size
	}
	if !strings.HasPrefix(text[j:], `="`) {
		return "", "", 0, false
	}
	k := j + 2
	for k < len(text) {
		switch text[k] {
		case '"':
			return text[i:j], text[j+2 : k], k + 1, true
		case '\\':
			if k+1 >= len(text) {
				return "", "", 0, false
			}
			_, size := utf8.DecodeRuneInString(text[k+1:])
			k += 1 + size
		default:
			k++
		}
	}
	return "", "", 0, false
}

// unescapeLabel turns \\, \" and \n into their characters in one pass and
// keeps any other backslash pair as written.
func unescapeLabel(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '\\':
			b.WriteByte('\\')
		case '"':
			b.WriteByte('"')
		case 'n':
			b.WriteByte('\n')
		default:
			b.WriteByte('\\')
			continue // the next byte is written as itself
		}
		i++
	}
	return b.String()
}
