package pymath

import "math"

// Constants of glibc's log (sysdeps/ieee754/dbl-64/e_log.c and
// e_log_data.c since glibc 2.28, from ARM's optimized-routines).
const (
	logTableBits = 7
	logN         = 1 << logTableBits
	logOff       = 0x3fe6000000000000
	logLn2hi     = 0x1.62e42fefa3800p-1
	logLn2lo     = 0x1.ef35793c76730p-45
)

// logPoly approximates log1p(r) - r on |r| < 1/256 (the main path);
// logPoly1 approximates log(x) near 1 (0.9375 <= x < 1.064).
var (
	logPoly  = [5]float64{-0x1.0000000000001p-1, 0x1.555555551305bp-2, -0x1.fffffffeb459p-3, 0x1.999b324f10111p-3, -0x1.55575e506c89fp-3}
	logPoly1 = [11]float64{-0x1p-1, 0x1.5555555555577p-2, -0x1.ffffffffffdcbp-3, 0x1.999999995dd0cp-3, -0x1.55555556745a7p-3, 0x1.24924a344de3p-3, -0x1.fffffa4423d65p-4, 0x1.c7184282ad6cap-4, -0x1.999eb43b068ffp-4, 0x1.78182f7afd085p-4, -0x1.5521375d145cdp-4}
)

// Log returns the natural logarithm of x as CPython's math.log returns it
// on x86-64 Linux for a positive finite float: the value of glibc's log
// (2.28 and later) in the variant its ifunc picks on every CPU with FMA and
// AVX2, where GCC fuses each multiply whose only uses are additions into
// them. Log makes the same fused operations with [math.FMA] and rounds
// every other product on its own, so it gives that value on every platform.
// Go's math.Log is another algorithm and differs from it in the last bit on
// about one input in 25 of (0, 1].
//
// Where CPython raises ValueError (x <= 0) Log returns what glibc returns:
// -Inf for ±0, NaN below 0; Log(+Inf) is +Inf and Log(NaN) is NaN.
// TestLogVectors compares Log with a committed table of CPython results.
func Log(x float64) float64 {
	ix := math.Float64bits(x)
	const lo, hi = 0x3fee000000000000, 0x3ff1090000000000 // 1 - 2^-4, 1 + 0x1.09p-4
	if ix-lo < hi-lo {
		if ix == 0x3ff0000000000000 {
			return 0
		}
		return logNearOne(x)
	}
	top := uint32(ix >> 48)
	if top-0x0010 >= 0x7ff0-0x0010 {
		switch {
		case ix<<1 == 0:
			return math.Inf(-1)
		case x == math.Inf(1):
			return x
		case top&0x8000 != 0 || top&0x7ff0 == 0x7ff0:
			return math.NaN()
		}
		ix = math.Float64bits(x*0x1p52) - 52<<52 // subnormal: normalise
	}
	tmp := ix - logOff
	i := (tmp >> (52 - logTableBits)) % logN
	k := int64(tmp) >> 52
	z := math.Float64frombits(ix - tmp&(0xfff<<52))
	invc, logc := logTable[i].invc, logTable[i].logc
	r := math.FMA(z, invc, -1)
	kd := float64(k)
	w := math.FMA(kd, logLn2hi, logc)
	hiv := w + r
	lov := math.FMA(kd, logLn2lo, float64(w-hiv)+r)
	r2 := float64(r * r)
	a := &logPoly
	q := math.FMA(r, a[4], a[3])
	p := math.FMA(r2, q, math.FMA(r, a[2], a[1]))
	y := math.FMA(r2, a[0], lov)
	y = math.FMA(float64(r*r2), p, y)
	return y + hiv
}

// logNearOne is glibc's path for 1 - 2^-4 <= x < 1 + 0x1.09p-4, x != 1.
func logNearOne(x float64) float64 {
	b := &logPoly1
	r := x - 1
	r2 := float64(r * r)
	r3 := float64(r * r2)
	inner := math.FMA(r3, b[10], math.FMA(r2, b[9], math.FMA(r, b[8], b[7])))
	mid := math.FMA(r3, inner, math.FMA(r2, b[6], math.FMA(r, b[5], b[4])))
	outer := math.FMA(r3, mid, math.FMA(r2, b[3], math.FMA(r, b[2], b[1])))
	w := float64(r * 0x1p27)
	rhi := float64(r+w) - w
	rlo := r - rhi
	t := float64(rhi * rhi)
	w = float64(t * b[0]) // b[0] = -0.5: exact, fused or not
	h := r + w
	l := float64(r-h) + w
	l = math.FMA(float64(b[0]*rlo), rhi+r, l)
	y := math.FMA(r3, outer, l)
	return y + h
}

// log1p constants: fdlibm's s_log1p.c as glibc keeps it.
const (
	log1pLn2hi = 6.93147180369123816490e-01 // 3fe62e42 fee00000
	log1pLn2lo = 1.90821492927058770002e-10 // 3dea39ef 35793c76
	lp1        = 6.666666666666735130e-01   // 3FE55555 55555593
	lp2        = 3.999999999940941908e-01   // 3FD99999 9997FA04
	lp3        = 2.857142874366239149e-01   // 3FD24924 94229359
	lp4        = 2.222219843214978396e-01   // 3FCC71C5 1D8E78AF
	lp5        = 1.818357216161805012e-01   // 3FC74664 96CB03DE
	lp6        = 1.531383769920937332e-01   // 3FC39A09 D078C69F
	lp7        = 1.479819860511658591e-01   // 3FC2F112 DF3E5244
)

// Log1p returns log(1 + x) as CPython's math.log1p returns it on x86-64
// Linux with glibc 2.36: fdlibm's algorithm, its polynomial evaluated in
// Shimizu's pipelined order (R1 + z²R2 + z⁴R3 + z⁶R4) with each of those
// multiply-adds fused, and every other product rounded on its own. Go's
// math.Log1p follows FreeBSD's Horner order without fused operations and
// differs from it in the last bit on about one input in 2,000 of (0, 1].
// The fused steps were found against CPython itself, not read from glibc's
// build: TestLogVectors holds Log1p to a committed table of CPython results.
//
// Log1p(-1) is -Inf, below -1 NaN (CPython raises ValueError there),
// Log1p(+Inf) is +Inf and Log1p(NaN) is NaN.
func Log1p(x float64) float64 {
	hx := int32(math.Float64bits(x) >> 32)
	ax := hx & 0x7fffffff
	k := int32(1)
	var f, c float64
	var hu int32
	if hx < 0x3FDA827A { // x < 0.41422
		if ax >= 0x3ff00000 { // x <= -1
			if x == -1 {
				return math.Inf(-1)
			}
			return math.NaN()
		}
		if ax < 0x3e200000 { // |x| < 2^-29
			if ax < 0x3c900000 {
				return x
			}
			return x - float64(float64(x*x)*0.5)
		}
		if hx > 0 || hx <= int32(-1076707645) { // 0xbfd2bec3: -0.2929 < x < 0.41422
			k, f, hu = 0, x, 1
		}
	} else if hx >= 0x7ff00000 {
		return x + x
	}
	if k != 0 {
		var u float64
		if hx < 0x43400000 {
			u = 1 + x
			hu = int32(math.Float64bits(u) >> 32)
			k = (hu >> 20) - 1023
			if k > 0 {
				c = 1 - (u - x)
			} else {
				c = x - (u - 1)
			}
			c /= u
		} else {
			u = x
			hu = int32(math.Float64bits(u) >> 32)
			k = (hu >> 20) - 1023
			c = 0
		}
		hu &= 0x000fffff
		low := math.Float64bits(u) & 0xffffffff
		if hu < 0x6a09e {
			u = math.Float64frombits(uint64(uint32(hu|0x3ff00000))<<32 | low)
		} else {
			k++
			u = math.Float64frombits(uint64(uint32(hu|0x3fe00000))<<32 | low)
			hu = (0x00100000 - hu) >> 2
		}
		f = u - 1
	}
	hfsq := float64(float64(0.5*f) * f)
	dk := float64(k)
	if hu == 0 { // |f| < 2^-20
		if f == 0 {
			if k == 0 {
				return 0
			}
			c += float64(dk * log1pLn2lo)
			return float64(dk*log1pLn2hi) + c
		}
		r := float64(hfsq * (1 - float64(0.66666666666666666*f)))
		if k == 0 {
			return f - r
		}
		return float64(dk*log1pLn2hi) - ((r - (float64(dk*log1pLn2lo) + c)) - f)
	}
	s := f / (2 + f)
	z := float64(s * s)
	z2 := float64(z * z)
	z4 := float64(z2 * z2)
	z6 := float64(z4 * z2)
	r := math.FMA(z, lp1, float64(z2*math.FMA(z, lp3, lp2)))
	r = math.FMA(z4, math.FMA(z, lp5, lp4), r)
	r = math.FMA(z6, math.FMA(z, lp7, lp6), r)
	if k == 0 {
		return f - (hfsq - float64(s*(hfsq+r)))
	}
	return float64(dk*log1pLn2hi) - ((hfsq - (float64(s*(hfsq+r)) + (float64(dk*log1pLn2lo) + c))) - f)
}
