package cli

import (
	"math"
	"strconv"
)

// The number formats of every printed table (stats, compare, repeats,
// checkmatch, orderings, throughput), so the same kind of number reads the
// same everywhere. Scripts read the -json output instead.

// NA is what a table prints for a value the receipt or document records
// as null: "n/a", never "null".
const NA = "n/a"

// Share formats a share, a rate or a score in [0, 1] (accuracy, ECE,
// ROC-AUC, Brier) with 4 decimals: "0.9286"; nil is [NA].
func Share(v *float64) string {
	if v == nil {
		return NA
	}
	return Fixed(*v, 4)
}

// Fixed formats v with d decimals ("0.0574"); NaN and infinities are
// [NA].
func Fixed(v float64, d int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return NA
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

// Signed is [Fixed] with a sign: "+0.0214", "-0.0071".
func Signed(v float64, d int) string {
	s := Fixed(v, d)
	if s != NA && v >= 0 {
		s = "+" + s
	}
	return s
}

// Sig formats a quantity of any size (judgments per second, seconds,
// tokens per second) to n significant digits, without an exponent:
// Sig(0.01234, 3) is "0.0123", Sig(7.5, 3) "7.50", Sig(1234.5, 3)
// "1235" (digits before the point are never dropped). 0 is "0"; NaN and
// infinities are [NA]. A slow server's 0.0123 judgments/s is not "0.0".
func Sig(v float64, n int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return NA
	}
	if v == 0 {
		return "0"
	}
	// The decimals that leave n significant digits, from the rounded
	// value's magnitude (9.996 at 3 digits is 10.0, not 9.996).
	mag := int(math.Floor(math.Log10(math.Abs(v))))
	d := max(0, n-1-mag)
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', d, 64), 64)
	if r != 0 {
		if m := int(math.Floor(math.Log10(math.Abs(r)))); m > mag {
			d = max(0, n-1-m)
		}
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

// SigOrNA is [Sig] of *v, [NA] for nil.
func SigOrNA(v *float64, n int) string {
	if v == nil {
		return NA
	}
	return Sig(*v, n)
}

// PValue formats a p-value with 4 decimals, and one below 0.0001 as
// "<0.0001" rather than a misleading "0.0000".
func PValue(p float64) string {
	if p < 0.0001 && p >= 0 {
		return "<0.0001"
	}
	return Fixed(p, 4)
}
