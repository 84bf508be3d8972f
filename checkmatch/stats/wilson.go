package stats

import (
	"errors"
	"fmt"
	"math"

	"github.com/typevet/typevet-go/checkmatch"

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
	// level, taken at EffectiveN trials; null when N is 0.
	Low  *float64 `json:"low"`
	High *float64 `json:"high"`
	// EffectiveN is the sample size the interval was taken at: N when
	// cases are taken as independent, the Korn–Graubard effective size
	// ([EffectiveN]) when they are clustered by register row. Added in
	// version 2 of the documents; 0 when N is 0.
	EffectiveN float64 `json:"effective_n"`
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
	low, high = wilsonAt(float64(k)/float64(n), float64(n), level)
	return low, high, nil
}

// wilsonAt is the Wilson score interval of the share p at n trials (n
// may be an effective, non-integer size); p 0 gives low exactly 0 and p 1
// high exactly 1.
func wilsonAt(p, n, level float64) (low, high float64) {
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	z2 := z * z
	denom := 1 + z2/n
	center := (p + z2/(2*n)) / denom
	half := z / denom * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	low, high = max(0, center-half), min(1, center+half)
	if p == 0 {
		low = 0
	}
	if p == 1 {
		high = 1
	}
	return low, high
}

// EffectiveN returns the Korn–Graubard effective sample size of the
// binary outcomes y whose clusters are cluster (cluster[i] names y[i]'s
// cluster, e.g. its register row): the n for which a simple random
// sample would give the share the variance the clusters give it,
//
//	n_eff = n / deff,  deff = v_cluster / v_srs
//	v_srs     = p(1−p) / (n−1)
//	v_cluster = C/(C−1) · Σ_c (Σ_{i∈c} (y_i − p))² / n²
//
// with p the share of true outcomes and C the number of clusters. It is
// capped at n (a negative intra-cluster correlation does not buy
// precision), and is n itself when either variance is 0 (p of 0 or 1, one
// cluster, clusters that cancel exactly), as inspect's ci_wilson(cluster=)
// does. Korn, E. L. and Graubard, B. I. (1998), "Confidence intervals for
// proportions with small expected number of positive counts estimated
// from survey data", Survey Methodology 24(2), 193–201. Lengths must be
// equal and at least 1.
func EffectiveN(y []bool, cluster []string) (float64, error) {
	n := len(y)
	if n != len(cluster) {
		return 0, &checkmatch.LengthError{A: n, B: len(cluster)}
	}
	if n == 0 {
		return 0, errors.New("effective sample size needs at least one outcome")
	}
	k := 0
	for _, v := range y {
		if v {
			k++
		}
	}
	nf := float64(n)
	p := float64(k) / nf
	if n < 2 {
		return nf, nil
	}
	sums := map[string]float64{}
	var order []string
	for i, c := range cluster {
		if _, ok := sums[c]; !ok {
			order = append(order, c)
		}
		sums[c] += indicator(y[i]) - p
	}
	clusters := float64(len(order))
	var ss float64
	for _, c := range order {
		ss += sums[c] * sums[c]
	}
	srs := p * (1 - p) / (nf - 1)
	if len(order) < 2 || srs <= 0 || ss <= 0 {
		return nf, nil
	}
	clustered := clusters / (clusters - 1) * ss / (nf * nf)
	return min(nf, nf*srs/clustered), nil
}

// NewProportion returns k of n with its Wilson interval at level; with n
// 0 the estimate and bounds are null. k outside 0..n or a level outside
// (0, 1) is an error.
func NewProportion(k, n int, level float64) (Proportion, error) {
	return newProportionAt(k, n, float64(n), level)
}

// newProportionAt is [NewProportion] with the interval taken at nEff
// trials (0 < nEff ≤ n; n 0 gives the null proportion).
func newProportionAt(k, n int, nEff, level float64) (Proportion, error) {
	p := Proportion{K: k, N: n}
	if n == 0 {
		if k != 0 {
			return Proportion{}, fmt.Errorf("proportion: %d successes of 0", k)
		}
		return p, nil
	}
	if _, _, err := Wilson(k, n, level); err != nil {
		return Proportion{}, err
	}
	est := float64(k) / float64(n)
	lo, hi := wilsonAt(est, nEff, level)
	p.Estimate, p.Low, p.High, p.EffectiveN = &est, &lo, &hi, nEff
	return p, nil
}
