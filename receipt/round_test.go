package receipt

import (
	"math"
	"testing"
)

func TestRound(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		x      float64
		n      int
		want   float64
	}{
		{name: "2.675", reason: "stored as 2.67499999…, so it rounds down", x: 2.675, n: 2, want: 2.67},
		{name: "-2.675", x: -2.675, n: 2, want: -2.67},
		{name: "0.125", reason: "exact tie: half to even", x: 0.125, n: 2, want: 0.12},
		{name: "1099.5165", reason: "stored below the tie", x: 1099.5165, n: 3, want: 1099.516},
		{name: "0.0005", reason: "stored above the tie", x: 0.0005, n: 3, want: 0.001},
		{name: "1.0005", reason: "stored below the tie", x: 1.0005, n: 3, want: 1.0},
		{name: "2.5 to 0", reason: "half to even", x: 2.5, n: 0, want: 2.0},
		{name: "3.5 to 0", x: 3.5, n: 0, want: 4.0},
		{name: "0.1+0.2", x: 0.1 + 0.2, n: 3, want: 0.3},
		{name: "22.5085", x: 22.5085, n: 3, want: 22.509},
		{name: "tiny", x: 1.23456789e-10, n: 9, want: 0},
		{name: "large", x: 123456789.123456789, n: 3, want: 123456789.123},
		{name: "huge", x: 1e300, n: 3, want: 1e300},
		{name: "negative n", reason: "Python rounds to hundreds: round(2.5, -2) is 0.0 (earlier versions treated n as 0)", x: 2.5, n: -2, want: 0},
		{name: "negative n tie", reason: "half to even on hundreds", x: 1250, n: -2, want: 1200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Round(tt.x, tt.n); got != tt.want {
				t.Errorf("Round(%v, %d) = %v, want %v", tt.x, tt.n, got, tt.want)
			}
		})
	}
}

func TestRoundSpecialValues(t *testing.T) {
	if got := Round(-0.5, 0); got != 0 || !math.Signbit(got) {
		t.Errorf("Round(-0.5, 0) = %v, want -0 (Python -0.0)", got)
	}
	if got := Round(math.Inf(1), 3); !math.IsInf(got, 1) {
		t.Errorf("Round(+Inf, 3) = %v", got)
	}
	if got := Round(math.NaN(), 3); !math.IsNaN(got) {
		t.Errorf("Round(NaN, 3) = %v", got)
	}
}
