package llamacpp

import (
	"bytes"
	"fmt"
	"math"
	"testing"
)

// fullVocabBody is a /completion answer with the full Gemma 4 distribution
// (262144 entries, about 20 MB), as llama-server sends it for n_probs =
// n_vocab.
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

// BenchmarkDecodeCompletionFullVocab decodes one full-vocabulary answer
// from a reader and computes its off-option mass: the client cost of one question on a
// real llama-server.
func BenchmarkDecodeCompletionFullVocab(b *testing.B) {
	body := fullVocabBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := decodeCompletion(bytes.NewReader(body), fuzzRequest, DefaultNVocab)
		if err != nil || len(d.cands) != 3 {
			b.Fatal(err, d.cands)
		}
		if d.offOptionMass(d.cands, DefaultNVocab) == nil {
			b.Fatal("mass missing for the full distribution")
		}
	}
}
