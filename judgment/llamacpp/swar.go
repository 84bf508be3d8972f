package llamacpp

import (
	"encoding/binary"
	"math/bits"
)

// Eight-bytes-at-a-time scanning for llamaEntry. Each mask function takes
// eight bytes of the body as a little-endian word (the first byte lowest)
// and returns a word with the high bit of each byte set where the byte is
// of its class and every other bit clear. The masks are exact: no carry or
// borrow crosses from one byte into the next.

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
	return ((y|highs8)-ones8*10 | y) & highs8
}

// stringStops marks the bytes of x a string cannot hold as they are: a
// quote, a backslash or a control byte.
func stringStops(x uint64) uint64 {
	controls := ^((x|highs8)-ones8*0x20 | x) & highs8
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

// swarInts is plainInts eight bytes at a time: b[i-1] is the '[' of a
// list of plain non-negative integers; it returns the index after its
// ']', or -1 for anything else (as plainInts does) or a list not whole in
// b with eight bytes to spare. A list's first 32 bytes are checked
// without a branch on where it ends (list32), the rest a word at a time.
func swarInts(b []byte, i int) int {
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	// starts marks where an integer must begin: the first byte and each
	// one after a comma; zeroStart, carried over from the previous word,
	// is a '0' beginning an integer as its last byte.
	carryStart, zeroStart := uint64(0x80), uint64(0)
	if i+32 <= len(b) {
		n, bad, more := list32(b, i)
		switch {
		case bad:
			return -1
		case !more:
			if b[i+n] == ']' {
				return i + n + 1
			}
			return -1
		}
		carryStart, zeroStart = more32(b, i)
		i += 32
	}
	for ; i+8 <= len(b); i += 8 {
		x := load8(b, i)
		nd := nonDigits(x)
		commas := equalBytes(x, ',')
		other := nd &^ commas
		inList := other&-other - 1 // the bytes before other's first
		digits := ^nd & highs8 & inList
		commas &= inList
		starts := commas<<8 | carryStart
		zeros := equalBytes(x, '0') & inList
		// A start that is not a digit (two commas, a comma first or last)
		// or a '0' followed by a digit at the start of an integer.
		if starts&^digits != 0 || zeros&starts&(digits>>8) != 0 || zeroStart&digits != 0 {
			return -1
		}
		if other != 0 {
			if end := i + firstByte(other); b[end] == ']' {
				return end + 1
			}
			return -1
		}
		carryStart = commas >> 56
		zeroStart = (zeros & starts) >> 56
	}
	return -1
}

// list32 checks the first 32 bytes of a list's integers at b[i:] (i+32
// <= len(b)), as swarInts does a word at a time: n is the number of
// digits and commas before the first other byte, bad reports a misplaced
// comma or a leading zero among them, more that all 32 are digits and
// commas.
func list32(b []byte, i int) (n int, bad, more bool) {
	x0, x1, x2, x3 := load8(b, i), load8(b, i+8), load8(b, i+16), load8(b, i+24)
	nd0, nd1, nd2, nd3 := nonDigits(x0), nonDigits(x1), nonDigits(x2), nonDigits(x3)
	c0, c1, c2, c3 := equalBytes(x0, ','), equalBytes(x1, ','), equalBytes(x2, ','), equalBytes(x3, ',')
	o0, o1, o2, o3 := nd0&^c0, nd1&^c1, nd2&^c2, nd3&^c3
	// in marks the bytes of a word before the list's first other byte:
	// all of them (top bit set) when neither the word nor one before
	// holds one.
	in0 := o0&-o0 - 1
	in1 := (o1&-o1 - 1) & -(in0 >> 63)
	in2 := (o2&-o2 - 1) & -(in1 >> 63)
	in3 := (o3&-o3 - 1) & -(in2 >> 63)
	d0, d1, d2, d3 := ^nd0&highs8&in0, ^nd1&highs8&in1, ^nd2&highs8&in2, ^nd3&highs8&in3
	c0, c1, c2, c3 = c0&in0, c1&in1, c2&in2, c3&in3
	s0, s1, s2, s3 := c0<<8|0x80, c1<<8|c0>>56, c2<<8|c1>>56, c3<<8|c2>>56
	z0, z1, z2, z3 := equalBytes(x0, '0')&s0, equalBytes(x1, '0')&s1, equalBytes(x2, '0')&s2, equalBytes(x3, '0')&s3
	var e uint64
	e |= s0&^d0 | z0&(d0>>8|d1<<56)
	e |= s1&^d1 | z1&(d1>>8|d2<<56)
	e |= s2&^d2 | z2&(d2>>8|d3<<56)
	e |= s3&^d3 | z3&(d3>>8)
	n = bits.OnesCount64((in0&highs8)|(in1&highs8)>>1|(in2&highs8)>>2|(in3&highs8)>>3)
	return n, e != 0, in3>>63 != 0
}

// more32 is the state swarInts carries past a list's first 32 bytes at
// b[i:], all digits and commas: whether the last is a comma, and whether
// it is a '0' beginning an integer.
func more32(b []byte, i int) (carryStart, zeroStart uint64) {
	x2, x3 := load8(b, i+16), load8(b, i+24)
	c2, c3 := equalBytes(x2, ','), equalBytes(x3, ',')
	s3 := c3<<8 | c2>>56
	return c3 >> 56, (equalBytes(x3, '0') & s3) >> 56
}
