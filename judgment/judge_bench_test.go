package judgment_test

import (
	"context"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

// fixedScorer answers every request with log(1/n) per candidate and
// records nothing: BenchmarkJudgeCheck measures the judgment algorithm
// alone.
type fixedScorer struct{}

func (fixedScorer) Tokenize(_ context.Context, _, text string) ([]int, error) {
	return tokenIDs(nil, text), nil
}

func (fixedScorer) ScoreCandidates(_ context.Context, req judgment.ScoringRequest) (judgment.ScoringResult, error) {
	return resultFor(req, nil), nil
}

// BenchmarkJudgeCheck judges the four check questions (two Nouls, a
// Choice, a Score) about one image on the chat family through a scorer
// that does nothing: the client CPU a judgment costs before any backend
// (control binding, prompt rendering, checks, decoding).
func BenchmarkJudgeCheck(b *testing.B) {
	j := judgment.NewJudge(fixedScorer{}, judgment.JudgeOptions{Family: judgment.FamilyChat})
	req := judgment.Request{
		Model: "gemma-4-31b-it",
		State: `{"case_id": "c-001", "amount": "1250.00", "payee": "Ada Lovelace"}`,
		Questions: []judgment.NamedQuestion{
			{Name: "amounts_match", Question: judgment.Noul{Instructions: "Do the numeric and written amounts agree?"}},
			{Name: "signature_present", Question: judgment.Noul{Instructions: "Is the check signed?"}},
			{Name: "payee_legible", Question: judgment.Choice{Instructions: "Can the payee be read?", Criteria: []judgment.Criterion{
				{Label: "legible"}, {Label: "partly"}, {Label: "illegible"}}}},
			{Name: "image_quality", Question: judgment.Score{Instructions: "Rate the image quality.", Criteria: []string{"bad", "fair", "good"}}},
		},
		Media: []judgment.Image{{Data: []byte("\x89PNG"), MIMEType: "image/png"}},
	}
	ctx := context.Background()
	if _, err := j.Judge(ctx, req); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := j.Judge(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
