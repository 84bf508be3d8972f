package llamacpp

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzDecodeCompletionFast checks today's decoder against the decoder
// before issue 18 (oldDecodeCompletion, kept in olddecode_test.go as the
// oracle): for every body, read whole and in one-byte pieces, both accept
// or refuse it alike (same message and class) with the same candidates,
// entry count, mass rule and usage. The seeds are the testdata answers,
// the fuzzers' edge bodies and small answers in llama-server's real shape.
func FuzzDecodeCompletionFast(f *testing.F) {
	fuzzSeeds(f, func(b []byte) { f.Add(b, 64) })
	for n, seed := range []int{4, 16, 64} {
		f.Add(genRealVocab(uint64(seed), n+4), 1<<18)
	}
	f.Add([]byte(`{"completion_probabilities":[{"top_logprobs":[{"id":236771,"token":"a\u0000\"","bytes":[0,34],"logprob":-0.0100503358535014},{"id":5,"token":"b","bytes":[],"logprob":-17.5}]}]}`), 64)
	f.Add([]byte(`{"completion_probabilities":[{"top_logprobs":[{"id":01,"token":"a","bytes":[1],"logprob":-1},{"id":2,"token":"a","bytes":[01],"logprob":-1}]}]}`), 64)
	f.Add([]byte(`{"completion_probabilities":[{"top_logprobs":[{"id":1,"token":"a","bytes":[1],"logprob":-16.5e-3},{"id":2,"token":"\x01","bytes":[1,],"logprob":-1e400}]}]}`), 64)
	f.Fuzz(func(t *testing.T, body []byte, nBits int) {
		nBits %= 1 << 20
		want, werr := oldDecodeCompletion(bytes.NewReader(body), fuzzRequest, nBits)
		got, gerr := decodeCompletion(bytes.NewReader(body), fuzzRequest, nBits)
		if !sameOutcome(got, gerr, want, werr) {
			t.Fatalf("new %+v %v; old %+v %v", got, gerr, want, werr)
		}
		got, gerr = decodeCompletion(iotest.HalfReader(bytes.NewReader(body)), fuzzRequest, nBits)
		if !sameOutcome(got, gerr, want, werr) {
			t.Fatalf("new, half reads %+v %v; old %+v %v", got, gerr, want, werr)
		}
	})
}

// TestDecodeCompletionMassRule checks the mass rule where massSum's bounds
// cannot decide it and the kept text is summed exactly: totals a hair
// inside and outside 0.99 and 1.01, NaN, ±Inf and overflowing sums, with
// far (below −16) and near logprobs, and the replay limit reached midway.
func TestDecodeCompletionMassRule(t *testing.T) {
	body := func(lps ...string) []byte {
		var b strings.Builder
		b.WriteString(`{"completion_probabilities":[{"top_logprobs":[`)
		for i, lp := range lps {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%d,"token":"t","bytes":[116],"logprob":%s}`, i, lp)
		}
		b.WriteString(`]}]}`)
		return []byte(b.String())
	}
	g := func(x float64) string { return fmt.Sprint(math.Log(x)) }
	far := func(n int, lp string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = lp
		}
		return out
	}
	cases := map[string][]string{
		"0.99":           {g(0.99)},
		"0.99 less":      {g(math.Nextafter(0.99, 0))},
		"0.99 more":      {g(math.Nextafter(0.99, 1))},
		"1.01":           {g(1.01)},
		"1.01 more":      {g(math.Nextafter(1.01, 2))},
		"split 0.99":     {g(0.5), g(0.49)},
		"split 1.01":     {g(0.51), g(0.5)},
		"NaN":            {g(1), "NaN"},
		"Infinity":       {"Infinity"},
		"-Infinity":      {g(1), "-Infinity"},
		"overflow":       {"1e308", "1e308"},
		"exponents":      {"-1e-30", "-2.5E+1", "-0.0e0"},
		"far 1.01":       append(far(3000, "-16.25"), g(1.01-3000*math.Exp(-16.25))),
		"far 0.99":       append([]string{g(0.99 - 4000*math.Exp(-17.99))}, far(4000, "-17.99")...),
		"far only":       far(5000, "-16.0"),
		"far beyond 745": {g(1), "-746.5", "-99999999999999999999.5"},
	}
	for name, lps := range cases {
		b := body(lps...)
		want, werr := oldDecodeCompletion(bytes.NewReader(b), fuzzRequest, 1<<16)
		got, gerr := decodeCompletion(bytes.NewReader(b), fuzzRequest, 1<<16)
		if !sameOutcome(got, gerr, want, werr) {
			t.Errorf("%s: new %+v %v; old %+v %v", name, got, gerr, want, werr)
		}
		saved := replayLimit
		replayLimit = 64
		got, gerr = decodeCompletion(bytes.NewReader(b), fuzzRequest, 1<<16)
		replayLimit = saved
		if !sameOutcome(got, gerr, want, werr) {
			t.Errorf("%s, replay limit 64: new %+v %v; old %+v %v", name, got, gerr, want, werr)
		}
	}
}

// TestDecodeCompletionOutsideIDs checks the bound on ids outside the
// bitset: up to maxOutsideIDs distinct ones are read as before (a repeat
// among them is still refused), one more refuses the answer.
func TestDecodeCompletionOutsideIDs(t *testing.T) {
	body := func(n int, repeat bool) []byte {
		var b strings.Builder
		b.WriteString(`{"completion_probabilities":[{"top_logprobs":[`)
		for i := range n {
			fmt.Fprintf(&b, `{"id":%d,"logprob":-30},`, -1-i)
		}
		if repeat {
			b.WriteString(`{"id":-1,"logprob":-30},`)
		}
		b.WriteString(`{"id":236771,"logprob":-0.1}]}]}`)
		return []byte(b.String())
	}
	if d, err := decodeCompletion(bytes.NewReader(body(maxOutsideIDs, false)), fuzzRequest, 64); err != nil || d.entries != maxOutsideIDs+1 {
		t.Fatalf("%d outside ids: %v, %d entries", maxOutsideIDs, err, d.entries)
	}
	if _, err := decodeCompletion(bytes.NewReader(body(100, true)), fuzzRequest, 64); err == nil || !strings.Contains(err.Error(), "token id -1 more than once") {
		t.Fatalf("repeated outside id: %v", err)
	}
	_, err := decodeCompletion(bytes.NewReader(body(maxOutsideIDs+1, false)), fuzzRequest, 64)
	if err == nil || err.Error() != msgOutside {
		t.Fatalf("%d outside ids: %v, want %q", maxOutsideIDs+1, err, msgOutside)
	}
	// Ids past n_probs but below maxBitsetIDs grow the bitset instead.
	var b strings.Builder
	b.WriteString(`{"completion_probabilities":[{"top_logprobs":[`)
	for i := range 3 * maxOutsideIDs {
		fmt.Fprintf(&b, `{"id":%d,"logprob":-30},`, 1000+i*97)
	}
	b.WriteString(`{"id":1000,"logprob":-0.1}]}]}`)
	if _, err := decodeCompletion(strings.NewReader(b.String()), fuzzRequest, 64); err == nil || !strings.Contains(err.Error(), "token id 1000 more than once") {
		t.Fatalf("repeat past n_probs: %v", err)
	}
}

// TestLongDigitsEnd checks the eight-at-a-time digit scan against the
// byte-at-a-time one on every byte around the digit range.
func TestLongDigitsEnd(t *testing.T) {
	for c := range 256 {
		for pos := range 12 {
			b := []byte("12345678901234567890")
			if pos < len(b) {
				b[pos] = byte(c)
			}
			if got, want := longDigitsEnd(b, 0), digitsEnd(b, 0); got != want {
				t.Fatalf("byte %#x at %d: %d, want %d", c, pos, got, want)
			}
		}
	}
}

// TestDecodeCompletionLongKeys: keys longer than maxKeyBytes (plain or
// escaped) are kept as a marker and read as the unknown keys they are,
// as the previous decoder read them.
func TestDecodeCompletionLongKeys(t *testing.T) {
	long := strings.Repeat("k", 3*maxKeyBytes)
	escaped := strings.Repeat(`\u0041`, maxKeyBytes)
	for _, body := range []string{
		`{"` + long + `":1,"completion_probabilities":[{"top_logprobs":[{"id":236771,"logprob":-0.1}]}]}`,
		`{"` + escaped + `":[1],"completion_probabilities":[{"top_logprobs":[{"id":236771,"` + long + `":2,"logprob":-0.1}]}]}`,
		`{"` + escaped + `":[1],"completion_probabilities":[{"top_logprobs":[{"` + escaped + `":2}]}]}`,
	} {
		got, gerr := decodeCompletion(strings.NewReader(body), fuzzRequest, 64)
		want, werr := oldDecodeCompletion(strings.NewReader(body), fuzzRequest, 64)
		if !sameOutcome(got, gerr, want, werr) || cap(decoders.Get().(*decoder).s.tok) > 4*maxKeyBytes {
			t.Errorf("new %+v %v; old %+v %v", got, gerr, want, werr)
		}
	}
}
