package llamacpp

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

// TestOutOfVocabBounded: ids above n_vocab are tracked for duplicates in a
// map that a hostile server could grow without end; past maxOutOfVocab
// of them the answer is refused.
func TestOutOfVocabBounded(t *testing.T) {
	body := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString(`{"completion_probabilities":[{"top_logprobs":[`)
		for i := range n {
			fmt.Fprintf(&b, `{"id":%d,"logprob":-30},`, DefaultNVocab+i)
		}
		b.WriteString(`{"id":236771,"logprob":-0.1},{"id":236770,"logprob":-3},{"id":236778,"logprob":-4}]}]}`)
		return b.Bytes()
	}
	if _, err := decodeCompletion(bytes.NewReader(body(maxOutOfVocab)), fuzzRequest, DefaultNVocab); err != nil {
		t.Fatalf("%d ids outside the vocabulary: %v", maxOutOfVocab, err)
	}
	_, err := decodeCompletion(bytes.NewReader(body(maxOutOfVocab+1)), fuzzRequest, DefaultNVocab)
	if judgment.ErrorClass(err) != "GenerationError" || err.Error() != msgOutOfVocab {
		t.Fatalf("one more: %v, want %q", err, msgOutOfVocab)
	}
	d := decoders.Get().(*decoder)
	defer decoders.Put(d)
	if len(d.seenMap) > maxOutOfVocab {
		t.Errorf("pooled decoder holds %d out-of-vocab ids", len(d.seenMap))
	}
}
