package repeats_test

import (
	"fmt"

	"github.com/typevet/typevet-go/checkmatch/repeats"
)

// Spread is typevet's per-metric summary of repeated runs: the sample
// standard deviation is Python's statistics.stdev to the last bit.
func ExampleSpread() {
	s, _ := repeats.Spread([]float64{0.75, 0.5})
	fmt.Println(s.Mean, *s.SD, s.Range)
	// Output: 0.625 0.1767766952966369 0.25
}
