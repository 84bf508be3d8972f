package llamacpp

import (
	"encoding/binary"
	"math"
	"strconv"
)

// numKind is what scanNumber learnt of a number's value.
type numKind int

const (
	numExact numKind = iota // nothing: parse it
	numNear                 // v is within nearRelErr of it, relative
	numFar                  // v is k: it lies in [−(k+1)/10, −k/10] (farExp)
)

// scanNumber checks a JSON number at b[i:] and returns the index after it
// (-1 for a literal, or a number not followed by a byte in b) and what it
// learnt of its value: for a logprob below −farLogprob its tenth
// (scanFar); otherwise, mostly, an approximation from its first 15
// significant digits, scaled by one or two exact powers of ten.
func scanNumber(b []byte, i int) (end int, v float64, kind numKind) {
	neg := i < len(b) && b[i] == '-'
	if neg {
		if end, k, ok := scanFar(b, i+1); ok {
			return end, float64(k), numFar
		}
		i++
	}
	i, m, e10 := scanMantissa(b, i)
	if i >= 0 && i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		var x int
		i, x = scanExponent(b, i+1)
		e10 += x
	}
	if i < 0 || i >= len(b) {
		return -1, 0, numExact
	}
	v, kind = scaled(m, e10)
	if neg {
		v = -v
	}
	return i, v, kind
}

// scanMantissa reads the integer and fraction parts of a JSON number at
// b[i:] and returns the index after them (-1 if they are not JSON) and
// their first 15 significant digits as m·10^e10.
func scanMantissa(b []byte, i int) (end int, m uint64, e10 int) {
	nd := 0 // significant digits in m
	switch {
	case i >= len(b):
		return -1, 0, 0
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			if nd < 15 {
				m, nd = m*10+uint64(b[i]-'0'), nd+1
			} else {
				e10++
			}
		}
	default:
		return -1, 0, 0
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			switch {
			case m == 0 && b[i] == '0':
				e10--
			case nd < 15:
				m, nd, e10 = m*10+uint64(b[i]-'0'), nd+1, e10-1
			}
		}
		if i == j {
			return -1, 0, 0
		}
	}
	return i, m, e10
}

// scanExponent reads the exponent of a JSON number after its 'e' at b[i:]
// and returns the index after it (-1 if it is not JSON) and its value,
// clamped to about ±10000.
func scanExponent(b []byte, i int) (end, x int) {
	neg := i < len(b) && b[i] == '-'
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	j := i
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		if x < 10000 {
			x = x*10 + int(b[i]-'0')
		}
	}
	if i == j {
		return -1, 0
	}
	if neg {
		x = -x
	}
	return i, x
}

// scaled returns m·10^e10 by one or two exact powers of ten, numNear; or
// numExact when that takes more.
func scaled(m uint64, e10 int) (float64, numKind) {
	v := float64(m)
	switch {
	case m == 0:
	case e10 >= 0 && e10 <= 22:
		v *= pow10[e10]
	case e10 < 0 && e10 >= -22:
		v /= pow10[-e10]
	case e10 < -22 && e10 >= -44:
		v = v / 1e22 / pow10[-e10-22]
	default:
		return v, numExact
	}
	return v, numNear
}

// farLogprob is the logprob below which an entry's share of the mass is
// bounded from a table (farExp) instead of computed: e^-16 ≈ 1.1e-7, so a
// full vocabulary of such entries holds at most 0.03 of the mass, and the
// table's tenths bound it to within 10% of that.
const farLogprob = 16

// scanFar reads a number −I.F… at b[i:] (the '-' consumed) with an
// integer part I of at least farLogprob and no exponent, and returns the
// index after it and 10·I + the first digit of F, at most farMax.
// Anything else: ok false.
func scanFar(b []byte, i int) (end int, k int, ok bool) {
	if i >= len(b) || b[i] < '1' || b[i] > '9' {
		return 0, 0, false
	}
	n := 0
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		if n < farMax {
			n = n*10 + int(b[i]-'0')
		}
	}
	if n < farLogprob {
		return 0, 0, false
	}
	tenth := 0
	if i < len(b) && b[i] == '.' {
		j := i + 1
		if j < len(b) && '0' <= b[j] && b[j] <= '9' {
			tenth = int(b[j] - '0')
		}
		i = longDigitsEnd(b, j)
		if i == j {
			return 0, 0, false
		}
	}
	if i >= len(b) || b[i] == 'e' || b[i] == 'E' {
		return 0, 0, false
	}
	return i, min(10*n+tenth, farMax), true
}

// farMax is the last tenth farMid holds (e^-745 is about the smallest
// float64); past it the bounds are [0, e^-745].
const farMax = 7450

// farMid[k] and farHalf[k] are the middle and half the width of an
// interval holding e^v for every v in [−(k+1)/10, −k/10], widened by
// 1e-12 each way for the roundings of its computation and of k.
var farMid, farHalf = func() (mid, half [farMax + 1]float64) {
	for k := range farMax + 1 {
		hi := math.Exp(-float64(k)/10) * (1 + 1e-12)
		lo := math.Exp(-float64(k+1)/10) * (1 - 1e-12)
		if k == farMax {
			lo = 0
		}
		mid[k], half[k] = (hi+lo)/2, (hi-lo)/2
	}
	return mid, half
}()

// pow10 holds the powers of ten a float64 holds exactly.
var pow10 = [23]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// longDigitsEnd is digitsEnd for long runs (a logprob's 15 or so
// fraction digits): eight bytes at a time while all eight are digits (a
// byte is one when its high nibble is 3 and adding 6 keeps it there).
func longDigitsEnd(b []byte, i int) int {
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		if x&0xF0F0F0F0F0F0F0F0|(x+0x0606060606060606)&0xF0F0F0F0F0F0F0F0>>4 != 0x3333333333333333 {
			break
		}
		i += 8
	}
	return digitsEnd(b, i)
}

// digitsEnd returns the index after the decimal digits at b[i:].
func digitsEnd(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// atoi parses a JSON integer as strconv.Atoi does.
func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 18 {
		n, err := strconv.Atoi(string(b))
		return n, err == nil
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// parseLogprob parses a number or one of Python's literals; a value out of
// float64 range is ±Inf or 0, as Python reads it.
func parseLogprob(b []byte) (float64, bool) {
	switch string(b) {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		err = nil
	}
	return f, err == nil
}

// nearRelErr bounds the relative error of scanNumber's approximation:
// 1e-14 from dropping digits after the fifteenth, three roundings of
// 2^-53 each from the conversion and the scaling.
const nearRelErr = 1.1e-14
