package resample_test

import (
	"fmt"

	"github.com/typevet/typevet-go/checkmatch/internal/resample"
)

// Indices draws resample positions as typevet's resample_indices does.
func ExampleIndices() {
	fmt.Println(resample.Indices(6, 0, 0))
	// Output: [0 5 3 4 0 1]
}

// PercentileInterval takes ranks 25 and 974 of 1,000 values at level 0.95.
func ExamplePercentileInterval() {
	values := make([]float64, 1000)
	for i := range values {
		values[i] = float64(i)
	}
	lo, hi, _ := resample.PercentileInterval(values, 0.95)
	fmt.Println(lo, hi)
	// Output: 25 974
}
