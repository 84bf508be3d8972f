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
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/judgment"
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
// candidates, entry count, mass rule and usage.
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
	if len(a.cands) != len(b.cands) || a.entries != b.entries || a.massOK != b.massOK ||
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
	out.entries, out.massOK = len(rows), math.Abs(total.sum()-1) <= 1e-2
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

// FuzzDecodeProps feeds arbitrary /props bodies to decodeProps. Invariant:
// a failure is a *judgment.GenerationError and only for a body that is not
// JSON; on success the media marker is never empty (the server's string or
// the default "<__media__>"), n_ctx is nil or non-negative, and the props
// written back as a /props body decode to the same props.
func FuzzDecodeProps(f *testing.F) {
	for _, s := range []string{
		`{"modalities":{"vision":true},"media_marker":"<__media_x__>","build_info":"b1-abc","model_alias":"m","default_generation_settings":{"n_ctx":8192}}`,
		`{"modalities":{"vision":"true"},"media_marker":"","build_info":7,"model_alias":null}`,
		`{"media_marker":null,"default_generation_settings":{"n_ctx":-1}}`,
		`{"default_generation_settings":{"n_ctx":8192.0}}`, `{"MEDIA_MARKER":"<x>","Build_Info":""}`,
		`{}`, `null`, `[]`, `"x"`, `{"modalities":null}`, `{"model_alias":"\ud800"}`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := decodeProps(body)
		if err != nil {
			var ge *judgment.GenerationError
			if !errors.As(err, &ge) || ge.Msg != "llama.cpp returned non-JSON HTTP body" {
				t.Fatalf("error %T %v, want the non-JSON GenerationError", err, err)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("decoded a body that is not JSON: %q", body)
		}
		if p.MediaMarker == "" {
			t.Fatal("empty media marker; the default is <__media__>")
		}
		if p.NCtx != nil && *p.NCtx < 0 {
			t.Fatalf("n_ctx = %d, want nil or >= 0", *p.NCtx)
		}
		again, err := json.Marshal(map[string]any{
			"modalities":                  map[string]bool{"vision": p.Vision},
			"media_marker":                p.MediaMarker,
			"build_info":                  p.BuildInfo,
			"model_alias":                 p.ModelAlias,
			"default_generation_settings": map[string]*int{"n_ctx": p.NCtx},
		})
		if err != nil {
			t.Fatal(err)
		}
		q, err := decodeProps(again)
		if err != nil || q.Vision != p.Vision || q.MediaMarker != p.MediaMarker || q.BuildInfo != p.BuildInfo ||
			q.ModelAlias != p.ModelAlias || (q.NCtx == nil) != (p.NCtx == nil) || (q.NCtx != nil && *q.NCtx != *p.NCtx) {
			t.Fatalf("props %+v written as %s read back as %+v (%v)", p, again, q, err)
		}
	})
}

// FuzzDecodeTokenize feeds arbitrary /tokenize bodies to decodeTokenize.
// Invariant: a failure is one of the two GenerationErrors (not JSON; no
// tokens list of integers); on success every token was a JSON integer
// literal in the body (never 1.0 or 1e2) and the tokens written back decode
// to the same list.
func FuzzDecodeTokenize(f *testing.F) {
	for _, s := range []string{`{"tokens":[236771]}`, `{"tokens":[]}`, `{"tokens":[1.0]}`, `{"tokens":[1e2]}`, `{"tokens":[true]}`,
		`{"tokens":[-1,9223372036854775808]}`, `{"tokens":null}`, `{"TOKENS":[7]}`, `{"tokens":[1],"tokens":[2]}`, `[]`, `null`, `<html>`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		toks, err := decodeTokenize(body)
		if err != nil {
			var ge *judgment.GenerationError
			if !errors.As(err, &ge) || (ge.Msg != "llama.cpp returned non-JSON HTTP body" && ge.Msg != "llama.cpp /tokenize response missing a tokens list of integers") {
				t.Fatalf("error %T %v, want a /tokenize GenerationError", err, err)
			}
			return
		}
		assertIntegerTokens(t, body, toks)
		again, _ := json.Marshal(TokenizeResponse{Tokens: &toks})
		back, err := decodeTokenize(again)
		if err != nil || !slices.Equal(back, toks) {
			t.Fatalf("tokens %v written as %s read back as %v (%v)", toks, again, back, err)
		}
	})
}

// assertIntegerTokens checks, with a decoder that keeps number literals,
// that the tokens list of body holds exactly toks, each written as an
// integer.
func assertIntegerTokens(t *testing.T, body []byte, toks []int) {
	t.Helper()
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
}

// FuzzDecodeApplyTemplate feeds arbitrary /apply-template bodies to
// decodeApplyTemplate. Invariant: a failure is one of the two
// GenerationErrors; on success the body is JSON and the prompt written back
// decodes to the same prompt.
func FuzzDecodeApplyTemplate(f *testing.F) {
	for _, s := range []string{`{"prompt":"<|turn>user\nhi<turn|>\n"}`, `{"prompt":""}`, `{"prompt":null}`, `{"prompt":7}`,
		`{"Prompt":"x"}`, `{"prompt":"\ud800"}`, `[]`, `null`, `x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		prompt, err := decodeApplyTemplate(body)
		if err != nil {
			var ge *judgment.GenerationError
			if !errors.As(err, &ge) || (ge.Msg != "llama.cpp returned non-JSON HTTP body" && ge.Msg != "llama.cpp /apply-template response missing a prompt string") {
				t.Fatalf("error %T %v, want an /apply-template GenerationError", err, err)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("decoded a body that is not JSON: %q", body)
		}
		again, _ := json.Marshal(ApplyTemplateResponse{Prompt: &prompt})
		back, err := decodeApplyTemplate(again)
		if err != nil || back != prompt {
			t.Fatalf("prompt %q written as %s read back as %q (%v)", prompt, again, back, err)
		}
	})
}

// FuzzDecodeNVocab feeds arbitrary /v1/models bodies and model names to
// decodeNVocab. Invariant: the result is 0 (unknown) or positive; a
// positive size comes from a JSON body and survives being written back as
// the one entry of a /v1/models body; with a single entry the model name
// does not matter.
func FuzzDecodeNVocab(f *testing.F) {
	for _, s := range []string{
		`{"data":[{"id":"m","meta":{"n_vocab":262144}}]}`,
		`{"data":[{"id":"a","aliases":["m"],"meta":{"n_vocab":5}},{"id":"m","meta":{"n_vocab":7}}]}`,
		`{"data":[{"id":"x","meta":{"n_vocab":0}}]}`, `{"data":[{"id":"m","meta":{"n_vocab":-3}}]}`,
		`{"data":[{"id":"m","meta":{"n_vocab":5.0}}]}`, `{"data":[{"id":"m","meta":{"n_vocab":"5"}}]}`,
		`{"data":[{"id":"a"},{"id":"b"}]}`, `{"data":null}`, `{}`, `null`, `[`,
	} {
		f.Add([]byte(s), "m")
	}
	f.Fuzz(func(t *testing.T, body []byte, model string) {
		n := decodeNVocab(body, model)
		if n < 0 {
			t.Fatalf("n_vocab = %d, want 0 (unknown) or > 0", n)
		}
		var w ModelsResponse
		if json.Unmarshal(body, &w) == nil && len(w.Data) == 1 {
			if other := decodeNVocab(body, model+"-other"); other != n {
				t.Fatalf("one entry: n_vocab %d for %q but %d for another name", n, model, other)
			}
		}
		if n == 0 {
			return
		}
		if !json.Valid(body) {
			t.Fatalf("n_vocab %d from a body that is not JSON: %q", n, body)
		}
		again := `{"data":[{"id":` + strconv.Quote("x") + `,"meta":{"n_vocab":` + strconv.Itoa(n) + `}}]}`
		if back := decodeNVocab([]byte(again), model); back != n {
			t.Fatalf("n_vocab %d written as %s read back as %d", n, again, back)
		}
	})
}
