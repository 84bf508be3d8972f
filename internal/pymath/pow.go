package pymath

import "math"

// Constants of the log inside glibc's pow (sysdeps/ieee754/dbl-64/e_pow.c
// and e_pow_log_data.c since glibc 2.28, from ARM's optimized-routines).
const (
	powLogTableBits = 7
	powLogN         = 1 << powLogTableBits
	powLogOff       = 0x3fe6955500000000
)

// powLogPoly is log1p(r) - r on |r| < 0x1.6bp-8, its coefficients scaled
// as glibc evaluates them; powLogPoly[0] is -0.5.
var powLogPoly = [7]float64{
	-0x1p-1,
	0x1.555555555556p-2 * -2,
	-0x1.0000000000006p-2 * -2,
	0x1.999999959554ep-3 * 4,
	-0x1.555555529a47ap-3 * 4,
	0x1.2495b9b4845e9p-3 * -8,
	-0x1.0002b8b263fc3p-3 * -8,
}

// Square returns x ** 2 as CPython computes it for a float x on x86-64
// Linux: 0.0 for ±0, 1.0 for ±1, and otherwise glibc's pow(|x|, 2.0) in the
// variant its ifunc picks on every CPU with FMA and AVX2, where GCC fuses
// each multiply whose only uses are additions into them. glibc's pow is
// within 0.52 ULP of the true power but not always the correctly rounded
// square x*x: typevet's Brier score squares with ** 2, and a few of those
// squares differ from x*x in the last bit. Square is glibc's algorithm
// (log of x to about 68 bits, times 2, exp of that with its tail) written in
// Go with the same fused operations, so it gives that value on every
// platform. Inf and NaN give Inf and NaN; a square below the smallest
// subnormal gives 0. TestSquareVectors compares it with a committed table of
// CPython results.
func Square(x float64) float64 {
	ax := math.Abs(x)
	switch {
	case ax == 0:
		return 0
	case ax == 1:
		return 1
	case math.IsInf(ax, 0) || math.IsNaN(ax):
		return ax * ax
	}
	ix := math.Float64bits(ax)
	if ix>>52 == 0 { // subnormal: normalise, the exponent goes negative
		ix = math.Float64bits(ax*0x1p52) - 52<<52
	}
	hi, lo := powLog(ix)
	const y = 2.0
	ehi := float64(y * hi)
	elo := math.FMA(y, lo, math.FMA(y, hi, -ehi))
	return powExp(ehi, elo)
}

// powLog returns log(x) as hi + lo with about 68 bits, glibc's log_inline.
func powLog(ix uint64) (hi, lo float64) {
	tmp := ix - powLogOff
	i := (tmp >> (52 - powLogTableBits)) % powLogN
	k := int64(tmp) >> 52
	z := math.Float64frombits(ix - tmp&(0xfff<<52))
	kd := float64(k)
	t := &powLogTable[i]
	r := math.FMA(z, t.invc, -1)
	t1 := math.FMA(kd, logLn2hi, t.logc)
	t2 := t1 + r
	lo1 := math.FMA(kd, logLn2lo, t.logctail)
	lo2 := float64(t1-t2) + r
	a := &powLogPoly
	ar := float64(a[0] * r)
	ar2 := float64(r * ar)
	ar3 := float64(r * ar2)
	h := t2 + ar2
	lo3 := math.FMA(ar, r, -ar2)
	lo4 := float64(t2-h) + ar2
	q := math.FMA(ar2, math.FMA(r, a[6], a[5]), math.FMA(r, a[4], a[3]))
	q = math.FMA(ar2, q, math.FMA(r, a[2], a[1]))
	l := math.FMA(ar3, q, float64(float64(float64(lo1+lo2)+lo3)+lo4))
	y := h + l
	return y, float64(h-y) + l
}

// powExp returns exp(x + xtail), glibc's exp_inline for a positive result.
func powExp(x, xtail float64) float64 {
	abstop := top12(x) & 0x7ff
	if abstop-top12(0x1p-54) >= top12(512)-top12(0x1p-54) {
		if abstop-top12(0x1p-54) >= 0x80000000 {
			return 1.0 + x
		}
		if abstop >= top12(1024) {
			if x < 0 {
				return 0
			}
			return math.Inf(1)
		}
		abstop = 0
	}
	kd := math.FMA(expInvLn2N, x, expShift)
	ki := math.Float64bits(kd)
	kd -= expShift
	r := math.FMA(kd, expNegLn2loN, math.FMA(kd, expNegLn2hiN, x))
	r += xtail
	idx := 2 * (ki % expN)
	top := ki << (52 - expTableBits)
	tail := math.Float64frombits(expTab[idx])
	sbits := expTab[idx+1] + top
	r2 := float64(r * r)
	tmp := math.FMA(float64(r2*r2), math.FMA(r, expC5, expC4), math.FMA(r2, math.FMA(r, expC3, expC2), tail+r))
	if abstop == 0 {
		return expSpecial(tmp, sbits, ki)
	}
	scale := math.Float64frombits(sbits)
	return math.FMA(scale, tmp, scale)
}
