package wording

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

const ask = "Which expense type is it?"

func choice(crit ...string) judgment.Choice {
	c := judgment.Choice{Instructions: ask}
	for i := 0; i < len(crit); i += 2 {
		c.Criteria = append(c.Criteria, judgment.Criterion{Label: crit[i], Description: crit[i+1]})
	}
	return c
}

// TestQuestionMapping follows the tables of test_wording_choice_parts.py.
func TestQuestionMapping(t *testing.T) {
	noul := judgment.Noul{Instructions: "Is it a scam?", Criteria: judgment.NoulCriteria{True: "Yes", False: "No"}}
	tests := []struct {
		name    string
		seed    judgment.Question
		mapping Mapping
		table   string
		reason  string
	}{
		{"named choice", choice("food", "A meal", "travel", "A trip", "other", "Anything else"),
			Mapping{{Instructions, ask}, {"criteria_food", "A meal"}, {"criteria_travel", "A trip"}, {"criteria_other", "Anything else"}},
			`{"criteria_food":"food","criteria_travel":"travel","criteria_other":"other"}`, ""},
		{"spaced choice", choice("food", "A meal", "air travel", "A flight", "other", ""),
			Mapping{{Instructions, ask}, {"option_0", "A meal"}, {"option_1", "A flight"}},
			`{"option_0":"food","option_1":"air travel"}`, "one non-identifier label gives option names for all; no description, no part"},
		{"integer-like label", choice("food", "A meal", "7", "Seven"),
			Mapping{{Instructions, ask}, {"option_0", "A meal"}, {"option_1", "Seven"}},
			`{"option_0":"food","option_1":"7"}`, "Go labels are strings: Python's int 7 is the string \"7\" here"},
		{"score with a gap", judgment.Score{Instructions: "Rate it.", Criteria: []string{"Poor", "", "Good"}},
			Mapping{{Instructions, "Rate it."}, {"level_0", "Poor"}, {"level_2", "Good"}},
			`{"level_0":0,"level_2":2}`, "levels are JSON integers"},
		{"score", judgment.Score{Instructions: "Rate it.", Criteria: []string{"Poor", "Fair", "Good"}},
			Mapping{{Instructions, "Rate it."}, {"level_0", "Poor"}, {"level_1", "Fair"}, {"level_2", "Good"}},
			`{"level_0":0,"level_1":1,"level_2":2}`, ""},
		{"noul", noul,
			Mapping{{Instructions, "Is it a scam?"}, {CriteriaTrue, "Yes"}, {CriteriaFalse, "No"}},
			`{"criteria_true":"true","criteria_false":"false"}`, ""},
		{"choice true/false", judgment.Choice{Instructions: "Is it a scam?", Criteria: []judgment.Criterion{{Label: "true", Description: "Yes"}, {Label: "false", Description: "No"}}},
			Mapping{{Instructions, "Is it a scam?"}, {CriteriaTrue, "Yes"}, {CriteriaFalse, "No"}},
			`{"criteria_true":"true","criteria_false":"false"}`, "true/false labels give the Noul names"},
		{"bare noul", judgment.Noul{Instructions: "Is it a scam?"},
			Mapping{{Instructions, "Is it a scam?"}}, `{}`, ""},
		{"choice without first description", choice("food", "", "other", "Else"),
			Mapping{{Instructions, ask}, {"criteria_other", "Else"}}, `{"criteria_other":"other"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := QuestionMapping(tt.seed)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(m, tt.mapping) {
				t.Errorf("QuestionMapping = %v, want %v", m, tt.mapping)
			}
			table, err := PartTableOf(tt.seed)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(table)
			if string(b) != tt.table {
				t.Errorf("PartTableOf = %s, want %s", b, tt.table)
			}
			var back PartTable
			if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, table) {
				t.Errorf("PartTable round trip = %v, %v; want %v", back, err, table)
			}
			roles, err := PartRoles(tt.seed)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(roles.Names(), m.Names()) {
				t.Errorf("role names %v, want the mapping names %v", roles.Names(), m.Names())
			}
			// Rebuilding from the seed's own mapping gives the seed back.
			q, err := QuestionFromParts(tt.seed, m)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(q, tt.seed) {
				t.Errorf("QuestionFromParts = %#v, want %#v", q, tt.seed)
			}
		})
	}
}

func TestPartRoles(t *testing.T) {
	roles, _ := PartRoles(choice("food", "A meal", "air travel", "A flight", "other", ""))
	if r, _ := roles.Get("option_1"); r != "what the option 'air travel' means" {
		t.Errorf("option_1 role = %q", r)
	}
	if r, _ := roles.Get(Instructions); r != "the question the judge answers by picking one option" {
		t.Errorf("instructions role = %q", r)
	}
	roles, _ = PartRoles(judgment.Score{Instructions: "Rate it.", Criteria: []string{"Poor", "", "Good"}})
	if r, _ := roles.Get("level_2"); r != "what score level 2 means" {
		t.Errorf("level_2 role = %q", r)
	}
	roles, _ = PartRoles(judgment.Noul{Instructions: "q", Criteria: judgment.NoulCriteria{True: "a", False: "b"}})
	if !reflect.DeepEqual(roles, NoulRoles()) {
		t.Errorf("Noul roles = %v", roles)
	}
	roles, _ = PartRoles(judgment.Choice{Criteria: []judgment.Criterion{{Label: "it's", Description: "x"}}})
	if r, _ := roles.Get("option_0"); r != `what the option "it's" means` {
		t.Errorf("repr with a single quote: %q", r)
	}
}

func TestQuestionFromPartsEdits(t *testing.T) {
	spaced := choice("food", "A meal", "air travel", "A flight", "other", "")
	q, err := QuestionFromParts(spaced, Mapping{{Instructions, ask}, {"option_1", "A plane ticket"}})
	if err != nil {
		t.Fatal(err)
	}
	want := choice("food", "A meal", "air travel", "A plane ticket", "other", "")
	if !reflect.DeepEqual(q, want) {
		t.Errorf("got %#v, want %#v", q, want)
	}
	score := judgment.Score{Instructions: "Rate it.", Criteria: []string{"Poor", "", "Good"}}
	q, _ = QuestionFromParts(score, Mapping{{"level_2", "Great"}})
	if !reflect.DeepEqual(q, judgment.Score{Instructions: "Rate it.", Criteria: []string{"Poor", "", "Great"}}) {
		t.Errorf("score rebuild = %#v", q)
	}
	if _, err := QuestionFromParts(score, Mapping{{"level_1", "Fair"}}); err == nil {
		t.Error("a part the seed lacks was accepted")
	}
}

// TestSeedRefusals covers the refusals Go's types leave reachable, and shows
// messages never carry a text.
func TestSeedRefusals(t *testing.T) {
	const sentinel = "SENTINEL-text"
	tests := []struct {
		name   string
		seed   judgment.Question
		call   func(judgment.Question) error
		want   string
		reason string
	}{
		{"score run refused", judgment.Score{Instructions: sentinel, Criteria: []string{"a", "b"}},
			func(q judgment.Question) error { _, err := SeedMapping(q); return err },
			"the wording run refuses a Score seed; only a Noul or Choice seed runs", ""},
		{"nil seed", nil,
			func(q judgment.Question) error { _, err := QuestionMapping(q); return err },
			"a nil seed has no wording parts", "Python: a NoneType seed"},
		{"pointer seed", &judgment.Noul{Instructions: sentinel},
			func(q judgment.Question) error { _, err := QuestionMapping(q); return err },
			"a *judgment.Noul seed has no wording parts", "a pointer satisfies judgment.Question but is not a seed"},
		{"noul without false text", judgment.Noul{Instructions: "q", Criteria: judgment.NoulCriteria{True: sentinel}},
			func(q judgment.Question) error { _, err := QuestionMapping(q); return err },
			"the seed criteria 'false' must be text", "Python: criteria {true: text, false: None}"},
		{"noul without true text", judgment.Noul{Instructions: "q", Criteria: judgment.NoulCriteria{False: sentinel}},
			func(q judgment.Question) error { _, err := PartTableOf(q); return err },
			"the seed criteria 'true' must be text", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(tt.seed)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), sentinel) {
				t.Errorf("message holds the text: %q", err)
			}
		})
	}
}

func TestCheckParts(t *testing.T) {
	bare := FromTexts("a", "b").Seed()
	tests := []struct {
		name   string
		m      Mapping
		seed   Mapping
		want   string
		reason string
	}{
		{"same", seedParts, seedParts, "", ""},
		{"reordered", Mapping{seedParts[2], seedParts[0], seedParts[1]}, seedParts, "", "order is free"},
		{"noul name outside the seed", bare.With(CriteriaTrue, "x"), bare,
			"'criteria_true' is not a part of the seed", "a PART_NAMES name gets this message"},
		{"other name", seedParts.With("is_scam", "x"), seedParts, "'is_scam' is not a wording part", ""},
		{"missing part", seedParts[:2], seedParts, "the wording mapping lacks the part 'criteria_false'", ""},
		{"repeated part", append(seedParts.clone(), seedParts[0]), seedParts,
			"the wording mapping holds the part 'instructions' twice", "Go-only: a dict cannot repeat a key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errString(CheckParts(tt.m, tt.seed)); got != tt.want {
				t.Errorf("CheckParts = %q, want %q", got, tt.want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestCheckSelection(t *testing.T) {
	tests := []struct {
		name string
		sel  []string
		seed Mapping
		want string
	}{
		{"ok", []string{CriteriaTrue, Instructions}, seedParts, ""},
		{"empty", nil, seedParts, "select at least one wording part"},
		{"twice", []string{Instructions, Instructions}, seedParts, "'instructions' is selected twice"},
		{"no criteria in the seed", []string{CriteriaTrue}, FromTexts("a", "b").Seed(), "'criteria_true' is not a part of the seed"},
		{"question key", []string{"is_scam"}, seedParts, "'is_scam' is not a part of the seed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckSelection(tt.sel, tt.seed)
			if errString(err) != tt.want {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if err == nil && !reflect.DeepEqual(got, tt.sel) {
				t.Errorf("selection = %v, want %v in order", got, tt.sel)
			}
			var ve *ValueError
			if err != nil && !errors.As(err, &ve) {
				t.Errorf("%T is not a *ValueError", err)
			}
		})
	}
}

func TestMappingJSON(t *testing.T) {
	var m Mapping
	in := `{ "z" : "1", "a":"é\u2028", "m": "<&>" }`
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	want := Mapping{{"z", "1"}, {"a", "é\u2028"}, {"m", "<&>"}}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("got %v, want %v (input order)", m, want)
	}
	b, _ := m.MarshalJSON()
	if string(b) != "{\"z\": \"1\", \"a\": \"é\u2028\", \"m\": \"<&>\"}" {
		t.Errorf("MarshalJSON = %s", b)
	}
	bad := []struct{ name, in, want string }{
		{"number", `{"instructions": 3}`, "the wording part 'instructions' must be text"},
		{"null", `{"criteria_true": null}`, "the wording part 'criteria_true' must be text"},
		{"nested", `{"a": {"x": "SENTINEL"}}`, "the wording part 'a' must be text"},
		{"repeated", `{"a": "1", "a": "2"}`, "the wording mapping holds the part 'a' twice"},
		{"array", `["a"]`, "not a JSON object"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			var m Mapping
			err := json.Unmarshal([]byte(tt.in), &m)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestQuestionFromPartsNoul checks the Noul rule of question_from_parts:
// criteria come from the mapping's criteria_true, not from the seed.
func TestQuestionFromPartsNoul(t *testing.T) {
	seed := judgment.Noul{Instructions: "Is this a scam?", Criteria: judgment.NoulCriteria{True: "It is a scam", False: "It is legitimate"}}
	tests := []struct {
		name   string
		parts  Mapping
		want   judgment.Noul
		reason string
	}{
		{name: "instructions only", parts: Mapping{{Instructions, "Is it fraud?"}},
			want:   judgment.Noul{Instructions: "Is it fraud?"},
			reason: "Python: criteria only when criteria_true is in the mapping, so the seed's criteria are dropped"},
		{name: "empty mapping", parts: Mapping{}, want: judgment.Noul{Instructions: "Is this a scam?"},
			reason: "instructions fall back to the seed; criteria do not"},
		{name: "both criteria", parts: Mapping{{CriteriaTrue, "Fraud"}, {CriteriaFalse, "Fine"}},
			want: judgment.Noul{Instructions: "Is this a scam?", Criteria: judgment.NoulCriteria{True: "Fraud", False: "Fine"}}},
		{name: "criteria_true only", parts: Mapping{{CriteriaTrue, "Fraud"}},
			want:   judgment.Noul{Instructions: "Is this a scam?", Criteria: judgment.NoulCriteria{True: "Fraud", False: "It is legitimate"}},
			reason: "a KeyError in Python; Go keeps the seed's criteria_false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := QuestionFromParts(seed, tt.parts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(q, tt.want) {
				t.Errorf("QuestionFromParts = %#v, want %#v", q, tt.want)
			}
		})
	}
}

// TestExportedTablesAreCopies checks that callers cannot change the
// package's tables through the returned values.
func TestExportedTablesAreCopies(t *testing.T) {
	PartNames()[0] = "x"
	NoulRoles()[0].Text = "x"
	ComparisonBackends()[0] = "x"
	if PartNames()[0] != Instructions || NoulRoles()[0].Text == "x" || ComparisonBackends()[0] != "jev" {
		t.Error("a returned table shares memory with the package's")
	}
}
