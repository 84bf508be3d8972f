package pyjson

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// vector is one entry of testdata/digest-vectors.json.
type vector struct {
	Name                string          `json:"name"`
	InputMapping        json.RawMessage `json:"input_mapping"`
	Selection           []string        `json:"selection"`
	MappingCanonical    string          `json:"mapping_canonical_json"`
	MappingSHA256       string          `json:"mapping_sha256"`
	GepaJSONSelected    string          `json:"gepa_json_selected"`
	GepaJSONSelectedHex string          `json:"gepa_json_selected_utf8_hex"`
	GepaSHA256Selected  string          `json:"gepa_sha256_selected"`
	GepaCandidateID     string          `json:"gepa_candidate_id"`
	GepaIDFullMapping   string          `json:"gepa_candidate_id_full_mapping"`
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	b, err := os.ReadFile("testdata/digest-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []vector
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	if len(vs) != 13 {
		t.Fatalf("got %d vectors, want 13", len(vs))
	}
	return vs
}

// orderedStrings decodes a JSON object of strings keeping its key order.
func orderedStrings(t testing.TB, raw []byte) Object {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %v %v", tok, err)
	}
	var obj Object
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		obj = append(obj, Member{k.(string), v})
	}
	return obj
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func select_(obj Object, names []string) Object {
	if names == nil {
		return obj
	}
	var out Object
	for _, n := range names {
		for _, m := range obj {
			if m.Key == n {
				out = append(out, m)
			}
		}
	}
	return out
}

// TestDigestVectors checks Compact and Raw byte for byte against every
// vector Python's json module wrote.
func TestDigestVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			m := orderedStrings(t, v.InputMapping)
			compact, err := Compact(m)
			if err != nil {
				t.Fatal(err)
			}
			if string(compact) != v.MappingCanonical {
				t.Errorf("Compact:\n got %s\nwant %s", compact, v.MappingCanonical)
			}
			if got := sha(compact); got != v.MappingSHA256 {
				t.Errorf("mapping sha256 = %s, want %s", got, v.MappingSHA256)
			}
			raw, err := Raw(select_(m, v.Selection))
			if err != nil {
				t.Fatal(err)
			}
			if string(raw) != v.GepaJSONSelected {
				t.Errorf("Raw:\n got %q\nwant %q", raw, v.GepaJSONSelected)
			}
			if got := hex.EncodeToString(raw); got != v.GepaJSONSelectedHex {
				t.Errorf("Raw hex = %s, want %s", got, v.GepaJSONSelectedHex)
			}
			if got := sha(raw); got != v.GepaSHA256Selected || got[:12] != v.GepaCandidateID {
				t.Errorf("Raw sha256 = %s, want %s (id %s)", got, v.GepaSHA256Selected, v.GepaCandidateID)
			}
			full, err := Raw(m)
			if err != nil {
				t.Fatal(err)
			}
			if got := sha(full)[:12]; got != v.GepaIDFullMapping {
				t.Errorf("id over the full mapping = %s, want %s", got, v.GepaIDFullMapping)
			}
			// The input order never changes the sorted output.
			rev := make(Object, len(m))
			for i, mem := range m {
				rev[len(m)-1-i] = mem
			}
			if again, _ := Compact(rev); !bytes.Equal(again, compact) {
				t.Errorf("reversed input order changed Compact: %s", again)
			}
		})
	}
}

// TestPromptDigests builds the four check-match prompt payloads of
// checkmatch.Questions and checks their identity prompt digests, which typevet
// computes over json.dumps(payload, sort_keys=True): this proves Canonical.
func TestPromptDigests(t *testing.T) {
	noul := func(name, instr, yes, no string) Object {
		return Object{
			{"name", name},
			{"label_order", []string{"true", "false"}},
			{"instructions", instr},
			{"criteria", Object{{"true", yes}, {"false", no}}},
		}
	}
	verdict := Object{
		{"consistent", "The check agrees with the register row and is signed."},
		{"payee_mismatch", "The payee differs from the register row."},
		{"amount_mismatch", "An amount differs from the register row."},
		{"date_mismatch", "The date differs from the register row."},
		{"unsigned", "There are no handwritten signature strokes on the signature line. Printed marks such as VOID do not count."},
		{"cannot_tell", "The image is not clear enough to decide."},
	}
	labels := make([]string, len(verdict))
	for i, m := range verdict {
		labels[i] = m.Key
	}
	legibility := []string{
		"No text can be read.",
		"Only a few words can be read.",
		"Some fields can be read.",
		"Most fields can be read.",
		"All fields can be read clearly.",
	}
	var levels Object
	var levelOrder []any
	for i, text := range legibility {
		levels = append(levels, Member{fmt.Sprint(i), text})
		levelOrder = append(levelOrder, fmt.Sprint(i))
	}
	tests := []struct {
		name    string
		payload Object
		want    string
	}{
		{"payee_matches", noul("payee_matches",
			"Is the payee on the check the payee in the register row?",
			"The check names the register payee.",
			"The check names a different payee."),
			"d8a42dca122de8824ef6bbfe792f30e9888b58da5ca01f5a5e37c9e6b8387c0b"},
		{"amounts_match", noul("amounts_match",
			"Do the number amount and the words amount on the check both equal the register amount?",
			"Both amounts on the check equal the register amount.",
			"One or both amounts on the check differ from the register."),
			"fe4a0b38de231349b211a79356bf9b6c003f00a391d517a762fc5d2fdae84b34"},
		{"verdict", Object{
			{"name", "verdict"},
			{"label_order", labels},
			{"instructions", "Compare the check with the register row. Choose one:"},
			{"criteria", verdict},
		}, "b7ef7c4a0c25b12827252fdacba3011e1bb064231d047cac8b1626b29fcb522a"},
		{"legibility", Object{
			{"name", "legibility"},
			{"label_order", levelOrder},
			{"instructions", "Rate how clearly you can read the check text:"},
			{"criteria", levels},
		}, "109aca8b397e0cfeabf8e461c84b8a4af614d6ef9bba30ceeade3da9bcea1ab6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Canonical(tt.payload)
			if err != nil {
				t.Fatal(err)
			}
			if got := sha(b); got != tt.want {
				t.Errorf("digest = %s, want %s\njson: %s", got, tt.want, b)
			}
		})
	}
}

// TestFormatFloat checks Python's repr of floats; expected values were
// printed by Python 3.11's repr().
func TestFormatFloat(t *testing.T) {
	tests := []struct {
		name   string
		in     float64
		want   string
		reason string
	}{
		{"tenth", 0.1, "0.1", ""},
		{"one", 1.0, "1.0", "integral values get .0"},
		{"five", 5.0, "5.0", "encoding/json writes 5"},
		{"zero", 0, "0.0", ""},
		{"negative zero", math.Copysign(0, -1), "-0.0", "the sign of zero is kept"},
		{"1e-07", 1e-07, "1e-07", "two-digit exponent; encoding/json writes 1e-7"},
		{"1e16", 1e16, "1e+16", "exponent 16 switches to scientific with a + sign"},
		{"1e15", 1e15, "1000000000000000.0", "exponent 15 is still fixed"},
		{"largest fixed", 9999999999999998.0, "9999999999999998.0", ""},
		{"1e17", 1e17, "1e+17", ""},
		{"123456789012345680", 123456789012345680.0, "1.2345678901234568e+17", "shortest round-trip digits"},
		{"0.0001", 0.0001, "0.0001", "exponent -4 is still fixed"},
		{"1e-05", 1e-05, "1e-05", "exponent -5 is scientific"},
		{"0.001", 0.001, "0.001", ""},
		{"2.5e-10", 2.5e-10, "2.5e-10", ""},
		{"1.5", 1.5, "1.5", ""},
		{"-2.75", -2.75, "-2.75", ""},
		{"third", 1.0 / 3, "0.3333333333333333", ""},
		{"0.1+0.2 in float64", 0.30000000000000004, "0.30000000000000004", "a Go constant 0.1 + 0.2 would be exact"},
		{"100", 100, "100.0", ""},
		{"12345678.9", 12345678.9, "12345678.9", ""},
		{"123.456", 123.456, "123.456", ""},
		{"1e22", 1e22, "1e+22", ""},
		{"1e100", 1e100, "1e+100", "three-digit exponent"},
		{"-1e-100", -1e-100, "-1e-100", ""},
		{"min subnormal", 5e-324, "5e-324", ""},
		{"max", math.MaxFloat64, "1.7976931348623157e+308", ""},
		{"inf", math.Inf(1), "inf", "repr, not JSON"},
		{"-inf", math.Inf(-1), "-inf", ""},
		{"nan", math.NaN(), "nan", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatFloat(tt.in); got != tt.want {
				t.Errorf("FormatFloat(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestMarshal covers types, separators, indentation and escapes; every want
// was printed by Python 3.11's json.dumps with the same options.
func TestMarshal(t *testing.T) {
	const mixed = "q\"b\\s/ \n\r\t\b\f \x00\x01\x1f\x7f é\u2028\u2029\ufeff<>& 😀"
	nested := Object{
		{"z", []any{1, 2.5, nil, false, Object{}}},
		{"a", Object{{"y", []string{}}, {"x", "é"}}},
		{"m", 1e-07},
	}
	tests := []struct {
		name   string
		in     any
		opts   Options
		want   string
		reason string
	}{
		{"ascii escapes", mixed, Options{EnsureASCII: true},
			`"q\"b\\s/ \n\r\t\b\f \u0000\u0001\u001f\u007f \u00e9\u2028\u2029\ufeff<>& \ud83d\ude00"`,
			"DEL and U+2028 escaped, lowercase hex, surrogate pair, / and <>& raw"},
		{"raw escapes", mixed, Options{},
			"\"q\\\"b\\\\s/ \\n\\r\\t\\b\\f \\u0000\\u0001\\u001f\x7f é\u2028\u2029\ufeff<>& 😀\"",
			"only \" \\ and U+0000-U+001F escaped"},
		{"insertion order", nested, Options{EnsureASCII: true},
			`{"z": [1, 2.5, null, false, {}], "a": {"y": [], "x": "\u00e9"}, "m": 1e-07}`, ""},
		{"compact raw", nested, Options{Compact: true},
			`{"z":[1,2.5,null,false,{}],"a":{"y":[],"x":"é"},"m":1e-07}`, ""},
		{"indent sorted", nested, Options{SortKeys: true, EnsureASCII: true, Indent: 2},
			"{\n  \"a\": {\n    \"x\": \"\\u00e9\",\n    \"y\": []\n  },\n  \"m\": 1e-07,\n  \"z\": [\n    1,\n    2.5,\n    null,\n    false,\n    {}\n  ]\n}",
			"indent uses \",\" between items and \": \" after keys"},
		{"indent compact", Object{{"a", Object{{"x", "y"}}}, {"b", []int{}}}, Options{Indent: 2, Compact: true},
			"{\n  \"a\":{\n    \"x\":\"y\"\n  },\n  \"b\":[]\n}", ""},
		{"ints", []any{int64(-3), uint64(18446744073709551615), 7, true}, Options{},
			`[-3, 18446744073709551615, 7, true]`, ""},
		{"map sorted without SortKeys", map[string]string{"b": "1", "a": "2"}, Options{},
			`{"a": "2", "b": "1"}`, "a Go map has no order"},
		{"map any", map[string]any{"é": 1.0, "e": nil}, Options{EnsureASCII: true},
			`{"e": null, "\u00e9": 1.0}`, ""},
		{"objects", []Object{{{"k", "v"}}, nil}, Options{},
			`[{"k": "v"}, {}]`, ""},
		{"key escapes", Object{{"a\"\n😀", "x"}}, Options{EnsureASCII: true},
			`{"a\"\n\ud83d\ude00": "x"}`, "keys use the string escapes"},
		{"nil", nil, Options{}, "null", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Marshal:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestMarshalErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     any
		opts   Options
		want   string
		reason string
	}{
		{"unsupported", make(chan int), Options{}, "pyjson: json: cannot marshal from Go chan int", ""},
		{"nested unsupported", Object{{"a", []any{1, complex(1, 2)}}}, Options{}, `pyjson: json: cannot marshal from Go complex128 within "/a/1"`, "the error names the Go type and where"},
		{"unsupported field", struct{ F func() }{}, Options{}, `pyjson: json: cannot marshal from Go func() within "/F"`, ""},
		{"unsupported map key", map[[2]int]int{{1, 2}: 3}, Options{}, "pyjson: json: cannot marshal from Go [2]int: object member name must be a string after offset 1", ""},
		{"invalid utf-8 value", Object{{"a", "secret\xff"}}, Options{}, `pyjson: json: cannot marshal from Go pyjson.Object: invalid UTF-8 within "/a" after offset 6`, "the text stays out of the message"},
		{"invalid utf-8 key", Object{{"\xc3", "x"}}, Options{SortKeys: true}, "pyjson: json: cannot marshal from Go pyjson.Object: invalid UTF-8 after offset 1", ""},
		{"duplicate key", Object{{"a", "1"}, {"b", "2"}, {"a", "3"}}, Options{}, `pyjson: object key "a" given twice`, "a Python dict cannot hold it"},
		{"duplicate key sorted", Object{{"a", "1"}, {"b", "2"}, {"a", "3"}}, Options{SortKeys: true}, `pyjson: object key "a" given twice`, ""},
		{"NaN", Object{{"a", math.NaN()}}, Options{}, `pyjson: json: cannot marshal from Go float64 within "/a": out of range float value NaN is not JSON compliant`, "allow_nan=False"},
		{"infinity", []float64{math.Inf(-1)}, Options{}, `pyjson: json: cannot marshal from Go float64 within "/0": out of range float value -Inf is not JSON compliant`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in, tt.opts)
			if err == nil {
				t.Fatalf("Marshal = %s, want error", got)
			}
			if got := hyrumless(err); got != tt.want {
				t.Errorf("error = %q, want %q", got, tt.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error leaks the text: %q", err)
			}
		})
	}
}

// hyrumless is err's text with json/v2's modal verb, which it picks at
// random once per process ("cannot" or "unable to"), read as "cannot".
func hyrumless(err error) string {
	return strings.Replace(err.Error(), "json: unable to ", "json: cannot ", 1)
}

// TestSortDoesNotMutate checks that SortKeys leaves the caller's Object alone.
func TestSortDoesNotMutate(t *testing.T) {
	obj := Object{{"b", "1"}, {"a", "2"}}
	if _, err := Canonical(obj); err != nil {
		t.Fatal(err)
	}
	if obj[0].Key != "b" {
		t.Errorf("Canonical reordered its input: %v", obj)
	}
}

// TestDeterministic checks that a map gives the same bytes every time.
func TestDeterministic(t *testing.T) {
	m := map[string]any{}
	for i := range 50 {
		m[fmt.Sprint("k", i)] = float64(i) / 7
	}
	first, err := Compact(m)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if again, _ := Compact(m); !bytes.Equal(again, first) {
			t.Fatal("Compact of a map changed between calls")
		}
	}
}

func BenchmarkCompactVectors(b *testing.B) {
	var objs []Object
	size := 0
	for _, v := range loadVectors(b) {
		o := orderedStrings(b, v.InputMapping)
		objs = append(objs, o)
		out, _ := Compact(o)
		size += len(out)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, o := range objs {
			if _, err := Compact(o); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkFormatFloat(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = FormatFloat(1.2345678901234568e+17)
	}
}

// TestRepeatedKeyLarge covers the map path of the repeated-key check.
func TestRepeatedKeyLarge(t *testing.T) {
	var obj Object
	for i := range 20 {
		obj = append(obj, Member{fmt.Sprint("k", i), i})
	}
	if _, err := Marshal(obj, Options{}); err != nil {
		t.Fatal(err)
	}
	obj = append(obj, Member{"k7", 0})
	if _, err := Marshal(obj, Options{}); err == nil || err.Error() != `pyjson: object key "k7" given twice` {
		t.Errorf("err = %v", err)
	}
}

// TestPythonLiterals: the spans of NaN, Infinity and -Infinity outside
// strings, in order; text that is not JSON even with them is an error.
func TestPythonLiterals(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // the text of each span
		wantErr  bool
	}{
		{name: "none", in: `{"a": 1, "b": [true, null]}`},
		{name: "nested", in: `{"a": NaN, "b": [-Infinity, {"c": Infinity}], "d": -1.5}`, want: []string{"NaN", "-Infinity", "Infinity"}},
		{name: "in a string", in: `{"s": "NaN -Infinity \" Infinity"}`},
		{name: "bare value", in: ` NaN `, want: []string{"NaN"}},
		{name: "trailing data", in: `{"a": NaN} x`, wantErr: true},
		{name: "glued to a word", in: `{"a": NaNx}`, wantErr: true},
		{name: "lower case", in: `{"a": nan}`, wantErr: true},
		{name: "unterminated", in: `{"a": [NaN`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans, err := PythonLiterals([]byte(tt.in))
			if tt.wantErr {
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("err = %v, want a *SyntaxError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, sp := range spans {
				got = append(got, tt.in[sp[0]:sp[1]])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("spans %q, want %q", got, tt.want)
			}
		})
	}
}
