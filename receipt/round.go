package receipt

import "github.com/typevet/typevet-go/internal/pymath"

// Round rounds x to n decimal places the way Python's round(x, n) does:
// correctly rounded on the exact binary value of x, ties to even
// (Round(2.675, 2) is 2.67 because 2.675 is stored as 2.67499999…;
// Round(0.125, 2) is 0.12). A negative n rounds to a multiple of 10⁻ⁿ
// (Round(1250, -2) is 1200); NaN and ±Inf come back unchanged. typevet
// rounds to 3 decimals for latencies and wall time, 2 for blur radii and 9
// in percentile intervals. It is the module's one rounding rule,
// [pymath.Round], for callers outside the module.
func Round(x float64, n int) float64 { return pymath.Round(x, n) }
