package pymath_test

import (
	"fmt"

	"github.com/typevet/typevet-go/internal/pymath"
)

// Python 3.12's sum is compensated, so ten 0.1s add up to exactly 1.0, as in
// Python; a plain Go loop gives 0.9999999999999999.
func ExampleSum() {
	xs := []float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}
	plain := 0.0
	for _, x := range xs {
		plain += x
	}
	fmt.Println(pymath.Sum(xs), plain)
	// Output: 1 0.9999999999999999
}

// Stdev is statistics.stdev, bit for bit.
func ExampleStdev() {
	sd, err := pymath.Stdev([]float64{0.75, 0.5})
	fmt.Println(sd, err)
	// Output: 0.1767766952966369 <nil>
}
