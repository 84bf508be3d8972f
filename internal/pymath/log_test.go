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

// TestLogVectors holds Log and Log1p to CPython's math.log and math.log1p
// on glibc, bit for bit, over testdata/log_vectors.txt.gz (written by
// testdata/log_vectors.py).
func TestLogVectors(t *testing.T) {
	f, err := os.Open("testdata/log_vectors.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	var n, badLog, badLog1p, goLog int
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		var x, want, want1p uint64
		if _, err := fmt.Sscanf(line, "%x %x %x", &x, &want, &want1p); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		xf := math.Float64frombits(x)
		n++
		if got := math.Float64bits(Log(xf)); got != want {
			badLog++
			if badLog <= 5 {
				t.Errorf("Log(%v) = %v, CPython %v", xf, Log(xf), math.Float64frombits(want))
			}
		}
		if got := math.Float64bits(Log1p(xf)); got != want1p {
			badLog1p++
			if badLog1p <= 5 {
				t.Errorf("Log1p(%v) = %v, CPython %v", xf, Log1p(xf), math.Float64frombits(want1p))
			}
		}
		if math.Float64bits(math.Log(xf)) != want {
			goLog++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 10000 {
		t.Fatalf("read %d vectors, want at least 10000", n)
	}
	t.Logf("%d vectors: Log differs on %d, Log1p on %d (Go's math.Log on %d)", n, badLog, badLog1p, goLog)
}

func TestLogSpecial(t *testing.T) {
	tests := []struct {
		name    string
		f       func(float64) float64
		x, want float64
	}{
		{"log 0", Log, 0, math.Inf(-1)},
		{"log -0", Log, math.Copysign(0, -1), math.Inf(-1)},
		{"log 1", Log, 1, 0},
		{"log +inf", Log, math.Inf(1), math.Inf(1)},
		{"log1p -1", Log1p, -1, math.Inf(-1)},
		{"log1p 0", Log1p, 0, 0},
		{"log1p +inf", Log1p, math.Inf(1), math.Inf(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f(tt.x); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	for _, x := range []float64{-1e-300, -2, math.Inf(-1), math.NaN()} {
		if !math.IsNaN(Log(x)) {
			t.Errorf("Log(%v) = %v, want NaN", x, Log(x))
		}
	}
	if !math.IsNaN(Log1p(-2)) || !math.IsNaN(Log1p(math.NaN())) {
		t.Error("Log1p below -1 or of NaN is not NaN")
	}
}

func BenchmarkLog(b *testing.B) {
	b.ReportAllocs()
	x := 0.0
	for i := 0; i < b.N; i++ {
		x += Log(float64(i%1000+1) * 1e-3)
	}
	_ = x
}
