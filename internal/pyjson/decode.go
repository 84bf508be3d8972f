package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
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
	// Nested values are the caller's: only this object's keys are checked.
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if dec.PeekKind() != '{' {
		if _, err := dec.ReadValue(); err != nil {
			return syntaxError(err, len(data))
		}
		if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
			return &SyntaxError{Offset: len(data) - len(rest)}
		}
		return ErrNotObject
	}
	if _, err := dec.ReadToken(); err != nil {
		return syntaxError(err, len(data))
	}
	var keys []string
	var seen map[string]bool // used once there are many keys
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return syntaxError(err, len(data))
		}
		key := tok.String()
		switch {
		case seen != nil && seen[key], seen == nil && slices.Contains(keys, key):
			return &RepeatedKeyError{Key: key}
		case seen != nil:
			seen[key] = true
		case len(keys) == 16:
			seen = make(map[string]bool, 32)
			for _, k := range keys {
				seen[k] = true
			}
			seen[key] = true
		default:
			keys = append(keys, key)
		}
		v, err := dec.ReadValue()
		if err != nil {
			return syntaxError(err, len(data))
		}
		end := int(dec.InputOffset())
		start := end - len(v)
		if err := each(key, json.RawMessage(data[start:end:end])); err != nil {
			return err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return syntaxError(err, len(data))
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return ErrTrailingData
	}
	return nil
}

// syntaxError is the *SyntaxError for jsontext's err over n bytes of input.
func syntaxError(err error, n int) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
		return &SyntaxError{Offset: n, EOF: true}
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return &SyntaxError{Offset: int(se.ByteOffset)}
	}
	return fmt.Errorf("pyjson: %w", err)
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
	var std []byte // data with each literal blanked to a 0 of its length
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		case c == '"':
			inString = true
			continue
		case c != 'N' && c != 'I' && c != '-':
			continue
		}
		// A literal starts a value: after white space, [ , or :.
		if i > 0 && !bytes.ContainsRune([]byte(" \t\r\n[,:"), rune(data[i-1])) {
			continue
		}
		for _, word := range [...]string{"NaN", "Infinity", "-Infinity"} {
			if bytes.HasPrefix(data[i:], []byte(word)) {
				if std == nil {
					std = bytes.Clone(data)
				}
				std[i] = '0'
				for j := i + 1; j < i+len(word); j++ {
					std[j] = ' ' // a glued character stays glued to a value: invalid
				}
				spans = append(spans, [2]int{i, i + len(word)})
				i += len(word) - 1
				break
			}
		}
	}
	if std == nil {
		std = data
	}
	dec := jsontext.NewDecoder(bytes.NewReader(std), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if _, err := dec.ReadValue(); err != nil {
		return nil, syntaxError(err, len(data))
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, &SyntaxError{Offset: int(dec.InputOffset())}
	}
	return spans, nil
}
