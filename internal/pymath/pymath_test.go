package pymath

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
)

// sameBits reports whether a and b are the same float64, bit for bit.
func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

type vector struct {
	Name  string    `json:"name"`
	Xs    []float64 `json:"xs"`
	Sum   float64   `json:"sum"`
	FSum  float64   `json:"fsum"`
	FMean float64   `json:"fmean"`
	Stdev *float64  `json:"stdev"`
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	b, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Python  string   `json:"python"`
		Vectors []vector `json:"vectors"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Vectors) < 40 {
		t.Fatalf("only %d vectors in testdata/vectors.json", len(file.Vectors))
	}
	return file.Vectors
}

// TestPython312Vectors compares every function with values computed by
// CPython 3.12.1 (testdata/gen_vectors.py), bit for bit.
func TestPython312Vectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			if got := Sum(v.Xs); !sameBits(got, v.Sum) {
				t.Errorf("Sum = %v, Python sum = %v", got, v.Sum)
			}
			if got := FSum(v.Xs); !sameBits(got, v.FSum) {
				t.Errorf("FSum = %v, Python math.fsum = %v", got, v.FSum)
			}
			got, err := FMean(v.Xs)
			if err != nil || !sameBits(got, v.FMean) {
				t.Errorf("FMean = %v, %v; Python statistics.fmean = %v", got, err, v.FMean)
			}
			sd, err := Stdev(v.Xs)
			switch {
			case v.Stdev == nil && err == nil:
				t.Errorf("Stdev = %v, want an error for %d values", sd, len(v.Xs))
			case v.Stdev != nil && (err != nil || !sameBits(sd, *v.Stdev)):
				t.Errorf("Stdev = %v, %v; Python statistics.stdev = %v", sd, err, *v.Stdev)
			}
		})
	}
}

func TestSum(t *testing.T) {
	tests := []struct {
		name   string
		xs     []float64
		want   float64
		reason string
	}{
		{name: "empty", xs: nil, want: 0, reason: "Python sum([]) is the start value 0"},
		{name: "one", xs: []float64{0.3}, want: 0.3},
		{name: "tenths", xs: slices.Repeat([]float64{0.1}, 10), want: 1.0,
			reason: "Python 3.12 gives 1.0; a plain loop (Python 3.11) gives 0.9999999999999999"},
		{name: "cancellation", xs: []float64{1e100, 1.0, -1e100}, want: 1.0,
			reason: "the compensation keeps the 1.0 that the running total lost"},
		{name: "negative zero start", xs: []float64{math.Copysign(0, -1)}, want: 0,
			reason: "Python adds the first element to the integer 0, so -0.0 becomes 0.0"},
		{name: "overflow stays infinite", xs: []float64{math.MaxFloat64, math.MaxFloat64}, want: math.Inf(1),
			reason: "the compensation is infinite or NaN and is not added (Python's finite check)"},
		{name: "infinity", xs: []float64{1, math.Inf(-1), 2}, want: math.Inf(-1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sum(tt.xs); !sameBits(got, tt.want) {
				t.Errorf("Sum(%v) = %v (%#x), want %v (%#x)", tt.xs, got, math.Float64bits(got), tt.want, math.Float64bits(tt.want))
			}
		})
	}
	// A plain loop really does differ: the tenths row would not prove anything otherwise.
	plain := 0.0
	for range 10 {
		plain += 0.1
	}
	if plain == 1.0 {
		t.Fatal("a plain loop summed ten 0.1s to 1.0; the tenths row proves nothing")
	}
}

func TestFSum(t *testing.T) {
	tests := []struct {
		name   string
		xs     []float64
		want   float64
		reason string
	}{
		{name: "empty", xs: nil, want: 0},
		{name: "tenths", xs: slices.Repeat([]float64{0.1}, 10), want: 1.0},
		{name: "exact cancellation", xs: []float64{1e308, 1.0, -1e308}, want: 1.0},
		{name: "half even across partials", xs: []float64{1, 1e-16, 1e-16}, want: 1.0000000000000002,
			reason: "the exact sum 1+2e-16 rounds up; a two-step rounding would give 1.0"},
		{name: "tiny remainders", xs: []float64{1e-16, 1, 1e-16}, want: 1.0000000000000002},
		{name: "python docs", xs: []float64{.1, .1, .1, .1, .1, .1, .1, .1, .1, .1}, want: 1.0},
		{name: "negative zeros", xs: []float64{math.Copysign(0, -1), math.Copysign(0, -1)}, want: 0,
			reason: "math.fsum starts from 0.0 and returns 0.0"},
		{name: "nan", xs: []float64{1, math.NaN()}, want: math.NaN()},
		{name: "inf", xs: []float64{1, math.Inf(1), 1e308, 1e308}, want: math.Inf(1),
			reason: "an infinite input wins over finite partials, even ones that would overflow"},
		{name: "inf minus inf", xs: []float64{math.Inf(1), math.Inf(-1)}, want: math.NaN(),
			reason: "Python raises ValueError('-inf + inf in fsum'); FSum returns NaN"},
		{name: "intermediate overflow", xs: []float64{math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64}, want: math.Inf(1),
			reason: "Python raises OverflowError; FSum returns the overflowed infinity (documented)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FSum(tt.xs)
			if math.IsNaN(tt.want) {
				if !math.IsNaN(got) {
					t.Errorf("FSum(%v) = %v, want NaN", tt.xs, got)
				}
				return
			}
			if !sameBits(got, tt.want) {
				t.Errorf("FSum(%v) = %v, want %v", tt.xs, got, tt.want)
			}
		})
	}
}

// exactSum is the sum of xs rounded once to float64, through math/big.
func exactSum(xs []float64) float64 {
	acc := new(big.Float).SetPrec(0).SetMode(big.ToNearestEven)
	acc.SetPrec(4000)
	for _, x := range xs {
		acc.Add(acc, big.NewFloat(x))
	}
	f, _ := acc.Float64()
	return f
}

// TestFSumExactlyRounded checks FSum against a 4000-bit big.Float sum rounded
// once, over random inputs spanning many magnitudes.
func TestFSumExactlyRounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		n := 1 + rng.IntN(50)
		xs := make([]float64, n)
		for j := range xs {
			xs[j] = (rng.Float64()*2 - 1) * math.Pow(10, float64(rng.IntN(60)-30))
		}
		if got, want := FSum(xs), exactSum(xs); !sameBits(got, want) {
			t.Fatalf("case %d: FSum = %v, exact = %v for %v", i, got, want, xs)
		}
	}
}

func TestFMean(t *testing.T) {
	got, err := FMean([]float64{0.5, 0.75})
	if err != nil || got != 0.625 {
		t.Errorf("FMean(0.5, 0.75) = %v, %v; want 0.625", got, err)
	}
	_, err = FMean(nil)
	if !errors.Is(err, ErrEmpty) || err.Error() != "fmean requires at least one data point" {
		t.Errorf("FMean(nil) error = %v, want Python's message wrapping ErrEmpty", err)
	}
}

func TestStdev(t *testing.T) {
	tests := []struct {
		name   string
		xs     []float64
		want   float64
		reason string
	}{
		{name: "repeats vector", xs: []float64{0.75, 0.5}, want: 0.1767766952966369,
			reason: "typevet's repeat vector: accuracy sd of two runs, sqrt(0.125²·2)"},
		{name: "python docs", xs: []float64{1.5, 2.5, 2.5, 2.75, 3.25, 4.75}, want: 1.0810874155219827},
		{name: "constant", xs: []float64{0.1, 0.1, 0.1}, want: 0},
		{name: "exact square", xs: []float64{1, 3}, want: math.Sqrt2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Stdev(tt.xs)
			if err != nil || !sameBits(got, tt.want) {
				t.Errorf("Stdev(%v) = %v, %v; want %v", tt.xs, got, err, tt.want)
			}
		})
	}
	errTests := []struct {
		name string
		xs   []float64
		want string
	}{
		{name: "none", xs: nil, want: "stdev requires at least two data points"},
		{name: "one", xs: []float64{1}, want: "stdev requires at least two data points"},
		{name: "nan", xs: []float64{1, math.NaN()}, want: "pymath: stdev of a non-finite value at index 1"},
		{name: "inf", xs: []float64{math.Inf(1), 1}, want: "pymath: stdev of a non-finite value at index 0"},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Stdev(tt.xs)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Stdev(%v) error = %v, want %q", tt.xs, err, tt.want)
			}
		})
	}
}

// ulpDistance is the number of float64 steps between two finite non-negative values.
func ulpDistance(a, b float64) uint64 {
	ua, ub := math.Float64bits(a), math.Float64bits(b)
	if ua > ub {
		return ua - ub
	}
	return ub - ua
}

// TestStdevAgainstFloatAndBigFloat cross-checks Stdev two ways on random data:
// a 2000-bit big.Float computation rounded once must agree exactly, and a
// float64 two-pass formula, which rounds at every step, must be close: it is
// mostly exact or 1 ulp off, rarely 2 ulp (the mean, each square and the sum
// each add a rounding error before the square root).
func TestStdevAgainstFloatAndBigFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var ulps [3]int
	for i := range 1000 {
		n := 2 + rng.IntN(30)
		xs := make([]float64, n)
		scale := math.Pow(10, float64(rng.IntN(12)-6))
		for j := range xs {
			xs[j] = rng.Float64() * scale
		}
		got, err := Stdev(xs)
		if err != nil {
			t.Fatal(err)
		}
		// Float two-pass.
		mean := 0.0
		for _, x := range xs {
			mean += x
		}
		mean /= float64(n)
		ss := 0.0
		for _, x := range xs {
			d := x - mean
			ss += float64(d * d)
		}
		approx := math.Sqrt(ss / float64(n-1))
		d := ulpDistance(got, approx)
		if d > 2 {
			t.Fatalf("case %d: Stdev = %v, two-pass = %v: %d ulp apart", i, got, approx, d)
		}
		ulps[d]++
		// High-precision reference.
		const prec = 2000
		sum := new(big.Float).SetPrec(prec)
		for _, x := range xs {
			sum.Add(sum, big.NewFloat(x))
		}
		m := new(big.Float).SetPrec(prec).Quo(sum, new(big.Float).SetInt64(int64(n)))
		ssd := new(big.Float).SetPrec(prec)
		for _, x := range xs {
			d := new(big.Float).SetPrec(prec).Sub(big.NewFloat(x), m)
			ssd.Add(ssd, d.Mul(d, d))
		}
		ssd.Quo(ssd, new(big.Float).SetInt64(int64(n-1)))
		ref, _ := new(big.Float).SetPrec(prec).Sqrt(ssd).Float64()
		if !sameBits(got, ref) {
			t.Fatalf("case %d: Stdev = %v, 2000-bit reference = %v for %v", i, got, ref, xs)
		}
	}
	t.Logf("two-pass float formula: exact in %d, 1 ulp off in %d, 2 ulp off in %d of 1000 cases", ulps[0], ulps[1], ulps[2])
}

// FuzzSums checks invariants of Sum and FSum on arbitrary finite inputs.
func FuzzSums(f *testing.F) {
	f.Add(0.1, 0.2, 0.3, 1e-300)
	f.Add(1e100, 1.0, -1e100, 0.0)
	f.Add(math.Copysign(0, -1), 5e-324, 1.0, -1.0)
	f.Fuzz(func(t *testing.T, a, b, c, d float64) {
		xs := []float64{a, b, c, d}
		for _, x := range xs {
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e300 {
				t.Skip("moderate finite inputs only")
			}
		}
		if got := Sum(xs[:1]); !sameBits(got, 0+a) {
			t.Errorf("Sum([%v]) = %v, want the element itself", a, got)
		}
		s := Sum(xs)
		fs := FSum(xs)
		if math.IsNaN(s) || math.IsInf(s, 0) || math.IsNaN(fs) || math.IsInf(fs, 0) {
			t.Fatalf("non-finite result for finite inputs %v: Sum %v FSum %v", xs, s, fs)
		}
		if want := exactSum(xs); !sameBits(fs, want) && !(fs == 0 && want == 0) {
			t.Errorf("FSum(%v) = %v, exactly rounded sum = %v", xs, fs, want)
		}
		// FSum is exactly rounded, so every order gives the same value.
		for _, p := range [][]int{{3, 2, 1, 0}, {1, 0, 3, 2}, {2, 3, 0, 1}} {
			perm := []float64{xs[p[0]], xs[p[1]], xs[p[2]], xs[p[3]]}
			if got := FSum(perm); !sameBits(got, fs) {
				t.Errorf("FSum(%v) = %v but FSum(%v) = %v", xs, fs, perm, got)
			}
		}
	})
}

func BenchmarkSum140(b *testing.B) {
	xs := make([]float64, 140)
	for i := range xs {
		xs[i] = 1 - float64(i)*1e-9
	}
	b.ReportAllocs()
	for b.Loop() {
		Sum(xs)
	}
}

// TestSqrtRatTies checks the correctly rounded square root on exact ties,
// where the true root is the midpoint between two float64 values and round
// half to even decides.
func TestSqrtRatTies(t *testing.T) {
	ulp := math.Ldexp(1, -52)
	tests := []struct {
		name string
		root *big.Rat // the exact root; its square is passed to sqrtRat
		want float64
	}{
		{name: "tie rounds down to even", root: new(big.Rat).SetFrac(big.NewInt(1<<53+1), big.NewInt(1<<53)), want: 1},
		{name: "tie rounds up to even", root: new(big.Rat).SetFrac(big.NewInt(1<<53+3), big.NewInt(1<<53)), want: 1 + 2*ulp},
		{name: "just above a tie", root: new(big.Rat).SetFrac(big.NewInt(1<<54+3), big.NewInt(1<<54)), want: 1 + ulp},
		{name: "exact", root: big.NewRat(3, 4), want: 0.75},
		{name: "huge", root: new(big.Rat).SetFloat64(1e200), want: 1e200},
		{name: "tiny", root: new(big.Rat).SetFloat64(1e-200), want: 1e-200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sq := new(big.Rat).Mul(tt.root, tt.root)
			if got := sqrtRat(sq); !sameBits(got, tt.want) {
				t.Errorf("sqrtRat(%v) = %v, want %v", sq, got, tt.want)
			}
		})
	}
}

// TestRoundPythonVectors checks Round against round(x, n) as CPython
// printed it (testdata/gen_round.py), bit for bit.
func TestRoundPythonVectors(t *testing.T) {
	b, err := os.ReadFile("testdata/round.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vectors [][3]json.RawMessage `json:"vectors"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Vectors) < 400 {
		t.Fatalf("only %d vectors in testdata/round.json", len(file.Vectors))
	}
	parse := func(raw json.RawMessage) float64 {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, v := range file.Vectors {
		x, want := parse(v[0]), parse(v[2])
		var n int
		if err := json.Unmarshal(v[1], &n); err != nil {
			t.Fatal(err)
		}
		got := Round(x, n)
		same := math.Float64bits(got) == math.Float64bits(want) || math.IsNaN(got) && math.IsNaN(want)
		if !same {
			t.Errorf("Round(%v, %d) = %v, Python %v", x, n, got, want)
		}
	}
}

func TestRound(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		x      float64
		n      int
		want   float64
	}{
		{name: "2.675", reason: "stored as 2.67499999…, so it rounds down", x: 2.675, n: 2, want: 2.67},
		{name: "0.125", reason: "exact tie: half to even", x: 0.125, n: 2, want: 0.12},
		{name: "2.5 to 0", reason: "half to even", x: 2.5, n: 0, want: 2},
		{name: "4.035", reason: "4.035 is stored just above the half (blur radius rounding, from checkmatch)", x: 4.035, n: 2, want: 4.04},
		{name: "1.005", reason: "1.005 is stored just below the half", x: 1.005, n: 2, want: 1},
		{name: "4.999999", x: 4.999999, n: 2, want: 5},
		{name: "1250 to -2", reason: "negative n: exact tie, half to even", x: 1250, n: -2, want: 1200},
		{name: "1350 to -2", x: 1350, n: -2, want: 1400},
		{name: "beyond NDIGITS_MAX", reason: "CPython returns x for n > 323", x: 0.1, n: 400, want: 0.1},
		{name: "overflow", reason: "Python raises OverflowError; Go has +Inf", x: 1.7e308, n: -308, want: math.Inf(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Round(tt.x, tt.n); got != tt.want {
				t.Errorf("Round(%v, %d) = %v, want %v", tt.x, tt.n, got, tt.want)
			}
		})
	}
}

func TestRoundSignedZero(t *testing.T) {
	tests := []struct {
		name string
		x    float64
		n    int
	}{
		{"-0.5 to 0", -0.5, 0},
		{"-0.0001 to 2", -0.0001, 2},
		{"-1 to -2", -1, -2},
		{"below NDIGITS_MIN", -5, -400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Round(tt.x, tt.n); got != 0 || !math.Signbit(got) {
				t.Errorf("Round(%v, %d) = %v, want -0.0 as Python", tt.x, tt.n, got)
			}
		})
	}
}

func BenchmarkRound3(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Round(1099.5165+float64(i&7), 3)
	}
}
