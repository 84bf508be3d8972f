package golden

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Seed returns a small fuzz seed of the shape of the JSON object b (a
// golden file, a real receipt): its top-level members of at most max
// bytes once compacted, in order, and the first element of each array
// member that is longer but whose first element fits. The fuzzer
// minimises every input that reaches new code, which on a seed of
// kilobytes takes the whole run; the whole file belongs in a plain test.
func Seed(tb testing.TB, b []byte, max int) []byte {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		tb.Fatalf("golden.Seed: not a JSON object: %v", err)
	}
	out := []byte{'{'}
	add := func(key any, v []byte) {
		k, _ := json.Marshal(key)
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, k...), ':'), v...)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			tb.Fatal(err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			tb.Fatal(err)
		}
		var v bytes.Buffer
		if err := json.Compact(&v, raw); err != nil {
			tb.Fatal(err)
		}
		if v.Len() <= max {
			add(key, v.Bytes())
			continue
		}
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) == nil && len(elems) > 0 {
			var e bytes.Buffer
			if json.Compact(&e, elems[0]) == nil && e.Len()+2 <= max {
				add(key, append(append([]byte{'['}, e.Bytes()...), ']'))
			}
		}
	}
	return append(out, '}')
}
