package pyjson

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Object is a JSON object that keeps insertion order, like a Python dict.
// [Options.SortKeys] sorts it anyway. A key may appear only once.
type Object []Member

// Member is one key and value of an [Object].
type Member struct {
	// Key is the object key, written as a JSON string.
	Key string
	// Value is any value [Marshal] supports.
	Value any
}

// Options mirror the json.dumps keyword arguments that typevet uses. The zero
// value is json.dumps(v, ensure_ascii=False, allow_nan=False): insertion
// order, ", " and ": " separators, non-ASCII text raw. Python's plain
// json.dumps(v) of a value without NaN or infinities is
// Options{EnsureASCII: true}.
type Options struct {
	// SortKeys is sort_keys=True: the members of every object, struct
	// fields and MarshalJSON output included, in code-point order of the
	// unescaped key (equal to the byte order of their UTF-8).
	SortKeys bool
	// EnsureASCII is ensure_ascii=True: every character outside U+0020–U+007E
	// other than the short escapes is written as \uXXXX (lowercase hex), a
	// character above U+FFFF as a surrogate pair, so DEL is \u007f. False is
	// ensure_ascii=False: only ", \ and U+0000–U+001F are escaped and
	// everything else, including <, >, &, DEL and U+2028, is raw UTF-8.
	EnsureASCII bool
	// Compact is separators=(",", ":"). False is Python's default: ", " and
	// ": " on one line, or "," and ": " when Indent is set.
	Compact bool
	// Indent is indent=N for N > 0: one item per line, N spaces per level,
	// empty arrays and objects written as [] and {}. 0 is indent=None (one
	// line); Python's indent=0 (newlines without indentation) is not offered.
	Indent int
}

// Marshal writes v like Python's json.dumps with the given options.
//
// v may be any Go value that encoding/json can encode, and it is encoded
// by encoding/json's rules (github.com/go-json-experiment/json with its v1
// options): struct tags, omitempty and omitzero, embedded structs, nil
// slices and maps as null, []byte as base64, MarshalJSON and MarshalText
// methods. What Python writes differently is Python's:
//
//   - float64 is Python's float repr (252.0, 1e-07, 1e+16); a float32
//     gets the shortest digits that round-trip as a float32, in the same
//     notation; so do named float types without a marshaling method. A
//     float field tagged ",string" keeps this number form. NaN and ±Inf
//     are an error, as with allow_nan=False: Python's NaN and Infinity are
//     not JSON, and typevet writes none.
//   - [Object] keeps its insertion order (a nil Object is {}).
//   - A Go map has no order, so a map is always written with its keys
//     sorted, even without [Options.SortKeys].
//   - MarshalJSON output is re-emitted with these options: indentation,
//     separators and string escapes become Python's, keys are sorted under
//     SortKeys, and number literals are copied verbatim, so a MarshalJSON
//     that writes [FormatFloat] text keeps it.
//   - < > & and U+2028/U+2029 are not escaped (Python does not).
//
// A string or key that is not valid UTF-8 (which a Python str cannot
// hold), an object key given twice, MarshalJSON output that is not JSON,
// channels, functions and complex numbers are errors.
func Marshal(v any, opts Options) ([]byte, error) {
	b, err := json.Marshal(v, opts.jsonOptions())
	if err == nil && opts.SortKeys {
		b, err = sortKeys(b, opts)
	}
	if rk := (*repeatedKeyError)(nil); errors.As(err, &rk) {
		return nil, rk
	}
	if err != nil {
		return nil, fmt.Errorf("pyjson: %w", err)
	}
	if opts.EnsureASCII {
		b = escapeNonASCII(b)
	}
	return b, nil
}

// Canonical is json.dumps(v, sort_keys=True): ", " and ": " separators and
// ASCII-only output. typevet hashes it for identity and prompt digests.
func Canonical(v any) ([]byte, error) {
	return Marshal(v, Options{SortKeys: true, EnsureASCII: true})
}

// Compact is json.dumps(v, sort_keys=True, separators=(",", ":")): no
// whitespace and ASCII-only output. typevet hashes it for the wording
// mapping digest.
func Compact(v any) ([]byte, error) {
	return Marshal(v, Options{SortKeys: true, EnsureASCII: true, Compact: true})
}

// Raw is json.dumps(v, sort_keys=True, ensure_ascii=False): ", " and ": "
// separators with non-ASCII text written as UTF-8. gepa-adk hashes it for
// Candidate.id.
func Raw(v any) ([]byte, error) {
	return Marshal(v, Options{SortKeys: true})
}

// pythonValues writes Object in its order and floats (named float types
// without a marshaling method included) as Python's repr.
var pythonValues = json.JoinMarshalers(
	json.MarshalToFunc(func(enc *jsontext.Encoder, f float64) error { return writeFloat(enc, f, 64) }),
	json.MarshalToFunc(func(enc *jsontext.Encoder, obj Object) error {
		if k, dup := repeatedKey(obj); dup {
			return &repeatedKeyError{k}
		}
		if err := enc.WriteToken(jsontext.BeginObject); err != nil {
			return err
		}
		for _, m := range obj {
			if err := enc.WriteToken(jsontext.String(m.Key)); err != nil {
				return err
			}
			if err := json.MarshalEncode(enc, m.Value); err != nil {
				return err
			}
		}
		return enc.WriteToken(jsontext.EndObject)
	}),
	json.MarshalToFunc(func(enc *jsontext.Encoder, v any) error {
		// json/v2 passes a pointer to each value.
		ptr := reflect.ValueOf(v)
		if ptr.Kind() != reflect.Pointer {
			return json.SkipFunc
		}
		rv := ptr.Elem()
		switch k := rv.Kind(); {
		case k != reflect.Float32 && k != reflect.Float64,
			ptr.Type().Implements(marshalerType), ptr.Type().Implements(textMarshalerType):
			return json.SkipFunc
		case k == reflect.Float32:
			return writeFloat(enc, rv.Float(), 32)
		default:
			return writeFloat(enc, rv.Float(), 64)
		}
	}),
)

var (
	marshalerType     = reflect.TypeFor[interface{ MarshalJSON() ([]byte, error) }]()
	textMarshalerType = reflect.TypeFor[interface{ MarshalText() ([]byte, error) }]()
)

// repeatedKeyError is an [Object] holding a key twice, which a Python dict
// cannot; jsontext would refuse it too, but without naming the key.
type repeatedKeyError struct{ key string }

func (e *repeatedKeyError) Error() string {
	return fmt.Sprintf("pyjson: object key %q given twice", e.key)
}

// repeatedKey returns a key that obj holds twice; a few keys are compared
// pairwise, without a map.
func repeatedKey(obj Object) (string, bool) {
	if len(obj) > 16 {
		seen := make(map[string]bool, len(obj))
		for _, m := range obj {
			if seen[m.Key] {
				return m.Key, true
			}
			seen[m.Key] = true
		}
		return "", false
	}
	for i := 1; i < len(obj); i++ {
		for j := range i {
			if obj[i].Key == obj[j].Key {
				return obj[i].Key, true
			}
		}
	}
	return "", false
}

func writeFloat(enc *jsontext.Encoder, f float64, bitSize int) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("out of range float value %v is not JSON compliant", f)
	}
	var b [32]byte
	return enc.WriteValue(appendFloat(b[:0], f, bitSize))
}

// jsonOptions are encoding/json's rules with Python's escapes and spacing.
func (o Options) jsonOptions() json.Options {
	return json.JoinOptions(
		jsonv1.DefaultOptionsV1(),
		jsontext.EscapeForHTML(false),
		jsontext.EscapeForJS(false),
		jsontext.AllowInvalidUTF8(false),
		jsontext.AllowDuplicateNames(false),
		jsontext.PreserveRawStrings(false),
		jsonv1.ReportErrorsWithLegacySemantics(false), // errors name the key path
		o.spacing(),
		json.WithMarshalers(pythonValues),
	)
}

// spacing is Python's separators and indent.
func (o Options) spacing() jsontext.Options {
	if o.Indent > 0 {
		return json.JoinOptions(jsontext.WithIndent(strings.Repeat(" ", o.Indent)),
			jsontext.SpaceAfterColon(!o.Compact))
	}
	return json.JoinOptions(jsontext.SpaceAfterComma(!o.Compact), jsontext.SpaceAfterColon(!o.Compact))
}

// sortKeys rewrites the JSON text b with the members of every object in
// code-point order of their keys, which is Python's sort_keys order
// (jsontext's own reordering follows RFC 8785's UTF-16 order instead).
func sortKeys(b []byte, opts Options) ([]byte, error) {
	var out bytes.Buffer
	enc := jsontext.NewEncoder(&out, opts.spacing())
	if err := copySorted(enc, jsontext.NewDecoder(bytes.NewReader(b))); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

func copySorted(enc *jsontext.Encoder, dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '[':
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if err := enc.WriteToken(tok); err != nil {
			return err
		}
		for dec.PeekKind() != ']' {
			if err := copySorted(enc, dec); err != nil {
				return err
			}
		}
	case '{':
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if err := enc.WriteToken(tok); err != nil {
			return err
		}
		type member struct {
			key   string
			value jsontext.Value
		}
		var members []member
		for dec.PeekKind() != '}' {
			k, err := dec.ReadToken()
			if err != nil {
				return err
			}
			key := k.String()
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			members = append(members, member{key, v.Clone()})
		}
		slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
		for _, m := range members {
			if err := enc.WriteToken(jsontext.String(m.key)); err != nil {
				return err
			}
			if err := copySorted(enc, jsontext.NewDecoder(bytes.NewReader(m.value))); err != nil {
				return err
			}
		}
	default:
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		return enc.WriteValue(v)
	}
	tok, err := dec.ReadToken() // the closing ] or }
	if err != nil {
		return err
	}
	return enc.WriteToken(tok)
}

// escapeNonASCII is ensure_ascii=True over valid JSON text: each character
// outside U+0000–U+007E, which can only occur inside a string, becomes
// \uXXXX in lowercase hex, a surrogate pair above U+FFFF.
func escapeNonASCII(b []byte) []byte {
	i := slices.IndexFunc(b, func(c byte) bool { return c >= 0x7f })
	if i < 0 {
		return b
	}
	out := append(make([]byte, 0, len(b)+len(b)/8), b[:i]...)
	for i < len(b) {
		if b[i] < 0x7f {
			out = append(out, b[i])
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		if r > 0xffff {
			r -= 0x10000
			out = appendU(out, 0xd800+(r>>10))
			r = 0xdc00 + (r & 0x3ff)
		}
		out = appendU(out, r)
	}
	return out
}

func appendU(buf []byte, r rune) []byte {
	const hexDigits = "0123456789abcdef"
	return append(buf, '\\', 'u',
		hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}
