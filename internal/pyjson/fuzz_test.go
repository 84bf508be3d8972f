package pyjson

import (
	"bytes"
	"encoding/json"
	"math"
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
			if !valid || !distinct {
				if err == nil {
					t.Fatalf("Marshal accepted invalid UTF-8 or a repeated key: %q", out)
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
			if math.IsNaN(x) || math.IsInf(x, 0) {
				continue // Python's NaN/Infinity are not JSON for encoding/json
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
	for _, x := range []float64{0.1, 1, 1e16, 1e-5, 1e-7, 123456789012345680, -0.0, 5e-324} {
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
