package receipt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/typevet/typevet-go/internal/pyjson"
)

// Entry is one name and value of an [Ordered] object.
type Entry[V any] struct {
	// Name is the object key.
	Name string
	// Value is the value under Name.
	Value V
}

// Ordered is a JSON object that keeps its key order, as a Python dict does:
// it marshals its entries in slice order and unmarshals keeping the order
// of the input. Receipts use it where typevet writes a mapping whose order
// carries meaning (prompt digests in question order) or must simply
// survive a round trip.
//
// A nil Ordered marshals as {} (typevet never writes null for these
// blocks). Unmarshalling null gives nil; a key given twice is an error,
// when reading (Python would keep the last value at the first position)
// and when writing.
type Ordered[V any] []Entry[V]

// Digests maps logical names to SHA-256 hex digests.
type Digests = Ordered[string]

// Counts maps names to counts, as arm_call_counts does.
type Counts = Ordered[int]

// Get returns the value under name.
func (o Ordered[V]) Get(name string) (V, bool) {
	for _, e := range o {
		if e.Name == name {
			return e.Value, true
		}
	}
	var zero V
	return zero, false
}

// DifferingNames returns the names whose values differ between a and b,
// or which only one of them holds: those of a in a's order, then those
// only b holds in b's order, each once.
func DifferingNames[V comparable](a, b Ordered[V]) []string {
	var out []string
	seen := map[string]bool{}
	for _, o := range [2]Ordered[V]{a, b} {
		for _, e := range o {
			if seen[e.Name] {
				continue
			}
			seen[e.Name] = true
			va, oka := a.Get(e.Name)
			vb, okb := b.Get(e.Name)
			if oka != okb || va != vb {
				out = append(out, e.Name)
			}
		}
	}
	return out
}

// MarshalJSON writes the entries as one JSON object in slice order, each
// value encoded by [pyjson.Marshal]: a float64 is Python's float text
// (26.0, 1e-07), and <, > and & are not escaped, as Python writes them. A
// name given twice is an error: a Python dict cannot hold it.
func (o Ordered[V]) MarshalJSON() ([]byte, error) {
	obj := make(pyjson.Object, len(o))
	for i, e := range o {
		obj[i] = pyjson.Member{Key: e.Name, Value: e.Value}
	}
	b, err := pyjson.Marshal(obj, pyjson.Options{Compact: true})
	if err != nil {
		return nil, fmt.Errorf("receipt: %w", err)
	}
	return b, nil
}

// UnmarshalJSON reads a JSON object (or null) keeping its key order, with
// [pyjson.DecodeObject]: a key given twice, JSON that is not an object and
// trailing data are errors.
func (o *Ordered[V]) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*o = nil
		return nil
	}
	out := Ordered[V]{}
	err := pyjson.DecodeObject(b, func(name string, raw json.RawMessage) error {
		var v V
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("receipt: value of %q: %w", name, err)
		}
		out = append(out, Entry[V]{Name: name, Value: v})
		return nil
	})
	var rk *pyjson.RepeatedKeyError
	switch {
	case errors.As(err, &rk):
		return fmt.Errorf("receipt: key %q given twice", rk.Key)
	case errors.Is(err, pyjson.ErrNotObject):
		return errors.New("receipt: want a JSON object")
	case err != nil:
		return err
	}
	*o = out
	return nil
}
