package wording

import (
	"encoding/json"
	"errors"

	"github.com/typevet/typevet-go/internal/pyjson"
)

// Part is one named text of a wording [Mapping].
type Part struct {
	Name string // the part name, e.g. "instructions" or "criteria_true"
	Text string // the text of the part
}

// Mapping is an ordered mapping of part name to text (a Python dict of
// str to str): seed_parts, evolved_parts, the components digests, the roles.
// Order is insertion order, which is the seed's part order; it is never a Go
// map. A name appears at most once ([NewParts] refuses a repeated name).
//
// It marshals to a JSON object in its order and unmarshals keeping the
// order of the input; a value that is not a JSON string is refused with
// "the wording part '<name>' must be text".
type Mapping []Part

// Get returns the text of the named part.
func (m Mapping) Get(name string) (string, bool) {
	for _, p := range m {
		if p.Name == name {
			return p.Text, true
		}
	}
	return "", false
}

// Has reports whether the mapping holds the named part.
func (m Mapping) Has(name string) bool {
	_, ok := m.Get(name)
	return ok
}

// Names returns the part names in order.
func (m Mapping) Names() []string {
	out := make([]string, len(m))
	for i, p := range m {
		out[i] = p.Name
	}
	return out
}

// Equal reports whether m and o hold the same names with the same texts,
// in any order (Python dict equality).
func (m Mapping) Equal(o Mapping) bool {
	if len(m) != len(o) {
		return false
	}
	for _, p := range m {
		if t, ok := o.Get(p.Name); !ok || t != p.Text {
			return false
		}
	}
	return true
}

// With returns a copy of m with the named part's text replaced (or the part
// appended when m lacks it), as Python's dict update does.
func (m Mapping) With(name, text string) Mapping {
	out := m.clone()
	for i := range out {
		if out[i].Name == name {
			out[i].Text = text
			return out
		}
	}
	return append(out, Part{name, text})
}

func (m Mapping) clone() Mapping {
	if m == nil {
		return nil
	}
	return append(Mapping{}, m...)
}

// object returns m as a pyjson object.
func (m Mapping) object() pyjson.Object {
	obj := make(pyjson.Object, len(m))
	for i, p := range m {
		obj[i] = pyjson.Member{Key: p.Name, Value: p.Text}
	}
	return obj
}

// MarshalJSON writes m as a JSON object in order, with text as UTF-8 like
// encoding/json (Python's ensure_ascii=False). A nil Mapping is {}. The
// digests never depend on this form: they use Python's exact rules.
func (m Mapping) MarshalJSON() ([]byte, error) {
	return pyjson.Marshal(m.object(), pyjson.Options{})
}

// UnmarshalJSON reads a JSON object of strings keeping its key order. A
// repeated key is refused (Python would keep the last value at the first
// position; a typevet writer never repeats a key).
func (m *Mapping) UnmarshalJSON(b []byte) error {
	out, err := decodeMapping(b)
	if err != nil {
		return err
	}
	*m = out
	return nil
}

var errNotObject = errors.New("not a JSON object")

// rawMember is one key and undecoded value of a JSON object.
type rawMember struct {
	name  string
	value json.RawMessage
}

// orderedRaw is a JSON object read in key order with undecoded values.
type orderedRaw []rawMember

// UnmarshalJSON reads a JSON object in order with [pyjson.DecodeObject]:
// errNotObject when b is valid JSON but not an object or has trailing
// data, a *pyjson.RepeatedKeyError for a key given twice, a
// *pyjson.SyntaxError for text that is not JSON.
func (o *orderedRaw) UnmarshalJSON(b []byte) error {
	out := orderedRaw{}
	err := pyjson.DecodeObject(b, func(name string, value json.RawMessage) error {
		out = append(out, rawMember{name, value})
		return nil
	})
	if errors.Is(err, pyjson.ErrNotObject) || errors.Is(err, pyjson.ErrTrailingData) {
		return errNotObject
	}
	if err != nil {
		return err
	}
	*o = out
	return nil
}

// get returns the raw value of a key.
func (o orderedRaw) get(name string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.name == name {
			return m.value, true
		}
	}
	return nil, false
}

// decodeMapping reads a JSON object of strings in order. It returns
// errNotObject when b is not an object, and a TypeError naming the part when
// a value is not a string.
func decodeMapping(b []byte) (Mapping, error) {
	var raw orderedRaw
	err := raw.UnmarshalJSON(b)
	if rk := (*pyjson.RepeatedKeyError)(nil); errors.As(err, &rk) {
		return nil, valueErr("the wording mapping holds the part %s twice", pyRepr(rk.Key))
	}
	if err != nil {
		return nil, err
	}
	out := make(Mapping, 0, len(raw))
	for _, m := range raw {
		var text string
		if len(m.value) == 0 || m.value[0] != '"' || json.Unmarshal(m.value, &text) != nil {
			return nil, typeErr("the wording part %s must be text", pyRepr(m.name))
		}
		out = append(out, Part{m.name, text})
	}
	return out, nil
}
