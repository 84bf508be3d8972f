package fake

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/typevet/typevet-go/internal/pyjson"
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
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("fake distributions: reading: %w", err)
	}
	out := Distributions{}
	err = pyjson.DecodeObject(data, func(name string, raw json.RawMessage) error {
		d, err := distribution(name, raw)
		if err == nil {
			out[name] = d
		}
		return err
	})
	var rk *pyjson.RepeatedKeyError
	switch {
	case errors.As(err, &rk):
		return nil, fmt.Errorf("fake distributions: question %q appears twice", rk.Key)
	case err != nil:
		return nil, decodeErr(err, "")
	}
	return out, nil
}

// decodeErr words a pyjson.DecodeObject error; where names the object read
// ("" for the whole file, `question "v": ` for a weight object). Errors of
// the callback pass unchanged. Malformed JSON is named by byte offset,
// never quoted.
func decodeErr(err error, where string) error {
	var se *pyjson.SyntaxError
	switch {
	case errors.As(err, &se) && se.EOF:
		return errors.New("fake distributions: unexpected end of input")
	case errors.As(err, &se):
		return fmt.Errorf("fake distributions: malformed JSON near byte %d", se.Offset)
	case errors.Is(err, pyjson.ErrNotObject) && where == "":
		return errors.New("fake distributions: want a JSON object of question name → distribution")
	case errors.Is(err, pyjson.ErrTrailingData):
		return errors.New("fake distributions: trailing data after the JSON object")
	}
	return err
}

// distribution reads the value of one question: a number (Noul) or an
// object of label → weight.
func distribution(name string, raw json.RawMessage) (Distribution, error) {
	switch {
	case isNumber(raw):
		v, ok := finite(raw)
		if !ok || v < 0 || v > 1 {
			return Distribution{}, fmt.Errorf("fake distributions: question %q: P(true) must be a number in [0, 1]", name)
		}
		return Distribution{True: &v}, nil
	case raw[0] == '{':
		w := map[string]float64{}
		total := 0.0
		err := pyjson.DecodeObject(raw, func(label string, value json.RawMessage) error {
			v, ok := finite(value)
			if !isNumber(value) || !ok || v < 0 {
				return fmt.Errorf("fake distributions: question %q: label %q: weight must be a finite non-negative number", name, label)
			}
			w[label] = v
			total += v
			return nil
		})
		var rk *pyjson.RepeatedKeyError
		if errors.As(err, &rk) {
			return Distribution{}, fmt.Errorf("fake distributions: question %q: label %q appears twice", name, rk.Key)
		}
		if err != nil {
			return Distribution{}, decodeErr(err, name)
		}
		if !(total > 0) || math.IsInf(total, 0) {
			return Distribution{}, fmt.Errorf("fake distributions: question %q: weights must be finite with at least one positive", name)
		}
		return Distribution{Weights: w}, nil
	}
	return Distribution{}, fmt.Errorf("fake distributions: question %q: want a number (Noul) or an object of weights (Choice, Score)", name)
}

// isNumber reports whether raw (a valid JSON value) is a number.
func isNumber(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// finite parses a JSON number; ok is false for anything else and for a
// number outside the float64 range.
func finite(raw json.RawMessage) (float64, bool) {
	v, err := strconv.ParseFloat(string(raw), 64)
	return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}
