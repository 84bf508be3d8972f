package pyjson

import (
	"math"
	"strconv"
)

// FormatFloat returns Python's repr of a float64: the shortest digits that
// round-trip, in fixed notation when the decimal exponent is between -4 and
// 15 (with ".0" added to integral values: "5.0", "0.0001", "1e-05",
// "1000000000000000.0", "1e+16"), otherwise in scientific notation with a
// signed exponent of at least two digits ("1e-07", "2.5e-10",
// "1.2345678901234568e+17"). Non-finite values are "inf", "-inf" and "nan",
// as repr writes them; [Marshal] writes Infinity, -Infinity and NaN instead,
// as json.dumps does.
func FormatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	var b [32]byte
	return string(appendFloat(b[:0], f, 64))
}

// appendFloat appends the repr of a finite f with the shortest digits that
// round-trip at bitSize (64, or 32 for a float32 value).
func appendFloat(buf []byte, f float64, bitSize int) []byte {
	// Shortest round-trip digits in the form [-]d[.ddd]e±XX.
	var tmp [32]byte
	sci := strconv.AppendFloat(tmp[:0], f, 'e', -1, bitSize)
	neg := sci[0] == '-'
	if neg {
		sci = sci[1:]
	}
	ePos := len(sci) - 1
	for sci[ePos] != 'e' {
		ePos--
	}
	exp := 0
	for _, c := range sci[ePos+2:] { // skip 'e' and the sign
		exp = exp*10 + int(c-'0')
	}
	if sci[ePos+1] == '-' {
		exp = -exp
	}
	var digits [24]byte
	nd := 0
	for _, c := range sci[:ePos] {
		if c != '.' {
			digits[nd] = c
			nd++
		}
	}
	if neg {
		buf = append(buf, '-')
	}
	if exp < -4 || exp >= 16 {
		buf = append(buf, digits[0])
		if nd > 1 {
			buf = append(buf, '.')
			buf = append(buf, digits[1:nd]...)
		}
		buf = append(buf, 'e')
		if exp < 0 {
			buf = append(buf, '-')
			exp = -exp
		} else {
			buf = append(buf, '+')
		}
		if exp < 10 {
			buf = append(buf, '0')
		}
		return strconv.AppendInt(buf, int64(exp), 10)
	}
	if exp < 0 {
		buf = append(buf, '0', '.')
		for range -exp - 1 {
			buf = append(buf, '0')
		}
		return append(buf, digits[:nd]...)
	}
	// exp in [0, 15]: exp+1 digits before the point.
	intDigits := exp + 1
	if nd <= intDigits {
		buf = append(buf, digits[:nd]...)
		for range intDigits - nd {
			buf = append(buf, '0')
		}
		return append(buf, '.', '0')
	}
	buf = append(buf, digits[:intDigits]...)
	buf = append(buf, '.')
	return append(buf, digits[intDigits:nd]...)
}
