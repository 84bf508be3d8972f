package backendhttp

import (
	"errors"
	"math"
	"strconv"

	"github.com/typevet/typevet-go/internal/pyjson"
)

// Python's json module reads the non-standard literals NaN, Infinity and
// -Infinity, so a server may send them and typevet then reports a
// non-finite logprob as a ScoringValidationError, not as a non-JSON body.
// [PythonLiterals] rewrites them into marked strings that [Number] decodes,
// so the Go backends classify such a body the same way.

// PythonLiterals returns body with every NaN, Infinity and -Infinity token
// outside a string replaced by a marked JSON string, and whether it found
// any. The tokens are found by pyjson's scanner ([pyjson.PythonLiterals]),
// so a body that is not JSON even with them is returned as it is (false). The marked strings start with a NUL byte, which keeps them apart
// from any string a server would send. Backends call it only after
// encoding/json refused a body.
func PythonLiterals(body []byte) ([]byte, bool) {
	spans, err := pyjson.PythonLiterals(body)
	if err != nil || len(spans) == 0 {
		return body, false
	}
	var out []byte
	last := 0
	for _, sp := range spans {
		out = append(out, body[last:sp[0]]...)
		out = append(out, `"\u0000py:`...)
		out = append(out, body[sp[0]:sp[1]]...)
		out = append(out, '"')
		last = sp[1]
	}
	return append(out, body[last:]...), true
}

// Number is a JSON number that also accepts the Python literals rewritten
// by [PythonLiterals]. Strings, booleans and null are refused.
type Number float64

// errNotNumber is returned for any JSON value that is not a number.
var errNotNumber = errors.New("not a JSON number")

// UnmarshalJSON decodes a JSON number or a marked Python literal.
func (n *Number) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		switch string(data) {
		case `"\u0000py:NaN"`:
			*n = Number(math.NaN())
		case `"\u0000py:Infinity"`:
			*n = Number(math.Inf(1))
		case `"\u0000py:-Infinity"`:
			*n = Number(math.Inf(-1))
		default:
			return errNotNumber
		}
		return nil
	}
	if len(data) == 0 || !(data[0] == '-' || ('0' <= data[0] && data[0] <= '9')) {
		return errNotNumber
	}
	f, err := strconv.ParseFloat(string(data), 64)
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		err = nil // -1e400 is valid JSON that Python reads as -inf
	}
	if err != nil {
		return errNotNumber
	}
	*n = Number(f)
	return nil
}

// Count decodes a token count the way typevet reads usage fields:
// a JSON integer that is not negative, else nil (unknown). Floats
// such as 5.0, booleans, strings and null give nil.
func Count(raw []byte) *int {
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 0 {
		return nil
	}
	return &n
}

// NumberField is a required [Number] field: Valid records that the field
// was present, without the allocation of a pointer field (a full-vocabulary
// answer has 262144 of them).
type NumberField struct {
	// Value is the number when Valid.
	Value float64
	// Valid reports that the field was present and a number.
	Valid bool
}

// UnmarshalJSON decodes a [Number].
func (f *NumberField) UnmarshalJSON(data []byte) error {
	var n Number
	if err := n.UnmarshalJSON(data); err != nil {
		return err
	}
	f.Value, f.Valid = float64(n), true
	return nil
}

// IntField is a required JSON integer field (a token id): Valid records
// that it was present. Floats, strings, booleans and null are refused.
type IntField struct {
	// Value is the integer when Valid.
	Value int
	// Valid reports that the field was present and an integer.
	Valid bool
}

// UnmarshalJSON decodes a JSON integer.
func (f *IntField) UnmarshalJSON(data []byte) error {
	n, err := strconv.Atoi(string(data))
	if err != nil {
		return errNotNumber
	}
	f.Value, f.Valid = n, true
	return nil
}
