package judgment_test

import (
	"context"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

// TestOptionBlockCacheFollowsTheQuestion: a Judge renders each question's
// option block once, but a question changed under the same name (a new
// value, or the caller's slice edited in place after a judgment) gets
// its own block, and the prefixes are those of a fresh Judge.
func TestOptionBlockCacheFollowsTheQuestion(t *testing.T) {
	criteria := []judgment.Criterion{{Label: "legible"}, {Label: "partly", Description: "some letters"}}
	scores := []string{"bad", "good"}
	reqFor := func(instr string) judgment.Request {
		return judgment.Request{Model: "m", State: "{}", Questions: []judgment.NamedQuestion{
			{Name: "q", Question: judgment.Choice{Instructions: instr, Criteria: criteria}},
			{Name: "s", Question: judgment.Score{Instructions: instr, Criteria: scores}},
			{Name: "n", Question: judgment.Noul{Instructions: instr}},
		}}
	}
	cached := &recordingScorer{}
	j := judgment.NewJudge(cached, judgment.JudgeOptions{})
	steps := []func() judgment.Request{
		func() judgment.Request { return reqFor("Read it?") },
		func() judgment.Request { return reqFor("Read it?") },
		func() judgment.Request { return reqFor("Read it now?") },
		func() judgment.Request {
			criteria[1].Description = "a few letters"
			scores[0] = "poor"
			return reqFor("Read it now?")
		},
		func() judgment.Request {
			criteria = append(criteria, judgment.Criterion{Label: "illegible"})
			return reqFor("Read it now?")
		},
		func() judgment.Request {
			r := reqFor("Read it now?")
			r.Questions[0].Question, r.Questions[1].Question = r.Questions[1].Question, r.Questions[0].Question
			return r
		},
		// Back to an earlier question under the same names: a name holds
		// several questions, each with its own block.
		func() judgment.Request { return reqFor("Read it?") },
	}
	for i, step := range steps {
		req := step()
		fresh := &recordingScorer{}
		if _, err := judgment.NewJudge(fresh, judgment.JudgeOptions{}).Judge(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Judge(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		_, want := fresh.calls()
		_, all := cached.calls()
		got := all[len(all)-len(want):]
		for k := range want {
			if got[k].Prefix != want[k].Prefix || len(got[k].Candidates) != len(want[k].Candidates) {
				t.Errorf("step %d question %d: cached prefix\n%s\nwant\n%s", i, k, got[k].Prefix, want[k].Prefix)
			}
		}
		if i == 3 && !strings.Contains(want[0].Prefix+want[1].Prefix, "a few letters") {
			t.Fatalf("step 3 does not test an edited slice: %s", want[0].Prefix)
		}
	}
}
