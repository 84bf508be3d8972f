// Package serverblock holds the types of the server block of a throughput
// record (receipt.Throughput.Server), with their JSON forms, below both
// receipt and serving: receipt names the block's type without importing
// serving (and with it the Prometheus parser), and serving computes it.
// Users name these types through their aliases in package serving
// ([github.com/typevet/typevet-go/serving.RunDelta] and the rest).
package serverblock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/typevet/typevet-go/internal/pyjson"
)

// Unknown is the JSON string typevet writes where a reading or a series is
// missing.
const Unknown = "unknown"

// Value is a number or the string "unknown", the type of every counter
// change, gauge reading and the prefix-cache hit rate.
//
// The zero Value is unknown. A known Value is always finite: JSON has no
// Infinity or NaN, so a computation whose result is not finite gives
// unknown (typevet's Python writer would emit the non-standard tokens
// Infinity or NaN instead). Known numbers are written the way Python's
// json module writes floats: 8.0, 0.75, 1e-05.
type Value struct {
	// Number is the value; meaningful only when Known is true.
	Number float64
	// Known is false for "unknown".
	Known bool
}

// Known returns the known Value f, or unknown when f is not finite.
func Known(f float64) Value {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Value{}
	}
	return Value{Number: f, Known: true}
}

// String returns "unknown" or the number as Python writes it.
func (v Value) String() string {
	if !v.Known {
		return Unknown
	}
	return pyjson.FormatFloat(v.Number)
}

// MarshalJSON writes the number or the JSON string "unknown". A known Value
// whose Number is not finite (built by hand, not by [Known]) is an error.
func (v Value) MarshalJSON() ([]byte, error) {
	if !v.Known {
		return []byte(`"unknown"`), nil
	}
	return pyFloat(v.Number).MarshalJSON()
}

// UnmarshalJSON reads a JSON number or the string "unknown"; anything else
// (null, another string, an object) is an error.
func (v *Value) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == `"unknown"` {
		*v = Value{}
		return nil
	}
	f, err := jsonNumber(b)
	if err != nil {
		return fmt.Errorf("serving: value must be a number or %q, got %s", Unknown, excerpt(b))
	}
	*v = Value{Number: f, Known: true}
	return nil
}

// UpperBound is a histogram percentile: the upper
// edge (le) of the first bucket that holds the quantile's rank. It is JSON
// null when unset (no request in the run, or no bucket qualifies), the
// string "+Inf" when the edge is +Inf, and a number otherwise.
type UpperBound struct {
	// Edge is the bucket's upper edge; math.Inf(1) for the +Inf bucket.
	// Meaningful only when Set is true.
	Edge float64
	// Set is false for null.
	Set bool
}

// MarshalJSON writes null, "+Inf" or the edge as Python writes floats. A set
// edge that is NaN or -Inf is an error (delta computations never set one).
func (u UpperBound) MarshalJSON() ([]byte, error) {
	switch {
	case !u.Set:
		return []byte("null"), nil
	case math.IsInf(u.Edge, 1):
		return []byte(`"+Inf"`), nil
	}
	return pyFloat(u.Edge).MarshalJSON()
}

// UnmarshalJSON reads null, the string "+Inf" or a number.
func (u *UpperBound) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch string(b) {
	case "null":
		*u = UpperBound{}
		return nil
	case `"+Inf"`:
		*u = UpperBound{Edge: math.Inf(1), Set: true}
		return nil
	}
	f, err := jsonNumber(b)
	if err != nil {
		return fmt.Errorf("serving: percentile must be null, \"+Inf\" or a number, got %s", excerpt(b))
	}
	*u = UpperBound{Edge: f, Set: true}
	return nil
}

// pyFloat is a float64 that marshals the way Python's json module writes a
// float (252.0, not 252).
type pyFloat float64

func (f pyFloat) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil, fmt.Errorf("serving: number %v is not finite and has no JSON form", x)
	}
	return []byte(pyjson.FormatFloat(x)), nil
}

// jsonNumber parses b as one JSON number.
func jsonNumber(b []byte) (float64, error) {
	var n json.Number
	if len(b) == 0 || b[0] == '"' {
		return 0, errors.New("not a number")
	}
	if err := json.Unmarshal(b, &n); err != nil {
		return 0, err
	}
	return n.Float64()
}

// excerpt returns at most 40 bytes of b for an error message.
func excerpt(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
