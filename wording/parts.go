package wording

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/typevet/typevet-go/internal/pyjson"
	"github.com/typevet/typevet-go/judgment"

	"github.com/typevet/typevet-go/internal/pytext"
)

// Part names of a [judgment.Noul] (PART_NAMES), in render order.
const (
	Instructions  = "instructions"   // the question text of every seed
	CriteriaTrue  = "criteria_true"  // what a yes answer means
	CriteriaFalse = "criteria_false" // what a no answer means
)

// PartNames returns the part names of a [judgment.Noul] in render order
// (PART_NAMES): instructions, criteria_true, criteria_false. The slice is
// a fresh copy on each call.
func PartNames() []string { return slices.Clone(partNames) }

var partNames = []string{Instructions, CriteriaTrue, CriteriaFalse}

// NoulRoles returns the roles of the [judgment.Noul] parts (PART_ROLES),
// which the reflection prompt states, in [PartNames] order. The mapping is
// a fresh copy on each call.
func NoulRoles() Mapping { return slices.Clone(noulRoles) }

var noulRoles = Mapping{
	{Instructions, "the yes/no question the judge answers about the message"},
	{CriteriaTrue, "what a yes answer means"},
	{CriteriaFalse, "what a no answer means"},
}

// slot is one criterion slot of a seed: its part name, its key (a Choice
// label or Noul key, or a Score level) and its description ("" = none).
type slot struct {
	name  string
	label string
	level int // Score level; -1 otherwise
	text  string
}

// seedName is the Python type name used in messages.
func seedName(q judgment.Question) string {
	switch q.(type) {
	case judgment.Noul:
		return "Noul"
	case judgment.Choice:
		return "Choice"
	case judgment.Score:
		return "Score"
	case nil:
		return "nil"
	}
	return fmt.Sprintf("%T", q)
}

// slots returns the criterion slots of a seed in seed order, or the refusal.
//
// Go's types rule out most of typevet's type refusals: labels are strings,
// descriptions and instructions are strings, and Noul criteria are a struct
// with exactly a true and a false text. An empty description means Python
// None (no part), as everywhere in package judgment. What stays reachable:
// a Noul whose criteria set only one of the two texts (Python: the other is
// None, "the seed criteria '<key>' must be text"), and a question that is
// not a Noul, Choice or Score value (a nil Question or a pointer).
func slots(q judgment.Question) ([]slot, error) {
	switch q := q.(type) {
	case judgment.Noul:
		if q.Criteria.IsZero() {
			return nil, nil
		}
		if q.Criteria.True == "" {
			return nil, typeErr("the seed criteria 'true' must be text")
		}
		if q.Criteria.False == "" {
			return nil, typeErr("the seed criteria 'false' must be text")
		}
		return []slot{
			{CriteriaTrue, "true", -1, q.Criteria.True},
			{CriteriaFalse, "false", -1, q.Criteria.False},
		}, nil
	case judgment.Choice:
		named := true
		for _, c := range q.Criteria {
			if !pytext.IsIdentifier(c.Label) {
				named = false
				break
			}
		}
		out := make([]slot, len(q.Criteria))
		for i, c := range q.Criteria {
			name := "option_" + strconv.Itoa(i)
			if named {
				name = "criteria_" + c.Label
			}
			out[i] = slot{name, c.Label, -1, c.Description}
		}
		return out, nil
	case judgment.Score:
		out := make([]slot, len(q.Criteria))
		for i, text := range q.Criteria {
			out[i] = slot{"level_" + strconv.Itoa(i), "", i, text}
		}
		return out, nil
	}
	return nil, valueErr("a %s seed has no wording parts", seedName(q))
}

// instructionsOf returns the instructions of a Noul, Choice or Score.
func instructionsOf(q judgment.Question) string {
	switch q := q.(type) {
	case judgment.Noul:
		return q.Instructions
	case judgment.Choice:
		return q.Instructions
	case judgment.Score:
		return q.Instructions
	}
	return ""
}

// QuestionMapping returns the wording parts of a seed question
// (question_mapping): "instructions" first, then one part per criterion with
// a description, in seed order. A Noul's criteria give "criteria_true" and
// "criteria_false"; a Choice gives "criteria_<label>" when every label is a
// Python identifier (str.isidentifier, keywords allowed) and otherwise
// "option_<i>" for every option, never a mix; a Score gives "level_<i>".
// A Choice or Score criterion with an empty description has no part.
//
// Refusals: "a <Type> seed has no wording parts" for anything but a Noul,
// Choice or Score value; "the seed criteria '<key>' must be text" for a Noul
// with only one criteria text.
func QuestionMapping(seed judgment.Question) (Mapping, error) {
	ss, err := slots(seed)
	if err != nil {
		return nil, err
	}
	m := Mapping{{Instructions, instructionsOf(seed)}}
	for _, s := range ss {
		if s.text != "" {
			m = append(m, Part{s.name, s.text})
		}
	}
	return m, nil
}

// SeedMapping returns the mapping a wording run accepts (seed_mapping): the
// [QuestionMapping] of a Noul or Choice seed. Any other seed is refused with
// "the wording run refuses a <Type> seed; only a Noul or Choice seed runs".
func SeedMapping(seed judgment.Question) (Mapping, error) {
	switch seed.(type) {
	case judgment.Noul, judgment.Choice:
		return QuestionMapping(seed)
	}
	return nil, valueErr("the wording run refuses a %s seed; only a Noul or Choice seed runs", seedName(seed))
}

// TableEntry ties one criterion part to its slot in the seed.
type TableEntry struct {
	Part  string // the part name, e.g. "criteria_food" or "level_2"
	Label string // the Choice label or Noul key ("true"/"false"); "" for a Score level
	Level int    // the Score level; -1 for a Choice or Noul part
}

// PartTable is the part_table receipt block (#369): each criterion part name
// to its Choice label or Noul key (a JSON string) or Score level (a JSON
// integer), in seed order. It is {} for a Noul without criteria and never
// holds "instructions". Example for a Noul with criteria:
//
//	{"criteria_true": "true", "criteria_false": "false"}
//
// typevet writes a Choice label of another type (e.g. the integer 7) as
// that type; Go labels are always strings, so such a label is written as a
// string here.
type PartTable []TableEntry

// MarshalJSON writes the table as a JSON object in order.
func (t PartTable) MarshalJSON() ([]byte, error) {
	obj := make(pyjson.Object, len(t))
	for i, e := range t {
		var v any = e.Label
		if e.Level >= 0 {
			v = e.Level
		}
		obj[i] = pyjson.Member{Key: e.Part, Value: v}
	}
	return pyjson.Marshal(obj, pyjson.Options{})
}

// UnmarshalJSON reads a part_table object in order: a string value is a
// label, an integer value a level.
func (t *PartTable) UnmarshalJSON(b []byte) error {
	var raw orderedRaw
	if err := raw.UnmarshalJSON(b); err != nil {
		return err
	}
	out := PartTable{}
	for _, m := range raw {
		e := TableEntry{Part: m.name, Level: -1}
		if err := json.Unmarshal(m.value, &e.Label); err != nil {
			if err := json.Unmarshal(m.value, &e.Level); err != nil || e.Level < 0 {
				return typeErr("the part_table entry %s must be a label or a level", pytext.Repr(m.name))
			}
		}
		out = append(out, e)
	}
	*t = out
	return nil
}

// PartTableOf returns the part table of a seed (part_table): the criterion
// parts that have a text, each with its label, key or level. It refuses the
// seeds that [QuestionMapping] refuses.
func PartTableOf(seed judgment.Question) (PartTable, error) {
	ss, err := slots(seed)
	if err != nil {
		return nil, err
	}
	t := PartTable{}
	for _, s := range ss {
		if s.text != "" {
			t = append(t, TableEntry{s.name, s.label, s.level})
		}
	}
	return t, nil
}

// PartRoles returns the role of every part of a seed (part_roles), in
// mapping order; the reflection prompt states them. A Noul uses
// [NoulRoles]. A Choice: "instructions" is "the question the judge answers
// by picking one option" and each part "what the option '<label>' means"
// (Python repr of the label). A Score: "instructions" is "what the judge
// rates on the ordered levels" and each part "what score level <i> means".
func PartRoles(seed judgment.Question) (Mapping, error) {
	ss, err := slots(seed)
	if err != nil {
		return nil, err
	}
	var roles Mapping
	switch seed.(type) {
	case judgment.Noul:
		roles = Mapping{noulRoles[0]}
	case judgment.Choice:
		roles = Mapping{{Instructions, "the question the judge answers by picking one option"}}
	case judgment.Score:
		roles = Mapping{{Instructions, "what the judge rates on the ordered levels"}}
	}
	for _, s := range ss {
		if s.text == "" {
			continue
		}
		var role string
		switch seed.(type) {
		case judgment.Noul:
			role, _ = noulRoles.Get(s.name)
		case judgment.Choice:
			role = "what the option " + pytext.Repr(s.label) + " means"
		case judgment.Score:
			role = "what score level " + strconv.Itoa(s.level) + " means"
		}
		roles = append(roles, Part{s.name, role})
	}
	return roles, nil
}

// QuestionFromParts rebuilds a question of the seed's type from a wording
// mapping (question_from_parts). A part missing from the mapping keeps the
// seed's text; a Choice keeps its label order and a Score its level order.
// A mapping name that is not a part of the seed is refused with the
// message of [CheckParts]; Python would ignore it.
//
// A Noul follows Python: it gets criteria only when the mapping holds
// criteria_true, and then True is the mapping's criteria_true and False
// the mapping's criteria_false. A mapping without criteria_true gives a
// Noul with no criteria, even when the seed has criteria. A mapping with
// criteria_true but no criteria_false (a KeyError in Python) keeps the
// seed's criteria_false.
func QuestionFromParts(seed judgment.Question, parts Mapping) (judgment.Question, error) {
	own, err := QuestionMapping(seed)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		if !own.Has(p.Name) {
			return nil, unknownPart(p.Name)
		}
	}
	text := func(name, fallback string) string {
		if t, ok := parts.Get(name); ok {
			return t
		}
		return fallback
	}
	ss, _ := slots(seed)
	instr := text(Instructions, instructionsOf(seed))
	switch q := seed.(type) {
	case judgment.Noul:
		q.Instructions = instr
		if t, ok := parts.Get(CriteriaTrue); ok {
			q.Criteria = judgment.NoulCriteria{True: t, False: text(CriteriaFalse, q.Criteria.False)}
		} else {
			q.Criteria = judgment.NoulCriteria{}
		}
		return q, nil
	case judgment.Choice:
		crit := make([]judgment.Criterion, len(q.Criteria))
		for i, s := range ss {
			crit[i] = judgment.Criterion{Label: s.label, Description: text(s.name, s.text)}
		}
		return judgment.Choice{Instructions: instr, Criteria: crit}, nil
	case judgment.Score:
		crit := make([]string, len(q.Criteria))
		for i, s := range ss {
			crit[i] = text(s.name, s.text)
		}
		return judgment.Score{Instructions: instr, Criteria: crit}, nil
	}
	return nil, valueErr("a %s seed has no wording parts", seedName(seed))
}

// unknownPart is the refusal of a name that the seed does not have.
func unknownPart(name string) error {
	if slices.Contains(partNames, name) {
		return valueErr("%s is not a part of the seed", pytext.Repr(name))
	}
	return valueErr("%s is not a wording part", pytext.Repr(name))
}

// CheckParts checks a mapping against the seed's parts (check_parts): each
// name, in mapping order, must be a seed part ("'<name>' is not a part of
// the seed" for a Noul part name, "'<name>' is not a wording part"
// otherwise), no name may repeat, and then every seed part must be present
// ("the wording mapping lacks the part '<name>'"). Python's "must be text"
// refusal of a non-string value happens when a [Mapping] is read from JSON.
func CheckParts(m, seed Mapping) error {
	for i, p := range m {
		if !seed.Has(p.Name) {
			return unknownPart(p.Name)
		}
		if m[:i].Has(p.Name) {
			return valueErr("the wording mapping holds the part %s twice", pytext.Repr(p.Name))
		}
	}
	for _, p := range seed {
		if !m.Has(p.Name) {
			return valueErr("the wording mapping lacks the part %s", pytext.Repr(p.Name))
		}
	}
	return nil
}

// CheckSelection checks the selected part names against the seed's parts
// (check_selection): at least one ("select at least one wording part"),
// each a seed part ("'<name>' is not a part of the seed"), none twice
// ("'<name>' is selected twice"). It returns a copy in the given order.
func CheckSelection(components []string, seed Mapping) ([]string, error) {
	if len(components) == 0 {
		return nil, valueErr("select at least one wording part")
	}
	for i, name := range components {
		if !seed.Has(name) {
			return nil, valueErr("%s is not a part of the seed", pytext.Repr(name))
		}
		if slices.Contains(components[:i], name) {
			return nil, valueErr("%s is selected twice", pytext.Repr(name))
		}
	}
	return append([]string(nil), components...), nil
}
