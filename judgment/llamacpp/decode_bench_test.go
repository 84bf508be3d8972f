package llamacpp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/typevet/typevet-go/internal/pyjson"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// fullVocabBody is a /completion answer with the full Gemma 4 distribution
// (262144 entries, about 20 MB), as llama-server sends it for n_probs =
// n_vocab, every entry alike.
func fullVocabBody(tb testing.TB) []byte {
	tb.Helper()
	var b bytes.Buffer
	b.WriteString(`{"index":0,"content":"","tokens":[],"id_slot":0,"stop":true,"model":"gemma-4","tokens_predicted":0,"tokens_evaluated":1183,"completion_probabilities":[{"id":236770,"token":"1","bytes":[49],"logprob":-0.2,"top_logprobs":[`)
	lp := math.Log(1.0 / DefaultNVocab)
	for id := range DefaultNVocab {
		if id > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"token":"tok%d","bytes":[116,111,107],"logprob":%v}`, id, id, lp)
	}
	b.WriteString(`]}]}`)
	return b.Bytes()
}

var (
	realVocabOnce sync.Once
	realVocab     []byte
)

// realVocabBody is a /completion answer in the shape llama-server writes
// for n_probs = 262144 (about 24 MB): ids 0..262143 once each, in
// descending probability order; token text like a SentencePiece vocabulary
// (words with and without a leading space, accented and CJK letters,
// emoji, byte tokens, white space, quotes and backslashes, control bytes
// escaped as nlohmann::json escapes them) with its UTF-8 bytes; logprobs of
// a peaked softmax computed in float32 (as llama.cpp does) and printed as
// the shortest float64 (so mostly 17 significant digits). The candidates of
// fuzzRequest hold most of the mass.
func realVocabBody(tb testing.TB) []byte {
	tb.Helper()
	realVocabOnce.Do(func() { realVocab = genRealVocab(1, DefaultNVocab) })
	return realVocab
}

// genRealVocab writes an answer like realVocabBody's with n entries: ids
// 0..n-1, the last three renamed to fuzzRequest's candidates when n is
// smaller than they are.
func genRealVocab(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 18))
	logits := make([]float64, max(n, 236779))
	for i := range logits {
		logits[i] = rng.NormFloat64() * 2.5
	}
	logits[236771], logits[236770], logits[236778] = 22, 20.5, 17
	if n < len(logits) {
		logits[n-3], logits[n-2], logits[n-1] = 22, 20.5, 17
		logits = logits[:n]
	}
	maxL := slices.Max(logits)
	var z float64
	for _, l := range logits {
		z += math.Exp(l - maxL)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case logits[a] > logits[b]:
			return -1
		case logits[a] < logits[b]:
			return 1
		}
		return 0
	})
	var b bytes.Buffer
	b.Grow(26 << 20)
	b.WriteString(`{"index":0,"content":"1","tokens":[],"id_slot":0,"stop":true,"model":"gemma-4-e4b","tokens_predicted":1,"tokens_evaluated":1183,"has_new_line":false,"truncated":false,"stop_type":"limit","stopping_word":"","tokens_cached":1182,"timings":{"prompt_n":1,"prompt_ms":21.4,"prompt_per_token_ms":21.4,"prompt_per_second":46.7,"predicted_n":1,"predicted_ms":0.1,"predicted_per_token_ms":0.1,"predicted_per_second":10000.0},"completion_probabilities":[{"id":236771,"token":"0","bytes":[48],"logprob":-0.21,"top_logprobs":[`)
	for k, id := range order {
		if k > 0 {
			b.WriteByte(',')
		}
		p := float32(math.Exp(logits[id]-maxL) / z)
		lp := float64(float32(math.Log(float64(p))))
		tok := vocabPiece(rng, id)
		b.WriteString(`{"id":`)
		if n < DefaultNVocab && id >= n-3 {
			id = fuzzRequest.Candidates[id-(n-3)].TokenID
		}
		b.WriteString(strconv.Itoa(id))
		b.WriteString(`,"token":`)
		writeNlohmannString(&b, tok)
		b.WriteString(`,"bytes":[`)
		for j := 0; j < len(tok); j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(int(tok[j])))
		}
		b.WriteString(`],"logprob":`)
		b.WriteString(strconv.FormatFloat(lp, 'g', -1, 64))
		b.WriteByte('}')
	}
	b.WriteString(`]}]}`)
	return b.Bytes()
}

// vocabPiece returns a plausible token text for id.
func vocabPiece(rng *rand.Rand, id int) string {
	const letters = "etaoinshrdlcumwfgypbvkjxqz"
	word := func(n int) string {
		w := make([]byte, n)
		for i := range w {
			w[i] = letters[min(rng.IntN(len(letters)), rng.IntN(len(letters)))]
		}
		return string(w)
	}
	switch r := rng.IntN(100); {
	case id < 256:
		return string([]byte{byte(id)}) // byte tokens: control bytes, quotes, backslash
	case id < 6400:
		return fmt.Sprintf("<unused%d>", id-256)
	case r < 45:
		return " " + word(1+rng.IntN(9))
	case r < 75:
		return word(1 + rng.IntN(8))
	case r < 85:
		return string(rune(0x4e00 + rng.IntN(20000)))
	case r < 92:
		return " " + string(rune(0xc0+rng.IntN(0x17f-0xc0))) + word(rng.IntN(5))
	case r < 95:
		return string(rune(0x1f600 + rng.IntN(80)))
	case r < 98:
		return []string{"\n", "\n\n", "  ", "\t", "    ", " \"", "\\", "\").", "\r\n"}[rng.IntN(9)]
	}
	return word(1+rng.IntN(6)) + "\u2581"
}

// writeNlohmannString writes s as nlohmann::json dumps a string: quotes,
// backslashes and control bytes escaped, other bytes (UTF-8 or not) as is.
func writeNlohmannString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// TestRealVocabBody checks the generator: a 22–26 MB answer holding ids
// 0..262143 once each, which both decoders read alike and whose mass the
// client reports.
func TestRealVocabBody(t *testing.T) {
	if testing.Short() {
		t.Skip("24 MB body")
	}
	body := realVocabBody(t)
	if n := len(body); n < 22<<20 || n > 26<<20 {
		t.Fatalf("body is %d bytes, want 22–26 MB", n)
	}
	d, err := decodeCompletion(bytes.NewReader(body), fuzzRequest, DefaultNVocab)
	o, oerr := oldDecodeCompletion(bytes.NewReader(body), fuzzRequest, DefaultNVocab)
	if err != nil || !sameOutcome(d, err, o, oerr) {
		t.Fatalf("new %+v %v; old %+v %v", d, err, o, oerr)
	}
	if d.entries != DefaultNVocab || len(d.cands) != 3 || d.offOptionMass(d.cands, DefaultNVocab) == nil {
		t.Fatalf("entries %d, %d candidates, mass rule %v", d.entries, len(d.cands), d.massOK)
	}
}

// benchDecode decodes body with decode and computes its off-option mass:
// the client cost of one question on a real llama-server. cpu-ns/op is
// the process CPU time per decode (less disturbed than ns/op by other
// work on a shared machine).
func benchDecode(b *testing.B, body []byte, decode func(*bytes.Reader) (completion, error)) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	cpu0 := judgmenttest.ProcessCPU()
	defer func() {
		b.ReportMetric(float64(judgmenttest.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	}()
	for b.Loop() {
		d, err := decode(bytes.NewReader(body))
		if err != nil || len(d.cands) != 3 {
			b.Fatal(err, d.cands)
		}
		if d.offOptionMass(d.cands, DefaultNVocab) == nil {
			b.Fatal("mass missing for the full distribution")
		}
	}
}

// BenchmarkDecodeCompletionFullVocab decodes the uniform full-vocabulary
// answer of fullVocabBody: Old is the decoder before issue 18 (the
// baseline), New today's.
func BenchmarkDecodeCompletionFullVocab(b *testing.B) {
	body := fullVocabBody(b)
	b.Run("Old", func(b *testing.B) {
		benchDecode(b, body, func(r *bytes.Reader) (completion, error) {
			return oldDecodeCompletion(r, fuzzRequest, DefaultNVocab)
		})
	})
	b.Run("New", func(b *testing.B) {
		benchDecode(b, body, func(r *bytes.Reader) (completion, error) {
			return decodeCompletion(r, fuzzRequest, DefaultNVocab)
		})
	})
}

// BenchmarkDecodeCompletionRealVocab is BenchmarkDecodeCompletionFullVocab
// on the real-shape answer of realVocabBody (issue 18's target: New at
// least 4× faster than Old).
func BenchmarkDecodeCompletionRealVocab(b *testing.B) {
	body := realVocabBody(b)
	b.Run("Old", func(b *testing.B) {
		benchDecode(b, body, func(r *bytes.Reader) (completion, error) {
			return oldDecodeCompletion(r, fuzzRequest, DefaultNVocab)
		})
	})
	b.Run("New", func(b *testing.B) {
		benchDecode(b, body, func(r *bytes.Reader) (completion, error) {
			return decodeCompletion(r, fuzzRequest, DefaultNVocab)
		})
	})
	b.Run("PyjsonScanFloor", func(b *testing.B) { benchPyjsonScan(b, body) })
}

// benchPyjsonScan is the floor of decoding with internal/pyjson's scanner
// instead of the stream's own: reading the body whole and only validating
// it (pyjson.DecodeObject with a callback that keeps nothing), no decoding.
// When the floor alone is slower than New, sharing the scanner would slow
// the hot path, so stream keeps its own (see the stream type).
func benchPyjsonScan(b *testing.B, body []byte) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	cpu0 := judgmenttest.ProcessCPU()
	defer func() {
		b.ReportMetric(float64(judgmenttest.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	}()
	for b.Loop() {
		data, err := io.ReadAll(bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		if err := pyjson.DecodeObject(data, func(string, json.RawMessage) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
