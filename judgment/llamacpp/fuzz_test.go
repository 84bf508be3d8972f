package llamacpp

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

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

// fuzzSeeds adds testdata/completion/*.json and bodies on the edges of the
// decoder's rules.
func fuzzSeeds(f *testing.F, add func([]byte)) {
	seeds, _ := filepath.Glob("testdata/completion/*.json")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		add(b)
	}
	for _, s := range []string{
		`{"completion_probabilities":[{"top_logprobs":[{"ID":1,"id":2,"logprob":-1}]}]}`,
		`{"completion_probabilities":[{"top_logprobs":[{"id":1,"logprob":-1,"id":2}]}]}`,
		`{"completion_probabilities":[{"top_logprobs":[{"id":236771,"logprob":-1}]}],"completion_probabilities":null}`,
		`{"completion_probabilities":[{"top_logprobs":[{"id":236771,"logprob":-1}],"top_logprobs":[{"id":236770,"logprob":-2},{"id":236770,"logprob":-2}]}]}`,
		`{"completion_probabilities":[{"top_logprobs":[null,{"id":1,"logprob":-1}]},{"top_logprobs":5}]}`,
		`{"completion_probabilities":[{"top_logprobs":[{"id":1,"logprob":-1}]}],"tokens_evaluated":NaN} `,
		`{"completion_prob\u0061bilities":[{"top_logprobs":[{"id":99999999999999999999,"logprob":-1}]}]}`,
		`{"completion_probabilities":[{"top_logprobs":[{"id":-0,"logprob":1e-400},{"id":7,"logprob":-Infinity}]}]}`,
		`null`, `[]`, `NaN`, `{"a":[[[[]]]],"b":"\ud800"}`, `{"completion_probabilities":[{"top_logprobs":[]}]} x`,
	} {
		add([]byte(s))
	}
}

// FuzzDecodeCompletion feeds arbitrary /completion bodies to the streaming
// decoder, in reads of every size. Invariant: a decoded result holds
// exactly the requested candidates in request order with finite,
// non-positive logprobs and distinct ids, and an off-option mass that is
// nil or in [0, 1]; every failure is one of the judgment error classes
// (never a panic, never an untyped error); reading the body in one-byte
// pieces gives the same outcome.
func FuzzDecodeCompletion(f *testing.F) {
	fuzzSeeds(f, func(b []byte) { f.Add(b, 3, 64) })
	f.Fuzz(func(t *testing.T, body []byte, nVocab, nBits int) {
		nBits %= 1 << 20
		d, err := decodeCompletion(bytes.NewReader(body), fuzzRequest, nBits)
		d1, err1 := decodeCompletion(iotest.OneByteReader(bytes.NewReader(body)), fuzzRequest, nBits)
		if !sameOutcome(d, err, d1, err1) {
			t.Fatalf("one-byte reads: %+v %v; whole: %+v %v", d1, err1, d, err)
		}
		res := judgment.ScoringResult{Candidates: d.cands}
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

// FuzzDecodeCompletionOracle checks the streaming decoder against
// encoding/json: [oracleDecode] reads the whole body into maps (exact keys,
// the last of a repeated key wins, as Python's json.loads) and applies the
// same rules. Both must give the same error message and class, or the same
// candidates, entry count, total mass and usage.
func FuzzDecodeCompletionOracle(f *testing.F) {
	fuzzSeeds(f, func(b []byte) { f.Add(b) })
	f.Fuzz(func(t *testing.T, body []byte) {
		got, gerr := decodeCompletion(bytes.NewReader(body), fuzzRequest, 1<<18)
		want, werr := oracleDecode(body, fuzzRequest)
		if !sameOutcome(got, gerr, want, werr) {
			t.Fatalf("streaming %+v %v; encoding/json %+v %v", got, gerr, want, werr)
		}
	})
}

// TestDecodeCompletionReadError checks that a body that fails while being
// read is a read error (a transport failure), even after a syntax error.
func TestDecodeCompletionReadError(t *testing.T) {
	for _, body := range []string{`{"completion_probabilities":[{"top_logprobs":[`, `{"x":!`} {
		r := io.MultiReader(strings.NewReader(body), iotest.ErrReader(io.ErrClosedPipe))
		_, err := decodeCompletion(r, fuzzRequest, 64)
		var re *readError
		if !errors.As(err, &re) || !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("%s: err = %v, want a read error", body, err)
		}
	}
}

func sameOutcome(a completion, aerr error, b completion, berr error) bool {
	if aerr != nil || berr != nil {
		return aerr != nil && berr != nil && aerr.Error() == berr.Error() &&
			judgment.ErrorClass(aerr) == judgment.ErrorClass(berr)
	}
	sameFloat := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	sameInt := func(x, y *int) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	if len(a.cands) != len(b.cands) || a.entries != b.entries || !sameFloat(a.total, b.total) ||
		!sameInt(a.usage.InputTokens, b.usage.InputTokens) || !sameInt(a.usage.OutputTokens, b.usage.OutputTokens) {
		return false
	}
	for i := range a.cands {
		if a.cands[i].Label != b.cands[i].Label || !sameFloat(a.cands[i].Logprob, b.cands[i].Logprob) {
			return false
		}
	}
	return true
}

// oracleDecode is the reference decoder: encoding/json into maps, with
// Python's NaN, Infinity and -Infinity rewritten into strings marked by a
// random nonce first (so no body can forge one).
func oracleDecode(body []byte, req judgment.ScoringRequest) (completion, error) {
	var nb [8]byte
	rand.Read(nb[:])
	mark := "\x00" + hex.EncodeToString(nb[:]) + ":"
	fixed := body
	if !json.Valid(fixed) {
		fixed = rewriteLiterals(body, mark)
		if !json.Valid(fixed) {
			return completion{}, errNonJSON()
		}
	}
	dec := json.NewDecoder(bytes.NewReader(fixed))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil || keyHolds(root, mark) {
		return completion{}, errNonJSON()
	}
	malformed := &judgment.GenerationError{Msg: msgMalformed}
	missing := &judgment.GenerationError{Msg: msgMissing}
	var out completion
	count := func(v any) *int {
		if n, ok := v.(json.Number); ok {
			return backendhttp.Count([]byte(n))
		}
		return nil
	}
	m, ok := root.(map[string]any)
	if root == nil {
		return completion{}, missing
	} else if !ok {
		return completion{}, malformed
	}
	out.usage.InputTokens, out.usage.OutputTokens = count(m["tokens_evaluated"]), count(m["tokens_predicted"])
	var list []any
	switch cp := m["completion_probabilities"].(type) {
	case nil:
		return completion{}, missing
	case []any:
		if len(cp) == 0 || cp[0] == nil {
			return completion{}, missing
		}
		pos, ok := cp[0].(map[string]any)
		if !ok {
			return completion{}, malformed
		}
		switch tl := pos["top_logprobs"].(type) {
		case nil:
			return completion{}, missing
		case []any:
			list = tl
		default:
			return completion{}, malformed
		}
	default:
		return completion{}, malformed
	}
	type row struct {
		id int
		lp float64
	}
	var rows []row
	lacks := false
	for _, e := range list {
		if e == nil {
			lacks = true
			continue
		}
		em, ok := e.(map[string]any)
		if !ok {
			return completion{}, malformed
		}
		idv, hasID := em["id"]
		lpv, hasLP := em["logprob"]
		var r row
		if hasID {
			n, ok := idv.(json.Number)
			id, err := strconv.Atoi(string(n))
			if !ok || err != nil {
				return completion{}, malformed
			}
			r.id = id
		}
		if hasLP {
			switch v := lpv.(type) {
			case json.Number:
				f, err := strconv.ParseFloat(string(v), 64)
				if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
					err = nil
				}
				if err != nil {
					return completion{}, malformed
				}
				r.lp = f
			case string:
				switch v {
				case mark + "NaN":
					r.lp = math.NaN()
				case mark + "Infinity":
					r.lp = math.Inf(1)
				case mark + "-Infinity":
					r.lp = math.Inf(-1)
				default:
					return completion{}, malformed
				}
			default:
				return completion{}, malformed
			}
		}
		if !hasID || !hasLP {
			lacks = true
			continue
		}
		rows = append(rows, r)
	}
	if lacks {
		return completion{}, &judgment.GenerationError{Msg: msgLacks}
	}
	seen := map[int]bool{}
	var total kahan
	lps := map[int]float64{}
	for _, r := range rows {
		if seen[r.id] {
			return completion{}, &judgment.ScoringValidationError{Msg: "llama.cpp top_logprobs lists token id " + strconv.Itoa(r.id) + " more than once"}
		}
		seen[r.id] = true
		total.add(math.Exp(r.lp))
		lps[r.id] = r.lp
	}
	out.entries, out.total = len(rows), total.sum()
	for _, c := range req.Candidates {
		if lp, ok := lps[c.TokenID]; ok {
			out.cands = append(out.cands, judgment.ScoredCandidate{Label: c.Label, TokenID: c.TokenID, Logprob: lp})
		}
	}
	return out, nil
}

// keyHolds reports whether an object key anywhere in v contains mark (a
// literal where a key belongs, which Python refuses).
func keyHolds(v any, mark string) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if strings.Contains(k, mark) || keyHolds(e, mark) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if keyHolds(e, mark) {
				return true
			}
		}
	}
	return false
}

// rewriteLiterals replaces NaN, Infinity and -Infinity outside strings by
// JSON strings of mark + the literal.
func rewriteLiterals(body []byte, mark string) []byte {
	var out []byte
	inString, escaped := false, false
	for i := 0; i < len(body); i++ {
		c := body[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			out = append(out, c)
			continue
		}
		if c == '"' {
			inString = true
		}
		matched := false
		for _, lit := range [...]string{"NaN", "Infinity", "-Infinity"} {
			if bytes.HasPrefix(body[i:], []byte(lit)) {
				q, _ := json.Marshal(mark + lit)
				out = append(out, q...)
				i += len(lit) - 1
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, c)
		}
	}
	return out
}
