package fake_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/fake"
)

func checkQuestions() []judgment.NamedQuestion {
	verdict := []judgment.Criterion{{Label: "consistent"}, {Label: "payee_mismatch"}, {Label: "amount_mismatch"},
		{Label: "date_mismatch"}, {Label: "unsigned"}, {Label: "cannot_tell"}}
	return []judgment.NamedQuestion{
		{Name: "payee_matches", Question: judgment.Noul{Instructions: "Is the payee on the check the payee in the register row?"}},
		{Name: "amounts_match", Question: judgment.Noul{}},
		{Name: "verdict", Question: judgment.Choice{Criteria: verdict}},
		{Name: "legibility", Question: judgment.Score{Criteria: []string{"a", "b", "c", "d", "e"}}},
	}
}

func openFile(t *testing.T, name string) judgment.Port {
	t.Helper()
	p, err := fake.Open(fake.Settings{DistributionsPath: filepath.Join("testdata", name)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFakeCheckAnswers(t *testing.T) {
	p := openFile(t, "check.json")
	req := judgment.Request{Model: "fake-model", State: "row", Questions: checkQuestions(),
		Media: []judgment.Image{{Data: []byte{1}, MIMEType: "image/png"}}, OffOptionThreshold: ptr(0.25)}
	resp, err := p.Judge(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	payee, _ := resp.Noul("payee_matches")
	amounts, _ := resp.Noul("amounts_match")
	verdict, _ := resp.Choice("verdict")
	leg, _ := resp.Score("legibility")
	near(t, "payee", payee.Noul, 0.2)
	near(t, "amounts", amounts.Noul, 0.9)
	if verdict.Choice != "payee_mismatch" {
		t.Errorf("verdict = %s", verdict.Choice)
	}
	near(t, "verdict confidence", verdict.Confidence, 0.6)
	near(t, "legibility", leg.Score, 0.05+0.2+0.6+2.4)
	if resp.Model != "fake-model" || len(resp.Answers) != 4 || resp.Usage.InputTokens != nil || resp.RequestIDs != nil {
		t.Errorf("response = %+v", resp)
	}
	for _, o := range resp.OffOption {
		if o.OffOption.Mass != nil || o.OffOption.Flag || o.OffOption.Threshold == nil || *o.OffOption.Threshold != 0.25 {
			t.Errorf("%s off-option = %+v", o.Name, o.OffOption)
		}
	}
	again, _ := p.Judge(context.Background(), req)
	if fmt.Sprint(again.Answers) != fmt.Sprint(resp.Answers) {
		t.Error("the fake is not deterministic")
	}
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func ptr[T any](v T) *T { return &v }

func TestFakeWeights(t *testing.T) {
	p := openFile(t, "weights.json")
	three := judgment.Choice{Criteria: []judgment.Criterion{{Label: "a"}, {Label: "b"}, {Label: "c"}}}
	tests := []struct {
		name   string
		reason string
		q      judgment.NamedQuestion
		want   string
	}{
		{name: "noul zero", reason: "P(true) 0 is a -Inf logprob and still decodes",
			q: judgment.NamedQuestion{Name: "never", Question: judgment.Noul{}}, want: "noul 0"},
		{name: "noul one", q: judgment.NamedQuestion{Name: "always", Question: judgment.Noul{}}, want: "noul 1"},
		{name: "zero weights", reason: "weight 0 is probability 0",
			q: judgment.NamedQuestion{Name: "sparse", Question: three}, want: "choice b 1 [a:0 b:1 c:0]"},
		{name: "unnamed level", reason: "a level the distribution does not name weighs 0",
			q: judgment.NamedQuestion{Name: "levels", Question: judgment.Score{Criteria: []string{"", "", ""}}}, want: "score 1.5 [0.25 0 0.75]"},
		{name: "tiny weight", reason: "normalisation, not the raw weight, sets the probability",
			q: judgment.NamedQuestion{Name: "", Question: judgment.Choice{Criteria: []judgment.Criterion{{Label: "x"}, {Label: "y"}}}}, want: "choice x 1 [x:1 y:0]"},
		{name: "unnamed noul", reason: "questions not named are uniform",
			q: judgment.NamedQuestion{Name: "other", Question: judgment.Noul{}}, want: "noul 0.5"},
		{name: "unnamed choice", reason: "uniform; the tie goes to the first label",
			q: judgment.NamedQuestion{Name: "other", Question: three}, want: "choice a 0.3333 [a:0.3333 b:0.3333 c:0.3333]"},
		{name: "unnamed score", q: judgment.NamedQuestion{Name: "other", Question: judgment.Score{Criteria: []string{"", "", "", ""}}},
			want: "score 1.5 [0.25 0.25 0.25 0.25]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := p.Judge(context.Background(), judgment.Request{Model: "m", Questions: []judgment.NamedQuestion{tt.q}})
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(resp.Answers[0].Answer); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func describe(a judgment.Answer) string {
	switch a := a.(type) {
	case judgment.NoulAnswer:
		return fmt.Sprintf("noul %.4g", a.Noul)
	case judgment.ChoiceAnswer:
		var ps []string
		for _, p := range a.Probabilities {
			ps = append(ps, fmt.Sprintf("%s:%.4g", p.Label, p.P))
		}
		return fmt.Sprintf("choice %s %.4g [%s]", a.Choice, a.Confidence, strings.Join(ps, " "))
	case judgment.ScoreAnswer:
		return fmt.Sprintf("score %.4g %.4g", a.Score, a.Probabilities)
	}
	return fmt.Sprintf("%T", a)
}

func TestFakeErrors(t *testing.T) {
	choice := judgment.Choice{Criteria: []judgment.Criterion{{Label: "a"}, {Label: "b"}}}
	tests := []struct {
		name   string
		reason string
		d      fake.Distributions
		req    judgment.Request
		class  string // "" = a plain configuration error
		msg    string
	}{
		{name: "blank model", reason: "requests are validated like a real backend's",
			req:   judgment.Request{Model: "", Questions: []judgment.NamedQuestion{{Name: "q", Question: judgment.Noul{}}}},
			class: "JudgmentValidationError", msg: "model must be non-empty"},
		{name: "one option", req: judgment.Request{Model: "m", Questions: []judgment.NamedQuestion{{Name: "q", Question: judgment.Choice{Criteria: choice.Criteria[:1]}}}},
			class: "DecisionExecutionError", msg: "choice count must be between 2 and 24, got 1"},
		{name: "bad image", req: judgment.Request{Model: "m", Media: []judgment.Image{{MIMEType: "image/png"}}, Questions: []judgment.NamedQuestion{{Name: "q", Question: judgment.Noul{}}}},
			class: "ScoringValidationError", msg: "image data must be non-empty"},
		{name: "number for a choice", d: fake.Distributions{"q": {True: ptr(0.5)}},
			req: judgment.Request{Model: "m", Questions: []judgment.NamedQuestion{{Name: "q", Question: choice}}},
			msg: `fake: question "q" is a choice but its distribution is a number`},
		{name: "object for a noul", d: fake.Distributions{"q": {Weights: map[string]float64{"true": 1}}},
			req: judgment.Request{Model: "m", Questions: []judgment.NamedQuestion{{Name: "q", Question: judgment.Noul{}}}},
			msg: `fake: question "q" is a noul but its distribution is a weight object`},
		{name: "unknown label", reason: "a typo must not silently weigh 0",
			d:   fake.Distributions{"q": {Weights: map[string]float64{"a": 1, "c": 1}}},
			req: judgment.Request{Model: "m", Questions: []judgment.NamedQuestion{{Name: "q", Question: choice}}},
			msg: `fake: question "q": distribution names label "c" that the question does not have`},
		{name: "several unknown labels", reason: "the first unknown label in sorted order is named, on every run",
			d:   fake.Distributions{"q": {Weights: map[string]float64{"a": 1, "z": 1, "d": 1, "c": 1, "y": 1}}},
			req: judgment.Request{Model: "m", Questions: []judgment.NamedQuestion{{Name: "q", Question: choice}}},
			msg: `fake: question "q": distribution names label "c" that the question does not have`},
		{name: "all zero", d: fake.Distributions{"q": {Weights: map[string]float64{"a": 0}}},
			req: judgment.Request{Model: "m", Questions: []judgment.NamedQuestion{{Name: "q", Question: choice}}},
			msg: `fake: question "q": the weights of its labels must be finite with at least one positive`},
		{name: "negative weight in code", d: fake.Distributions{"q": {Weights: map[string]float64{"a": -1, "b": 2}}},
			req: judgment.Request{Model: "m", Questions: []judgment.NamedQuestion{{Name: "q", Question: choice}}},
			msg: `fake: question "q": label "a": weight must be a finite non-negative number`},
		{name: "P out of range in code", d: fake.Distributions{"q": {True: ptr(2.0)}},
			req: judgment.Request{Model: "m", Questions: []judgment.NamedQuestion{{Name: "q", Question: judgment.Noul{}}}},
			msg: `fake: question "q": P(true) must be in [0, 1]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fake.New(tt.d).Judge(context.Background(), tt.req)
			if err == nil || err.Error() != tt.msg {
				t.Fatalf("err = %v, want %q", err, tt.msg)
			}
			if got := judgment.ErrorClass(err); got != tt.class {
				t.Errorf("class = %q, want %q", got, tt.class)
			}
		})
	}
}

// TestFakeUnknownLabelDeterministic repeats the call: Go randomizes map
// order, so an error built while ranging over the weights would vary.
func TestFakeUnknownLabelDeterministic(t *testing.T) {
	weights := map[string]float64{"a": 1}
	for _, l := range []string{"q", "p", "o", "n", "m", "l", "k", "j"} {
		weights[l] = 1
	}
	p := fake.New(fake.Distributions{"q": {Weights: weights}})
	req := judgment.Request{Model: "m", Questions: []judgment.NamedQuestion{{Name: "q", Question: judgment.Choice{Criteria: []judgment.Criterion{{Label: "a"}, {Label: "b"}}}}}}
	const want = `fake: question "q": distribution names label "j" that the question does not have`
	for i := range 50 {
		if _, err := p.Judge(context.Background(), req); err == nil || err.Error() != want {
			t.Fatalf("call %d: err = %v, want %q", i, err, want)
		}
	}
}

func TestFakeCopiesDistributions(t *testing.T) {
	d := fake.Distributions{"q": {True: ptr(0.25)}}
	p := fake.New(d)
	*d["q"].True = 0.75
	resp, err := p.Judge(context.Background(), judgment.Request{Model: "m", Questions: []judgment.NamedQuestion{{Name: "q", Question: judgment.Noul{}}}})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := resp.Noul("q"); math.Abs(n.Noul-0.25) > 1e-12 {
		t.Errorf("noul = %v: New did not copy", n.Noul)
	}
}

func TestFakeCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := fake.New(nil).Judge(ctx, judgment.Request{Model: "m", Questions: checkQuestions()})
	var te *judgment.TransportError
	if !errors.As(err, &te) || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

func TestParseDistributionsErrors(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		in     string
		msg    string
	}{
		{name: "array", in: `[1]`, msg: "fake distributions: want a JSON object of question name → distribution"},
		{name: "empty", in: ``, msg: "fake distributions: unexpected end of input"},
		{name: "truncated", in: `{"a": 0.5`, msg: "fake distributions: unexpected end of input"},
		{name: "syntax", in: `{"a": 0.5,, }`, msg: "fake distributions: malformed JSON near byte 10"},
		{name: "trailing", in: `{} {}`, msg: "fake distributions: trailing data after the JSON object"},
		{name: "repeated question", in: `{"a": 0.5, "a": 0.5}`, msg: `fake distributions: question "a" appears twice`},
		{name: "P above 1", reason: "the value is never quoted", in: `{"payee": 1.75}`,
			msg: `fake distributions: question "payee": P(true) must be a number in [0, 1]`},
		{name: "P overflow", in: `{"payee": 1e999}`, msg: `fake distributions: question "payee": P(true) must be a number in [0, 1]`},
		{name: "string", in: `{"payee": "0.5"}`, msg: `fake distributions: question "payee": want a number (Noul) or an object of weights (Choice, Score)`},
		{name: "null", in: `{"payee": null}`, msg: `fake distributions: question "payee": want a number (Noul) or an object of weights (Choice, Score)`},
		{name: "negative weight", in: `{"v": {"a": -7.5}}`, msg: `fake distributions: question "v": label "a": weight must be a finite non-negative number`},
		{name: "nested weight", in: `{"v": {"a": {}}}`, msg: `fake distributions: question "v": label "a": weight must be a finite non-negative number`},
		{name: "repeated label", in: `{"v": {"a": 1, "a": 2}}`, msg: `fake distributions: question "v": label "a" appears twice`},
		{name: "all zero", in: `{"v": {"a": 0, "b": 0}}`, msg: `fake distributions: question "v": weights must be finite with at least one positive`},
		{name: "empty object", in: `{"v": {}}`, msg: `fake distributions: question "v": weights must be finite with at least one positive`},
		{name: "sum overflows", in: `{"v": {"a": 1e308, "b": 1e308}}`, msg: `fake distributions: question "v": weights must be finite with at least one positive`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fake.ParseDistributions(strings.NewReader(tt.in))
			if err == nil || err.Error() != tt.msg {
				t.Errorf("err = %v\nwant %q", err, tt.msg)
			}
		})
	}
}

func TestSettingsFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
		err  string
	}{
		{name: "unset", env: map[string]string{}},
		{name: "empty", env: map[string]string{"TYPEVET_FAKE__DISTRIBUTIONS": ""}},
		{name: "path", env: map[string]string{"TYPEVET_FAKE__DISTRIBUTIONS": "/tmp/d.json"}, want: "/tmp/d.json"},
		{name: "blank", env: map[string]string{"TYPEVET_FAKE__DISTRIBUTIONS": "  "}, err: "TYPEVET_FAKE__DISTRIBUTIONS must be a file path when set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := fake.SettingsFromEnv(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || s.DistributionsPath != tt.want {
				t.Errorf("got %+v, %v", s, err)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	if _, err := fake.Open(fake.Settings{DistributionsPath: filepath.Join(t.TempDir(), "missing.json")}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"q": 3}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := fake.Open(fake.Settings{DistributionsPath: bad}); err == nil || !strings.Contains(err.Error(), `question "q": P(true)`) {
		t.Errorf("bad file: err = %v", err)
	}
	p, err := fake.Open(fake.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Judge(context.Background(), judgment.Request{Model: "m", Questions: checkQuestions()})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := resp.Noul("payee_matches"); n.Noul != 0.5 {
		t.Errorf("no file: noul = %v, want uniform 0.5", n.Noul)
	}
}

func BenchmarkFakeJudgeCheck(b *testing.B) {
	// The fake's cost for one four-question check judgment.
	p, err := fake.Open(fake.Settings{DistributionsPath: filepath.Join("testdata", "check.json")})
	if err != nil {
		b.Fatal(err)
	}
	req := judgment.Request{Model: "m", State: "row", Questions: checkQuestions(),
		Media: []judgment.Image{{Data: []byte{1}, MIMEType: "image/png"}}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := p.Judge(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
