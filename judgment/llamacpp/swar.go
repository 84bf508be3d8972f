package llamacpp

import (
	"encoding/binary"
	"math/bits"
)

// Eight-bytes-at-a-time scanning for llamaRun. Each mask function takes
// eight bytes of the body as a little-endian word (the first byte lowest)
// and returns a word with the high bit of each byte set where the byte is
// of its class and every other bit clear. These masks are exact: no carry
// or borrow crosses from one byte into the next (swarInts uses cheaper,
// inexact ones where it is safe).

const (
	ones8  = 0x0101010101010101
	highs8 = 0x8080808080808080
	lows8  = 0x7f7f7f7f7f7f7f7f
)

// load8 returns b[i:i+8] as a little-endian word; i+8 <= len(b).
func load8(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

// zeroBytes marks the bytes of x that are 0.
func zeroBytes(x uint64) uint64 { return ^((x&lows8 + lows8) | x | lows8) }

// equalBytes marks the bytes of x that are c.
func equalBytes(x uint64, c byte) uint64 { return zeroBytes(x ^ ones8*uint64(c)) }

// nonDigits marks the bytes of x that are not '0'..'9'.
func nonDigits(x uint64) uint64 {
	y := x ^ ones8*'0' // a digit's value; other bytes 10 or more
	return ((y | highs8) - ones8*10 | y) & highs8
}

// stringStops marks the bytes of x a string cannot hold as they are: a
// quote, a backslash or a control byte.
func stringStops(x uint64) uint64 {
	controls := ^((x | highs8) - ones8*0x20 | x) & highs8
	return equalBytes(x, '"') | equalBytes(x, '\\') | controls
}

// firstByte is the index of the first byte a non-zero mask marks.
func firstByte(m uint64) int { return bits.TrailingZeros64(m) >> 3 }

// digitsValue returns the value of the n decimal digits (1 <= n <= 7)
// that begin x.
func digitsValue(x uint64, n int) int {
	// Shift the digits to the top: the bytes below become leading zeros.
	// Only bytes past the digits borrow from the subtraction, and they are
	// shifted out.
	v := (x - ones8*'0') << (64 - 8*n)
	v = (v & 0x0f0f0f0f0f0f0f0f) * (10<<8 + 1) >> 8
	v = (v & 0x00ff00ff00ff00ff) * (100<<16 + 1) >> 16
	v = (v & 0x0000ffff0000ffff) * (10000<<32 + 1) >> 32
	return int(v)
}

// swarString is plainString eight bytes at a time: b[i-1] is a string's
// opening quote; it returns the index after its closing quote, or -1.
func swarString(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := stringStops(load8(b, i)); m != 0 {
			if i += firstByte(m); b[i] == '"' {
				return i + 1
			}
			return plainString(b, i)
		}
	}
	return plainString(b, i)
}

// swarInts is plainInts sixteen bytes at a time: b[i-1] is the '[' of a
// list of plain non-negative integers; it returns the index after its
// ']', or -1 for anything else, as plainInts does.
//
// Each block of sixteen bytes is classed without regard to where the list
// ends, and only the faults up to its end (its first other byte included:
// a comma before it) count: each depends only on a byte and the ones next
// to it. The comma and zero classes are the cheap, inexact ones (a byte
// 0x01 above a marked byte of its word is marked too): a '-' above a
// comma is then a comma, which still faults the list there, and a '1'
// above a '0' a zero, which never begins an integer.
func swarInts(b []byte, i int) int {
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	start := i
	// starts marks (0x80) that the block's first byte begins an integer,
	// zeroStart that the byte before it is a '0' beginning one.
	starts, zeroStart := uint64(0x80), uint64(0)
	for ; i+16 <= len(b); i += 16 {
		t0, t1 := load8(b, i)^ones8*'0', load8(b, i+8)^ones8*'0'
		// Non-digits, commas, other bytes (high bits).
		nd0, nd1 := ((t0|highs8)-ones8*10|t0)&highs8, ((t1|highs8)-ones8*10|t1)&highs8
		const comma = ones8 * (',' ^ '0')
		c0, c1 := (t0^comma-ones8)&^(t0^comma)&nd0, (t1^comma-ones8)&^(t1^comma)&nd1
		o0, o1 := nd0&^c0, nd1&^c1
		// in marks the bytes before the list's end, its top bit whether
		// the list goes on past the word; r those up to its end, included.
		in0 := o0&-o0 - 1
		in1 := (o1&-o1 - 1) & -(in0 >> 63)
		r0, r1 := o0^(o0-1), (o1^(o1-1))&-(in0>>63)
		// Faults: a start (a byte beginning an integer: after a comma)
		// that is not a digit; a zero start followed by a digit.
		s0, s1 := c0<<8|starts, c1<<8|c0>>56
		z0, z1 := (t0-ones8)&^t0&s0, (t1-ones8)&^t1&s1
		f0 := s0&nd0 | z0&^(nd0>>8|nd1<<56) | zeroStart&^nd0
		f1 := s1&nd1 | z1&^(nd1>>8|1<<63)
		if (f0&r0|f1&r1)&highs8 != 0 {
			return -1
		}
		if in1>>63 == 0 {
			if end := i + bits.OnesCount64(in0&highs8|(in1&highs8)>>1); b[end] == ']' {
				return end + 1
			}
			return -1
		}
		starts, zeroStart = c1>>56, z1>>56
	}
	return plainInts(b, start)
}
