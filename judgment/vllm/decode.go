package vllm

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/judgment"
)

// idPrefix starts every top_logprobs token under return_tokens_as_token_ids
// (typevet ID_FORM_PREFIX).
const idPrefix = "token_id:"

func errNonJSON() error { return &judgment.GenerationError{Msg: "vLLM returned non-JSON HTTP body"} }

// decodeTokenize reads a /tokenize body.
func decodeTokenize(body []byte) ([]int, error) {
	if !json.Valid(body) {
		return nil, errNonJSON()
	}
	var w TokenizeResponse
	if err := json.Unmarshal(body, &w); err != nil || w.Tokens == nil {
		return nil, &judgment.GenerationError{Msg: "vLLM /tokenize response must hold a list of integer tokens"}
	}
	return *w.Tokens, nil
}

// decodeChat turns a /v1/chat/completions body into the validated result
// of req: choices[0].logprobs.content[0].top_logprobs, each
// token in "token_id:N" form; ids that were not requested (the sampled
// token) are ignored, an id listed twice is a
// [judgment.ScoringValidationError], and a requested id that is missing
// fails [judgment.ScoringRequest.ValidateResult]. An answer whose "model"
// is not the requested one is a [judgment.GenerationError]. The off-option mass is
// always nil: at most 128 ids come back. The body is read by scanChat,
// or by encoding/json where scanChat gives up (unmarshalChat).
func decodeChat(body []byte, req judgment.ScoringRequest) (judgment.ScoringResult, error) {
	s := chatScanners.Get().(*chatScanner)
	defer s.done()
	a := &s.a
	if !s.scan(body) {
		u, err := unmarshalChat(body)
		if err != nil {
			return judgment.ScoringResult{}, err
		}
		a = &u
	}
	return a.result(req)
}

// unmarshalChat reads body with encoding/json into a [ChatResponse],
// after rewriting Python's NaN and Infinity literals if encoding/json
// refused it.
func unmarshalChat(body []byte) (chatAnswer, error) {
	var w ChatResponse
	err := json.Unmarshal(body, &w)
	if _, syntax := err.(*json.SyntaxError); syntax {
		if fixed, ok := backendhttp.PythonLiterals(body); ok {
			w = ChatResponse{}
			err = json.Unmarshal(fixed, &w)
		}
	}
	if err != nil {
		if _, syntax := err.(*json.SyntaxError); syntax {
			return chatAnswer{}, errNonJSON()
		}
		return chatAnswer{}, &judgment.GenerationError{Msg: "vLLM chat completion response is malformed: top_logprobs must be a list of objects with a token string and a numeric logprob"}
	}
	a := chatAnswer{model: w.Model, prompt: w.Usage.PromptTokens, completion: w.Usage.CompletionTokens}
	if len(w.Choices) == 0 || w.Choices[0].Logprobs == nil || len(w.Choices[0].Logprobs.Content) == 0 ||
		w.Choices[0].Logprobs.Content[0].TopLogprobs == nil {
		return a, nil
	}
	a.hasTop = true
	for _, e := range *w.Choices[0].Logprobs.Content[0].TopLogprobs {
		t := topEntry{hasToken: e.Token != nil, logprob: e.Logprob.Value, hasLogprob: e.Logprob.Valid}
		if e.Token != nil {
			t.token = []byte(*e.Token)
		}
		a.entries = append(a.entries, t)
	}
	return a, nil
}

// smallSet is the size up to which result finds candidates and repeats by
// a linear scan instead of a map.
const smallSet = 16

// result validates the answer as the result of req.
func (a *chatAnswer) result(req judgment.ScoringRequest) (judgment.ScoringResult, error) {
	if a.model != "" && a.model != req.Model {
		// A server that answers as another model would put that model's
		// judgments under the requested model's name in the receipt.
		return judgment.ScoringResult{}, &judgment.GenerationError{Msg: "vLLM answered as another model than the requested " + strconv.Quote(req.Model)}
	}
	if !a.hasTop {
		return judgment.ScoringResult{}, &judgment.GenerationError{Msg: "vLLM chat completion response missing choices[0].logprobs.content[0].top_logprobs"}
	}
	var want map[int]int
	if len(req.Candidates) > smallSet {
		want = make(map[int]int, len(req.Candidates))
		for i, c := range req.Candidates {
			want[c.TokenID] = i
		}
	}
	rows := make([]judgment.ScoredCandidate, len(req.Candidates))
	var foundBuf [smallSet]bool
	found := foundBuf[:]
	if len(req.Candidates) > smallSet {
		found = make([]bool, len(req.Candidates))
	}
	var seen idSet
	for _, e := range a.entries {
		if !e.hasToken || !e.hasLogprob {
			return judgment.ScoringResult{}, &judgment.GenerationError{Msg: "vLLM top_logprobs entry lacks a token or a numeric logprob"}
		}
		id, ok := tokenID(e.token)
		if !ok {
			return judgment.ScoringResult{}, &judgment.GenerationError{
				Msg: "vLLM top_logprobs token '" + string(e.token) + "' is not in token_id:N form; send return_tokens_as_token_ids"}
		}
		if seen.repeated(id) {
			return judgment.ScoringResult{}, &judgment.ScoringValidationError{Msg: "vLLM top_logprobs lists token id " + strconv.Itoa(id) + " more than once"}
		}
		if i, ok := candidateIndex(req.Candidates, want, id); ok {
			c := req.Candidates[i]
			lp, err := e.logprobOf()
			if err != nil {
				return judgment.ScoringResult{}, err
			}
			rows[i] = judgment.ScoredCandidate{Label: c.Label, TokenID: c.TokenID, Logprob: lp}
			found[i] = true
		}
	}
	cands := rows[:0]
	for i, r := range rows {
		if found[i] {
			cands = append(cands, r)
		}
	}
	res := judgment.ScoringResult{
		Model:      req.Model,
		Candidates: cands,
		Usage: judgment.Usage{
			InputTokens:  backendhttp.Count(a.prompt),
			OutputTokens: backendhttp.Count(a.completion),
		},
	}
	if err := req.ValidateResult(res); err != nil {
		return judgment.ScoringResult{}, err
	}
	return res, nil
}

// tokenID parses "token_id:<decimal>": ASCII digits only, within int.
// An id of more than 9 digits is read again by strconv.Atoi, which
// refuses one beyond int; the running sum, which may then have wrapped,
// is not used.
func tokenID(tok []byte) (int, bool) {
	digits, ok := bytes.CutPrefix(tok, []byte(idPrefix))
	if !ok || len(digits) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if len(digits) > 9 {
		n, err := strconv.Atoi(string(digits))
		return n, err == nil
	}
	return n, true
}

// candidateIndex returns the index of the candidate with token id id:
// from want when there is one, else by a scan of cands.
func candidateIndex(cands []judgment.Candidate, want map[int]int, id int) (int, bool) {
	if want != nil {
		i, ok := want[id]
		return i, ok
	}
	for i, c := range cands {
		if c.TokenID == id {
			return i, true
		}
	}
	return 0, false
}

// idListSize is how many ids an idSet keeps in its list.
const idListSize = 64

// idSet remembers the token ids of an answer: the first idListSize in a
// list, the rest in a map.
type idSet struct {
	list [idListSize]int
	n    int
	more map[int]bool
}

// repeated reports whether id was added before, and adds it.
func (s *idSet) repeated(id int) bool {
	if slices.Contains(s.list[:s.n], id) || s.more[id] {
		return true
	}
	if s.n < idListSize {
		s.list[s.n] = id
		s.n++
		return false
	}
	if s.more == nil {
		s.more = make(map[int]bool)
	}
	s.more[id] = true
	return false
}
