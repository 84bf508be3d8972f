package calibration

import (
	"context"
	"errors"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

func fixtureMap(t *testing.T, name, digest string) *Map {
	t.Helper()
	m, err := Read(readFixture(t, name), digest)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func noulMap(t *testing.T) *Map {
	return fixtureMap(t, "platt_noul_map.json", "78e8d6ad792402e72c4178d7d331a5d209bb4d8839b86b1530934a70d222cb6a")
}

func scoreMap(t *testing.T) *Map {
	return fixtureMap(t, "platt_score_map.json", "bad7d503aae5998df58788efaacb81756b38f08ef9d1c9b9adbc7e035e2c1b03")
}

// inner answers every question with fixed values and reports model.
func inner(model string, calls *int) judgment.Port {
	return judgment.PortFunc(func(_ context.Context, req judgment.Request) (judgment.Response, error) {
		*calls++
		resp := judgment.Response{Model: model}
		for _, q := range req.Questions {
			var a judgment.Answer
			switch qq := q.Question.(type) {
			case judgment.Noul:
				a = judgment.NoulAnswer{Noul: 0.6}
			case judgment.Score:
				ps := []float64{0.2, 0.5, 0.3}[:len(qq.Criteria)]
				a = judgment.ScoreAnswer{Score: 1.1, Confidence: 0.5, Legend: qq.Criteria, Probabilities: ps}
			case judgment.Choice:
				a = judgment.ChoiceAnswer{Choice: "a", Confidence: 1}
			}
			resp.Answers = append(resp.Answers, judgment.NamedAnswer{Name: q.Name, Answer: a})
		}
		return resp, nil
	})
}

func TestJudgmentCalibrates(t *testing.T) {
	calls := 0
	noul := noulMap(t)
	score := scoreMap(t)
	score.FittedOn.TaskID = noul.FittedOn.TaskID
	j, err := New(inner("fake-judgment", &calls), map[string]*Map{"fraud": noul, "quality": score}, "fraud-message", "llama_cpp")
	if err != nil {
		t.Fatal(err)
	}
	req := judgment.Request{Model: "fake-judgment", Questions: []judgment.NamedQuestion{
		{Name: "fraud", Question: judgment.Noul{}},
		{Name: "other", Question: judgment.Noul{}},
		{Name: "quality", Question: judgment.Score{Criteria: []string{"bad", "ok", "good"}}},
	}}
	resp, recs, err := j.JudgeRecords(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := resp.Noul("fraud"); !sameBits(n.Noul, 0.4528728598107439) {
		t.Errorf("fraud = %v, CPython 0.4528728598107439", n.Noul)
	}
	if n, _ := resp.Noul("other"); n.Noul != 0.6 {
		t.Errorf("unmapped question changed: %v", n.Noul)
	}
	s, _ := resp.Score("quality")
	want := []float64{0.06336355310298768, 0.7582005891292426, 0.17843585776776974}
	for i := range want {
		if !sameBits(s.Probabilities[i], want[i]) {
			t.Errorf("level %d = %v, CPython %v", i, s.Probabilities[i], want[i])
		}
	}
	if !sameBits(s.Score, 1.1150723046647821) || s.Confidence != want[1] {
		t.Errorf("score %v confidence %v, CPython 1.1150723046647821 and %v", s.Score, s.Confidence, want[1])
	}
	var seen []Record
	plain := j.Recording(func(_ judgment.Request, r []Record) { seen = append(seen, r...) })
	if again, err := plain.Judge(context.Background(), req); err != nil || len(seen) != 2 || seen[0].Calibrated != recs[0].Calibrated || seen[1].Question != "quality" {
		t.Errorf("Recording: %v, %+v", err, seen)
	} else if n, _ := again.Noul("fraud"); n.Noul != 0.4528728598107439 {
		t.Errorf("Recording's answer %v", n.Noul)
	}
	if len(recs) != 2 || recs[0].Question != "fraud" || recs[0].Raw != 0.6 || recs[0].MapSHA256 != noul.SHA256 || recs[0].Method != Platt ||
		recs[1].Raw != 1.1 || recs[1].Calibrated != s.Score || len(recs[1].RawLevels) != 3 {
		t.Errorf("records %+v", recs)
	}
}

func TestJudgmentRefusals(t *testing.T) {
	noul := noulMap(t)
	otherTask := *noul
	otherTask.FittedOn.TaskID = "x"
	otherBackend := *noul
	otherBackend.FittedOn.Backend = "vllm"
	construction := []struct {
		name string
		maps map[string]*Map
		want any
	}{
		{"no maps", nil, new(*MapError)},
		{"empty name", map[string]*Map{"": noul}, new(*MapError)},
		{"nil map", map[string]*Map{"q": nil}, new(*MapError)},
		{"another task", map[string]*Map{"q": &otherTask}, new(*TaskMismatchError)},
		{"another backend", map[string]*Map{"q": &otherBackend}, new(*ModelMismatchError)},
	}
	for _, tt := range construction {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			_, err := New(inner("fake-judgment", &calls), tt.maps, "fraud-message", "llama_cpp")
			if !errors.As(err, tt.want) {
				t.Errorf("err = %T %v", err, err)
			}
		})
	}
	score := scoreMap(t)
	score.FittedOn.TaskID = "fraud-message"
	calls := 0
	j, err := New(inner("fake-judgment", &calls), map[string]*Map{"n": noul, "s": score}, "fraud-message", "llama_cpp")
	if err != nil {
		t.Fatal(err)
	}
	perCall := []struct {
		name      string
		questions []judgment.NamedQuestion
	}{
		{"choice", []judgment.NamedQuestion{{Name: "n", Question: judgment.Choice{}}}},
		{"noul map on score", []judgment.NamedQuestion{{Name: "n", Question: judgment.Score{Criteria: []string{"a", "b", "c"}}}}},
		{"score map on noul", []judgment.NamedQuestion{{Name: "s", Question: judgment.Noul{}}}},
		{"level count", []judgment.NamedQuestion{{Name: "s", Question: judgment.Score{Criteria: []string{"a", "b"}}}}},
	}
	for _, tt := range perCall {
		t.Run(tt.name, func(t *testing.T) {
			calls = 0
			_, err := j.Judge(context.Background(), judgment.Request{Model: "fake-judgment", Questions: tt.questions})
			var te *TargetError
			if !errors.As(err, &te) || calls != 0 {
				t.Errorf("err = %v after %d calls, want a TargetError before any", err, calls)
			}
			if !judgment.IsGenerationError(err) {
				t.Errorf("a refused question does not stop a run cleanly: %v", err)
			}
		})
	}
	t.Run("mapped twice", func(t *testing.T) {
		var me *MapError
		if _, err := New(j, map[string]*Map{"n": noul}, "fraud-message", "llama_cpp"); !errors.As(err, &me) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("another model", func(t *testing.T) {
		j, err := New(inner("other-model", &calls), map[string]*Map{"n": noul}, "fraud-message", "llama_cpp")
		if err != nil {
			t.Fatal(err)
		}
		// The model check runs for every map, also when its question is not asked.
		_, err = j.Judge(context.Background(), judgment.Request{Model: "other-model", Questions: []judgment.NamedQuestion{{Name: "x", Question: judgment.Noul{}}}})
		var me *ModelMismatchError
		if !errors.As(err, &me) || me.Field != "model" || !judgment.IsGenerationError(err) {
			t.Errorf("err = %v", err)
		}
	})
}
