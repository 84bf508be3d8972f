package serving

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/typevet/typevet-go/internal/serverblock"
)

// Unknown is the JSON string typevet writes where a reading or a series is
// missing.
const Unknown = serverblock.Unknown

// Value is a number or the string "unknown", the type of every counter
// change, gauge reading and the prefix-cache hit rate.
//
// The zero Value is unknown. A known Value is always finite: JSON has no
// Infinity or NaN, so a computation whose result is not finite gives
// unknown (typevet's Python writer would emit the non-standard tokens
// Infinity or NaN instead). Known numbers are written the way Python's
// json module writes floats: 8.0, 0.75, 1e-05. Its fields are Number and
// Known; it has String, MarshalJSON and UnmarshalJSON.
type Value = serverblock.Value

// Known returns the known Value f, or unknown when f is not finite.
func Known(f float64) Value { return serverblock.Known(f) }

// UpperBound is a histogram percentile: the upper edge (le) of the first
// bucket that holds the quantile's rank (Edge; +Inf for the +Inf bucket),
// and whether it is set (Set). It is JSON null when unset (no request in
// the run, or no bucket qualifies), the string "+Inf" when the edge is
// +Inf, and a number otherwise.
type UpperBound = serverblock.UpperBound

// marshalNoHTMLEscape is json.Marshal without escaping <, > and &: the
// encoder that writes the receipt decides that, as it does for every value
// whose MarshalJSON it calls.
func marshalNoHTMLEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// parsePyFloat parses s with Python float() rules, as typevet reads sample
// values: decimal and exponent forms with an optional sign, inf, infinity
// and nan in any letter case, and "_" between two digits. Python also
// accepts non-ASCII decimal digits and surrounding whitespace; we do not
// (no exposition text has them). An out-of-range magnitude gives ±Inf, as in
// Python.
func parsePyFloat(s string) (float64, bool) {
	if s == "" || strings.ContainsAny(s, "xXpP") {
		return 0, false // Go would read hex floats; Python does not.
	}
	if strings.IndexByte(s, '_') >= 0 {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == '_' {
				if i == 0 || i == len(s)-1 || !isDigit(s[i-1]) || !isDigit(s[i+1]) {
					return 0, false
				}
				continue
			}
			b.WriteByte(s[i])
		}
		s = b.String()
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
