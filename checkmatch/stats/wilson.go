package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultLevel is the level of every interval unless [Options] say
// otherwise: 95%.
const DefaultLevel = 0.95

// Proportion is a share with its Wilson score interval: one object of an
// intervals document, written
//
//	{"k": 130, "n": 140, "estimate": 0.9285…, "low": 0.8735…, "high": 0.9607…}
type Proportion struct {
	// K is the number of cases that count as a success (right answers,
	// false clears, cannot_tell verdicts).
	K int `json:"k"`
	// N is the number of cases the share is over.
	N int `json:"n"`
	// Estimate is K/N; null when N is 0.
	Estimate *float64 `json:"estimate"`
	// Low and High bound the Wilson score interval at the document's
	// level; null when N is 0.
	Low  *float64 `json:"low"`
	High *float64 `json:"high"`
}

// Wilson returns the Wilson score interval of k successes in n trials at
// level (0.95 for 95%):
//
//	center = (p + z²/2n) / (1 + z²/n)
//	half   = z / (1 + z²/n) · √(p(1−p)/n + z²/4n²)
//
// with p = k/n and z the (1+level)/2 quantile of the standard normal
// (gonum's distuv.UnitNormal.Quantile; 1.959964 at 95%). Low is exactly 0
// when k is 0 and High exactly 1 when k is n. Wilson 11/20 at 95% is
// [0.3421, 0.7418]; 0/100 is [0, 0.0370].
//
// Unlike the normal (Wald) interval it never leaves [0, 1] and does not
// collapse to a point at 0 or n successes, which is why it is the interval
// of small eval slices. n < 1, k outside 0..n or a level outside (0, 1) is
// an error.
func Wilson(k, n int, level float64) (low, high float64, err error) {
	if n < 1 {
		return 0, 0, fmt.Errorf("wilson interval needs at least one trial, got %d", n)
	}
	if k < 0 || k > n {
		return 0, 0, fmt.Errorf("wilson interval: %d successes is not in 0..%d", k, n)
	}
	if !(level > 0 && level < 1) {
		return 0, 0, fmt.Errorf("wilson interval: level %g is not in (0, 1)", level)
	}
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	half := z / denom * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	low, high = max(0, center-half), min(1, center+half)
	if k == 0 {
		low = 0
	}
	if k == n {
		high = 1
	}
	return low, high, nil
}

// NewProportion returns k of n with its Wilson interval at level; with n
// 0 the estimate and bounds are null. k outside 0..n or a level outside
// (0, 1) is an error.
func NewProportion(k, n int, level float64) (Proportion, error) {
	p := Proportion{K: k, N: n}
	if n == 0 {
		if k != 0 {
			return Proportion{}, fmt.Errorf("proportion: %d successes of 0", k)
		}
		return p, nil
	}
	lo, hi, err := Wilson(k, n, level)
	if err != nil {
		return Proportion{}, err
	}
	est := float64(k) / float64(n)
	p.Estimate, p.Low, p.High = &est, &lo, &hi
	return p, nil
}
