package judgment

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Usage counts the tokens of one judgment or one scoring call.
type Usage struct {
	// InputTokens is the prompt token count; nil = unknown (the server did
	// not report it).
	InputTokens *int `json:"input_tokens"`
	// OutputTokens is the generated token count; nil = unknown.
	OutputTokens *int `json:"output_tokens"`
}

// MergeUsage adds two usages side by side (spec §2.9): a side is nil only
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
	Label string
	P     float64
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

// MarshalJSON writes a JSON object with one key per label, in order.
// A nil Probabilities marshals to {}.
func (p Probabilities) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, q := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(q.Label)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(q.P)
		if err != nil {
			return nil, fmt.Errorf("probability of %q: %w", q.Label, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a JSON object of label → number, keeping key order.
// A repeated label is an error.
func (p *Probabilities) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("probabilities: want a JSON object")
	}
	out := Probabilities{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("probabilities: %w", err)
		}
		label := tok.(string) // object keys are always strings
		if seen[label] {
			return fmt.Errorf("probabilities: repeated label %q", label)
		}
		seen[label] = true
		var v float64
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("probabilities: label %q: want a number", label)
		}
		out = append(out, Probability{Label: label, P: v})
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("probabilities: %w", err)
	}
	*p = out
	return nil
}

// Answer is one typed answer: a [NoulAnswer], [ChoiceAnswer] or
// [ScoreAnswer].
type Answer interface{ isAnswer() }

// NoulAnswer answers a [Noul].
type NoulAnswer struct {
	Noul          float64 // P(true) in [0,1]
	OffOptionFlag bool    // copied from the question's [OffOption] receipt
}

// ChoiceAnswer answers a [Choice].
type ChoiceAnswer struct {
	Choice        string        // the label with the largest probability (ties -> first)
	Confidence    float64       // the probability of Choice
	Probabilities Probabilities // one entry per option, option order
	OffOptionFlag bool          // copied from the question's [OffOption] receipt
}

// ScoreAnswer answers a [Score].
type ScoreAnswer struct {
	Score         float64   // expected level Σ level·p, not the argmax
	Confidence    float64   // the largest level probability
	Legend        []string  // Legend[i] = description of level i
	Probabilities []float64 // Probabilities[i] = p(level i)
	OffOptionFlag bool      // copied from the question's [OffOption] receipt
}

// Level returns the most probable level (ties -> lowest level), the
// discrete level evals call "*_level". It returns -1 for an empty answer.
func (a ScoreAnswer) Level() int { return argmax(a.Probabilities) }

func (NoulAnswer) isAnswer()   {}
func (ChoiceAnswer) isAnswer() {}
func (ScoreAnswer) isAnswer()  {}

// NamedAnswer pairs an answer with its question's name.
type NamedAnswer struct {
	Name   string
	Answer Answer
}

// OffOption is the off-option receipt of one question (spec §2.8).
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
type NamedOffOption struct {
	Name      string
	OffOption OffOption
}

// NamedRequestID pairs a question's name with the request id of its last
// scoring request; ID "" stands for Python null (no id was sent).
type NamedRequestID struct {
	Name string
	ID   string
}

// TextPartsReceipt records which templates a judgment used: "default" or
// the SHA-256 hex of the template's UTF-8 bytes.
type TextPartsReceipt struct {
	OptionBlock     string `json:"option_block"`
	ContextTemplate string `json:"context_template"`
}

// Response is the typed result of one judgment.
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
