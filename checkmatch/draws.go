package checkmatch

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
)

// draws is typevet's SeededDraws: a stream of pseudo-random values fixed by a
// text key. Raw draw c is the first 8 bytes, read as an unsigned big-endian
// integer, of SHA-256(key + ":" + decimal(c)); the counter starts at 0 and
// advances by one per draw.
type draws struct {
	key     string
	counter uint64
	buf     []byte
}

// newDraws opens the stream named key with its counter at 0.
func newDraws(key string) *draws {
	return &draws{key: key, buf: make([]byte, 0, len(key)+24)}
}

// raw returns the next raw 64-bit draw.
func (d *draws) raw() uint64 {
	d.buf = append(d.buf[:0], d.key...)
	d.buf = append(d.buf, ':')
	d.buf = strconv.AppendUint(d.buf, d.counter, 10)
	d.counter++
	sum := sha256.Sum256(d.buf)
	return binary.BigEndian.Uint64(sum[:8])
}

// integer returns low + raw % (high - low), a value in [low, high). The plain
// modulo (with its tiny bias) is typevet's draw rule, kept for equal cases. It panics if high <= low;
// every caller passes constant bounds.
func (d *draws) integer(low, high int64) int64 {
	if high <= low {
		panic("checkmatch: draws.integer with empty range")
	}
	return low + int64(d.raw()%uint64(high-low))
}

// uniform returns low + (high - low) * (raw / 2^64). The explicit float64
// conversion of the product stops the compiler from fusing it with the
// addition (FMA on arm64, ppc64le, s390x), which would change the last bit.
func (d *draws) uniform(low, high float64) float64 {
	u := float64(d.raw()) / 18446744073709551616.0
	return low + float64((high-low)*u)
}
