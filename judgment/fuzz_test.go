package judgment_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

// FuzzProbabilitiesJSON checks that any accepted probabilities object
// survives marshal → unmarshal with its labels, order and values intact.
func FuzzProbabilitiesJSON(f *testing.F) {
	f.Add([]byte(`{"consistent": 0.9, "payee_mismatch": 0.1}`))
	f.Add([]byte(`{"\u003c": 1e-7, "": 0, "b": -0.0}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p judgment.Probabilities
		if err := json.Unmarshal(data, &p); err != nil {
			return
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("accepted %q but cannot marshal it: %v", data, err)
		}
		var back judgment.Probabilities
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("cannot read back %s: %v", out, err)
		}
		if len(back) != len(p) {
			t.Fatalf("round trip changed length: %v → %v", p, back)
		}
		for i := range p {
			if back[i].Label != p[i].Label || back[i].P != p[i].P {
				t.Fatalf("entry %d: %v → %v", i, p[i], back[i])
			}
		}
	})
}

// FuzzTextParts checks the template rules on arbitrary option blocks: a
// refusal never quotes template text, and an accepted template renders
// every option as "<control> → <label>" in option order, with exactly
// the image's one marker in the prefix.
func FuzzTextParts(f *testing.F) {
	f.Add(judgment.DefaultOptionBlock, judgment.DefaultContextTemplate)
	f.Add("Q {{1}}: {question}\n- {control} → {label}{description} ;\n{answer_rule}", "{field_block}\n{context}")
	f.Add("{control} → {label}{description}\n{question} {answer_rule}", "{context}{field_block}")
	f.Add("{question!r}\n{control} → {label}{description}\n{answer_rule}", "{context}\n{field_block}")
	f.Fuzz(func(t *testing.T, optionBlock, contextTemplate string) {
		const secret = "ZQXJ-template-text"
		parts := judgment.TextParts{OptionBlock: secret + optionBlock, ContextTemplate: contextTemplate}
		if err := parts.Validate(); err != nil {
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("refusal quotes template text: %v", err)
			}
			if judgment.ErrorClass(err) != "JudgmentValidationError" {
				t.Fatalf("refusal class %s", judgment.ErrorClass(err))
			}
			return
		}
		s := &recordingScorer{}
		j := judgment.NewJudge(s, judgment.JudgeOptions{Family: judgment.FamilyGemma4Turn, TextParts: parts})
		names := []string{"alpha", "beta", "gamma"}
		resp, err := j.Judge(context.Background(), judgment.Request{Model: "m", State: "state",
			Media:     []judgment.Image{{Data: []byte{1}, MIMEType: "image/png"}},
			Questions: []judgment.NamedQuestion{{Name: "q", Question: judgment.Choice{Criteria: labels(names...)}}}})
		if err != nil {
			if judgment.ErrorClass(err) == "JudgmentValidationError" && strings.Contains(err.Error(), "media marker") {
				return // template text met caller text to form a marker: refused, as it must be
			}
			t.Fatalf("accepted template fails: %v", err)
		}
		_, scored := s.calls()
		prefix := scored[0].Prefix
		at := 0
		for i, l := range names {
			line := string(rune('0'+i)) + " → " + l
			k := strings.Index(prefix[at:], line)
			if k < 0 {
				t.Fatalf("option %q missing or out of order in %q", line, prefix)
			}
			at += k + len(line)
		}
		if strings.Count(prefix, judgment.MediaMarker) != 1 {
			t.Fatalf("prefix holds %d markers", strings.Count(prefix, judgment.MediaMarker))
		}
		if c, _ := resp.Choice("q"); math.Abs(c.Confidence-1.0/3) > 1e-12 {
			t.Fatalf("confidence %v", c.Confidence)
		}
	})
}
