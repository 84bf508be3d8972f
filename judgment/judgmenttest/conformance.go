package judgmenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/typevet/typevet-go/judgment"
)

// ConformanceModelID is the model id the conformance suite requests; a Port
// under test that pins a model must pin this one.
const ConformanceModelID = "typevet-conformance"

// conformanceQuestion is one scripted question of the suite. probs are the
// scripted next-token probabilities of the controls in order; their sum is
// below 1, the rest is off-option mass. nil = unscripted.
type conformanceQuestion struct {
	name  string
	q     judgment.Question
	probs []float64
	delay time.Duration
}

// slowDelay is the think time of the "slow" question on the fake servers.
const slowDelay = 30 * time.Second

var conformanceQuestions = []conformanceQuestion{
	{name: "noul_02", probs: []float64{0.16, 0.04}, q: judgment.Noul{
		Instructions: "Does the amount in words match the amount in figures?",
		Criteria:     judgment.NoulCriteria{True: "they name the same amount", False: "they differ"},
	}},
	{name: "choice_3", probs: []float64{0.1, 0.6, 0.1}, q: judgment.Choice{
		Instructions: "How do the two amounts relate?",
		Criteria: []judgment.Criterion{
			{Label: "consistent", Description: "both amounts agree"},
			{Label: "inconsistent"},
			{Label: "unreadable", Description: "one amount cannot be read"},
		},
	}},
	{name: "choice_12", probs: []float64{0.01, 0.01, 0.01, 0.2, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.5}, q: judgment.Choice{
		Instructions: "Which field is wrong?",
		Criteria: func() []judgment.Criterion {
			var c []judgment.Criterion
			for i := 1; i <= 12; i++ {
				c = append(c, judgment.Criterion{Label: fmt.Sprintf("field-%02d", i)})
			}
			return c
		}(),
	}},
	{name: "score_4", probs: []float64{0.1, 0.2, 0.3, 0.2}, q: judgment.Score{
		Instructions: "How legible is the signature?",
		Criteria:     []string{"illegible", "poor", "fair", "clear"},
	}},
	{name: "unscripted", q: judgment.Noul{Instructions: "Is the check dated?"}},
	{name: "slow", probs: []float64{0.3, 0.3}, delay: slowDelay, q: judgment.Noul{Instructions: "Is the memo line filled?"}},
}

// ConformanceQuestions returns the questions the conformance suite asks, in
// its order. Their names key ConformanceModel and ConformanceDistributions.
func ConformanceQuestions() []judgment.NamedQuestion {
	out := make([]judgment.NamedQuestion, len(conformanceQuestions))
	for i, c := range conformanceQuestions {
		out[i] = judgment.NamedQuestion{Name: c.name, Question: c.q}
	}
	return out
}

// ConformanceModel returns the scripted model the conformance suite
// expects behind a llama.cpp or vLLM fake server: id ConformanceModelID, a
// 64-token vocabulary (so llama.cpp can return the full distribution), and
// one scripted answer per ConformanceQuestions name, the same with and
// without images. The "slow" question thinks for 30 s (the wait ends when
// the client gives up).
func ConformanceModel() *Model {
	s := Script{Text: map[string]map[string]float64{}, Delay: map[string]time.Duration{}}
	for _, c := range conformanceQuestions {
		if c.probs != nil {
			s.Text[c.name] = Probs(c.probs...)
		}
		if c.delay > 0 {
			s.Delay[c.name] = c.delay
		}
	}
	return &Model{ID: ConformanceModelID, NVocab: 64, Logprobs: s.Logprobs, Delay: s.ThinkTime}
}

// ConformanceDistributions returns the suite's answers in the format of
// TYPEVET_FAKE__DISTRIBUTIONS: an object keyed by question name;
// a Noul maps to its P(True), a Choice to label → weight, a Score to
// "level" → weight. Unscripted questions are left out (uniform).
func ConformanceDistributions() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, c := range conformanceQuestions {
		if c.probs == nil {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		name, _ := json.Marshal(c.name)
		b.Write(name)
		b.WriteString(": ")
		p := normalized(c.probs)
		labels := judgment.ScoringLabels(c.q)
		switch c.q.(type) {
		case judgment.Noul:
			b.WriteString(strconv.FormatFloat(p[1], 'g', -1, 64))
			continue
		case judgment.Score:
			labels = make([]string, len(p))
			for i := range p {
				labels[i] = strconv.Itoa(i)
			}
		}
		b.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				b.WriteString(", ")
			}
			lj, _ := json.Marshal(l)
			b.Write(lj)
			b.WriteString(": ")
			b.WriteString(strconv.FormatFloat(p[i], 'g', -1, 64))
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes()
}

func normalized(probs []float64) []float64 {
	total := 0.0
	for _, p := range probs {
		total += p
	}
	out := make([]float64, len(probs))
	for i, p := range probs {
		out[i] = p / total
	}
	return out
}

// conformancePNG is a small valid PNG for the image cases.
var conformancePNG = func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 2))
	for x := range 4 {
		img.Set(x, x%2, color.RGBA{R: 200, A: 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}()

// tolerance bounds every probability comparison of the suite.
const tolerance = 1e-9

// Run is the conformance suite for a [judgment.Port] (like
// testing/slogtest): one named subtest per rule of the Port contract and of
// the scoring rules (answers, off-option guard, usage), each stated in terms of answers. newPort is called once
// per subtest and must return a Port for model ConformanceModelID backed by
// a server scripted with ConformanceModel (llama.cpp or vLLM), or by the
// offline fake loaded with ConformanceDistributions. Every case passes on
// all three; cases whose evidence a backend cannot give (off-option mass on
// vLLM and the fake, token usage on the fake) check what the Port reports.
func Run(t *testing.T, newPort func(t *testing.T) judgment.Port) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Logf("rule: %s", c.rule)
			c.run(t, newPort(t))
		})
	}
}

type conformanceCase struct {
	name string
	rule string
	run  func(t *testing.T, p judgment.Port)
}

var cases = []conformanceCase{
	{"NoulIsPTrue", "a Noul decodes to p(True) of the softmax over the False/True controls only: scripted 0.16/0.04 gives 0.2",
		func(t *testing.T, p judgment.Port) {
			resp := judge(t, p, request("noul_02"))
			checkAnswer(t, resp, "noul_02")
		}},
	{"ChoiceArgmax", "a Choice answers the most probable option, with its probability as confidence and one probability per option in option order summing to 1",
		func(t *testing.T, p judgment.Port) {
			checkAnswer(t, judge(t, p, request("choice_3")), "choice_3")
		}},
	{"ChoiceLetterControls", "a Choice of more than 10 options binds letter controls after the digits: option 12 is control \"B\"",
		func(t *testing.T, p judgment.Port) {
			checkAnswer(t, judge(t, p, request("choice_12")), "choice_12")
		}},
	{"ScoreExpectedLevel", "a Score answers the expected level Σ level·p (not the argmax), its confidence is max p, Level() is the argmax, the legend is the rubric",
		func(t *testing.T, p judgment.Port) {
			checkAnswer(t, judge(t, p, request("score_4")), "score_4")
		}},
	{"UnscriptedIsUniform", "equal candidate logprobs give a uniform answer: an unscripted Noul is 0.5",
		func(t *testing.T, p judgment.Port) {
			checkAnswer(t, judge(t, p, request("unscripted")), "unscripted")
		}},
	{"AnswersInQuestionOrder", "one answer and one off-option receipt per question, in question order, each equal to the answer the question gets alone; usage merges over questions",
		func(t *testing.T, p judgment.Port) {
			names := []string{"score_4", "noul_02", "choice_12", "choice_3"}
			all := judge(t, p, request(names...))
			if got := answerNames(all); !slices.Equal(got, names) {
				t.Fatalf("answers %v, want %v", got, names)
			}
			var offNames []string
			for _, o := range all.OffOption {
				offNames = append(offNames, o.Name)
			}
			if !slices.Equal(offNames, names) {
				t.Errorf("off-option receipts %v, want %v", offNames, names)
			}
			for _, n := range names {
				checkAnswer(t, all, n)
			}
			one := judge(t, p, request("noul_02"))
			if a, b := all.Usage.InputTokens, one.Usage.InputTokens; a != nil && b != nil && *a <= *b {
				t.Errorf("input tokens of four questions %d <= of one %d", *a, *b)
			}
			if all.Model != ConformanceModelID {
				t.Errorf("Response.Model %q, want %q", all.Model, ConformanceModelID)
			}
		}},
	{"ImageRequest", "a request with an image answers like the script says (the conformance script does not depend on the image) and costs more input tokens than text when usage is known",
		func(t *testing.T, p judgment.Port) {
			req := request("noul_02", "choice_3")
			text := judge(t, p, req)
			req.Media = []judgment.Image{{Data: conformancePNG, MIMEType: "image/png"}}
			imaged := judge(t, p, req)
			checkAnswer(t, imaged, "noul_02")
			checkAnswer(t, imaged, "choice_3")
			if a, b := imaged.Usage.InputTokens, text.Usage.InputTokens; a != nil && b != nil && *a <= *b {
				t.Errorf("input tokens with an image %d <= text only %d (a dropped image?)", *a, *b)
			}
		}},
	{"OffOptionGuard", "with a threshold each receipt carries it, flags exactly when the known off-option mass exceeds it, and the answer copies the flag; a known mass is 1 - Σ candidate probabilities",
		func(t *testing.T, p judgment.Port) {
			names := []string{"noul_02", "choice_3", "score_4"}
			req := request(names...)
			th := 0.25
			req.OffOptionThreshold = &th
			resp := judge(t, p, req)
			for i, o := range resp.OffOption {
				c := question(names[i])
				r := o.OffOption
				if r.Threshold == nil || *r.Threshold != th {
					t.Errorf("%s: threshold %v, want %v", o.Name, r.Threshold, th)
				}
				if r.Mass != nil {
					want := 1.0
					for _, q := range c.probs {
						want -= q
					}
					if math.Abs(*r.Mass-want) > 1e-6 {
						t.Errorf("%s: off-option mass %v, want %v", o.Name, *r.Mass, want)
					}
				}
				if flag := r.Mass != nil && *r.Mass > th; r.Flag != flag {
					t.Errorf("%s: flag %v with mass %v", o.Name, r.Flag, r.Mass)
				}
				if f := answerFlag(resp.Answers[i].Answer); f != r.Flag {
					t.Errorf("%s: answer flag %v, receipt flag %v", o.Name, f, r.Flag)
				}
			}
		}},
	{"NoThresholdNoFlag", "without a threshold the guard is off: no receipt has a threshold or a flag",
		func(t *testing.T, p judgment.Port) {
			resp := judge(t, p, request("noul_02", "choice_3"))
			for i, o := range resp.OffOption {
				if o.OffOption.Threshold != nil || o.OffOption.Flag || answerFlag(resp.Answers[i].Answer) {
					t.Errorf("%s: receipt %+v", o.Name, o.OffOption)
				}
				if m := o.OffOption.Mass; m != nil && (*m < 0 || *m > 1) {
					t.Errorf("%s: off-option mass %v outside [0, 1]", o.Name, *m)
				}
			}
		}},
	{"DefaultTextParts", "without caller templates the text_parts receipt says default for both parts",
		func(t *testing.T, p judgment.Port) {
			resp := judge(t, p, request("noul_02"))
			if want := (judgment.TextPartsReceipt{OptionBlock: "default", ContextTemplate: "default"}); resp.TextParts != want {
				t.Errorf("text parts %+v, want %+v", resp.TextParts, want)
			}
		}},
	{"ValidationErrors", "a malformed request fails with a JudgmentValidationError (a GenerationError) and no answers",
		func(t *testing.T, p judgment.Port) {
			th := 1.5
			tests := []struct {
				name string
				edit func(*judgment.Request)
			}{
				{"blank model", func(r *judgment.Request) { r.Model = "  " }},
				{"threshold above 1", func(r *judgment.Request) { r.OffOptionThreshold = &th }},
				{"score with one level", func(r *judgment.Request) {
					r.Questions = []judgment.NamedQuestion{{Name: "s", Question: judgment.Score{Criteria: []string{"only"}}}}
				}},
				{"duplicate choice labels", func(r *judgment.Request) {
					r.Questions = []judgment.NamedQuestion{{Name: "c", Question: judgment.Choice{Criteria: []judgment.Criterion{{Label: "a"}, {Label: "a"}}}}}
				}},
				{"blank choice label", func(r *judgment.Request) {
					r.Questions = []judgment.NamedQuestion{{Name: "c", Question: judgment.Choice{Criteria: []judgment.Criterion{{Label: "a"}, {Label: " "}}}}}
				}},
				{"37 options", func(r *judgment.Request) {
					r.Questions = []judgment.NamedQuestion{{Name: "c", Question: manyOptions(37)}}
				}},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					req := request("noul_02")
					tt.edit(&req)
					resp, err := p.Judge(context.Background(), req)
					var ve *judgment.JudgmentValidationError
					if !errors.As(err, &ve) || !judgment.IsGenerationError(err) || len(resp.Answers) != 0 {
						t.Errorf("err %v (%T), %d answers; want a JudgmentValidationError and none", err, err, len(resp.Answers))
					}
				})
			}
		}},
	{"TooManyOptionsToScore", "25 to 36 options bind controls but cannot be scored: DecisionExecutionError",
		func(t *testing.T, p judgment.Port) {
			req := request()
			req.Questions = []judgment.NamedQuestion{{Name: "c", Question: manyOptions(25)}}
			_, err := p.Judge(context.Background(), req)
			var de *judgment.DecisionExecutionError
			if !errors.As(err, &de) || !judgment.IsGenerationError(err) {
				t.Errorf("err %v (%T), want a DecisionExecutionError", err, err)
			}
		}},
	{"CancelledContext", "a done context makes Judge return promptly with a GenerationError",
		func(t *testing.T, p judgment.Port) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			start := time.Now()
			resp, err := p.Judge(ctx, request("noul_02"))
			if err == nil || !judgment.IsGenerationError(err) || len(resp.Answers) != 0 {
				t.Errorf("err %v (%T), %d answers; want a GenerationError and none", err, err, len(resp.Answers))
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("returned after %v", d)
			}
		}},
	{"DeadlineDuringRequest", "a context that ends while the backend thinks stops the call promptly with a GenerationError (the offline fake may answer first)",
		func(t *testing.T, p judgment.Port) {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			resp, err := p.Judge(ctx, request("slow"))
			if d := time.Since(start); d > slowDelay/3 {
				t.Fatalf("returned after %v; the context ended after 200ms", d)
			}
			if err == nil {
				checkAnswer(t, resp, "slow")
				return
			}
			if !judgment.IsGenerationError(err) {
				t.Errorf("err %v (%T), want a GenerationError", err, err)
			}
		}},
	{"Deterministic", "the same request gives the same answers, receipts and usage",
		func(t *testing.T, p judgment.Port) {
			req := request("choice_3", "score_4")
			a, b := judge(t, p, req), judge(t, p, req)
			a.RequestIDs, b.RequestIDs = nil, nil
			if !reflect.DeepEqual(a, b) {
				t.Errorf("two runs differ:\n%+v\n%+v", a, b)
			}
		}},
	{"ConcurrentUse", "one Port judges from many goroutines at once with the answers it gives sequentially",
		func(t *testing.T, p judgment.Port) {
			reqs := []judgment.Request{request("noul_02"), request("choice_3", "score_4"), request("choice_12")}
			want := make([][]judgment.NamedAnswer, len(reqs))
			for i, r := range reqs {
				want[i] = judge(t, p, r).Answers
			}
			var wg sync.WaitGroup
			errs := make(chan error, 8*len(reqs))
			for g := range 8 {
				wg.Go(func() {
					for i := range reqs {
						i := (i + g) % len(reqs)
						resp, err := p.Judge(context.Background(), reqs[i])
						if err != nil {
							errs <- err
						} else if !reflect.DeepEqual(resp.Answers, want[i]) {
							errs <- fmt.Errorf("request %d: answers %+v, want %+v", i, resp.Answers, want[i])
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		}},
}

// request builds a text request for the named conformance questions.
func request(names ...string) judgment.Request {
	req := judgment.Request{State: "Amount in figures: 120.00\nAmount in words: One hundred twenty", Model: ConformanceModelID}
	for _, n := range names {
		req.Questions = append(req.Questions, judgment.NamedQuestion{Name: n, Question: question(n).q})
	}
	return req
}

func question(name string) conformanceQuestion {
	for _, c := range conformanceQuestions {
		if c.name == name {
			return c
		}
	}
	panic("judgmenttest: no conformance question " + name)
}

func manyOptions(n int) judgment.Choice {
	var c judgment.Choice
	for i := range n {
		c.Criteria = append(c.Criteria, judgment.Criterion{Label: fmt.Sprintf("option %02d", i)})
	}
	return c
}

func judge(t *testing.T, p judgment.Port, req judgment.Request) judgment.Response {
	t.Helper()
	resp, err := p.Judge(context.Background(), req)
	if err != nil {
		t.Fatalf("Judge: %v", err)
	}
	if len(resp.Answers) != len(req.Questions) {
		t.Fatalf("%d answers for %d questions", len(resp.Answers), len(req.Questions))
	}
	return resp
}

func answerNames(r judgment.Response) []string {
	var n []string
	for _, a := range r.Answers {
		n = append(n, a.Name)
	}
	return n
}

func answerFlag(a judgment.Answer) bool {
	switch a := a.(type) {
	case judgment.NoulAnswer:
		return a.OffOptionFlag
	case judgment.ChoiceAnswer:
		return a.OffOptionFlag
	case judgment.ScoreAnswer:
		return a.OffOptionFlag
	}
	return false
}

// checkAnswer compares the answer to name in resp with the scripted one.
func checkAnswer(t *testing.T, resp judgment.Response, name string) {
	t.Helper()
	c := question(name)
	probs := c.probs
	n := len(judgment.ScoringLabels(c.q))
	if probs == nil {
		probs = slices.Repeat([]float64{1}, n)
	}
	p := normalized(probs)
	best := 0
	for i := range p {
		if p[i] > p[best] {
			best = i
		}
	}
	off := func(got, want float64) bool { return math.Abs(got-want) > tolerance }
	switch q := c.q.(type) {
	case judgment.Noul:
		a, ok := resp.Noul(name)
		if !ok {
			t.Fatalf("no Noul answer %q", name)
		}
		if off(a.Noul, p[1]) {
			t.Errorf("%s: noul %v, want %v", name, a.Noul, p[1])
		}
	case judgment.Choice:
		a, ok := resp.Choice(name)
		if !ok {
			t.Fatalf("no Choice answer %q", name)
		}
		labels := q.Labels()
		if a.Choice != labels[best] || off(a.Confidence, p[best]) {
			t.Errorf("%s: choice %q (%v), want %q (%v)", name, a.Choice, a.Confidence, labels[best], p[best])
		}
		if len(a.Probabilities) != len(labels) {
			t.Fatalf("%s: %d probabilities, want %d", name, len(a.Probabilities), len(labels))
		}
		sum := 0.0
		for i, pr := range a.Probabilities {
			sum += pr.P
			if pr.Label != labels[i] || off(pr.P, p[i]) {
				t.Errorf("%s: probability %d = %q %v, want %q %v", name, i, pr.Label, pr.P, labels[i], p[i])
			}
		}
		if off(sum, 1) {
			t.Errorf("%s: probabilities sum to %v", name, sum)
		}
	case judgment.Score:
		a, ok := resp.Score(name)
		if !ok {
			t.Fatalf("no Score answer %q", name)
		}
		expected := 0.0
		for i, pi := range p {
			expected += float64(i) * pi
		}
		if off(a.Score, expected) || off(a.Confidence, p[best]) || a.Level() != best {
			t.Errorf("%s: score %v confidence %v level %d, want %v %v %d", name, a.Score, a.Confidence, a.Level(), expected, p[best], best)
		}
		if !slices.Equal(a.Legend, q.Criteria) {
			t.Errorf("%s: legend %q, want %q", name, a.Legend, q.Criteria)
		}
		if len(a.Probabilities) != n {
			t.Fatalf("%s: %d probabilities, want %d", name, len(a.Probabilities), n)
		}
		for i := range p {
			if off(a.Probabilities[i], p[i]) {
				t.Errorf("%s: p(level %d) = %v, want %v", name, i, a.Probabilities[i], p[i])
			}
		}
	}
}
