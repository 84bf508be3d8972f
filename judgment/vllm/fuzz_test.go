package vllm

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

// fuzzRequest is the spec's real example: three Gemma 4 candidates.
var fuzzRequest = judgment.ScoringRequest{
	Model:  "gemma-4-31b-it",
	Prefix: "p",
	Candidates: []judgment.Candidate{
		{Label: "0", TokenID: 236771}, {Label: "1", TokenID: 236770}, {Label: "2", TokenID: 236778},
	},
}

// FuzzDecodeChat feeds arbitrary /v1/chat/completions bodies to the
// decoder, seeded with chatSeeds and the entry rules. Invariant: a decoded result holds exactly the requested
// candidates in request order with finite, non-positive logprobs and
// distinct ids, no off-option mass, and non-negative usage; every failure
// is one of the judgment error classes.
func FuzzDecodeChat(f *testing.F) {
	for _, b := range chatSeeds(f) {
		f.Add(b)
	}
	for _, e := range entryRules {
		f.Add(entryRuleBody(e))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := decodeChat(body, fuzzRequest)
		if err != nil {
			if !judgment.IsGenerationError(err) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		if len(res.Candidates) != len(fuzzRequest.Candidates) || res.OffOptionMass != nil {
			t.Fatalf("result %+v", res)
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
		for _, n := range []*int{res.Usage.InputTokens, res.Usage.OutputTokens} {
			if n != nil && *n < 0 {
				t.Fatalf("negative token count %d", *n)
			}
		}
	})
}

// TestDecodeChatExample checks the spec's real Gemma 4 example.
func TestDecodeChatExample(t *testing.T) {
	b, err := os.ReadFile("testdata/chat/valid.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := decodeChat(b, fuzzRequest)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-12.330, -15.393, -10.893}
	for i, c := range res.Candidates {
		if c.Logprob != want[i] {
			t.Errorf("%s: %v, want %v", c.Label, c.Logprob, want[i])
		}
	}
	if res.Usage.InputTokens == nil || *res.Usage.InputTokens != 83 || *res.Usage.OutputTokens != 1 {
		t.Errorf("usage %+v", res.Usage)
	}
}

// FuzzDecodeTokenize feeds arbitrary /tokenize bodies to decodeTokenize.
// Invariant: a failure is one of the two GenerationErrors (not JSON; no
// list of integer tokens); on success every token was a JSON integer
// literal in the body (never 1.0 or 1e2) and the tokens written back decode
// to the same list.
func FuzzDecodeTokenize(f *testing.F) {
	for _, s := range []string{`{"count":1,"max_model_len":8192,"tokens":[236771],"token_strs":null}`, `{"tokens":[]}`,
		`{"tokens":[1.0]}`, `{"tokens":[1e2]}`, `{"tokens":[true]}`, `{"tokens":[-1,9223372036854775808]}`, `{"tokens":null}`,
		`{"TOKENS":[7]}`, `{"tokens":[1],"tokens":[2]}`, `[]`, `null`, `<html>`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		toks, err := decodeTokenize(body)
		if err != nil {
			var ge *judgment.GenerationError
			if !errors.As(err, &ge) || (ge.Msg != "vLLM returned non-JSON HTTP body" && ge.Msg != "vLLM /tokenize response must hold a list of integer tokens") {
				t.Fatalf("error %T %v, want a /tokenize GenerationError", err, err)
			}
			return
		}
		var lit struct {
			Tokens []json.Number `json:"tokens"`
		}
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		if err := d.Decode(&lit); err != nil || len(lit.Tokens) != len(toks) {
			t.Fatalf("tokens %v decoded from %q, which holds %v (%v)", toks, body, lit.Tokens, err)
		}
		for i, n := range lit.Tokens {
			if strings.ContainsAny(n.String(), ".eE") || n.String() != strconv.Itoa(toks[i]) && n.String() != "-0" {
				t.Fatalf("token %d is the literal %s, decoded as %d; want an integer literal", i, n, toks[i])
			}
		}
		again, _ := json.Marshal(TokenizeResponse{Tokens: &toks})
		back, err := decodeTokenize(again)
		if err != nil || !slices.Equal(back, toks) {
			t.Fatalf("tokens %v written as %s read back as %v (%v)", toks, again, back, err)
		}
	})
}
