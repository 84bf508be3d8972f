package wording

import (
	"reflect"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

func TestNewParts(t *testing.T) {
	changed := seedParts.With(CriteriaTrue, "SENTINEL changed")
	tests := []struct {
		name       string
		components []string
		seed       Mapping
		evolved    Mapping
		want       string
		reason     string
	}{
		{"selected part changed", []string{CriteriaTrue}, seedParts, changed, "", ""},
		{"frozen part changed", []string{Instructions}, seedParts, changed,
			"frozen part 'criteria_true' changed during the run", "no text in the message"},
		{"frozen instructions changed", []string{CriteriaTrue}, seedParts, changed.With(Instructions, "SENTINEL"),
			"frozen part 'instructions' changed during the run", ""},
		{"bad selection first", nil, seedParts, Mapping{}, "select at least one wording part",
			"the selection is checked before the evolved mapping"},
		{"evolved lacks a part", []string{Instructions}, seedParts, seedParts[:1],
			"the wording mapping lacks the part 'criteria_true'", ""},
		{"evolved has another part", []string{Instructions}, seedParts, seedParts.With("option_0", "x"),
			"'option_0' is not a wording part", ""},
		{"seed without instructions", []string{CriteriaTrue}, seedParts[1:], seedParts[1:],
			"the wording mapping lacks the part 'instructions'", "Go-only: every real seed has instructions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewParts(tt.components, tt.seed, tt.evolved)
			if got := errString(err); got != tt.want {
				t.Errorf("NewParts = %q, want %q", got, tt.want)
			}
			if strings.Contains(errString(err), "SENTINEL") {
				t.Errorf("message holds a text")
			}
		})
	}
}

func TestPartsCopies(t *testing.T) {
	seed := seedParts.clone()
	evolved := evolvedParts.clone()
	sel := []string{CriteriaTrue}
	p, err := NewParts(sel, seed, evolved)
	if err != nil {
		t.Fatal(err)
	}
	seed[0].Text, evolved[1].Text, sel[0] = "x", "y", "z"
	if p.SeedText() != "Is this message a scam?" || p.Components()[0] != CriteriaTrue {
		t.Error("a change to the caller's inputs leaked in")
	}
	got := p.Evolved()
	got[1].Text = "w"
	if t2, _ := p.Evolved().Get(CriteriaTrue); t2 != "It asks for money" {
		t.Error("Evolved returned the internal slice")
	}
}

func TestInstructionsOnly(t *testing.T) {
	noul := judgment.Noul{Instructions: "Is this message a scam?", Criteria: judgment.NoulCriteria{True: "It is a scam", False: "It is legitimate"}}
	p, err := InstructionsOnly(noul, "Does it ask for money?")
	if err != nil {
		t.Fatal(err)
	}
	wantSeed := Mapping{{Instructions, "Is this message a scam?"}, {CriteriaTrue, "It is a scam"}, {CriteriaFalse, "It is legitimate"}}
	if !reflect.DeepEqual(p.Seed(), wantSeed) || !reflect.DeepEqual(p.Evolved(), wantSeed.With(Instructions, "Does it ask for money?")) {
		t.Errorf("parts %v / %v", p.Seed(), p.Evolved())
	}
	if !reflect.DeepEqual(p.Components(), []string{Instructions}) {
		t.Errorf("components %v", p.Components())
	}
	if _, err := InstructionsOnly(judgment.Score{Criteria: []string{"a", "b"}}, "x"); err == nil || !strings.Contains(err.Error(), "Score") {
		t.Errorf("a Score seed: %v", err)
	}
}

func TestCheckTextsAndReceiptParts(t *testing.T) {
	p := FromTexts("Is this message a scam?", "Does it ask for money?")
	tests := []struct {
		name, seed, evolved, want string
	}{
		{"match", "Is this message a scam?", "Does it ask for money?", ""},
		{"seed differs", "Another seed", "Does it ask for money?", "seed_text is not the 'instructions' part of the parts"},
		{"evolved differs", "Is this message a scam?", "Another", "evolved_text is not the 'instructions' part of the parts"},
		{"both differ, seed first", "x", "y", "seed_text is not the 'instructions' part of the parts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReceiptParts(tt.seed, tt.evolved, &p)
			if got := errString(err); got != tt.want {
				t.Errorf("ReceiptParts = %q, want %q", got, tt.want)
			}
		})
	}
	got, err := ReceiptParts("a", "b", nil)
	if err != nil || !reflect.DeepEqual(got, FromTexts("a", "b")) {
		t.Errorf("no parts: %v %v", got, err)
	}
	if err := p.CheckSeedParts(Mapping{{Instructions, "Other"}}); errString(err) != "the parts do not hold the seed's parts" {
		t.Errorf("CheckSeedParts = %v", err)
	}
	if err := p.CheckSeedParts(Mapping{{Instructions, "Is this message a scam?"}}); err != nil {
		t.Errorf("CheckSeedParts = %v", err)
	}
}

// TestArtifactParts follows test_wording_live_knobs.py and the order of
// its checks.
func TestArtifactParts(t *testing.T) {
	bare := Mapping{{Instructions, "Is this message a scam?"}}
	full := seedParts
	const good = `{"seed_text": "Is this message a scam?", "evolved_text": "Is this message a scam?",
		"components": ["criteria_true"],
		"seed_parts": {"instructions": "Is this message a scam?", "criteria_true": "It is a scam", "criteria_false": "It is l\u00e9gitimate"},
		"evolved_parts": {"instructions": "Is this message a scam?", "criteria_true": "It asks for money", "criteria_false": "It is l\u00e9gitimate"}}`
	edit := func(old, new string) string { return strings.Replace(good, old, new, 1) }
	tests := []struct {
		name     string
		artifact string
		seed     Mapping
		want     string
		parts    *Parts
		reason   string
	}{
		{"good", good, full, "", nil, ""},
		{"legacy without parts", `{"seed_text": "Is this message a scam?", "evolved_text": "Does it ask?"}`, bare, "",
			ptr(FromTexts("Is this message a scam?", "Does it ask?")), "pre-#363 artifact"},
		{"legacy with seed criteria", `{"seed_text": "Is this message a scam?", "evolved_text": "Does it ask?"}`, full, "",
			ptr(mustParts(t, []string{Instructions}, full, full.With(Instructions, "Does it ask?"))), "criteria carried into both arms"},
		{"another seed_text", edit(`"seed_text": "Is this message a scam?"`, `"seed_text": "Other"`), full,
			"the artifact seed_text is not the seed's instructions part", nil, ""},
		{"another seed", good, full.With(CriteriaFalse, "x"),
			"the artifact seed_parts are not the seed's parts", nil, "seed_text matches; the criteria do not"},
		{"components secret", edit(`["criteria_true"]`, `["is_scam_secret_text"]`), full,
			"the artifact components name a part outside the seed parts", nil, "the value is not echoed"},
		{"components prefill", edit(`["criteria_true"]`, `["no_thinking_prefill"]`), full,
			"the artifact components name a part outside the seed parts", nil, ""},
		{"components a string", edit(`["criteria_true"]`, `"instructions"`), full,
			"the artifact components name a part outside the seed parts", nil, "a string is not an array"},
		{"evolved_parts a list", strings.TrimSuffix(edit(`"evolved_parts": {`, `"evolved_parts": [{`), "}}") + "}]}", full,
			"the artifact evolved_parts must be a mapping", nil, ""},
		{"evolved part not text", edit(`"criteria_true": "It asks for money"`, `"criteria_true": 3`), full,
			"the wording part 'criteria_true' must be text", nil, ""},
		{"evolved_text differs", edit(`"evolved_text": "Is this message a scam?"`, `"evolved_text": "Other"`), full,
			"the artifact evolved_text is not its instructions part", nil, "checked last"},
		{"not an object", `[]`, full, "the artifact must be a JSON object", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ArtifactParts([]byte(tt.artifact), tt.seed)
			if got := errString(err); got != tt.want {
				t.Fatalf("ArtifactParts = %q, want %q", got, tt.want)
			}
			if strings.Contains(errString(err), "secret") {
				t.Errorf("message echoes the value")
			}
			if tt.parts != nil && !reflect.DeepEqual(p, *tt.parts) {
				t.Errorf("parts %+v, want %+v", p, *tt.parts)
			}
		})
	}
	t.Run("frozen instructions changed", func(t *testing.T) {
		art := strings.Replace(good, `"evolved_parts": {"instructions": "Is this message a scam?"`, `"evolved_parts": {"instructions": "Changed"`, 1)
		art = strings.Replace(art, `"evolved_text": "Is this message a scam?"`, `"evolved_text": "Changed"`, 1)
		if _, err := ArtifactParts([]byte(art), full); errString(err) != "frozen part 'instructions' changed during the run" {
			t.Errorf("err = %v", err)
		}
	})
}

func ptr[T any](v T) *T { return &v }

func mustParts(t *testing.T, c []string, s, e Mapping) Parts {
	t.Helper()
	p, err := NewParts(c, s, e)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
