package llamacpp

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/backend/backendhttp"
)

// fuzzRequest is the scoring request the decoder fuzzers answer: three
// candidates bound to Gemma 4 control ids.
var fuzzRequest = judgment.ScoringRequest{
	Model:  "m",
	Prefix: "p",
	Candidates: []judgment.Candidate{
		{Label: "0", TokenID: 236771}, {Label: "1", TokenID: 236770}, {Label: "2", TokenID: 236778},
	},
}

// FuzzDecodeCompletion feeds arbitrary /completion bodies to the decoder.
// Invariant: a decoded result holds exactly the requested candidates in
// request order with finite, non-positive logprobs and distinct ids, and an
// off-option mass that is nil or in [0, 1]; every failure is one of the
// judgment error classes (never a panic, never an untyped error).
func FuzzDecodeCompletion(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/completion/*.json")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, 3)
	}
	f.Fuzz(func(t *testing.T, body []byte, nVocab int) {
		d, err := decodeCompletion(body)
		var res judgment.ScoringResult
		if err == nil {
			res.Candidates, err = d.candidates(fuzzRequest)
		}
		if err == nil {
			err = fuzzRequest.ValidateResult(res)
		}
		if err != nil {
			if !judgment.IsGenerationError(err) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		seen := map[int]bool{}
		for i, c := range res.Candidates {
			if c.Label != fuzzRequest.Candidates[i].Label || c.TokenID != fuzzRequest.Candidates[i].TokenID {
				t.Fatalf("row %d = %+v, not the request's", i, c)
			}
			if math.IsNaN(c.Logprob) || math.IsInf(c.Logprob, 0) || c.Logprob > 1e-6 || seen[c.TokenID] {
				t.Fatalf("row %d = %+v: non-finite, positive or duplicate", i, c)
			}
			seen[c.TokenID] = true
		}
		if m := d.offOptionMass(res.Candidates, nVocab); m != nil && !(*m >= 0 && *m <= 1) {
			t.Fatalf("mass %v outside [0, 1]", *m)
		}
		for _, n := range []*int{d.usage.InputTokens, d.usage.OutputTokens} {
			if n != nil && *n < 0 {
				t.Fatalf("negative token count %d", *n)
			}
		}
	})
}

// FuzzScanCompletion checks the fast scanner against encoding/json: when
// the scanner accepts a body, the encoding/json path accepts it too and
// yields the same entries and usage.
func FuzzScanCompletion(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/completion/*.json")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"completion_probabilities":[{"top_logprobs":[{"ID":1,"id":2,"logprob":-1}]}]}`))
	f.Add([]byte(`{"completion_probabilities":[{"top_logprobs":[{"id":1,"logprob":-1,"id":2}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fast, ok := scanCompletion(body)
		if !ok {
			return
		}
		var w CompletionResponse
		if err := json.Unmarshal(body, &w); err != nil {
			t.Fatalf("scanner accepted a body encoding/json refuses: %v", err)
		}
		if len(w.CompletionProbabilities) == 0 || w.CompletionProbabilities[0].TopLogprobs == nil {
			t.Fatal("scanner accepted a body without top_logprobs")
		}
		slow := *w.CompletionProbabilities[0].TopLogprobs
		if len(slow) != len(fast.entries) {
			t.Fatalf("%d entries, encoding/json %d", len(fast.entries), len(slow))
		}
		for i := range slow {
			a, b := fast.entries[i], slow[i]
			if a.ID != b.ID || a.Logprob.Valid != b.Logprob.Valid ||
				!(a.Logprob.Value == b.Logprob.Value || math.IsNaN(a.Logprob.Value) && math.IsNaN(b.Logprob.Value)) {
				t.Fatalf("entry %d: %+v, encoding/json %+v", i, a, b)
			}
		}
		same := func(x *int, raw json.RawMessage) bool {
			y := backendhttp.Count(raw)
			return (x == nil) == (y == nil) && (x == nil || *x == *y)
		}
		if !same(fast.usage.InputTokens, w.TokensEvaluated) || !same(fast.usage.OutputTokens, w.TokensPredicted) {
			t.Fatalf("usage %+v differs from encoding/json", fast.usage)
		}
	})
}
