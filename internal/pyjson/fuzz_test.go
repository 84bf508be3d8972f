package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzMarshal writes a two-member object of fuzzed keys and texts plus a
// fuzzed float and checks, for both escaping modes: ASCII-only output with
// EnsureASCII; encoding/json decodes the output back to the same keys,
// strings and float; keys come out sorted.
func FuzzMarshal(f *testing.F) {
	for _, v := range loadVectors(f) {
		m := orderedStrings(f, v.InputMapping)
		for _, mem := range m {
			f.Add(mem.Key, mem.Value.(string), "z", "", 0.5)
		}
	}
	f.Add("\u2028", "\x7f\x00<>&", "😀", "\\\"", 1e-07)
	f.Add("b", "a", "a", "b", math.Inf(1))
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string, x float64) {
		obj := Object{{k1, v1}, {k2, v2}, {"\uffff float", x}}
		valid := utf8.ValidString(k1) && utf8.ValidString(v1) && utf8.ValidString(k2) && utf8.ValidString(v2)
		distinct := k1 != k2 && k1 != "\uffff float" && k2 != "\uffff float"
		for _, opts := range []Options{
			{SortKeys: true, EnsureASCII: true, Compact: true},
			{SortKeys: true},
			{SortKeys: true, EnsureASCII: true, Indent: 2},
		} {
			out, err := Marshal(obj, opts)
			if !valid || !distinct || math.IsNaN(x) || math.IsInf(x, 0) {
				if err == nil {
					t.Fatalf("Marshal accepted invalid UTF-8, a repeated key or a non-finite float: %q", out)
				}
				continue
			}
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if opts.EnsureASCII {
				for i, c := range out {
					if c >= 0x80 {
						t.Fatalf("byte %d of ensure_ascii output is %#x: %q", i, c, out)
					}
				}
			}
			var back map[string]any
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatalf("encoding/json cannot read %q: %v", out, err)
			}
			if back[k1] != v1 || back[k2] != v2 || back["\uffff float"] != x {
				t.Fatalf("round trip changed values: %q -> %#v", out, back)
			}
			keys := decodedKeys(t, out)
			if !slices.IsSorted(keys) {
				t.Fatalf("keys not sorted: %q", keys)
			}
		}
	})
}

// decodedKeys returns the top-level keys of a JSON object in written order.
func decodedKeys(t *testing.T, b []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// FuzzFormatFloat checks that every finite repr parses back to the same
// float64 and that integral fixed forms end in ".0".
func FuzzFormatFloat(f *testing.F) {
	for _, x := range []float64{0.1, 1, 1e16, 1e-5, 1e-7, 123456789012345680, math.Copysign(0, -1), 5e-324} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		s := FormatFloat(x)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != x || math.Signbit(back) != math.Signbit(x) {
			t.Fatalf("FormatFloat(%v) = %q parses to %v, %v", x, s, back, err)
		}
		if !strings.ContainsAny(s, ".e") {
			t.Fatalf("FormatFloat(%v) = %q has neither a point nor an exponent", x, s)
		}
	})
}

// FuzzDecodeObject checks DecodeObject against encoding/json: whatever it
// accepts is valid JSON whose object holds exactly the members passed, in
// number and value; a *SyntaxError means encoding/json rejects the text
// too, and ErrNotObject means valid JSON of another kind. Numbers are
// compared as text (json.Number): 1e700 is valid JSON, which Python reads
// as inf, though it overflows a float64.
func FuzzDecodeObject(f *testing.F) {
	for _, s := range []string{`{"b":[1,2],"a":{"x":null}}`, `{"a":1,"a":2}`, `[1]`, `{} {}`, `{"\u00e9":"\ud83d\ude00"}`, `{"a":1e-07}`,
		`{"":1e700`, `{"a":[-1e700,1e700]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := map[string]any{}
		n := 0
		err := DecodeObject(data, func(k string, v json.RawMessage) error {
			var x any
			if err := unmarshalNumbers(v, &x); err != nil {
				t.Fatalf("value %q of key %q is not JSON for encoding/json: %v", v, k, err)
			}
			got[k] = x
			n++
			return nil
		})
		var se *SyntaxError
		var rk *RepeatedKeyError
		switch {
		case err == nil:
			var want map[string]any
			if e := unmarshalNumbers(data, &want); e != nil {
				t.Fatalf("DecodeObject accepted %q; encoding/json: %v", data, e)
			}
			if n != len(want) || !reflect.DeepEqual(got, want) {
				t.Fatalf("members differ:\n got %v\nwant %v", got, want)
			}
		case errors.As(err, &se):
			if json.Valid(data) {
				t.Fatalf("DecodeObject: %v for valid JSON %q", err, data)
			}
		case errors.Is(err, ErrNotObject):
			var obj map[string]any
			if !json.Valid(data) || json.Unmarshal(data, &obj) == nil && obj != nil {
				t.Fatalf("ErrNotObject for %q", data)
			}
		case errors.As(err, &rk), errors.Is(err, ErrTrailingData):
		default:
			t.Fatalf("unexpected error %v", err)
		}
	})
}

// unmarshalNumbers is json.Unmarshal with numbers kept as json.Number.
func unmarshalNumbers(data []byte, v any) error {
	if !json.Valid(data) {
		return errors.New("invalid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// FuzzReemit checks that MarshalJSON output (a json.RawMessage here)
// re-emitted with Python's indent=2 and ensure_ascii decodes to the same
// value, and that re-emitting the result again changes nothing.
func FuzzReemit(f *testing.F) {
	for _, s := range []string{`{"b":[1,2.50],"a":{"x":null}}`, `[]`, `"\u00e9<>&\/"`, `[{"a":{}},[[]]]`, `1e-7`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := Options{EnsureASCII: true, Indent: 2}
		out, err := Marshal(json.RawMessage(data), opts)
		if err != nil {
			return // invalid JSON, invalid UTF-8 or a repeated key
		}
		var want, back any
		if !json.Valid(data) {
			if bytes.Contains(data, []byte("NaN")) || bytes.Contains(data, []byte("Infinity")) {
				return // Python's tokens, which encoding/json does not read
			}
			t.Fatalf("re-emitted JSON that encoding/json rejects: %q", data)
		}
		if json.Unmarshal(data, &want) != nil {
			return // a number out of float64 range (Python reads inf), copied verbatim
		}
		if err := json.Unmarshal(out, &back); err != nil || !reflect.DeepEqual(back, want) {
			t.Fatalf("re-emit changed the value: %q -> %q (%v)", data, out, err)
		}
		again, err := Marshal(json.RawMessage(out), opts)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("second re-emit differs: %q -> %q (%v)", out, again, err)
		}
	})
}

// FuzzPythonLiterals: every span is NaN, Infinity or -Infinity, and
// replacing each by 0 gives text encoding/json accepts; text encoding/json
// accepts has no span; and any text with a span is refused by
// encoding/json (the literals are not JSON).
func FuzzPythonLiterals(f *testing.F) {
	f.Add([]byte(`{"a": NaN, "b": [-Infinity, {"c": Infinity}], "s": "NaN"}`))
	f.Add([]byte(`[1, -Infinity, "x\"NaN"]`))
	f.Add([]byte(`{"a": 1}`))
	f.Add([]byte(`NaN`))
	f.Fuzz(func(t *testing.T, data []byte) {
		spans, err := PythonLiterals(data)
		if err != nil {
			if json.Valid(data) {
				t.Fatalf("refused valid JSON %q: %v", data, err)
			}
			return
		}
		var out []byte
		last := 0
		for _, sp := range spans {
			if w := string(data[sp[0]:sp[1]]); w != "NaN" && w != "Infinity" && w != "-Infinity" {
				t.Fatalf("span %q is not a Python literal", w)
			}
			out = append(append(out, data[last:sp[0]]...), '0')
			last = sp[1]
		}
		out = append(out, data[last:]...)
		if !json.Valid(out) {
			t.Fatalf("%q with the literals replaced is not JSON: %q", data, out)
		}
		if (len(spans) > 0) == json.Valid(data) {
			t.Fatalf("%q: %d spans, encoding/json valid %t", data, len(spans), json.Valid(data))
		}
	})
}
