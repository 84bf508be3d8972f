package pymath

import (
	"bufio"
	"compress/gzip"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestExpTable rebuilds expTab from 2^(k/128), computed with math/big at
// 256 bits by square roots of 2, so the committed table is not taken on
// trust.
func TestExpTable(t *testing.T) {
	const prec = 256
	root := new(big.Float).SetPrec(prec).SetInt64(2)
	for range expTableBits {
		root.Sqrt(root)
	}
	p := new(big.Float).SetPrec(prec).SetInt64(1)
	for k := range uint64(expN) {
		scale, _ := p.Float64()
		sb := new(big.Float).SetPrec(prec).SetFloat64(scale)
		tail := new(big.Float).SetPrec(prec).Sub(p, sb)
		tail.Quo(tail, sb)
		tf, _ := tail.Float64()
		if got, want := expTab[2*k], math.Float64bits(tf); got != want {
			t.Errorf("tail %d = %#016x, want %#016x", k, got, want)
		}
		if got, want := expTab[2*k+1], math.Float64bits(scale)-k<<45; got != want {
			t.Errorf("scale %d = %#016x, want %#016x", k, got, want)
		}
		p.Mul(p, root)
	}
}

// expVector is one line of testdata/exp_vectors.txt.gz.
type expVector struct{ x, want float64 }

func readExpVectors(t testing.TB) []expVector {
	t.Helper()
	f, err := os.Open("testdata/exp_vectors.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var vs []expVector
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		xs, ys, ok := strings.Cut(line, " ")
		x, err1 := strconv.ParseUint(xs, 16, 64)
		y, err2 := strconv.ParseUint(ys, 16, 64)
		if !ok || err1 != nil || err2 != nil {
			t.Fatalf("bad vector line %q", line)
		}
		vs = append(vs, expVector{math.Float64frombits(x), math.Float64frombits(y)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(vs) < 100000 {
		t.Fatalf("%d vectors, want at least 100000", len(vs))
	}
	return vs
}

// ulps returns how many float64 steps lie between a and b (0 when both are
// NaN), for finite or infinite values of the same sign.
func ulps(a, b float64) uint64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		if math.IsNaN(a) && math.IsNaN(b) {
			return 0
		}
		return math.MaxUint64
	}
	ia, ib := int64(math.Float64bits(a)), int64(math.Float64bits(b))
	if (ia < 0) != (ib < 0) {
		return math.MaxUint64
	}
	d := ia - ib
	if d < 0 {
		d = -d
	}
	return uint64(d)
}

// TestExpVectors compares Exp with glibc's exp (through CPython's
// math.exp) on the committed vectors: at least 99.99% must be equal bit for
// bit and none more than 1 ULP off. It logs the agreement, and Go's
// math.Exp's on the same inputs for comparison.
func TestExpVectors(t *testing.T) {
	vs := readExpVectors(t)
	var equal, goEqual, off1 int
	for _, v := range vs {
		got := Exp(v.x)
		switch d := ulps(got, v.want); {
		case d == 0:
			equal++
		case d == 1:
			off1++
			if off1 <= 10 {
				t.Logf("Exp(%v [%#016x]) = %v, glibc %v (1 ULP)", v.x, math.Float64bits(v.x), got, v.want)
			}
		default:
			t.Errorf("Exp(%v [%#016x]) = %v, glibc %v (%d ULP)", v.x, math.Float64bits(v.x), got, v.want, d)
		}
		if ulps(math.Exp(v.x), v.want) == 0 {
			goEqual++
		}
	}
	n := len(vs)
	share := float64(equal) / float64(n)
	t.Logf("Exp equals glibc exp on %d of %d vectors (%.4f%%), %d one ULP off; math.Exp equals it on %d (%.2f%%)",
		equal, n, 100*share, off1, goEqual, 100*float64(goEqual)/float64(n))
	if share < 0.9999 {
		t.Errorf("Exp equals glibc on %.4f%% of vectors, want at least 99.99%%", 100*share)
	}
}

// TestExpSpecial pins the special values and the boundaries of the
// reduction.
func TestExpSpecial(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{0, 1}, {math.Copysign(0, -1), 1}, {math.Inf(1), math.Inf(1)}, {math.Inf(-1), 0},
		{710, math.Inf(1)}, {-746, 0}, {1e308, math.Inf(1)}, {-1e308, 0},
		{1, math.E}, {-745.1332191019411, 5e-324},
	} {
		if got := Exp(c.x); got != c.want || math.Signbit(got) {
			t.Errorf("Exp(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if got := Exp(math.NaN()); !math.IsNaN(got) {
		t.Errorf("Exp(NaN) = %v, want NaN", got)
	}
}

// FuzzExp checks Exp against math.Exp: never more than 1 ULP apart on
// finite results, and the same special values.
func FuzzExp(f *testing.F) {
	for _, x := range []float64{0, -1, -40, -745, 709, -0.5, 1e-300} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		got, ref := Exp(x), math.Exp(x)
		if math.IsInf(ref, 0) || ref == 0 || ref < 0x1p-1022 {
			// Near overflow and in the subnormal range the two may
			// round across the boundary differently; only require the
			// same class.
			if math.IsNaN(got) != math.IsNaN(ref) || got < 0 {
				t.Fatalf("Exp(%v) = %v, math.Exp %v", x, got, ref)
			}
			return
		}
		// math.Exp is not always within 1 ULP of the true value
		// (TestExpWhereMathExpIsOff): 2 ULP apart is still agreement.
		if d := ulps(got, ref); d > 2 {
			t.Fatalf("Exp(%v) = %v, math.Exp %v: %d ULP apart", x, got, ref, d)
		}
	})
}

// TestExpWhereMathExpIsOff holds an input FuzzExp found where math.Exp is
// 2 ULP from glibc's exp (Python's math.exp on Debian 12 gives
// 0x1.64eb8c9a1c75ep-171, read off by hand) and Exp equals glibc.
func TestExpWhereMathExpIsOff(t *testing.T) {
	const x = -118.19583333333333
	if got, want := math.Float64bits(Exp(x)), uint64(0x35464eb8c9a1c75e); got != want {
		t.Errorf("Exp(%v) bits %#x, glibc %#x", x, got, want)
	}
	if d := ulps(Exp(x), math.Exp(x)); d != 2 {
		t.Logf("math.Exp(%v) is now %d ULP from glibc", x, d)
	}
}

var sinkExp float64

// BenchmarkExp compares Exp with math.Exp on softmax-range inputs.
func BenchmarkExp(b *testing.B) {
	xs := make([]float64, 1024)
	for i := range xs {
		xs[i] = -40 * float64(i) / float64(len(xs))
	}
	for _, bc := range []struct {
		name string
		f    func(float64) float64
	}{{"pymath.Exp", Exp}, {"math.Exp", math.Exp}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var s float64
			for i := 0; b.Loop(); i++ {
				s += bc.f(xs[i%len(xs)])
			}
			sinkExp = s
		})
	}
}
