package vllm

import (
	"encoding/json"
	"strconv"
	"strings"

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
// always nil: at most 128 ids come back.
func decodeChat(body []byte, req judgment.ScoringRequest) (judgment.ScoringResult, error) {
	w, err := unmarshalChat(body)
	if err != nil {
		return judgment.ScoringResult{}, err
	}
	if w.Model != "" && w.Model != req.Model {
		// A server that answers as another model would put that model's
		// judgments under the requested model's name in the receipt.
		return judgment.ScoringResult{}, &judgment.GenerationError{Msg: "vLLM answered as another model than the requested " + strconv.Quote(req.Model)}
	}
	if len(w.Choices) == 0 || w.Choices[0].Logprobs == nil || len(w.Choices[0].Logprobs.Content) == 0 ||
		w.Choices[0].Logprobs.Content[0].TopLogprobs == nil {
		return judgment.ScoringResult{}, &judgment.GenerationError{Msg: "vLLM chat completion response missing choices[0].logprobs.content[0].top_logprobs"}
	}
	want := make(map[int]int, len(req.Candidates))
	for i, c := range req.Candidates {
		want[c.TokenID] = i
	}
	rows := make([]judgment.ScoredCandidate, len(req.Candidates))
	found := make([]bool, len(req.Candidates))
	seen := make(map[int]bool)
	for _, e := range *w.Choices[0].Logprobs.Content[0].TopLogprobs {
		if e.Token == nil || !e.Logprob.Valid {
			return judgment.ScoringResult{}, &judgment.GenerationError{Msg: "vLLM top_logprobs entry lacks a token or a numeric logprob"}
		}
		id, ok := tokenID(*e.Token)
		if !ok {
			return judgment.ScoringResult{}, &judgment.GenerationError{
				Msg: "vLLM top_logprobs token '" + *e.Token + "' is not in token_id:N form; send return_tokens_as_token_ids"}
		}
		if seen[id] {
			return judgment.ScoringResult{}, &judgment.ScoringValidationError{Msg: "vLLM top_logprobs lists token id " + strconv.Itoa(id) + " more than once"}
		}
		seen[id] = true
		if i, ok := want[id]; ok {
			c := req.Candidates[i]
			rows[i] = judgment.ScoredCandidate{Label: c.Label, TokenID: c.TokenID, Logprob: e.Logprob.Value}
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
			InputTokens:  backendhttp.Count(w.Usage.PromptTokens),
			OutputTokens: backendhttp.Count(w.Usage.CompletionTokens),
		},
	}
	if err := req.ValidateResult(res); err != nil {
		return judgment.ScoringResult{}, err
	}
	return res, nil
}

// unmarshalChat reads body with encoding/json into a [ChatResponse],
// after rewriting Python's NaN and Infinity literals if encoding/json
// refused it.
func unmarshalChat(body []byte) (ChatResponse, error) {
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
			return w, errNonJSON()
		}
		return w, &judgment.GenerationError{Msg: "vLLM chat completion response is malformed: top_logprobs must be a list of objects with a token string and a numeric logprob"}
	}
	return w, nil
}

// tokenID parses "token_id:<decimal>": ASCII digits only, within int.
func tokenID(tok string) (int, bool) {
	digits, ok := strings.CutPrefix(tok, idPrefix)
	if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}
