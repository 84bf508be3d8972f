package wording

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

// TestLengthCap follows test_wording_runner.py.
func TestLengthCap(t *testing.T) {
	caps, err := PartCaps(Mapping{{Instructions, strings.Repeat("x", 10)}}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, component, text, want, reason string
	}{
		{"at the cap", Instructions, strings.Repeat("y", 15), "", ""},
		{"over the cap", Instructions, strings.Repeat("y", 16), "proposal has 16 characters; the cap is 15", ""},
		{"code points, not bytes", Instructions, strings.Repeat("é", 15), "", "30 bytes, 15 code points"},
		{"emoji count once", Instructions, strings.Repeat("🚨", 16), "proposal has 16 characters; the cap is 15", ""},
		{"blank", Instructions, "  ", "empty proposal", ""},
		{"python-only whitespace", Instructions, "\x1f\u3000", "empty proposal", "str.strip removes U+001F; strings.TrimSpace does not"},
		{"not capped", "criteria_maybe", "x", "'criteria_maybe' is not an evolvable part", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errString(caps.Check(tt.component, tt.text)); got != tt.want {
				t.Errorf("Check = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPartCaps(t *testing.T) {
	seed := Mapping{
		{Instructions, strings.Repeat("a", 10)},
		{CriteriaTrue, strings.Repeat("b", 4)},
		{CriteriaFalse, strings.Repeat("c", 20)},
	}
	caps, err := PartCaps(seed, nil, LengthRatio)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Caps{{Instructions, 15}, {CriteriaTrue, 6}, {CriteriaFalse, 30}}); !reflect.DeepEqual(caps, want) {
		t.Errorf("caps %v, want %v", caps, want)
	}
	// Python's "components or every seed part": an empty selection is
	// every part, like nil.
	if _, err := PartCaps(seed, []string{}, LengthRatio); errString(err) != "select at least one wording part" {
		t.Errorf("PartCaps(empty selection) error = %v, want typevet's refusal", err)
	}
	caps, _ = PartCaps(seed, []string{CriteriaTrue}, 0)
	if err := caps.Check(Instructions, "x"); errString(err) != "'instructions' is not an evolvable part" {
		t.Errorf("a frozen part: %v", err)
	}
	if err := caps.Check(CriteriaTrue, "x"); err != nil {
		t.Errorf("the selected part: %v", err)
	}
	b, _ := caps.MarshalJSON()
	if string(b) != `{"criteria_true": 6}` {
		t.Errorf("length_cap JSON %s", b)
	}
	// The real artifact: 84 -> 126, 70 -> 105, 63 -> 94; the held-out seed 23 -> 34.
	for n, want := range map[int]int{84: 126, 70: 105, 63: 94, 23: 34, 0: 0, 1: 1} {
		if n == 0 {
			continue
		}
		c, _ := PartCaps(Mapping{{Instructions, strings.Repeat("é", n)}}, nil, 0)
		if c[0].Max != want {
			t.Errorf("cap of %d = %d, want %d", n, c[0].Max, want)
		}
	}
	errs := []struct {
		name string
		seed Mapping
		sel  []string
		want string
	}{
		{"empty seed part", Mapping{{Instructions, " "}}, nil, "empty seed part 'instructions'"},
		{"no seed parts", Mapping{}, nil, "select at least one wording part"},
		{"empty selection", seed, []string{}, "select at least one wording part"},
		{"twice", seed, []string{Instructions, Instructions}, "'instructions' is selected twice"},
		{"question key", seed, []string{"is_scam"}, "'is_scam' is not a part of the seed"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := PartCaps(tt.seed, tt.sel, 0); errString(err) != tt.want {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestReflectionPrompt(t *testing.T) {
	noul := judgment.Noul{Instructions: "Is this message a scam?", Criteria: judgment.NoulCriteria{True: "It is a scam", False: "It is legitimate"}}
	seed, _ := SeedMapping(noul)
	roles, _ := PartRoles(noul)
	caps, _ := PartCaps(seed, nil, 0)
	const base = "Improve {component_text} using {trials}."
	prompt, err := ReflectionPrompt(base, roles, caps)
	if err != nil {
		t.Fatal(err)
	}
	want := base + "\n" + reflectionHead + "\n" +
		"- instructions (the yes/no question the judge answers about the message): at most 34 characters.\n" +
		"- criteria_true (what a yes answer means): at most 18 characters.\n" +
		"- criteria_false (what a no answer means): at most 24 characters.\n" +
		"The component text is one of these parts. Keep its role, and keep it within the limit of that part."
	if prompt != want {
		t.Errorf("prompt:\n%s\nwant:\n%s", prompt, want)
	}
	// Python's "components or every seed part": an empty selection is
	// every part, like nil.
	if _, err := PartCaps(seed, []string{}, LengthRatio); errString(err) != "select at least one wording part" {
		t.Errorf("PartCaps(empty selection) error = %v, want typevet's refusal", err)
	}
	caps, _ = PartCaps(seed, []string{CriteriaTrue}, 0)
	lines, _ := ReflectionLines(roles, caps)
	if !reflect.DeepEqual(lines, []string{"- criteria_true (what a yes answer means): at most 18 characters."}) {
		t.Errorf("lines %q", lines)
	}
	spaced := choice("food", "A meal", "air travel", "A flight", "other", "")
	sm, _ := SeedMapping(spaced)
	roles, _ = PartRoles(spaced)
	caps, _ = PartCaps(sm, []string{"option_1"}, 0)
	prompt, _ = ReflectionPrompt(base, roles, caps)
	if !strings.Contains(prompt, "- option_1 (what the option 'air travel' means): at most 12 characters.") || strings.Contains(prompt, "A flight") {
		t.Errorf("spaced Choice prompt:\n%s", prompt)
	}
	if _, err := ReflectionLines(Mapping{}, caps); errString(err) != "'option_1' is not a part of the seed" {
		t.Errorf("missing role: %v", err)
	}
}

func TestCapsJSON(t *testing.T) {
	var c Caps
	if err := json.Unmarshal([]byte(`{"criteria_true": 126, "criteria_false": 105}`), &c); err != nil {
		t.Fatal(err)
	}
	if want := (Caps{{CriteriaTrue, 126}, {CriteriaFalse, 105}}); !reflect.DeepEqual(c, want) {
		t.Errorf("got %v, want %v", c, want)
	}
	b, _ := json.Marshal(c)
	if string(b) != `{"criteria_true":126,"criteria_false":105}` {
		t.Errorf("round trip %s", b)
	}
	for _, bad := range []string{`94`, `{"instructions": 9.5}`, `{"instructions": "94"}`, `{"instructions": -1}`} {
		if err := json.Unmarshal([]byte(bad), &c); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}
