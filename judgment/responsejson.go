package judgment

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The JSON form of a [Response], for journals, caches and tools that
// store answers: every field, each answer tagged with its kind, so that
// decoding gives back the same typed answers.
//
//	{"model": "m", "usage": {"input_tokens": 12, "output_tokens": null},
//	 "answers": [{"name": "signed", "kind": "noul", "noul": 0.9, "off_option_flag": false},
//	             {"name": "color", "kind": "choice", "choice": "red", "confidence": 0.8,
//	              "probabilities": {"red": 0.8, "blue": 0.2}, "off_option_flag": false},
//	             {"name": "legibility", "kind": "score", "score": 3.1, "confidence": 0.7,
//	              "legend": […], "probabilities": […], "off_option_flag": false}],
//	 "off_option": [{"name": "signed", "off_option_mass": null, "off_option_threshold": null, "off_option_flag": false}, …],
//	 "text_parts": {"option_block": "default", "context_template": "default"},
//	 "request_ids": []}
//
// Receipts do not use this form: they write their own records with the
// keys typevet's receipts use.

// Answer kinds of the JSON form.
const (
	kindNoul   = "noul"
	kindChoice = "choice"
	kindScore  = "score"
)

type responseJSON struct {
	Model      string             `json:"model"`
	Usage      Usage              `json:"usage"`
	Answers    []json.RawMessage  `json:"answers"`
	OffOption  []offOptionJSON    `json:"off_option"`
	TextParts  TextPartsReceipt   `json:"text_parts"`
	RequestIDs []namedRequestJSON `json:"request_ids"`
}

type offOptionJSON struct {
	Name string `json:"name"`
	OffOption
}

type namedRequestJSON struct {
	Name string `json:"name"`
	ID   string `json:"id"`
}

type noulJSON struct {
	Name          string  `json:"name"`
	Kind          string  `json:"kind"`
	Noul          float64 `json:"noul"`
	OffOptionFlag bool    `json:"off_option_flag"`
}

type choiceJSON struct {
	Name          string        `json:"name"`
	Kind          string        `json:"kind"`
	Choice        string        `json:"choice"`
	Confidence    float64       `json:"confidence"`
	Probabilities Probabilities `json:"probabilities"`
	OffOptionFlag bool          `json:"off_option_flag"`
}

type scoreJSON struct {
	Name          string    `json:"name"`
	Kind          string    `json:"kind"`
	Score         float64   `json:"score"`
	Confidence    float64   `json:"confidence"`
	Legend        []string  `json:"legend"`
	Probabilities []float64 `json:"probabilities"`
	OffOptionFlag bool      `json:"off_option_flag"`
}

// MarshalJSON writes r in its JSON form (see above): the answers in
// question order, each with its kind.
func (r Response) MarshalJSON() ([]byte, error) {
	out := responseJSON{Model: r.Model, Usage: r.Usage, TextParts: r.TextParts,
		Answers: []json.RawMessage{}, OffOption: []offOptionJSON{}, RequestIDs: []namedRequestJSON{}}
	for _, a := range r.Answers {
		var v any
		switch x := a.Answer.(type) {
		case NoulAnswer:
			v = noulJSON{a.Name, kindNoul, x.Noul, x.OffOptionFlag}
		case ChoiceAnswer:
			v = choiceJSON{a.Name, kindChoice, x.Choice, x.Confidence, x.Probabilities, x.OffOptionFlag}
		case ScoreAnswer:
			v = scoreJSON{a.Name, kindScore, x.Score, x.Confidence, x.Legend, x.Probabilities, x.OffOptionFlag}
		default:
			return nil, fmt.Errorf("judgment: answer %q of type %T has no JSON form", a.Name, a.Answer)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out.Answers = append(out.Answers, b)
	}
	for _, o := range r.OffOption {
		out.OffOption = append(out.OffOption, offOptionJSON{o.Name, o.OffOption})
	}
	for _, id := range r.RequestIDs {
		out.RequestIDs = append(out.RequestIDs, namedRequestJSON(id))
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads r from its JSON form strictly: an unknown key or an
// answer of an unknown kind is an error. Empty lists read as nil.
func (r *Response) UnmarshalJSON(b []byte) error {
	var in responseJSON
	if err := strictJSON(b, &in); err != nil {
		return fmt.Errorf("judgment: response: %w", err)
	}
	out := Response{Model: in.Model, Usage: in.Usage, TextParts: in.TextParts}
	for k, raw := range in.Answers {
		var head struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return fmt.Errorf("judgment: answer %d: %w", k, err)
		}
		var na NamedAnswer
		switch head.Kind {
		case kindNoul:
			var x noulJSON
			if err := strictJSON(raw, &x); err != nil {
				return fmt.Errorf("judgment: answer %d: %w", k, err)
			}
			na = NamedAnswer{x.Name, NoulAnswer{x.Noul, x.OffOptionFlag}}
		case kindChoice:
			var x choiceJSON
			if err := strictJSON(raw, &x); err != nil {
				return fmt.Errorf("judgment: answer %d: %w", k, err)
			}
			na = NamedAnswer{x.Name, ChoiceAnswer{x.Choice, x.Confidence, x.Probabilities, x.OffOptionFlag}}
		case kindScore:
			var x scoreJSON
			if err := strictJSON(raw, &x); err != nil {
				return fmt.Errorf("judgment: answer %d: %w", k, err)
			}
			na = NamedAnswer{x.Name, ScoreAnswer{x.Score, x.Confidence, x.Legend, x.Probabilities, x.OffOptionFlag}}
		default:
			return fmt.Errorf("judgment: answer %d: kind %q is not noul, choice or score", k, head.Kind)
		}
		out.Answers = append(out.Answers, na)
	}
	for _, o := range in.OffOption {
		out.OffOption = append(out.OffOption, NamedOffOption{o.Name, o.OffOption})
	}
	for _, id := range in.RequestIDs {
		out.RequestIDs = append(out.RequestIDs, NamedRequestID(id))
	}
	*r = out
	return nil
}

// strictJSON decodes one JSON value into v, refusing unknown keys and
// trailing data.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return nil
}
