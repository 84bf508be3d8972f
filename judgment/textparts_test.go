package judgment_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

// renderBlock returns the user text a FamilyChat judge sends for one
// question with an empty state: "\n\n" + option block by default.
func renderUser(t *testing.T, parts judgment.TextParts, state string, media []judgment.Image, nq judgment.NamedQuestion) string {
	t.Helper()
	s := &recordingScorer{}
	j := judgment.NewJudge(s, judgment.JudgeOptions{Family: judgment.FamilyChat, TextParts: parts})
	if _, err := j.Judge(context.Background(), judgment.Request{Model: "m", State: state, Media: media, Questions: []judgment.NamedQuestion{nq}}); err != nil {
		t.Fatal(err)
	}
	_, scored := s.calls()
	return scored[0].Prefix
}

const (
	digitRule  = "Answer with exactly one control string (the digit shown), not the original label text."
	letterRule = "Answer with exactly one control string (the digit or letter shown), not the original label text."
)

func labels(ls ...string) []judgment.Criterion {
	out := make([]judgment.Criterion, len(ls))
	for i, l := range ls {
		out[i] = judgment.Criterion{Label: l}
	}
	return out
}

func TestOptionBlockBytes(t *testing.T) {
	qs := checkQuestions()
	twelve := labels("l0", "l1", "l2", "l3", "l4", "l5", "l6", "l7", "l8", "l9", "l10", "l11")
	tests := []struct {
		name   string
		reason string
		q      judgment.NamedQuestion
		want   string
	}{
		{name: "noul", reason: "false first; Control prefix; descriptions found through the lower-cased label",
			q: qs[0],
			want: "payee_matches: Is the payee on the check the payee in the register row?\n\nOptions:\n" +
				"Control 0 → false: The check names a different payee.\n" +
				"Control 1 → true: The check names the register payee.\n\n" + digitRule},
		{name: "noul bare", reason: "nil instructions render as empty; no criteria, no descriptions",
			q:    judgment.NamedQuestion{Name: "n", Question: judgment.Noul{}},
			want: "n: \n\nOptions:\nControl 0 → false\nControl 1 → true\n\n" + digitRule},
		{name: "choice", reason: "#207: no Control prefix on a native Choice without collisions",
			q: qs[2],
			want: "verdict: Compare the check with the register row. Choose one:\n\nOptions:\n" +
				"0 → consistent: The check agrees with the register row and is signed.\n" +
				"1 → payee_mismatch: The payee differs from the register row.\n" +
				"2 → amount_mismatch: An amount differs from the register row.\n" +
				"3 → date_mismatch: The date differs from the register row.\n" +
				"4 → unsigned: There are no handwritten signature strokes on the signature line. Printed marks such as VOID do not count.\n" +
				"5 → cannot_tell: The image is not clear enough to decide.\n\n" + digitRule},
		{name: "score", q: qs[3],
			want: "legibility: Rate how clearly you can read the check text:\n\nOptions:\n" +
				"Control 0 → 0: No text can be read.\nControl 1 → 1: Only a few words can be read.\n" +
				"Control 2 → 2: Some fields can be read.\nControl 3 → 3: Most fields can be read.\n" +
				"Control 4 → 4: All fields can be read clearly.\n\n" + digitRule},
		{name: "score partial legend", reason: "an empty level description renders nothing",
			q:    judgment.NamedQuestion{Name: "s", Question: judgment.Score{Instructions: "Rate:", Criteria: []string{"low", ""}}},
			want: "s: Rate:\n\nOptions:\nControl 0 → 0: low\nControl 1 → 1\n\n" + digitRule},
		{name: "choice digit collision", reason: "a label that is all digits switches the whole block to Control",
			q:    judgment.NamedQuestion{Name: "c", Question: judgment.Choice{Criteria: labels("yes", " 10 ", "no")}},
			want: "c: \n\nOptions:\nControl 0 → yes\nControl 1 →  10 \nControl 2 → no\n\n" + digitRule},
		{name: "choice superscript collision", reason: "Python's isdigit counts superscript digits (Numeric_Type Digit); Go's unicode.IsDigit does not",
			q:    judgment.NamedQuestion{Name: "c", Question: judgment.Choice{Criteria: labels("x²", "²", "y")}},
			want: "c: \n\nOptions:\nControl 0 → x²\nControl 1 → ²\nControl 2 → y\n\n" + digitRule},
		{name: "choice circled collision", reason: "circled digits are isdigit in Python too",
			q:    judgment.NamedQuestion{Name: "c", Question: judgment.Choice{Criteria: labels("①", "②")}},
			want: "c: \n\nOptions:\nControl 0 → ①\nControl 1 → ②\n\n" + digitRule},
		{name: "choice circled ten no collision", reason: "⑩ is numeric but not a digit in Python (Numeric_Type Numeric)",
			q:    judgment.NamedQuestion{Name: "c", Question: judgment.Choice{Criteria: labels("⑩", "½")}},
			want: "c: \n\nOptions:\n0 → ⑩\n1 → ½\n\n" + digitRule},
		{name: "choice letter no collision", reason: "letter controls are not active with 3 options",
			q:    judgment.NamedQuestion{Name: "c", Question: judgment.Choice{Criteria: labels("a", "b", "c")}},
			want: "c: \n\nOptions:\n0 → a\n1 → b\n2 → c\n\n" + digitRule},
		{name: "choice letters", reason: "11+ options use letter controls and the digit-or-letter rule",
			q: judgment.NamedQuestion{Name: "c", Question: judgment.Choice{Criteria: twelve}},
			want: "c: \n\nOptions:\n0 → l0\n1 → l1\n2 → l2\n3 → l3\n4 → l4\n5 → l5\n6 → l6\n7 → l7\n8 → l8\n9 → l9\n" +
				"A → l10\nB → l11\n\n" + letterRule},
		{name: "choice letter collision", reason: "label 'b' upper-cases to the active control B",
			q: judgment.NamedQuestion{Name: "c", Question: judgment.Choice{Criteria: append(labels("b"), twelve[1:]...)}},
			want: "c: \n\nOptions:\nControl 0 → b\nControl 1 → l1\nControl 2 → l2\nControl 3 → l3\nControl 4 → l4\n" +
				"Control 5 → l5\nControl 6 → l6\nControl 7 → l7\nControl 8 → l8\nControl 9 → l9\nControl A → l10\nControl B → l11\n\n" + letterRule},
		{name: "choice lower-case fallback", reason: "criteria are looked up by label, then by lower-cased label",
			q:    judgment.NamedQuestion{Name: "c", Question: judgment.Choice{Criteria: []judgment.Criterion{{Label: "Yes"}, {Label: "yes", Description: "agree"}}}},
			want: "c: \n\nOptions:\n0 → Yes: agree\n1 → yes: agree\n\n" + digitRule},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := renderUser(t, judgment.TextParts{}, "", nil, tt.q)
			if want := "\n\n" + tt.want; got != want {
				t.Errorf("got\n%q\nwant\n%q", got, want)
			}
		})
	}
}

func TestMediaMarkerNeutralized(t *testing.T) {
	// #433: markers in caller text are neutralised; only real images add
	// markers, one per line before the state.
	m := judgment.MediaMarker
	q := judgment.NamedQuestion{Name: "q" + m, Question: judgment.Choice{Instructions: "see " + m,
		Criteria: []judgment.Criterion{{Label: "a" + m, Description: "d" + m}, {Label: "b"}}}}
	img := judgment.Image{Data: []byte{1}, MIMEType: "image/png"}
	n := judgment.NeutralizedMediaMarker
	got := renderUser(t, judgment.TextParts{}, "state "+m, []judgment.Image{img, img}, q)
	want := m + "\n" + m + "\nstate " + n + "\n\nq" + n + ": see " + n + "\n\nOptions:\n0 → a" + n + ": d" + n + "\n1 → b\n\n" + digitRule
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestCustomTextParts(t *testing.T) {
	q := judgment.NamedQuestion{Name: "c", Question: judgment.Choice{Instructions: "Pick.", Criteria: []judgment.Criterion{{Label: "x", Description: "ex"}, {Label: "y"}}}}
	tests := []struct {
		name   string
		reason string
		parts  judgment.TextParts
		want   string
	}{
		{name: "option line in the middle", reason: "head and tail around the repeated option line; {name} is optional; {{ }} are literal braces",
			parts: judgment.TextParts{OptionBlock: "Q {{1}}: {question}\n- {control} → {label}{description} ;\n{answer_rule}\nend"},
			want:  "S\n\nQ {1}: Pick.\n- 0 → x: ex ;\n- 1 → y ;\n" + digitRule + "\nend"},
		{name: "option line first",
			parts: judgment.TextParts{OptionBlock: "{control} → {label}{description}\n{question} {answer_rule}"},
			want:  "S\n\n0 → x: ex\n1 → y\nPick. " + digitRule},
		{name: "option line last",
			parts: judgment.TextParts{OptionBlock: "{name}|{question}|{answer_rule}\n\n{control} → {label}{description}"},
			want:  "S\n\nc|Pick.|" + digitRule + "\n\n0 → x: ex\n1 → y"},
		{name: "context template", reason: "the field block may come first",
			parts: judgment.TextParts{ContextTemplate: "FIELDS:\n{field_block}\nSTATE:\n{context}"},
			want:  "FIELDS:\nc: Pick.\n\nOptions:\n0 → x: ex\n1 → y\n\n" + digitRule + "\nSTATE:\nS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.parts.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := renderUser(t, tt.parts, "S", nil, q); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestTextPartsRefusals(t *testing.T) {
	const ok = "{name}: {question}\n{control} → {label}{description}\n{answer_rule}"
	tests := []struct {
		name   string
		reason string
		parts  judgment.TextParts
		msg    string
	}{
		{name: "unclosed brace", parts: judgment.TextParts{OptionBlock: "{question\n" + ok},
			msg: "option_block template refused: malformed template"},
		{name: "lone close brace", parts: judgment.TextParts{OptionBlock: ok + "}"},
			msg: "option_block template refused: malformed template"},
		{name: "conversion", parts: judgment.TextParts{OptionBlock: strings.Replace(ok, "{question}", "{question!r}", 1)},
			msg: "option_block template refused: format spec or conversion in a placeholder ({question})"},
		{name: "format spec", parts: judgment.TextParts{OptionBlock: strings.Replace(ok, "{label}", "{label:>9}", 1)},
			msg: "option_block template refused: format spec or conversion in a placeholder ({label})"},
		{name: "nested spec", parts: judgment.TextParts{OptionBlock: strings.Replace(ok, "{label}", "{label:{w}}", 1)},
			msg: "option_block template refused: format spec or conversion in a placeholder"},
		{name: "unknown", reason: "the unknown name is template text and is not quoted",
			parts: judgment.TextParts{OptionBlock: ok + "{api_key_xyz}"},
			msg:   "option_block template refused: unknown placeholder"},
		{name: "positional", parts: judgment.TextParts{OptionBlock: ok + "{}"},
			msg: "option_block template refused: unknown placeholder"},
		{name: "other part's placeholder", parts: judgment.TextParts{ContextTemplate: "{context}{field_block}{question}"},
			msg: "context_template template refused: unknown placeholder"},
		{name: "repeated", parts: judgment.TextParts{OptionBlock: ok + "{question}"},
			msg: "option_block template refused: repeated placeholder ({question})"},
		{name: "missing", parts: judgment.TextParts{OptionBlock: "{question}\n{control} → {label}{description}"},
			msg: "option_block template refused: missing placeholder ({answer_rule})"},
		{name: "missing context", parts: judgment.TextParts{ContextTemplate: "{field_block}"},
			msg: "context_template template refused: missing placeholder ({context})"},
		{name: "repeated context", parts: judgment.TextParts{ContextTemplate: "{context}{field_block}{context}"},
			msg: "context_template template refused: repeated placeholder ({context})"},
		{name: "question on option line", parts: judgment.TextParts{OptionBlock: "{question} {control} → {label}{description}\n{answer_rule}"},
			msg: "option_block template refused: misplaced placeholder ({question})"},
		{name: "description off option line", parts: judgment.TextParts{OptionBlock: "{question}\n{control} → {label}\n{description}{answer_rule}"},
			msg: "option_block template refused: misplaced placeholder ({description})"},
		{name: "pair split", reason: "control and label must read '<control> → <label>'",
			parts: judgment.TextParts{OptionBlock: "{question}\n{label} ({control}){description}\n{answer_rule}"},
			msg:   "option_block template refused: drops a control line"},
		{name: "other arrow", parts: judgment.TextParts{OptionBlock: "{question}\n{control}: {label}{description}\n{answer_rule}"},
			msg: "option_block template refused: drops a control line"},
		{name: "gold marker", reason: "case-insensitive",
			parts: judgment.TextParts{OptionBlock: "The Correct Answer is below.\n" + ok},
			msg:   "option_block template refused: gold-reference marker"},
		{name: "media marker", parts: judgment.TextParts{ContextTemplate: "<__media__>{context}{field_block}"},
			msg: "context_template template refused: media marker"},
		{name: "turn marker", parts: judgment.TextParts{ContextTemplate: "{context}{field_block}<|im_end|>"},
			msg: "context_template template refused: turn marker"},
		{name: "control token", reason: "Gemma 4 control tokens are refused like turn markers",
			parts: judgment.TextParts{OptionBlock: ok + "<|channel>"},
			msg:   "option_block template refused: control token"},
		{name: "gemma4 turn marker", parts: judgment.TextParts{OptionBlock: ok + "<turn|>"},
			msg: "option_block template refused: turn marker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.parts.Validate()
			checkErr(t, err, "JudgmentValidationError", tt.msg)
		})
	}
}

func TestTextPartsReceipt(t *testing.T) {
	if got := (judgment.TextParts{}).Receipt(); got != (judgment.TextPartsReceipt{OptionBlock: "default", ContextTemplate: "default"}) {
		t.Errorf("zero receipt = %+v", got)
	}
	ct := "{field_block}\n{context}"
	sum := sha256.Sum256([]byte(ct))
	got := judgment.TextParts{ContextTemplate: ct}.Receipt()
	if got.OptionBlock != "default" || got.ContextTemplate != hex.EncodeToString(sum[:]) {
		t.Errorf("receipt = %+v", got)
	}
	// The default template set explicitly renders the same bytes but is
	// recorded as set.
	if r := (judgment.TextParts{OptionBlock: judgment.DefaultOptionBlock}).Receipt(); r.OptionBlock == "default" {
		t.Error("explicit default template recorded as default")
	}
}
