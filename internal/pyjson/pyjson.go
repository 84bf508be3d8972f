package pyjson

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
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
// value is json.dumps(v, ensure_ascii=False): insertion order, ", " and ": "
// separators, non-ASCII text raw. Python's plain json.dumps(v) is
// Options{EnsureASCII: true}.
type Options struct {
	// SortKeys is sort_keys=True: object keys in code-point order of the
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
	// RejectNonFinite is allow_nan=False: a NaN or infinite float, and the
	// NaN and Infinity tokens in MarshalJSON output, are an error instead
	// of Python's non-standard NaN, Infinity and -Infinity.
	RejectNonFinite bool
}

// Marshal writes v like Python's json.dumps with the given options.
//
// v may be any Go value that encoding/json can encode; it is written as
// Python would write the equivalent dict, list, str, int, float, bool or
// None:
//
//   - nil, a nil pointer and a nil interface are null; bool, string and
//     every integer kind are written as Python writes them.
//   - float64 is Python's float repr (252.0, 1e-07, 1e+16); NaN and ±Inf
//     are NaN, Infinity and -Infinity, as json.dumps writes them by
//     default (receipts never hold them). A float32 gets the shortest
//     digits that round-trip as a float32, in the same notation.
//   - [Object] keeps its insertion order (a nil Object is {}); a struct is
//     an object of its exported fields in field order, with encoding/json's
//     rules: the json tag names a field, "-" drops it, omitempty and
//     omitzero leave it out, ",string" writes a scalar as a JSON string,
//     and embedded structs lend their fields.
//   - A Go map has no order, so a map is always written with its keys
//     sorted, even without [Options.SortKeys]; keys are strings, integers
//     or encoding.TextMarshalers, as encoding/json allows. A nil map is
//     null.
//   - A slice or array is a list; a nil slice is null, as encoding/json
//     writes it (use an empty slice for []). []byte is a base64 string,
//     as in encoding/json.
//   - A json.Marshaler (json.RawMessage included) is called and its output
//     re-emitted token by token with these options: indentation,
//     separators and string escapes become Python's, keys are sorted under
//     SortKeys, and number literals are copied verbatim, so a MarshalJSON
//     that writes [FormatFloat] text keeps it. An encoding.TextMarshaler is
//     a string.
//
// Channels, functions and complex numbers are an error naming the Go type.
// A string or key that is not valid UTF-8 (which a Python str cannot
// hold), an object key given twice, and MarshalJSON output that is not
// JSON are errors too.
func Marshal(v any, opts Options) ([]byte, error) {
	e := encoder{opts: opts, buf: make([]byte, 0, 256)}
	e.value(v, 0)
	if e.err != nil {
		return nil, e.err
	}
	return e.buf, nil
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

// encoder appends to buf; after the first error every step is a no-op and
// Marshal returns that error (sticky error, as image/png's encoder).
type encoder struct {
	opts Options
	buf  []byte
	err  error
}

func (e *encoder) fail(format string, args ...any) {
	if e.err == nil {
		e.err = fmt.Errorf("pyjson: "+format, args...)
	}
}

func (e *encoder) value(v any, depth int) {
	if e.err != nil {
		return
	}
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, x)
	case string:
		e.str(x)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
	case uint64:
		e.buf = strconv.AppendUint(e.buf, x, 10)
	case float64:
		e.float(x, 64)
	case []string:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.array(len(x), depth, func(i int) { e.str(x[i]) })
	case []float64:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.array(len(x), depth, func(i int) { e.float(x[i], 64) })
	case []any:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.array(len(x), depth, func(i int) { e.value(x[i], depth+1) })
	case Object:
		e.object(x, depth)
	default:
		e.reflectValue(reflect.ValueOf(v), depth)
	}
}

// float writes Python's float repr, or Python's JSON names for non-finite values.
func (e *encoder) float(f float64, bitSize int) {
	if e.opts.RejectNonFinite && (math.IsNaN(f) || math.IsInf(f, 0)) {
		e.fail("out of range float value %v is not JSON compliant", f)
		return
	}
	switch {
	case math.IsNaN(f):
		e.buf = append(e.buf, "NaN"...)
	case math.IsInf(f, 1):
		e.buf = append(e.buf, "Infinity"...)
	case math.IsInf(f, -1):
		e.buf = append(e.buf, "-Infinity"...)
	default:
		e.buf = appendFloat(e.buf, f, bitSize)
	}
}

// newline starts a line at the given depth when Indent is set.
func (e *encoder) newline(depth int) {
	e.buf = append(e.buf, '\n')
	for range depth * e.opts.Indent {
		e.buf = append(e.buf, ' ')
	}
}

func (e *encoder) itemSep(depth int) {
	switch {
	case e.opts.Indent > 0:
		e.buf = append(e.buf, ',')
		e.newline(depth)
	case e.opts.Compact:
		e.buf = append(e.buf, ',')
	default:
		e.buf = append(e.buf, ", "...)
	}
}

func (e *encoder) array(n, depth int, item func(i int)) {
	if n == 0 {
		e.buf = append(e.buf, "[]"...)
		return
	}
	e.buf = append(e.buf, '[')
	if e.opts.Indent > 0 {
		e.newline(depth + 1)
	}
	for i := range n {
		if i > 0 {
			e.itemSep(depth + 1)
		}
		item(i)
	}
	if e.opts.Indent > 0 {
		e.newline(depth)
	}
	e.buf = append(e.buf, ']')
}

func (e *encoder) object(obj Object, depth int) {
	if e.opts.SortKeys {
		obj = append(Object(nil), obj...)
		e.sorted(obj, depth)
		return
	}
	e.members(obj, depth, false)
}

// sorted sorts obj in place by key (byte order of UTF-8 = code-point order)
// and writes it.
func (e *encoder) sorted(obj Object, depth int) {
	slices.SortStableFunc(obj, func(a, b Member) int { return strings.Compare(a.Key, b.Key) })
	e.members(obj, depth, true)
}

// members writes obj in its order; sorted says it is sorted by key.
func (e *encoder) members(obj Object, depth int, sorted bool) {
	if e.err != nil {
		return
	}
	if k, dup := repeatedKey(obj, sorted); dup {
		e.fail("object key %q given twice", k)
		return
	}
	sep := ": "
	if e.opts.Compact {
		sep = ":"
	}
	e.buf = append(e.buf, '{')
	if len(obj) == 0 {
		e.buf = append(e.buf, '}')
		return
	}
	if e.opts.Indent > 0 {
		e.newline(depth + 1)
	}
	for i, m := range obj {
		if i > 0 {
			e.itemSep(depth + 1)
		}
		e.str(m.Key)
		e.buf = append(e.buf, sep...)
		e.value(m.Value, depth+1)
	}
	if e.opts.Indent > 0 {
		e.newline(depth)
	}
	e.buf = append(e.buf, '}')
}

// repeatedKey returns a key that obj holds twice.
func repeatedKey(obj Object, sorted bool) (string, bool) {
	return repeatedKeyFunc(len(obj), sorted, func(i int) string { return obj[i].Key })
}

// repeatedKeyFunc returns a key that the n keys key(0)…key(n-1) hold twice.
// Sorted keys only need neighbours compared; a few keys are compared
// pairwise, without a map.
func repeatedKeyFunc(n int, sorted bool, key func(i int) string) (string, bool) {
	switch {
	case sorted:
		for i := 1; i < n; i++ {
			if k := key(i); k == key(i-1) {
				return k, true
			}
		}
	case n <= 16:
		for i := 1; i < n; i++ {
			k := key(i)
			for j := range i {
				if k == key(j) {
					return k, true
				}
			}
		}
	default:
		seen := make(map[string]struct{}, n)
		for i := range n {
			k := key(i)
			if _, dup := seen[k]; dup {
				return k, true
			}
			seen[k] = struct{}{}
		}
	}
	return "", false
}

const hexDigits = "0123456789abcdef"

func (e *encoder) str(s string) {
	if e.err != nil {
		return
	}
	if !utf8.ValidString(s) {
		// The text itself stays out of the message: it may be a prompt.
		e.fail("a string is not valid UTF-8")
		return
	}
	e.buf = appendString(e.buf, s, e.opts.EnsureASCII)
}

// appendString writes s (valid UTF-8) as a quoted JSON string with Python's
// escapes.
func appendString(buf []byte, s string, ascii bool) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			i++
			continue
		}
		if c >= 0x80 && !ascii {
			i++ // continuation of raw UTF-8
			continue
		}
		if c == 0x7f && !ascii {
			i++
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"':
			buf = append(buf, '\\', '"')
			i++
		case '\\':
			buf = append(buf, '\\', '\\')
			i++
		case '\n':
			buf = append(buf, '\\', 'n')
			i++
		case '\r':
			buf = append(buf, '\\', 'r')
			i++
		case '\t':
			buf = append(buf, '\\', 't')
			i++
		case '\b':
			buf = append(buf, '\\', 'b')
			i++
		case '\f':
			buf = append(buf, '\\', 'f')
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			if r > 0xffff {
				r -= 0x10000
				buf = appendU(buf, 0xd800+(r>>10))
				buf = appendU(buf, 0xdc00+(r&0x3ff))
			} else {
				buf = appendU(buf, r)
			}
		}
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

func appendU(buf []byte, r rune) []byte {
	return append(buf, '\\', 'u',
		hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}
