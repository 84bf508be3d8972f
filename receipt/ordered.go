package receipt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
// blocks). Unmarshalling null gives nil; a key given twice is an error
// (Python would keep the last value at the first position).
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

// MarshalJSON writes the entries as one JSON object in slice order. <, >
// and & are not escaped, as [Marshal] leaves them.
func (o Ordered[V]) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	buf.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := enc.Encode(e.Name); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1) // Encode ends with a newline
		buf.WriteByte(':')
		if err := enc.Encode(e.Value); err != nil {
			return nil, fmt.Errorf("value of %q: %w", e.Name, err)
		}
		buf.Truncate(buf.Len() - 1)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads a JSON object (or null) keeping its key order.
func (o *Ordered[V]) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*o = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("receipt: want a JSON object")
	}
	out := Ordered[V]{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name := tok.(string) // the decoder only yields string keys inside an object
		if _, dup := out.Get(name); dup {
			return fmt.Errorf("receipt: key %q given twice", name)
		}
		var v V
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("receipt: value of %q: %w", name, err)
		}
		out = append(out, Entry[V]{Name: name, Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	*o = out
	return nil
}
