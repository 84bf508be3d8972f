package judgment_test

import (
	"context"
	"math"
	"strings"
	"sync"

	"github.com/typevet/typevet-go/judgment"
)

// gemma4IDs are the Gemma 4 token ids of the digits (vLLM /tokenize on
// gemma-4-31b-it, add_special_tokens false).
var gemma4IDs = map[string]int{"0": 236771, "1": 236770, "2": 236778, "3": 236800}

// recordingScorer is a scripted in-memory judgment.Scorer that records
// every call. Tokenize gives one id per control string (the Gemma 4 ids
// for "0".."3", 500000+position for the others) unless vocab overrides
// it. ScoreCandidates answers with logprobs(req) per candidate, or with
// result(req) when set.
type recordingScorer struct {
	vocab    map[string][]int
	logprobs func(req judgment.ScoringRequest) []float64
	result   func(req judgment.ScoringRequest) (judgment.ScoringResult, error)
	tokErr   error

	mu        sync.Mutex
	tokenized []string
	scored    []judgment.ScoringRequest
}

func (s *recordingScorer) Tokenize(ctx context.Context, model, text string) ([]int, error) {
	s.mu.Lock()
	s.tokenized = append(s.tokenized, text)
	s.mu.Unlock()
	if s.tokErr != nil {
		return nil, s.tokErr
	}
	return tokenIDs(s.vocab, text), nil
}

// tokenIDs is the scripted tokenizer: vocab first, then the Gemma 4 ids,
// then 500000+position for the other controls, and two tokens for any
// other text.
func tokenIDs(vocab map[string][]int, text string) []int {
	if ids, ok := vocab[text]; ok {
		return ids
	}
	if id, ok := gemma4IDs[text]; ok {
		return []int{id}
	}
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	if i := strings.Index(alphabet, text); i >= 0 && len(text) == 1 {
		return []int{500000 + i}
	}
	return []int{1, 2}
}

func (s *recordingScorer) ScoreCandidates(ctx context.Context, req judgment.ScoringRequest) (judgment.ScoringResult, error) {
	if err := ctx.Err(); err != nil {
		return judgment.ScoringResult{}, &judgment.TransportError{Msg: "canceled", Err: err}
	}
	s.mu.Lock()
	s.scored = append(s.scored, req)
	s.mu.Unlock()
	if s.result != nil {
		return s.result(req)
	}
	var lp []float64
	if s.logprobs != nil {
		lp = s.logprobs(req)
	}
	return resultFor(req, lp), nil
}

// resultFor builds a valid result for req: logprob lp[i] for candidate i
// (log(1/n) for all when lp is nil).
func resultFor(req judgment.ScoringRequest, lp []float64) judgment.ScoringResult {
	res := judgment.ScoringResult{Model: req.Model}
	in, out := 100, 0
	res.Usage = judgment.Usage{InputTokens: &in, OutputTokens: &out}
	for i, c := range req.Candidates {
		l := math.Log(1 / float64(len(req.Candidates)))
		if lp != nil {
			l = lp[i]
		}
		res.Candidates = append(res.Candidates, judgment.ScoredCandidate{Label: c.Label, TokenID: c.TokenID, Logprob: l})
	}
	return res
}

func (s *recordingScorer) calls() ([]string, []judgment.ScoringRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.tokenized...), append([]judgment.ScoringRequest(nil), s.scored...)
}

// byQuestion returns a logprobs function that finds the question a
// request is for by its option-block head "<name>: " and returns the
// logs of the given probabilities.
func byQuestion(probs map[string][]float64) func(judgment.ScoringRequest) []float64 {
	return func(req judgment.ScoringRequest) []float64 {
		for name, ps := range probs {
			if strings.Contains(req.Prefix, "\n"+name+": ") || strings.HasPrefix(req.Prefix, name+": ") {
				out := make([]float64, len(ps))
				for i, p := range ps {
					out[i] = math.Log(p)
				}
				return out
			}
		}
		return nil
	}
}
