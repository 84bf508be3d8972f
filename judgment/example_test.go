package judgment_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/fake"
)

func ExampleDecode() {
	q := judgment.Choice{Criteria: []judgment.Criterion{
		{Label: "consistent"}, {Label: "payee_mismatch"}, {Label: "unsigned"},
	}}
	a, _ := judgment.Decode(q, []float64{math.Log(0.1), math.Log(0.6), math.Log(0.3)})
	c := a.(judgment.ChoiceAnswer)
	fmt.Printf("%s %.2f\n", c.Choice, c.Confidence)
	// Output:
	// payee_mismatch 0.60
}

// scriptedScorer is a tiny in-memory Scorer: each control string is one
// token (its byte value), each candidate's logprob comes from a table, and
// every scoring request prints its prefix.
type scriptedScorer struct{ logprobs map[string]float64 }

func (scriptedScorer) Tokenize(_ context.Context, _, text string) ([]int, error) {
	return []int{int(text[0])}, nil
}

func (s scriptedScorer) ScoreCandidates(_ context.Context, req judgment.ScoringRequest) (judgment.ScoringResult, error) {
	fmt.Printf("%s\n---\n", req.Prefix)
	res := judgment.ScoringResult{Model: req.Model}
	for _, c := range req.Candidates {
		res.Candidates = append(res.Candidates, judgment.ScoredCandidate{Label: c.Label, TokenID: c.TokenID, Logprob: s.logprobs[c.Label]})
	}
	return res, nil
}

// A Judge runs the scoring algorithm over a backend's Scorer: here one
// Noul with one image, framed for a Gemma 4 llama.cpp server.
func ExampleJudge() {
	scorer := scriptedScorer{logprobs: map[string]float64{"False": math.Log(0.8), "True": math.Log(0.2)}}
	j := judgment.NewJudge(scorer, judgment.JudgeOptions{Model: "gemma-4", Family: judgment.FamilyGemma4Turn})
	resp, err := j.Judge(context.Background(), judgment.Request{
		Model: "gemma-4",
		State: "Register payee: Lanternfield Electric.",
		Media: []judgment.Image{{Data: []byte("\x89PNG..."), MIMEType: "image/png"}},
		Questions: []judgment.NamedQuestion{{Name: "payee_matches", Question: judgment.Noul{
			Instructions: "Is the payee on the check the register payee?",
			Criteria:     judgment.NoulCriteria{True: "Same payee.", False: "Different payee."},
		}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	a, _ := resp.Noul("payee_matches")
	fmt.Printf("P(true) = %.2f\n", a.Noul)
	// Output:
	// <|turn>user
	// <__media__>
	// Register payee: Lanternfield Electric.
	//
	// payee_matches: Is the payee on the check the register payee?
	//
	// Options:
	// Control 0 → false: Different payee.
	// Control 1 → true: Same payee.
	//
	// Answer with exactly one control string (the digit shown), not the original label text.<turn|>
	// <|turn>model
	// <|channel>thought
	// <channel|>
	// ---
	// P(true) = 0.20
}

// A runner judges through a Port and stops the run on a generation error.
func ExamplePort() {
	pTrue := 0.9
	var port judgment.Port = fake.New(fake.Distributions{"payee_matches": {True: &pTrue}})
	questions := []judgment.NamedQuestion{{Name: "payee_matches", Question: judgment.Noul{}}}
	for _, model := range []string{"fake-model", " "} {
		resp, err := port.Judge(context.Background(), judgment.Request{Model: model, Questions: questions})
		if judgment.IsGenerationError(err) {
			fmt.Printf("stop the run: %s: %v\n", judgment.ErrorClass(err), err)
			continue
		}
		if err != nil {
			log.Fatal(err) // a bug: crash
		}
		a, _ := resp.Noul("payee_matches")
		fmt.Printf("%s: %.1f\n", resp.Model, a.Noul)
	}
	// Output:
	// fake-model: 0.9
	// stop the run: JudgmentValidationError: model must be non-empty
}

// Secrets.Mask keeps an API key out of an error, in every JSON spelling.
func ExampleSecrets_Mask() {
	err := &judgment.BackendHTTPError{Backend: "vLLM", StatusCode: 401,
		Msg: `vLLM HTTP 401: {"detail": "bad key sk-\"x\""}`, BodySnippet: `{"detail": "bad key sk-\"x\""}`}
	masked := judgment.Secrets{Keys: []string{`sk-"x"`}}.Mask(err)
	var he *judgment.BackendHTTPError
	fmt.Println(errors.As(masked, &he), he.StatusCode)
	fmt.Println(masked)
	// Output:
	// true 401
	// vLLM HTTP 401: {"detail": "bad key ***"}
}
