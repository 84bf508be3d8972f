// Package pymath reproduces, bit for bit, the float sums and statistics of
// Python 3.12 that typevet's metrics use: the built-in sum over floats
// ([Sum]), math.fsum ([FSum]), statistics.fmean ([FMean]) and
// statistics.stdev ([Stdev]), round(x, n) for floats ([Round]), and
// math.exp as CPython on x86-64 Linux computes it with glibc ([Exp]).
//
// A plain left-to-right Go loop differs from each of them in the last bits,
// and receipts compare metric values bit for bit, so every place where
// typevet's Python calls one of these functions calls the matching function
// here. Sums and counts over integers stay exact integer arithmetic in Go and
// need nothing from this package.
//
// # Where gonum fits and where it does not
//
// gonum does not fit the sums and means. floats.Sum and stat.Mean are
// uncompensated sums (a left-to-right loop, or on amd64 an assembly loop
// with several running sums), stat.StdDev is a two-pass float formula
// rather than statistics.stdev's exact fractions, and stat.ROC returns a
// curve whose area is then integrated with trapezoids, another float
// computation than typevet's Mann–Whitney rank formula; all of them can
// miss Python's values in the last bits. On typevet's committed 140-case receipt (checkmatch's
// TestRecomputeTypevetReceipt) a left-to-right mean misses 5 of the 7
// recorded score_by_variant means, and stat.Mean on amd64 misses 2 of them;
// the Python 3.12 sum here reproduces all 7, and that test compares every
// metric float bit for bit.
//
// gonum fits where no float is added: checkmatch ranks confidences for
// ROC-AUC with floats.ArgsortStable, a stable sort whose order of equal
// values is the one Python's sorted keeps.
package pymath

import (
	"errors"
	"math"
	"math/big"
	"strconv"
)

// Sum returns what Python 3.12's built-in sum returns for a list of floats:
// Neumaier's compensated sum.
//
// Python starts from the integer 0 and adds the first element exactly
// (0 + x is x, except that -0.0 becomes 0.0); from then on it keeps a running
// total s and a compensation c (starting at 0): for each later x it forms
// t = s + x, adds the rounding error of that addition to c ((s - t) + x when
// |s| >= |x|, else (x - t) + s) and sets s = t. At the end it adds c to s only
// when c is non-zero and finite, so an overflowed or infinite total is not
// turned into NaN. Elements are summed in slice order.
//
// Sum of an empty slice is 0. Python 3.11 and earlier summed left to right;
// sum([0.1]*10) is 1.0 here and in Python 3.12, 0.9999999999999999 in 3.11.
func Sum(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := zero + xs[0] // Python: int 0 + float x
	c := 0.0
	for _, x := range xs[1:] {
		t := s + x
		if math.Abs(s) >= math.Abs(x) {
			c += (s - t) + x
		} else {
			c += (x - t) + s
		}
		s = t
	}
	if c != 0 && !math.IsInf(c, 0) && !math.IsNaN(c) {
		s += c
	}
	return s
}

// zero is a variable, not a constant, so that zero + x is a real float
// addition (turning -0.0 into 0.0 as Python's 0 + -0.0 does).
var zero = 0.0

// FSum returns the exactly rounded sum of xs, as Python's math.fsum does,
// with CPython's algorithm: Shewchuk's non-overlapping partials, then a
// round-half-even correction of the final addition.
//
// Special values follow math.fsum: a NaN element makes the result NaN, an
// infinite element makes it that infinity, and +Inf together with -Inf gives
// NaN (Python raises ValueError). Where Python raises OverflowError
// ("intermediate overflow in fsum": finite inputs whose partial sums overflow,
// near ±1.8e308) FSum returns the overflowed infinity instead; decide in the
// caller if inputs can be that large. FSum of an empty slice is 0.
func FSum(xs []float64) float64 {
	var partials []float64
	var buf [16]float64
	partials = buf[:0]
	special, infSum := 0.0, 0.0
	for _, x := range xs {
		xsave := x
		i := 0
		for _, y := range partials {
			if math.Abs(x) < math.Abs(y) {
				x, y = y, x
			}
			hi := x + y
			lo := y - (hi - x)
			if lo != 0 {
				partials[i] = lo
				i++
			}
			x = hi
		}
		partials = partials[:i]
		if x == 0 {
			continue
		}
		if math.IsInf(x, 0) || math.IsNaN(x) {
			// Either an inf/nan among the inputs or an intermediate overflow.
			if !math.IsInf(xsave, 0) && !math.IsNaN(xsave) {
				special += x // overflow: Python raises OverflowError here
			} else {
				if math.IsInf(xsave, 0) {
					infSum += xsave
				}
				special += xsave
			}
			partials = partials[:0]
			continue
		}
		partials = append(partials, x)
	}
	if special != 0 { // true for NaN as well, as in C
		if math.IsNaN(infSum) {
			return math.NaN()
		}
		return special
	}
	n := len(partials)
	hi, lo := 0.0, 0.0
	if n > 0 {
		n--
		hi = partials[n]
		for n > 0 {
			x := hi
			n--
			y := partials[n]
			hi = x + y
			yr := hi - x
			lo = y - yr
			if lo != 0 {
				break
			}
		}
		// Make half-even rounding work across multiple partials: if the
		// remaining partials push lo in its own direction, hi is off by one
		// rounding step.
		if n > 0 && ((lo < 0 && partials[n-1] < 0) || (lo > 0 && partials[n-1] > 0)) {
			y := lo * 2
			x := hi + y
			yr := x - hi
			if y == yr {
				hi = x
			}
		}
	}
	return hi
}

// ErrEmpty is returned by [FMean] for no data and wrapped by [Stdev] for
// fewer than two data points.
var ErrEmpty = errors.New("pymath: not enough data points")

// FMean returns Python's statistics.fmean(xs): FSum(xs) / len(xs). For an
// empty slice it returns an error wrapping [ErrEmpty] with Python's message
// "fmean requires at least one data point".
func FMean(xs []float64) (float64, error) {
	if len(xs) == 0 {
		return 0, &dataError{"fmean requires at least one data point"}
	}
	return FSum(xs) / float64(len(xs)), nil
}

// Stdev returns Python's statistics.stdev(xs), the sample standard deviation
// (divisor n-1), exactly as Python computes it: the variance is computed
// exactly in rational arithmetic from the exact binary values of the inputs,
// and its square root is then correctly rounded (round half to even) to a
// float64. A float two-pass formula usually agrees but can be 1 ulp off.
//
// Fewer than two points is an error wrapping [ErrEmpty] with Python's message
// "stdev requires at least two data points". A NaN or infinite input is an
// error as well (Python's result there is NaN or an exception, depending on
// the version); the metrics never pass one.
func Stdev(xs []float64) (float64, error) {
	if len(xs) < 2 {
		return 0, &dataError{"stdev requires at least two data points"}
	}
	for i, x := range xs {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return 0, errors.New("pymath: stdev of a non-finite value at index " + strconv.Itoa(i))
		}
	}
	// ssd = (n*Σx² - (Σx)²) / n, exact; variance = ssd / (n-1).
	var sx, sxx, r, sq big.Rat
	for _, x := range xs {
		r.SetFloat64(x)
		sx.Add(&sx, &r)
		sq.Mul(&r, &r)
		sxx.Add(&sxx, &sq)
	}
	n := new(big.Rat).SetInt64(int64(len(xs)))
	ssd := new(big.Rat).Mul(n, &sxx)
	ssd.Sub(ssd, sq.Mul(&sx, &sx))
	ssd.Quo(ssd, n)
	variance := ssd.Quo(ssd, new(big.Rat).SetInt64(int64(len(xs)-1)))
	return sqrtRat(variance), nil
}

// sqrtBitWidth is CPython's _sqrt_bit_width: 2*53 + 3 bits of integer square
// root make round-to-odd followed by one rounding to 53 bits correct.
const sqrtBitWidth = 2*53 + 3

// sqrtRat returns sqrt(v) correctly rounded to float64 for v >= 0. It is
// CPython's statistics._float_sqrt_of_frac: scale v by 4^-q so its integer
// square root has about 55 significant bits, take that root rounded to odd,
// then convert numerator / 2^-q to float64 with one round-half-even.
func sqrtRat(v *big.Rat) float64 {
	num, den := v.Num(), v.Denom()
	if num.Sign() == 0 {
		return 0
	}
	q := floorDiv(num.BitLen()-den.BitLen()-sqrtBitWidth, 2)
	var root *big.Int
	if q >= 0 {
		m := new(big.Int).Lsh(den, uint(2*q))
		root = isqrtFracRTO(num, m)
	} else {
		n := new(big.Int).Lsh(num, uint(-2*q))
		root = isqrtFracRTO(n, den)
	}
	// root * 2^q, rounded once to float64 (big.Float rounds half to even and
	// handles the subnormal range).
	f := new(big.Float).SetInt(root)
	f.SetMantExp(f, q)
	out, _ := f.Float64()
	return out
}

// isqrtFracRTO is CPython's _integer_sqrt_of_frac_rto: isqrt(n // m) with
// its lowest bit set when the root is inexact (round to odd).
func isqrtFracRTO(n, m *big.Int) *big.Int {
	a := new(big.Int).Quo(n, m)
	a.Sqrt(a)
	check := new(big.Int).Mul(a, a)
	check.Mul(check, m)
	if check.Cmp(n) != 0 {
		a.SetBit(a, 0, 1)
	}
	return a
}

// floorDiv is Python's a // b for b > 0.
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

type dataError struct{ msg string }

func (e *dataError) Error() string { return e.msg }
func (e *dataError) Unwrap() error { return ErrEmpty }

// Python's cut-offs for round(x, n) (CPython's NDIGITS_MAX and
// NDIGITS_MIN): beyond them the result is x itself, or a zero of x's sign.
const (
	roundDigitsMax = 323
	roundDigitsMin = -308
)

// Round returns what Python's round(x, n) returns for a float x: x rounded
// to n decimal places, correctly rounded on the exact binary value of x
// with ties to even. round(2.675, 2) is 2.67 because 2.675 is stored as
// 2.67499999…, and round(0.125, 2) is 0.12, an exact tie. Scaling by 10ⁿ
// in float arithmetic gets such cases wrong; Round formats x with n
// decimals (strconv rounds the exact value, ties to even) and parses the
// text back.
//
// A negative n rounds to a multiple of 10⁻ⁿ, as in Python:
// Round(1250, -2) is 1200. NaN, ±Inf and zeros come back unchanged; n above
// 323 returns x and n below -308 a zero of x's sign, as CPython does. Where
// Python raises OverflowError (a result beyond the float range, such as
// round(1.7e308, -308)), Round returns ±Inf.
func Round(x float64, n int) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || x == 0 || n > roundDigitsMax:
		return x
	case n < roundDigitsMin:
		return math.Copysign(0, x)
	case n >= 0:
		r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', n, 64), 64)
		if err != nil {
			// FormatFloat of a finite float always parses back.
			panic("pymath: Round: " + err.Error())
		}
		return r
	}
	// n < 0: k = x / 10^-n rounded half to even, exactly; then k * 10^-n.
	exact := new(big.Rat).SetFloat64(x)
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-n)), nil)
	den := new(big.Int).Mul(exact.Denom(), scale)
	k, m := new(big.Int).DivMod(exact.Num(), den, new(big.Int))
	switch m.Lsh(m, 1).Cmp(den) {
	case 1:
		k.Add(k, big.NewInt(1))
	case 0:
		if k.Bit(0) == 1 {
			k.Add(k, big.NewInt(1))
		}
	}
	if k.Sign() == 0 {
		return math.Copysign(0, x)
	}
	r, _ := new(big.Float).SetInt(k.Mul(k, scale)).Float64()
	return r
}
