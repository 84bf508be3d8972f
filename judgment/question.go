package judgment

import (
	"fmt"

	"github.com/typevet/typevet-go/internal/pytext"
)

// Kind names the type of a [Question].
type Kind int

// The three question kinds. The zero Kind is not a valid kind.
const (
	KindNoul   Kind = iota + 1 // a yes/no statement; the answer is P(true)
	KindChoice                 // one label out of an ordered list
	KindScore                  // one level of an ordered rubric
)

// String returns the wire type name: "noul", "choice" or "score".
func (k Kind) String() string {
	switch k {
	case KindNoul:
		return "noul"
	case KindChoice:
		return "choice"
	case KindScore:
		return "score"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Question is one typed question. It is implemented only by the values
// [Noul], [Choice] and [Score] (not by pointers to them: a *Noul in a
// [Request] is refused as an unsupported question).
type Question interface {
	// Kind reports the question type.
	Kind() Kind
	isQuestion()
}

// Noul asks for the probability that a yes/no statement is true.
// Its options are scored false first, then true (Control 0 is false,
// Control 1 is true).
type Noul struct {
	// Instructions is the statement or question shown to the model.
	// "" renders as an empty string (Python None).
	Instructions string
	// Criteria describes the two options; the zero value means no criteria
	// (Python None).
	Criteria NoulCriteria
}

// NoulCriteria describes what true and false mean for a [Noul].
// An empty description is not rendered.
type NoulCriteria struct {
	True  string // description of the true option
	False string // description of the false option
}

// IsZero reports whether no description is set.
func (c NoulCriteria) IsZero() bool { return c == NoulCriteria{} }

// Kind returns [KindNoul].
func (Noul) Kind() Kind  { return KindNoul }
func (Noul) isQuestion() {}

// Choice asks for one label out of an ordered list. The order of Criteria
// is the option order (and the control-string order); it is never a Go map.
type Choice struct {
	// Instructions is the question shown to the model ("" = none).
	Instructions string
	// Criteria lists the options in prompt order. At least one, labels
	// non-blank and unique; 2 to 24 options can be scored.
	Criteria []Criterion
}

// Criterion is one option of a [Choice].
type Criterion struct {
	// Label is the option as it appears in the answer.
	Label string
	// Description is rendered after the label as ": <description>".
	// "" means no description, exactly like Python None. (The one
	// difference from Python: an explicit empty string there also falls
	// back to the description of the lower-cased label; here "" always does.)
	Description string
}

// Labels returns the option labels in order.
func (c Choice) Labels() []string {
	out := make([]string, len(c.Criteria))
	for i, cr := range c.Criteria {
		out[i] = cr.Label
	}
	return out
}

// Kind returns [KindChoice].
func (Choice) Kind() Kind  { return KindChoice }
func (Choice) isQuestion() {}

// Score asks for one level 0..n-1 of an ordered rubric (n >= 2). The answer
// is the expected level under the model's distribution.
type Score struct {
	// Instructions is the question shown to the model ("" = none).
	Instructions string
	// Criteria[i] describes level i; "" = no description.
	Criteria []string
}

// Kind returns [KindScore].
func (Score) Kind() Kind  { return KindScore }
func (Score) isQuestion() {}

// NamedQuestion pairs a question with its id. The id names the answer in
// the [Response] and is rendered at the head of the option block.
type NamedQuestion struct {
	// Name is the question id: unique within a [Request], the key of its
	// answer in [Response], and the head of its option block.
	Name string
	// Question is the typed question: a [Noul], [Choice] or [Score].
	Question Question
}

// maxControls is the size of the control alphabet: "0".."9" then "A".."Z".
const maxControls = 36

// maxEnumChoices is MAX_ENUM_CHOICES: the most options one scoring request
// takes.
const maxEnumChoices = 24

// controlAlphabet holds the control strings in binding order.
const controlAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// control returns control string i.
func control(i int) string { return controlAlphabet[i : i+1] }

// validateQuestion applies typevet's question-shape rules that need no
// tokenizer. Violations are JudgmentValidationErrors.
func validateQuestion(name string, q Question) error {
	switch q := q.(type) {
	case Noul:
		return nil
	case Choice:
		if len(q.Criteria) == 0 {
			return judgmentErr("choice criteria must be non-empty with labeled keys")
		}
		seen := make(map[string]bool, len(q.Criteria))
		for _, c := range q.Criteria {
			if pytext.Strip(c.Label) == "" {
				return judgmentErr("choice criteria must be non-empty with labeled keys")
			}
			if seen[c.Label] {
				return judgmentErr("duplicate original labels are not allowed")
			}
			seen[c.Label] = true
		}
		return checkControlCapacity(len(q.Criteria))
	case Score:
		if len(q.Criteria) < 2 {
			return judgmentErr("score criteria must contain at least two rubric levels")
		}
		return checkControlCapacity(len(q.Criteria))
	}
	return judgmentErr(fmt.Sprintf("unsupported wire question for %s", pytext.Repr(name)))
}

func checkControlCapacity(n int) error {
	if n > maxControls {
		return judgmentErr(fmt.Sprintf("native Choice supports at most %d options; got %d", maxControls, n))
	}
	return nil
}

// checkExecuteCount is the execute-time option count check.
func checkExecuteCount(n int) error {
	if n < 2 || n > maxEnumChoices {
		return &DecisionExecutionError{Msg: fmt.Sprintf("choice count must be between 2 and %d, got %d", maxEnumChoices, n)}
	}
	return nil
}

// ScoringLabels returns the candidate labels of q in scoring order:
// "False", "True" for a [Noul]; the option labels for a [Choice];
// "0".."n-1" for a [Score]. It returns nil for any other question.
func ScoringLabels(q Question) []string {
	switch q := q.(type) {
	case Noul:
		return []string{"False", "True"}
	case Choice:
		return q.Labels()
	case Score:
		out := make([]string, len(q.Criteria))
		for i := range q.Criteria {
			out[i] = fmt.Sprint(i)
		}
		return out
	}
	return nil
}

// originalLabels returns the question's own labels: "false", "true" for a
// Noul, otherwise the scoring labels. The option block renders them and
// binding errors name them.
func originalLabels(q Question) []string {
	if _, ok := q.(Noul); ok {
		return []string{"false", "true"}
	}
	return ScoringLabels(q)
}
