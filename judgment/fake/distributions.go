package fake

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Distribution is the configured answer distribution of one question.
// Exactly one of its fields is set.
type Distribution struct {
	// True is P(true) in [0, 1] for a [judgment.Noul]. A pointer because a
	// weight object leaves it unset.
	True *float64
	// Weights maps a [judgment.Choice] label, or a [judgment.Score] level
	// written "0".."n-1", to a finite non-negative weight; at least one
	// weight is positive. The question's probabilities are the weights
	// normalised; a label of the question not named here weighs 0.
	Weights map[string]float64
}

// Distributions maps a question name to its distribution. A question not
// named gets the uniform distribution over its options.
type Distributions map[string]Distribution

// ParseDistributions reads the distributions JSON file of
// TYPEVET_FAKE__DISTRIBUTIONS: one object whose keys are question names
// and whose values are either a number (a Noul's P(true), in [0, 1]) or an
// object of label → weight (a Choice, or a Score with keys "0".."n-1").
//
//	{"payee_matches": 0.2, "verdict": {"consistent": 1, "unsigned": 3}}
//
// Repeated keys, non-finite or negative weights and all-zero weight
// objects are refused. Errors name the question and label, never the
// offending value.
func ParseDistributions(r io.Reader) (Distributions, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	p := parser{dec: dec}
	if tok := p.token(); p.err == nil && tok != json.Delim('{') {
		return nil, errors.New("fake distributions: want a JSON object of question name → distribution")
	}
	out := Distributions{}
	for p.err == nil && dec.More() {
		name, _ := p.token().(string)
		if p.err != nil {
			break
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("fake distributions: question %q appears twice", name)
		}
		d, err := p.distribution(name)
		if err != nil {
			return nil, err
		}
		out[name] = d
	}
	p.token() // the closing brace
	if p.err != nil {
		return nil, p.err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("fake distributions: trailing data after the JSON object")
	}
	return out, nil
}

// parser wraps a token stream with a sticky error.
type parser struct {
	dec *json.Decoder
	err error
}

func (p *parser) token() json.Token {
	if p.err != nil {
		return nil
	}
	tok, err := p.dec.Token()
	if err != nil {
		p.err = malformed(err, p.dec.InputOffset())
	}
	return tok
}

// malformed names where the JSON broke without quoting it.
func malformed(err error, offset int64) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		offset = se.Offset
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("fake distributions: unexpected end of input")
	}
	return fmt.Errorf("fake distributions: malformed JSON near byte %d", offset)
}

func (p *parser) distribution(name string) (Distribution, error) {
	switch tok := p.token().(type) {
	case json.Number:
		v, ok := finite(tok)
		if !ok || v < 0 || v > 1 {
			return Distribution{}, fmt.Errorf("fake distributions: question %q: P(true) must be a number in [0, 1]", name)
		}
		return Distribution{True: &v}, nil
	case json.Delim:
		if tok != '{' {
			break
		}
		w := map[string]float64{}
		total := 0.0
		for p.err == nil && p.dec.More() {
			label, _ := p.token().(string)
			num, isNum := p.token().(json.Number)
			if p.err != nil {
				break
			}
			if _, dup := w[label]; dup {
				return Distribution{}, fmt.Errorf("fake distributions: question %q: label %q appears twice", name, label)
			}
			v, ok := finite(num)
			if !isNum || !ok || v < 0 {
				return Distribution{}, fmt.Errorf("fake distributions: question %q: label %q: weight must be a finite non-negative number", name, label)
			}
			w[label] = v
			total += v
		}
		p.token() // the closing brace
		if p.err != nil {
			return Distribution{}, p.err
		}
		if !(total > 0) || math.IsInf(total, 0) {
			return Distribution{}, fmt.Errorf("fake distributions: question %q: weights must be finite with at least one positive", name)
		}
		return Distribution{Weights: w}, nil
	}
	if p.err != nil {
		return Distribution{}, p.err
	}
	return Distribution{}, fmt.Errorf("fake distributions: question %q: want a number (Noul) or an object of weights (Choice, Score)", name)
}

func finite(n json.Number) (float64, bool) {
	v, err := strconv.ParseFloat(string(n), 64)
	return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}
