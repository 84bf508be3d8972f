package judgment_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

func TestMergeUsage(t *testing.T) {
	// Usage: nil only when both sides are nil; otherwise nil counts 0.
	tests := []struct {
		name string
		a, b judgment.Usage
		want string
	}{
		{name: "both nil", want: "<nil> <nil>"},
		{name: "one side", a: judgment.Usage{InputTokens: ptr(3)}, want: "3 <nil>"},
		{name: "other side", b: judgment.Usage{OutputTokens: ptr(1)}, want: "<nil> 1"},
		{name: "sum", a: judgment.Usage{InputTokens: ptr(3), OutputTokens: ptr(0)}, b: judgment.Usage{InputTokens: ptr(4)}, want: "7 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := judgment.MergeUsage(tt.a, tt.b)
			if got := fmtInt(u.InputTokens) + " " + fmtInt(u.OutputTokens); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	// Merging never aliases its inputs.
	a := judgment.Usage{InputTokens: ptr(1)}
	m := judgment.MergeUsage(a, judgment.Usage{})
	*m.InputTokens = 9
	if *a.InputTokens != 1 {
		t.Error("MergeUsage aliases its input")
	}
}

func fmtInt(p *int) string {
	if p == nil {
		return "<nil>"
	}
	b, _ := json.Marshal(*p)
	return string(b)
}

func TestProbabilitiesJSON(t *testing.T) {
	p := judgment.Probabilities{{"zeta", 0.25}, {"alpha", 0.5}, {"<&>", 0.25}}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"zeta":0.25,"alpha":0.5,"\u003c\u0026\u003e":0.25}`
	if string(b) != want {
		t.Errorf("marshal = %s, want %s", b, want)
	}
	var back judgment.Probabilities
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 3 || back[0].Label != "zeta" || back[2].Label != "<&>" || back[1].P != 0.5 {
		t.Errorf("round trip = %v", back)
	}
	if v, ok := back.Get("alpha"); !ok || v != 0.5 {
		t.Errorf("Get(alpha) = %v %v", v, ok)
	}
	if _, ok := back.Get("beta"); ok {
		t.Error("Get(beta) found")
	}
	if b, _ := json.Marshal(judgment.Probabilities(nil)); string(b) != "{}" {
		t.Errorf("nil marshals to %s", b)
	}
	if _, err := json.Marshal(judgment.Probabilities{{"x", math.NaN()}}); err == nil {
		t.Error("NaN marshalled")
	}
	for _, bad := range []string{`[]`, `{"a":1,"a":2}`, `{"a":"x"}`, `{"a":1`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("Unmarshal(%s) accepted", bad)
		}
	}
}

func TestOffOptionJSON(t *testing.T) {
	b, _ := json.Marshal(judgment.OffOption{Threshold: ptr(0.25)})
	if string(b) != `{"off_option_mass":null,"off_option_threshold":0.25,"off_option_flag":false}` {
		t.Errorf("got %s", b)
	}
}

func TestResponseAccessors(t *testing.T) {
	r := judgment.Response{Answers: []judgment.NamedAnswer{
		{Name: "n", Answer: judgment.NoulAnswer{Noul: 0.3}},
		{Name: "c", Answer: judgment.ChoiceAnswer{Choice: "x"}},
		{Name: "s", Answer: judgment.ScoreAnswer{Probabilities: []float64{0.1, 0.6, 0.3}}},
	}}
	if a, ok := r.Noul("n"); !ok || a.Noul != 0.3 {
		t.Error("Noul(n)")
	}
	if _, ok := r.Noul("c"); ok {
		t.Error("Noul(c) returned a choice")
	}
	if a, ok := r.Choice("c"); !ok || a.Choice != "x" {
		t.Error("Choice(c)")
	}
	if a, ok := r.Score("s"); !ok || a.Level() != 1 {
		t.Error("Score(s).Level")
	}
	if _, ok := r.Score("missing"); ok {
		t.Error("Score(missing) found")
	}
	if (judgment.ScoreAnswer{}).Level() != -1 {
		t.Error("empty Level != -1")
	}
}

// TestProbabilitiesPythonText checks the text MarshalJSON itself writes:
// Python's float text and labels without HTML escaping, as json.dumps
// writes them (encoding/json's Marshal escapes <, > and & again on top).
func TestProbabilitiesPythonText(t *testing.T) {
	p := judgment.Probabilities{{"consistent", 1}, {"<a&b>", 1e-07}, {"café", 0.25}}
	b, err := p.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"consistent":1.0,"<a&b>":1e-07,"café":0.25}`; string(b) != want {
		t.Errorf("MarshalJSON = %s, want %s", b, want)
	}
	if _, err := (judgment.Probabilities{{"a", 1}, {"a", 0}}).MarshalJSON(); err == nil {
		t.Error("a repeated label marshalled")
	}
}

func TestProbabilitiesUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   string
		reason string
	}{
		{name: "null value", in: `{"a":0.5,"b":null}`, want: `probabilities: label "b": want a number`,
			reason: "encoding/json would store 0 for null silently"},
		{name: "string value", in: `{"a":"0.5"}`, want: `probabilities: label "a": want a number`},
		{name: "object value", in: `{"a":{}}`, want: `probabilities: label "a": want a number`},
		{name: "out of range", in: `{"a":1e400}`, want: `probabilities: label "a": want a number in the float64 range`},
		{name: "repeated", in: `{"a":1,"a":2}`, want: `probabilities: repeated label "a"`},
		{name: "null", in: `null`, want: `probabilities: want a JSON object`},
		{name: "list", in: `[]`, want: `probabilities: want a JSON object`},
		{name: "truncated", in: `{"a":1`, want: `probabilities: pyjson: unexpected end of JSON input`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p judgment.Probabilities
			err := p.UnmarshalJSON([]byte(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("UnmarshalJSON(%s) = %v, want %q", tt.in, err, tt.want)
			}
		})
	}
}
