package judgment

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/typevet/typevet-go/internal/pyjson"
)

// Usage counts the tokens of one judgment or one scoring call.
type Usage struct {
	// InputTokens is the prompt token count; nil = unknown (the server did
	// not report it).
	InputTokens *int `json:"input_tokens"`
	// OutputTokens is the generated token count; nil = unknown.
	OutputTokens *int `json:"output_tokens"`
}

// MergeUsage adds two usages side by side: a side is nil only
// when both inputs are nil; otherwise it is the sum with nil counted as 0.
func MergeUsage(a, b Usage) Usage {
	return Usage{InputTokens: mergeCount(a.InputTokens, b.InputTokens), OutputTokens: mergeCount(a.OutputTokens, b.OutputTokens)}
}

func mergeCount(a, b *int) *int {
	if a == nil && b == nil {
		return nil
	}
	n := 0
	if a != nil {
		n += *a
	}
	if b != nil {
		n += *b
	}
	return &n
}

// Probability is one label's probability.
type Probability struct {
	// Label is the option label, e.g. "consistent", or a Score level
	// written as a decimal string.
	Label string
	// P is the probability of Label, in [0, 1].
	P float64
}

// Probabilities keeps labels in option order. It marshals to a JSON object
// in that order ({"consistent": 0.9, ...}), and UnmarshalJSON keeps the
// order of the input object.
type Probabilities []Probability

// Get returns the probability of label.
func (p Probabilities) Get(label string) (float64, bool) {
	for _, q := range p {
		if q.Label == label {
			return q.P, true
		}
	}
	return 0, false
}

// MarshalJSON writes a JSON object with one key per label, in order, each
// probability in Python's float text (0.25, 1.0, 1e-07) and labels as
// UTF-8 without HTML escaping (<a&b> stays <a&b>), as Python writes them;
// the receipt writer re-escapes the text the way the receipt needs. A nil
// Probabilities marshals to {}. A probability that is not finite, or a
// label given twice, is an error.
func (p Probabilities) MarshalJSON() ([]byte, error) {
	obj := make(pyjson.Object, len(p))
	for i, q := range p {
		if math.IsNaN(q.P) || math.IsInf(q.P, 0) {
			return nil, fmt.Errorf("probabilities: probability of %q is not finite", q.Label)
		}
		obj[i] = pyjson.Member{Key: q.Label, Value: q.P}
	}
	return pyjson.Marshal(obj, pyjson.Options{Compact: true})
}

// UnmarshalJSON reads a JSON object of label → number, keeping key order
// ([pyjson.DecodeObject]). A repeated label, a value that is not a number
// (null included) or a number outside the float64 range is an error naming
// the label; so is JSON that is not an object (null included).
func (p *Probabilities) UnmarshalJSON(data []byte) error {
	out := Probabilities{}
	var bad error // a value refused by the callback
	err := pyjson.DecodeObject(data, func(label string, value json.RawMessage) error {
		if len(value) == 0 || (value[0] != '-' && (value[0] < '0' || value[0] > '9')) {
			bad = fmt.Errorf("probabilities: label %q: want a number", label)
			return bad
		}
		v, err := strconv.ParseFloat(string(value), 64)
		if err != nil {
			bad = fmt.Errorf("probabilities: label %q: want a number in the float64 range", label)
			return bad
		}
		out = append(out, Probability{Label: label, P: v})
		return nil
	})
	var rk *pyjson.RepeatedKeyError
	switch {
	case bad != nil:
		return bad
	case errors.As(err, &rk):
		return fmt.Errorf("probabilities: repeated label %q", rk.Key)
	case errors.Is(err, pyjson.ErrNotObject):
		return errors.New("probabilities: want a JSON object")
	case err != nil:
		return fmt.Errorf("probabilities: %w", err)
	}
	*p = out
	return nil
}

// Answer is one typed answer: a [NoulAnswer], [ChoiceAnswer] or
// [ScoreAnswer].
//
// Answers are not wire types: they carry no json tags and are never
// written as they are. Receipts write their own records (for example
// checkmatch.CaseRecord) with the keys and order typevet's receipts use.
type Answer interface{ isAnswer() }

// NoulAnswer answers a [Noul]. Not a wire type (see [Answer]).
type NoulAnswer struct {
	// Noul is P(true), in [0, 1].
	Noul float64
	// OffOptionFlag is copied from the question's [OffOption] receipt.
	OffOptionFlag bool
}

// ChoiceAnswer answers a [Choice]. Not a wire type (see [Answer]).
type ChoiceAnswer struct {
	// Choice is the label with the largest probability (ties go to the
	// first in option order).
	Choice string
	// Confidence is the probability of Choice.
	Confidence float64
	// Probabilities has one entry per option, in option order.
	Probabilities Probabilities
	// OffOptionFlag is copied from the question's [OffOption] receipt.
	OffOptionFlag bool
}

// ScoreAnswer answers a [Score]. Not a wire type (see [Answer]).
type ScoreAnswer struct {
	// Score is the expected level Σ level·p, not the argmax ([ScoreAnswer.Level]).
	Score float64
	// Confidence is the largest level probability.
	Confidence float64
	// Legend[i] is the description of level i.
	Legend []string
	// Probabilities[i] is the probability of level i.
	Probabilities []float64
	// OffOptionFlag is copied from the question's [OffOption] receipt.
	OffOptionFlag bool
}

// Level returns the most probable level (ties -> lowest level), the
// discrete level evals call "*_level". It returns -1 for an empty answer.
func (a ScoreAnswer) Level() int { return argmax(a.Probabilities) }

func (NoulAnswer) isAnswer()   {}
func (ChoiceAnswer) isAnswer() {}
func (ScoreAnswer) isAnswer()  {}

// NamedAnswer pairs an answer with its question's name. Not a wire type
// (see [Answer]).
type NamedAnswer struct {
	// Name is the question's name, e.g. "verdict".
	Name string
	// Answer is the question's typed answer.
	Answer Answer
}

// OffOption is the off-option receipt of one question.
type OffOption struct {
	// Mass is the next-token mass outside the candidates; nil = unknown
	// (the backend did not return the full distribution).
	Mass *float64 `json:"off_option_mass"`
	// Threshold is the request's guard threshold; nil = guard off.
	Threshold *float64 `json:"off_option_threshold"`
	// Flag is Mass > Threshold when both are known.
	Flag bool `json:"off_option_flag"`
}

// NamedOffOption pairs an off-option receipt with its question's name.
// Not a wire type (see [Response]).
type NamedOffOption struct {
	// Name is the question's name.
	Name string
	// OffOption is the question's off-option receipt.
	OffOption OffOption
}

// NamedRequestID pairs a question's name with the request id of its last
// scoring request. Not a wire type (see [Response]).
type NamedRequestID struct {
	// Name is the question's name.
	Name string
	// ID is the request id sent with the question's last scoring request;
	// "" stands for Python's None (no id was sent).
	ID string
}

// TextPartsReceipt records which templates a judgment used: "default" or
// the SHA-256 hex of the template's UTF-8 bytes.
type TextPartsReceipt struct {
	// OptionBlock is "default" or the SHA-256 hex of the option-block
	// template used.
	OptionBlock string `json:"option_block"`
	// ContextTemplate is "default" or the SHA-256 hex of the context
	// template used.
	ContextTemplate string `json:"context_template"`
}

// Response is the typed result of one judgment.
//
// Response and its answer types are not wire types: receipts never write
// a Response as it is. Runs copy what their receipts need into the
// receipt's own records, whose field order and json tags are the receipt
// schema. For journals, caches and tools a Response has its own JSON form
// ([Response.MarshalJSON]), which gives back the same typed answers.
type Response struct {
	// Model is the model id the scorer reported for the last question
	// (the requested id).
	Model string
	// Usage is merged over every question's scoring request.
	Usage Usage
	// Answers are in question order.
	Answers []NamedAnswer
	// OffOption holds one receipt per answer, in question order.
	OffOption []NamedOffOption
	// TextParts records the templates used.
	TextParts TextPartsReceipt
	// RequestIDs is empty unless some scoring request carried a request id;
	// then it holds every question, in order.
	RequestIDs []NamedRequestID
}

func (r Response) answer(name string) Answer {
	for _, a := range r.Answers {
		if a.Name == name {
			return a.Answer
		}
	}
	return nil
}

// Noul returns the answer named name if it is a [NoulAnswer].
func (r Response) Noul(name string) (NoulAnswer, bool) {
	a, ok := r.answer(name).(NoulAnswer)
	return a, ok
}

// Choice returns the answer named name if it is a [ChoiceAnswer].
func (r Response) Choice(name string) (ChoiceAnswer, bool) {
	a, ok := r.answer(name).(ChoiceAnswer)
	return a, ok
}

// Score returns the answer named name if it is a [ScoreAnswer].
func (r Response) Score(name string) (ScoreAnswer, bool) {
	a, ok := r.answer(name).(ScoreAnswer)
	return a, ok
}
