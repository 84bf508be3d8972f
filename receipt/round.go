package receipt

import (
	"math"
	"strconv"
)

// Round rounds x to n decimal places the way Python's round(x, n) does:
// correctly rounded on the exact binary value of x, ties to even
// (Round(2.675, 2) is 2.67 because 2.675 is stored as 2.67499999…;
// Round(0.125, 2) is 0.12). It formats x with n decimals and parses the text
// back, which is exact; x*10ⁿ arithmetic is not.
//
// NaN and ±Inf come back unchanged, as in Python. Negative n is not
// supported and is treated as 0 (typevet rounds to 3 decimals for latencies
// and wall time, 2 for blur radii, 9 in percentile intervals).
func Round(x float64, n int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', max(n, 0), 64), 64)
	if err != nil {
		// FormatFloat of a finite float always parses back.
		panic("receipt: Round: " + err.Error())
	}
	return r
}
