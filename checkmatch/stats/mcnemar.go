package stats

import (
	"fmt"

	"gonum.org/v1/gonum/stat/distuv"
)

// McNemar is the exact McNemar test of a comparison: its "mcnemar" object.
type McNemar struct {
	// B counts the pairs A got right and B got wrong.
	B int `json:"b"`
	// C counts the pairs A got wrong and B got right.
	C int `json:"c"`
	// PValue is the exact two-sided p-value ([McNemarExact]); 1 when
	// there are no discordant pairs.
	PValue float64 `json:"p_value"`
}

// McNemarExact returns the exact two-sided McNemar p-value of b and c
// discordant pairs: under the null hypothesis each discordant pair is
// equally likely either way, so min(b, c) is the lower tail of
// Binomial(b + c, ½), and
//
//	p = min(1, 2 · P(X ≤ min(b, c)))
//
// (gonum's distuv.Binomial CDF). b = 3, c = 11 gives 2 · 470/16384 =
// 0.0574; b = c gives 1, and so do b = c = 0. Negative counts are an
// error.
func McNemarExact(b, c int) (float64, error) {
	if b < 0 || c < 0 {
		return 0, fmt.Errorf("mcnemar: counts must be at least 0, got b=%d c=%d", b, c)
	}
	n := b + c
	if n == 0 {
		return 1, nil
	}
	tail := distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(min(b, c)))
	return min(1, 2*tail), nil
}
