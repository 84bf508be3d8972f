package llamacpp

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
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

// TestDecodeCompletionMutated checks today's decoder against the decoder
// before issue 18 on a real-shape answer of 300 entries (long enough for
// llamaRun to read runs of entries) with one to three bytes changed at
// random: both accept or refuse each body alike, read whole and in
// one-byte pieces.
func TestDecodeCompletionMutated(t *testing.T) {
	base := genRealVocab(7, 300)
	rng := rand.New(rand.NewPCG(18, 7))
	const significant = `{}[],:"\-+.eE0123456789 tn`
	for k := range 3000 {
		body := bytes.Clone(base)
		for range 1 + rng.IntN(3) {
			c := byte(rng.IntN(256))
			if rng.IntN(2) == 0 {
				c = significant[rng.IntN(len(significant))]
			}
			body[rng.IntN(len(body))] = c
		}
		want, werr := oldDecodeCompletion(bytes.NewReader(body), fuzzRequest, 1<<18)
		got, gerr := decodeCompletion(bytes.NewReader(body), fuzzRequest, 1<<18)
		if !sameOutcome(got, gerr, want, werr) {
			t.Fatalf("body %d: new %+v %v; old %+v %v", k, got, gerr, want, werr)
		}
		if k%10 == 0 {
			got, gerr = decodeCompletion(iotest.OneByteReader(bytes.NewReader(body)), fuzzRequest, 1<<18)
			if !sameOutcome(got, gerr, want, werr) {
				t.Fatalf("body %d, one-byte reads: new %+v %v; old %+v %v", k, got, gerr, want, werr)
			}
		}
	}
}

// TestDecodeCompletionEdited checks today's decoder against the decoder
// before issue 18 on a real-shape answer of 300 entries with one entry,
// amid a run llamaRun reads, edited into each near miss of llama-server's
// layout: both accept or refuse the body alike.
func TestDecodeCompletionEdited(t *testing.T) {
	base := string(genRealVocab(7, 300))
	edits := map[string][2]string{
		"id leading zero":     {`{"id":`, `{"id":0`},
		"id negative":         {`{"id":`, `{"id":-`},
		"id fraction":         {`,"token"`, `.0,"token"`},
		"id exponent":         {`,"token"`, `e1,"token"`},
		"id eight digits":     {`{"id":`, `{"id":1000000`},
		"token control byte":  {`"token":"`, "\"token\":\"\x01"},
		"token escape":        {`"token":"`, `"token":"\"\\\/\b\f\n\r\t\u00e9`},
		"token bad escape":    {`"token":"`, `"token":"\x`},
		"token bad unicode":   {`"token":"`, `"token":"\u00zz`},
		"token long":          {`"token":"`, `"token":"abcdefghijklmnopqrstuvwxyz0123456789`},
		"bytes empty":         {`"bytes":[`, `"bytes":[],"x":[`},
		"bytes leading zero":  {`"bytes":[`, `"bytes":[0`},
		"bytes zero":          {`"bytes":[`, `"bytes":[0,`},
		"bytes double comma":  {`"bytes":[`, `"bytes":[1,,`},
		"bytes leading comma": {`"bytes":[`, `"bytes":[,`},
		"bytes trailing":      {`],"logprob"`, `,],"logprob"`},
		"bytes long":          {`"bytes":[`, `"bytes":[100,200,255,0,1,10,100,200,255,0,1,10,100,200,`},
		"bytes zero long":     {`"bytes":[`, `"bytes":[100,200,255,0,1,10,100,200,255,0,1,10,100,200,01,`},
		"bytes space":         {`"bytes":[`, `"bytes":[ `},
		"bytes negative":      {`"bytes":[`, `"bytes":[-1,`},
		"bytes fraction":      {`],"logprob"`, `.5],"logprob"`},
		"logprob exponent":    {`}`, `e1}`},
		"logprob exponent E":  {`}`, `E-1}`},
		"logprob no fraction": {`"logprob":-`, `"logprob":-1.}`},
		"logprob integer":     {`"logprob":-`, `"logprob":-20}`},
		"logprob zero":        {`"logprob":-`, `"logprob":-0`},
		"logprob leading 0":   {`"logprob":-`, `"logprob":-01`},
		"logprob infinity":    {`"logprob":-`, `"logprob":-Infinity}`},
		"logprob NaN":         {`"logprob":-`, `"logprob":NaN}`},
		"logprob positive":    {`"logprob":-`, `"logprob":`},
		"logprob long":        {`"logprob":-`, `"logprob":-20.12345678901234567890123`},
		"logprob huge":        {`"logprob":-`, `"logprob":-1234567890123.5`},
		"extra key":           {`}`, `,"x":1}`},
		"white space":         {`,"token"`, ` ,"token"`},
		"duplicate id":        {`{"id":`, `{"id":1,"token":"t","bytes":[1],"logprob":-20},{"id":`},
		"candidate far":       {`{"id":`, `{"id":236771,"token":"t","bytes":[1],"logprob":-20.5},{"id":`},
	}
	for name, e := range edits {
		for _, at := range []int{1, 100, 299} {
			start := 0
			for range at {
				start += strings.Index(base[start+1:], `{"id":`) + 1
			}
			end := start + strings.IndexByte(base[start:], '}') + 1
			entry := strings.Replace(base[start:end], e[0], e[1], 1)
			if e[0] == `}` {
				entry = entry[:len(entry)-1] + e[1]
			}
			body := []byte(base[:start] + entry + base[end:])
			want, werr := oldDecodeCompletion(bytes.NewReader(body), fuzzRequest, 1<<18)
			got, gerr := decodeCompletion(bytes.NewReader(body), fuzzRequest, 1<<18)
			if !sameOutcome(got, gerr, want, werr) {
				t.Errorf("%s at entry %d (%q): new %+v %v; old %+v %v", name, at, entry, got, gerr, want, werr)
			}
		}
	}
}
