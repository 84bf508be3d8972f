package pymath

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// TestSquareVectors holds Square to CPython's x ** 2 on glibc, bit for
// bit, over testdata/square_vectors.txt.gz (written by
// testdata/square_vectors.py), about a fifth of whose inputs are squares
// where x ** 2 and x * x differ.
func TestSquareVectors(t *testing.T) {
	f, err := os.Open("testdata/square_vectors.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	var n, bad, mul int
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		var x, want uint64
		if _, err := fmt.Sscanf(sc.Text(), "%x %x", &x, &want); err != nil {
			t.Fatal(err)
		}
		xf := math.Float64frombits(x)
		n++
		if got := Square(xf); math.Float64bits(got) != want {
			bad++
			if bad <= 5 {
				t.Errorf("Square(%v) = %v, CPython %v", xf, got, math.Float64frombits(want))
			}
		}
		if math.Float64bits(xf*xf) != want {
			mul++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 9000 {
		t.Fatalf("read %d vectors", n)
	}
	t.Logf("%d vectors: Square differs on %d, x*x on %d", n, bad, mul)
}

func TestSquareSpecial(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{0, 0}, {math.Copysign(0, -1), 0}, {1, 1}, {-1, 1}, {-0.5, 0.25},
		{math.Inf(-1), math.Inf(1)}, {5e-324, 0}, {1e200, math.Inf(1)},
	} {
		if got := Square(c.x); got != c.want || math.Signbit(got) {
			t.Errorf("Square(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if !math.IsNaN(Square(math.NaN())) {
		t.Error("Square(NaN) is not NaN")
	}
}
