package judgmenttest

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestQuestionName(t *testing.T) {
	names := []string{"amount", "amount_words", "payee", "date"}
	tests := []struct {
		name   string
		reason string
		prompt string
		want   string
	}{
		{name: "field block after the state", prompt: "state text\n\npayee: Who?\n\nOptions:\n", want: "payee"},
		{name: "at the start", prompt: "date: When?\n\nOptions:", want: "date"},
		{name: "the latest wins", reason: "the state may quote a name; the field block follows it",
			prompt: "amount: 12\n\ndate: When?", want: "date"},
		{name: "longer name at the same position", prompt: "x\namount_words: ?", want: "amount_words"},
		{name: "mid-line is not a field block", prompt: "the payee: Bob", want: ""},
		{name: "none", prompt: "nothing here", want: ""},
		{name: "inside a turn", prompt: "<|turn>user\npayee: Who?<turn|>", want: "payee"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := QuestionName(tt.prompt, names); got != tt.want {
				t.Errorf("QuestionName = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestScriptPrecedence(t *testing.T) {
	img, other := []byte("image one"), []byte("image two")
	s := Script{
		Text:    map[string]map[string]float64{"q": Probs(0.1), "t": Probs(0.2)},
		Image:   map[string]map[string]float64{"q": Probs(0.3)},
		ByImage: map[string]map[string]map[string]float64{ImageKey(img): {"q": Probs(0.4)}},
		Delay:   map[string]time.Duration{"q": time.Second},
	}
	tests := []struct {
		name   string
		prompt string
		images [][]byte
		want   float64 // p of control 0; 0 = unscripted
	}{
		{"text", "q: ?", nil, 0.1},
		{"any image", "q: ?", [][]byte{other}, 0.3},
		{"these image bytes", "q: ?", [][]byte{img}, 0.4},
		{"image falls back to text", "t: ?", [][]byte{img}, 0.2},
		{"unscripted", "u: ?", nil, 0},
	}
	fallback := Script{Text: map[string]map[string]float64{"": Probs(0.5), "q": Probs(0.1)}}
	if !near(fallback.Logprobs("u: ?", nil)["0"], math.Log(0.5)) || !near(fallback.Logprobs("q: ?", nil)["0"], math.Log(0.1)) {
		t.Error("the \"\" name is not the fallback answer")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := s.Logprobs(tt.prompt, tt.images)
			if tt.want == 0 {
				if m != nil {
					t.Errorf("got %v, want nil", m)
				}
				return
			}
			if !near(m["0"], math.Log(tt.want)) {
				t.Errorf("logprob %v, want log %v", m["0"], tt.want)
			}
		})
	}
	if s.ThinkTime("x\nq: ?") != time.Second || s.ThinkTime("t: ?") != 0 {
		t.Error("ThinkTime")
	}
}

func TestDefaultVocab(t *testing.T) {
	v := DefaultVocab()
	if len(v) != 36 || v["0"] != 236771 || v["1"] != 236770 || v["2"] != 236778 || v["3"] != 236800 {
		t.Fatalf("vocab %v", v)
	}
	seen := map[int]bool{}
	for _, c := range Controls {
		if seen[v[c]] {
			t.Errorf("id %d of %q is shared", v[c], c)
		}
		seen[v[c]] = true
	}
	v["0"] = 1
	if DefaultVocab()["0"] != 236771 {
		t.Error("DefaultVocab returned shared storage")
	}
}

// The scripted distribution covers the whole vocabulary exactly once and
// sums to 1, whatever its size and script.
func TestDistributionSumsToOne(t *testing.T) {
	tests := []struct {
		name   string
		nVocab int
		script map[string]float64
	}{
		{"smallest vocabulary: no fillers", 37, Probs(0.5, 0.2)},
		{"one filler", 38, Probs(0.5, 0.2)},
		{"small", 64, Probs(0.16, 0.04)},
		{"all mass on controls", 64, Probs(0.7, 0.3)},
		{"unscripted", 1000, nil},
		{"gemma size", DefaultNVocab, Probs(0.9)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newModel(&Model{NVocab: tt.nVocab, Logprobs: func(string, [][]byte) map[string]float64 { return tt.script }})
			d := m.distribution("p", nil)
			top := d.top(m, tt.nVocab+5)
			if len(top) != tt.nVocab {
				t.Fatalf("%d entries, want %d", len(top), tt.nVocab)
			}
			ids := map[int]bool{}
			var terms []float64
			for i, e := range top {
				if ids[e.id] {
					t.Fatalf("id %d twice", e.id)
				}
				ids[e.id] = true
				if i > 0 && less(e, top[i-1]) {
					t.Fatalf("entry %d out of order", i)
				}
				terms = append(terms, math.Exp(e.logprob))
			}
			if s := fsum(terms); math.Abs(s-1) > 1e-9 {
				t.Errorf("mass %v", s)
			}
			if n := 3; !slices.Equal(d.top(m, n), top[:n]) {
				t.Error("top(3) is not the head of the full list")
			}
		})
	}
}

// fsum is a compensated (Neumaier) sum.
func fsum(x []float64) float64 {
	var s, c float64
	for _, v := range x {
		t := s + v
		if math.Abs(s) >= math.Abs(v) {
			c += (s - t) + v
		} else {
			c += (v - t) + s
		}
		s = t
	}
	return s + c
}

func TestTokensAndCounts(t *testing.T) {
	m := newModel(&Model{NVocab: 64})
	if got := m.tokens("0A é"); !slices.Equal(got, []int{236771, 236776, textTokenBase + ' ', textTokenBase + 'é'}) {
		t.Errorf("tokens %v", got)
	}
	if m.countTokens("0A é", 2) != 4+2*DefaultImageTokens {
		t.Error("countTokens")
	}
	custom := newModel(&Model{NVocab: 64, Tokenize: func(s string) []int { return []int{7, 7} }})
	if !slices.Equal(custom.tokens("B"), []int{7, 7}) || custom.countTokens("anything", 1) != 2+DefaultImageTokens {
		t.Error("Model.Tokenize is not used")
	}
}

func TestStrings(t *testing.T) {
	if TamperDropImage.String() != "drop_image" || Tamper(99).String() != "Tamper(99)" ||
		TemplateChatML.String() != "chatml" || Template(-1).String() != "Template(-1)" {
		t.Error("String methods")
	}
}

// Same model, same request, same bytes: nothing depends on map order or
// time (BRIEF: determinism).
func TestAnswersAreDeterministic(t *testing.T) {
	vocab := DefaultVocab()
	vocab["yes"], vocab["no"] = 77, 78
	newM := func() *Model {
		return &Model{NVocab: 80, Vocab: vocab, Logprobs: func(string, [][]byte) map[string]float64 {
			return map[string]float64{"yes": -0.5, "no": -2, "0": -3}
		}}
	}
	type call struct {
		start      func(*Model) *Server
		path       string
		body       any
		wantTokens string
	}
	for _, c := range []call{
		{NewLlamaCPP, "/completion", llamaBody(textPrompt, 80), `"id":77,`},
		{NewVLLM, "/v1/chat/completions", chatBody(userText, 77, 78, 236771), `"token_id:77"`},
	} {
		var bodies [2]string
		for i := range bodies {
			s := c.start(newM())
			_, raw := do(t, s, "POST", c.path, c.body)
			s.Close()
			bodies[i] = string(raw)
		}
		if bodies[0] != bodies[1] || !strings.Contains(bodies[0], c.wantTokens) {
			t.Errorf("%s: answers differ or lack the word token:\n%s\n%s", c.path, truncate([]byte(bodies[0])), truncate([]byte(bodies[1])))
		}
	}
	s := NewLlamaCPP(newM())
	defer s.Close()
	_, raw := do(t, s, "POST", "/tokenize", map[string]any{"content": "yes0"})
	if got := decode[struct{ Tokens []int }](t, raw).Tokens; !slices.Equal(got, []int{77, 236771}) {
		t.Errorf("tokens of %q: %v", "yes0", got)
	}
}
