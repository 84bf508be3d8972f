package pyjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrNotObject is returned by [DecodeObject] for JSON text that is valid
// but not an object (null, a list, a string, a number).
var ErrNotObject = errors.New("pyjson: not a JSON object")

// ErrTrailingData is returned by [DecodeObject] when anything but white
// space follows the object.
var ErrTrailingData = errors.New("pyjson: trailing data after the JSON object")

// RepeatedKeyError is returned by [DecodeObject] for an object that holds a
// key twice. Python's json module would keep the last value at the first
// position; typevet never writes such an object, so reading one is refused.
type RepeatedKeyError struct {
	// Key is the repeated key, unescaped.
	Key string
}

// Error returns "pyjson: key %q given twice" with the unescaped key.
func (e *RepeatedKeyError) Error() string { return fmt.Sprintf("pyjson: key %q given twice", e.Key) }

// SyntaxError is returned by [DecodeObject] for text that is not JSON.
// It names where the text broke, never the text itself.
type SyntaxError struct {
	// Offset is the byte offset at which the error was found; at the end
	// of the input when it ended early.
	Offset int
	// EOF is true when the input ended before the JSON value did.
	EOF bool
}

// Error returns "pyjson: unexpected end of JSON input" when the input
// ended early, else "pyjson: invalid JSON at byte N"; never the text.
func (e *SyntaxError) Error() string {
	if e.EOF {
		return "pyjson: unexpected end of JSON input"
	}
	return fmt.Sprintf("pyjson: invalid JSON at byte %d", e.Offset)
}

// DecodeObject reads data as exactly one JSON object and calls each with
// every key (unescaped) and its raw value, in document order: the one rule
// for ordered objects (Python dicts) in this module. It stops at the first
// error each returns and returns it unchanged.
//
// Errors: *[SyntaxError] for text that is not JSON (strict RFC 8259: no
// NaN or Infinity), [ErrNotObject] for valid JSON of another kind (null
// included: callers that accept null check for it first),
// *[RepeatedKeyError] for a key given twice, [ErrTrailingData] for anything
// but white space after the object. A key whose bytes are not valid UTF-8
// has each bad byte replaced by U+FFFD, as encoding/json does; the raw
// values are passed as they are, valid JSON for encoding/json.
func DecodeObject(data []byte, each func(key string, value json.RawMessage) error) error {
	s := scanner{data: data}
	s.ws()
	if s.i < len(s.data) && s.data[s.i] != '{' {
		if s.skip(); s.err != nil {
			return s.err
		}
		if s.ws(); s.i < len(s.data) {
			return &SyntaxError{Offset: s.i}
		}
		return ErrNotObject
	}
	var keys []string
	var seen map[string]bool // used once there are many keys
	err := s.object(func(key string, start, end int) error {
		switch {
		case seen != nil:
			if seen[key] {
				return &RepeatedKeyError{Key: key}
			}
			seen[key] = true
		case slices.Contains(keys, key):
			return &RepeatedKeyError{Key: key}
		case len(keys) == 16:
			seen = make(map[string]bool, 32)
			for _, k := range keys {
				seen[k] = true
			}
			seen[key] = true
		default:
			keys = append(keys, key)
		}
		return each(key, json.RawMessage(data[start:end:end]))
	})
	if err != nil {
		return err
	}
	if s.ws(); s.i < len(s.data) {
		return ErrTrailingData
	}
	return nil
}

// maxNesting bounds the nesting of arrays and objects that the scanner and
// the encoder follow, as encoding/json does (10000), so deep or cyclic
// input fails instead of exhausting the stack.
const maxNesting = 10000

// scanner reads JSON text; it sets err at the first problem and every step
// after that does nothing.
type scanner struct {
	data   []byte
	i      int
	err    error
	python bool // accept NaN, Infinity and -Infinity, as Python's json does
	nest   int  // arrays and objects open in skip
	// onPython, when set, is called with the span of each NaN, Infinity
	// or -Infinity literal read.
	onPython func(start, end int)
}

// PythonLiterals reads data as exactly one JSON value the way Python's
// json.loads does, which also takes the non-standard literals NaN,
// Infinity and -Infinity, and returns the byte span [start, end) of each
// such literal, in order (none inside a string). A server written in
// Python may send them; a Go reader rewrites the spans and decodes the rest
// with encoding/json. Errors: *SyntaxError for text that is not such a
// value, with anything but white space after it included.
func PythonLiterals(data []byte) ([][2]int, error) {
	var spans [][2]int
	s := scanner{data: data, python: true, onPython: func(start, end int) { spans = append(spans, [2]int{start, end}) }}
	s.ws()
	s.skip()
	if s.ws(); s.err == nil && s.i < len(data) {
		s.fail()
	}
	if s.err != nil {
		return nil, s.err
	}
	return spans, nil
}

func (s *scanner) fail() {
	if s.err == nil {
		if s.i >= len(s.data) {
			s.err = &SyntaxError{Offset: len(s.data), EOF: true}
		} else {
			s.err = &SyntaxError{Offset: s.i}
		}
	}
}

func (s *scanner) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// expect consumes c after white space.
func (s *scanner) expect(c byte) bool {
	s.ws()
	if s.err != nil || s.i >= len(s.data) || s.data[s.i] != c {
		s.fail()
		return false
	}
	s.i++
	return true
}

// object reads an object (at '{', after white space) and calls member for
// each key and the span of its value. An error from member stops it and is
// returned.
func (s *scanner) object(member func(key string, start, end int) error) error {
	if !s.expect('{') {
		return s.err
	}
	s.ws()
	if s.i < len(s.data) && s.data[s.i] == '}' {
		s.i++
		return nil
	}
	for s.err == nil {
		s.ws()
		if s.i >= len(s.data) || s.data[s.i] != '"' {
			s.fail()
			break
		}
		key, ok := s.str()
		if !ok {
			key = replaceInvalid(key)
		}
		if !s.expect(':') {
			break
		}
		s.ws()
		start := s.i
		s.skip()
		if s.err != nil {
			break
		}
		if err := member(key, start, s.i); err != nil {
			return err
		}
		s.ws()
		if s.i < len(s.data) && s.data[s.i] == '}' {
			s.i++
			return nil
		}
		s.expect(',')
	}
	return s.err
}

// skip reads one value (after white space) without keeping it.
func (s *scanner) skip() {
	if s.err != nil {
		return
	}
	if s.i >= len(s.data) {
		s.fail()
		return
	}
	c := s.data[s.i]
	if c == '{' || c == '[' {
		if s.nest++; s.nest > maxNesting {
			s.fail()
			return
		}
		defer func() { s.nest-- }()
	}
	switch {
	case c == '{':
		_ = s.object(func(string, int, int) error { return nil })
	case c == '[':
		s.i++
		s.ws()
		if s.i < len(s.data) && s.data[s.i] == ']' {
			s.i++
			return
		}
		for s.err == nil {
			s.ws()
			s.skip()
			s.ws()
			if s.i < len(s.data) && s.data[s.i] == ']' {
				s.i++
				return
			}
			s.expect(',')
		}
	case c == '"':
		s.str()
	default:
		s.literal()
	}
}

// literal reads a number, true, false or null (and Python's NaN and
// Infinity when s.python is set) and returns its text.
func (s *scanner) literal() []byte {
	start := s.i
	rest := s.data[s.i:]
	for _, word := range [...]string{"true", "false", "null", "NaN", "Infinity", "-Infinity"} {
		if len(rest) >= len(word) && string(rest[:len(word)]) == word {
			if word[0] != 't' && word[0] != 'f' && word[0] != 'n' && !s.python {
				break
			}
			s.i += len(word)
			if s.onPython != nil && (word[0] == 'N' || word[0] == 'I' || word[0] == '-') {
				s.onPython(start, s.i)
			}
			return s.data[start:s.i]
		}
	}
	if s.number() {
		return s.data[start:s.i]
	}
	s.fail()
	return nil
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) number() bool {
	d := s.data
	i := s.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	default:
		s.i = i
		return false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			s.i = i
			return false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			s.i = i
			return false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	s.i = i
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// str reads a string (at '"') and returns it unescaped. valid is false when
// its bytes are not valid UTF-8; a \u escape of a lone surrogate gives
// U+FFFD, as in encoding/json.
func (s *scanner) str() (text string, valid bool) {
	d := s.data
	start := s.i + 1
	i := start
	// Fast path: no escapes.
	for i < len(d) && d[i] != '"' && d[i] != '\\' && d[i] >= 0x20 {
		i++
	}
	if i < len(d) && d[i] == '"' {
		s.i = i + 1
		raw := d[start:i]
		return string(raw), utf8.Valid(raw)
	}
	var b strings.Builder
	b.Write(d[start:i])
	for {
		if i >= len(d) || d[i] < 0x20 {
			s.i = i
			s.fail()
			return "", false
		}
		c := d[i]
		if c == '"' {
			s.i = i + 1
			out := b.String()
			return out, utf8.ValidString(out)
		}
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(d) {
			s.i = len(d)
			s.fail()
			return "", false
		}
		switch d[i+1] {
		case '"', '\\', '/':
			b.WriteByte(d[i+1])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(d, i+2)
			if !ok {
				s.i = i
				s.fail()
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(d, i+2); ok && i+1 < len(d) && d[i] == '\\' && d[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						b.WriteRune(dec)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			b.WriteRune(r)
			continue
		default:
			s.i = i
			s.fail()
			return "", false
		}
		i += 2
	}
}

// hex4 reads four hex digits at d[i:].
func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// replaceInvalid replaces each byte of s that is not part of valid UTF-8
// with U+FFFD, as encoding/json does when it reads a string.
func replaceInvalid(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
