package serving

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EngineError refuses a /metrics reading in which one gauge carries several
// engine labels (typevet #339, #346): a sum across engines is not one
// reading. Samples without an engine label count as one engine of their
// own, so mixing labelled and unlabelled samples of a gauge is refused too.
// Each reading is checked alone: engine 0 before and engine 1 after is not
// refused. Counters and histograms are never checked.
type EngineError struct {
	// Gauge is the first refused gauge name in code-point order.
	Gauge string
	// Engines are its distinct engine ids, sorted, a missing label spelled
	// "(none)".
	Engines []string
}

// Error returns typevet's message verbatim, the list in Python's repr:
//
//	gauge vllm:kv_cache_usage_perc carries engine labels ['0', '1']; a sum across engines is not one reading
func (e *EngineError) Error() string {
	quoted := make([]string, len(e.Engines))
	for i, id := range e.Engines {
		quoted[i] = pyRepr(id)
	}
	return fmt.Sprintf("gauge %s carries engine labels [%s]; a sum across engines is not one reading",
		e.Gauge, strings.Join(quoted, ", "))
}

// ReadingError says why a present /metrics reading counted as missing: its
// text is not valid exposition text. It travels in [Delta.Warnings].
type ReadingError struct {
	// Reading is "before" or "after".
	Reading string
	// Err is the parse failure; it wraps the [expfmt.ParseError] that
	// names the line.
	Err error
}

// Error names the reading and the parse failure.
func (e *ReadingError) Error() string {
	return fmt.Sprintf("serving: %s /metrics reading counted as missing: %v", e.Reading, e.Err)
}

// Unwrap returns the parse failure.
func (e *ReadingError) Unwrap() error { return e.Err }

// HTTPError is a server-entry read that got a status other than 200.
type HTTPError struct {
	// Path is the request path, e.g. /v1/models.
	Path string
	// StatusCode is the HTTP status.
	StatusCode int
}

// Error names the path and the status.
func (e *HTTPError) Error() string {
	return fmt.Sprintf("serving: GET %s: HTTP %d", e.Path, e.StatusCode)
}

// pyRepr quotes s the way Python's repr quotes a str: single quotes unless
// s holds a single quote and no double quote, backslash escapes for the
// quote, the backslash, \t \n \r, \xNN, \uNNNN or \UNNNNNNNN for other
// unprintable runes.
func pyRepr(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			b.WriteString(`\x` + pad(strconv.FormatInt(int64(r), 16), 2))
		case r < 0x10000:
			b.WriteString(`\u` + pad(strconv.FormatInt(int64(r), 16), 4))
		default:
			b.WriteString(`\U` + pad(strconv.FormatInt(int64(r), 16), 8))
		}
	}
	b.WriteByte(q)
	return b.String()
}

func pad(s string, n int) string { return strings.Repeat("0", n-len(s)) + s }
