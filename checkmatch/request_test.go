package checkmatch

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
)

// TestPromptDigests checks the wording of Questions against the prompt
// digests typevet's committed receipts record.
func TestPromptDigests(t *testing.T) {
	want := []struct{ name, digest string }{
		{"payee_matches", "d8a42dca122de8824ef6bbfe792f30e9888b58da5ca01f5a5e37c9e6b8387c0b"},
		{"amounts_match", "fe4a0b38de231349b211a79356bf9b6c003f00a391d517a762fc5d2fdae84b34"},
		{"verdict", "b7ef7c4a0c25b12827252fdacba3011e1bb064231d047cac8b1626b29fcb522a"},
		{"legibility", "109aca8b397e0cfeabf8e461c84b8a4af614d6ef9bba30ceeade3da9bcea1ab6"},
	}
	got := receipt.PromptDigests(Questions())
	require.Len(t, got, len(want))
	for i, w := range want {
		assert.Equal(t, w.name, got[i].Name, "question %d", i)
		assert.Equal(t, w.digest, got[i].Value, "digest of %s", w.name)
	}
}

func TestQuestionsShape(t *testing.T) {
	qs := Questions()
	require.Len(t, qs, 4)
	kinds := []judgment.Kind{judgment.KindNoul, judgment.KindNoul, judgment.KindChoice, judgment.KindScore}
	names := []string{QuestionPayeeMatches, QuestionAmountsMatch, QuestionVerdict, QuestionLegibility}
	for i, q := range qs {
		assert.Equal(t, names[i], q.Name)
		assert.Equal(t, kinds[i], q.Question.Kind(), q.Name)
	}
	verdict := qs[2].Question.(judgment.Choice)
	assert.Equal(t, VerdictLabels[:], verdict.Labels())
	unsigned := verdict.Criteria[4].Description
	assert.Contains(t, unsigned, "handwritten")
	assert.Contains(t, unsigned, "VOID do not count")
	assert.Len(t, qs[3].Question.(judgment.Score).Criteria, LegibilityLevels)
}

// TestQuestionsAreFresh checks that no two calls share mutable values.
func TestQuestionsAreFresh(t *testing.T) {
	a, b := Questions(), Questions()
	a[0].Name = "changed"
	a[2].Question.(judgment.Choice).Criteria[0].Label = "changed"
	a[3].Question.(judgment.Score).Criteria[0] = "changed"
	assert.Equal(t, QuestionPayeeMatches, b[0].Name)
	assert.Equal(t, VerdictConsistent, b[2].Question.(judgment.Choice).Criteria[0].Label)
	assert.Equal(t, "No text can be read.", b[3].Question.(judgment.Score).Criteria[0])
	assert.Equal(t, receipt.PromptDigests(Questions()), receipt.PromptDigests(b))
}

func TestState(t *testing.T) {
	cases, err := Cases(0, 1)
	require.NoError(t, err)
	want := "The image shows one paper check. A check register row lists what the check must show: " +
		"check number 1001; date 2025-04-21; payee Lanternfield Electric; amount $1,188.15. " +
		"Compare the check in the image with the register row. The check shows the amount two times: " +
		"as a number in the box and in words on the line below the payee."
	assert.Equal(t, want, State(cases[0].Row))
}

func TestBuildRequest(t *testing.T) {
	cases, err := Cases(0, 1)
	require.NoError(t, err)
	c := cases[1]
	png := []byte("synthetic check bytes")
	r := BuildRequest(c, png)
	assert.Equal(t, "r00:payee_changed", r.CaseID())
	assert.Equal(t, c, r.Case)
	assert.Equal(t, []judgment.Image{{Data: png, MIMEType: "image/png"}}, r.Media)
	assert.Contains(t, r.State, c.Row.Text())
	assert.NotContains(t, r.State, c.Face.Payee, "the face payee must be visible only in the image")

	jr := r.Judgment("m")
	assert.Equal(t, "m", jr.Model)
	assert.Equal(t, r.State, jr.State)
	assert.Equal(t, r.Media, jr.Media)
	assert.Equal(t, r.Questions, jr.Questions)
	assert.Nil(t, jr.OffOptionThreshold)
	require.NoError(t, jr.Validate())
}

// contractScorer is a judgment.Scorer that records every scoring request
// and answers each question from fixed probabilities.
type contractScorer struct {
	mu    sync.Mutex
	calls []judgment.ScoringRequest
	probs map[string]map[string]float64 // question name → label → p
}

func (s *contractScorer) Tokenize(_ context.Context, _, text string) ([]int, error) {
	ids := make([]int, len(text))
	for i := range len(text) {
		ids[i] = int(text[i])
	}
	return ids, nil
}

func (s *contractScorer) ScoreCandidates(_ context.Context, req judgment.ScoringRequest) (judgment.ScoringResult, error) {
	s.mu.Lock()
	s.calls = append(s.calls, req)
	s.mu.Unlock()
	// The question is the last "<name>: " line of the prefix (the field
	// block follows the state).
	name, at := "", -1
	for n := range s.probs {
		if i := strings.LastIndex(req.Prefix, "\n"+n+": "); i > at {
			name, at = n, i
		}
	}
	res := judgment.ScoringResult{Model: req.Model}
	for _, c := range req.Candidates {
		p, ok := s.probs[name][c.Label]
		if !ok {
			return res, &judgment.GenerationError{Msg: "unscripted " + name + " " + c.Label}
		}
		res.Candidates = append(res.Candidates, judgment.ScoredCandidate{Label: c.Label, TokenID: c.TokenID, Logprob: math.Log(p)})
	}
	return res, nil
}

// TestContract is typevet's check-match contract test through
// the scoring algorithm: four scoring calls, one image and one media marker
// each, the register payee in every prefix, and the decoded answers.
func TestContract(t *testing.T) {
	cases, err := Cases(0, 1)
	require.NoError(t, err)
	c := cases[1]
	require.Equal(t, "r00:payee_changed", c.ID())
	require.Equal(t, "Brightmoor Music School", c.Face.Payee)
	require.Equal(t, "Lanternfield Electric", c.Row.Payee)
	png, err := Render(c)
	require.NoError(t, err)

	s := &contractScorer{probs: map[string]map[string]float64{
		QuestionPayeeMatches: {"True": 0.2, "False": 0.8},
		QuestionAmountsMatch: {"True": 0.9, "False": 0.1},
		QuestionVerdict: {"consistent": 0.1, "payee_mismatch": 0.6, "amount_mismatch": 0.1,
			"date_mismatch": 0.1, "unsigned": 0.05, "cannot_tell": 0.05},
		QuestionLegibility: {"0": 0.05, "1": 0.05, "2": 0.1, "3": 0.2, "4": 0.6},
	}}
	j := judgment.NewJudge(s, judgment.JudgeOptions{Family: judgment.FamilyGemma4Turn})
	req := BuildRequest(c, png)
	resp, err := j.Judge(context.Background(), req.Judgment("fake-model"))
	require.NoError(t, err)

	require.Len(t, s.calls, 4)
	for i, call := range s.calls {
		require.Len(t, call.Media, 1, "call %d", i)
		assert.Equal(t, png, call.Media[0].Data, "call %d", i)
		assert.Equal(t, 1, strings.Count(call.Prefix, judgment.MediaMarker), "call %d", i)
		assert.Contains(t, call.Prefix, c.Row.Payee, "call %d", i)
		assert.NotContains(t, call.Prefix, c.Face.Payee, "call %d", i)
	}
	var names []string
	for _, a := range resp.Answers {
		names = append(names, a.Name)
	}
	assert.Equal(t, []string{QuestionPayeeMatches, QuestionAmountsMatch, QuestionVerdict, QuestionLegibility}, names)
	payee, _ := resp.Noul(QuestionPayeeMatches)
	amounts, _ := resp.Noul(QuestionAmountsMatch)
	verdict, _ := resp.Choice(QuestionVerdict)
	legibility, _ := resp.Score(QuestionLegibility)
	assert.InDelta(t, 0.2, payee.Noul, 1e-12)
	assert.InDelta(t, 0.9, amounts.Noul, 1e-12)
	assert.Equal(t, VerdictPayeeMismatch, verdict.Choice)
	assert.Len(t, legibility.Legend, 5)
	assert.Len(t, legibility.Probabilities, 5)
}
