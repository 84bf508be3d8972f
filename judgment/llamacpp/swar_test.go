package llamacpp

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// FuzzSWAR checks llamaRun's eight-bytes-at-a-time scanners against the
// byte-at-a-time ones they stand in for: swarInts against plainInts,
// swarString against plainString (each must give the same index or -1),
// nonDigits byte by byte, digitsValue against strconv.Atoi.
func FuzzSWAR(f *testing.F) {
	for _, s := range []string{`32,116,117]`, `0]`, `0,0,10,100]`, `01]`, `1,,2]`, `1,]`, `,1]`, `]`, `255,0,255,0,255,0,1234567]`,
		`1 ]`, `1,2,3,4,5,6,7,8,9,10,11,12]`, `abc"`, `a\"b"`, "a\x01b\"", `\u00e9"xxxxxxxxxxxxx`, `"`, `1234567,"`, `0000000`} {
		f.Add([]byte(s + "        "))
		f.Add([]byte(s))
	}
	// Lists across swarInts' blocks of sixteen bytes.
	for _, s := range []string{"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]", "100,100,100,100,100,100,100,100,0]",
		"100,100,100,100,100,100,100,1000,05]", "100,100,100,100,100,100,100,100,]", "100,100,100,100,100,100,100,10,,1]",
		"100,100,100,100,100,100,100,10,01]", "11,100,100,100,100,100,100,100,1]"} {
		f.Add([]byte(s + "                                "))
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i <= min(len(b), 9); i++ {
			want, got := plainInts(b, i), swarInts(b, i)
			if got != want {
				t.Fatalf("swarInts(%q, %d) = %d, plainInts %d", b, i, got, want)
			}
			want, got = plainString(b, i), swarString(b, i)
			if got != want {
				t.Fatalf("swarString(%q, %d) = %d, plainString %d", b, i, got, want)
			}
		}
		if len(b) >= 8 {
			x := load8(b, 0)
			n := 0
			if nd := nonDigits(x); nd != 0 {
				n = firstByte(nd)
			} else {
				n = 8
			}
			for k := 0; k < 8; k++ {
				if isDigit := '0' <= b[k] && b[k] <= '9'; isDigit != (nonDigits(x)>>(8*k+7)&1 == 0) {
					t.Fatalf("nonDigits(%q) byte %d", b[:8], k)
				}
			}
			if n >= 1 {
				want, _ := strconv.Atoi(string(b[:n]))
				if got := digitsValue(x, n); got != want {
					t.Fatalf("digitsValue(%q, %d) = %d, want %d", b[:8], n, got, want)
				}
			}
		}
	})
}

// TestNearExp checks nearExp against math.Exp on [−16, 0] (the tables'
// ends and steps among them) and around it: within the error it reports.
func TestNearExp(t *testing.T) {
	worst := 0.0
	check := func(v float64) {
		got, bound := nearExp(v)
		want := math.Exp(v)
		rel := 0.0
		if got != want {
			rel = math.Abs(got-want) / want
		}
		if rel > bound {
			t.Fatalf("nearExp(%v) = %v, math.Exp %v: relative error %g, bound %g", v, got, want, rel, bound)
		}
		worst = max(worst, rel)
	}
	defer func() { t.Logf("worst relative error %g", worst) }()
	for k := 0; k <= 16*256; k++ {
		v := -float64(k) / 256
		for _, w := range []float64{v, math.Nextafter(v, 0), math.Nextafter(v, -17), v - 1.0/512, v - 0.99999/256} {
			check(w)
		}
	}
	rng := rand.New(rand.NewPCG(18, 1))
	for range 200000 {
		check(-17 * rng.Float64())
	}
	for _, v := range []float64{0.5, -16.000001, -745, -800, 1e-300, -1e-300, math.Copysign(0, -1)} {
		check(v)
	}
}
