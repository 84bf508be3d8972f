package pyjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// fixedJSON is a json.Marshaler that writes fixed text, as a custom
// MarshalJSON that already writes Python float text does.
type fixedJSON string

func (f fixedJSON) MarshalJSON() ([]byte, error) { return []byte(f), nil }

// ptrJSON has MarshalJSON on the pointer only.
type ptrJSON struct{ n int }

func (p *ptrJSON) MarshalJSON() ([]byte, error) {
	return []byte(`{"ptr":` + string(rune('0'+p.n)) + `}`), nil
}

type (
	seconds    float64
	ratio      float32
	fixedFloat float64
)

func (f fixedFloat) MarshalJSON() ([]byte, error) { return []byte("3"), nil }

type failingJSON struct{}

var errFailing = errors.New("boom")

func (failingJSON) MarshalJSON() ([]byte, error) { return nil, errFailing }

type level struct {
	N   int      `json:"n"`
	P95 *float64 `json:"p95"`
	Xs  []int    `json:"xs"`
}

// receiptLike mirrors receipt_like in testdata/python_dumps.py.
type receiptLike struct {
	Issue      int            `json:"issue"`
	Model      string         `json:"model"`
	Wall       float64        `json:"wall_seconds"`
	Tiny       float64        `json:"tiny"`
	Rate       *float64       `json:"rate"`
	P50        *float64       `json:"p50"`
	OK         bool           `json:"ok"`
	Paths      []string       `json:"paths"`
	Missing    []string       `json:"missing"`
	Nested     level          `json:"nested"`
	Counts     map[string]int `json:"counts"`
	Ordered    Object         `json:"ordered"`
	Dropped    string         `json:"-"`
	Empty      string         `json:"empty,omitempty"`
	Kept       string         `json:"kept,omitempty"`
	unexported int
}

// marshalers mirrors marshalers in testdata/python_dumps.py.
type marshalers struct {
	Probabilities fixedJSON         `json:"probabilities"`
	Levels        []json.RawMessage `json:"levels"`
	Text          fixedJSON         `json:"text"`
	After         fixedJSON         `json:"after"`
}

type base struct {
	Inner  string `json:"inner"`
	Shadow string `json:"shadow"`
}

type tagged struct {
	X float64 `json:"tagged"`
}

// embedded mirrors embedded in testdata/python_dumps.py.
type embedded struct {
	Outer int `json:"outer"`
	base
	Shadow string `json:"shadow"`
	*tagged
}

func receiptLikeValue() receiptLike {
	p50 := 1.3526233648881316
	return receiptLike{
		Issue: 316, Model: "m<&>é\u2028😀", Wall: 26, Tiny: 1e-07, P50: &p50, OK: true,
		Paths: []string{}, Nested: level{Xs: []int{1, 2}},
		Counts:  map[string]int{"b": 1, "é": 3, "a": 2},
		Ordered: Object{{"z", 1.0}, {"a", "x"}},
		Dropped: "never written", Kept: "yes", unexported: 7,
	}
}

func marshalersValue() marshalers {
	return marshalers{
		Probabilities: `{"consistent":26.0,"<a&b>":1e-07,"café":0.5}`,
		Levels:        []json.RawMessage{json.RawMessage(`{"0": 0.25 , "1":0.75}`), json.RawMessage(`{ }`), json.RawMessage("[\n]")},
		Text:          `"é\u2028😀\/\u007f"`,
		After:         `[{"deep":{"x":[1.0,{"y":null}]}}]`,
	}
}

// TestMarshalPython compares Marshal of Go values with the text Python's
// json.dumps wrote for the equivalent dicts (testdata/python_dumps.py).
func TestMarshalPython(t *testing.T) {
	raw, err := os.ReadFile("testdata/python_dumps.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]string
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		in     any
		opts   Options
		reason string
	}{
		{name: "floats", in: []float64{26, 1e-07, 1e16, 1e15, 0.1, 5e-324, math.MaxFloat64, math.Copysign(0, -1),
			123456789012345680, 0.0001, 1e-05, 252, 2.798854759893043}, opts: Options{EnsureASCII: true, Indent: 2},
			reason: "Python's repr: 26.0 and 1e-07 where encoding/json writes 26 and 1e-7"},
		{name: "receipt_like", in: receiptLikeValue(), opts: Options{EnsureASCII: true, Indent: 2},
			reason: "field order, tags, omitempty, nil pointer and nil slice null, map sorted, Object in order"},
		{name: "receipt_like_sorted", in: receiptLikeValue(), opts: Options{EnsureASCII: true, Indent: 2, SortKeys: true},
			reason: "sort_keys sorts struct fields and Objects too"},
		{name: "marshalers", in: marshalersValue(), opts: Options{EnsureASCII: true, Indent: 2},
			reason: "MarshalJSON output re-indented at its depth, its strings escaped as Python does, its numbers kept"},
		{name: "marshalers_sorted_compact", in: marshalersValue(), opts: Options{EnsureASCII: true, Compact: true, SortKeys: true},
			reason: "keys inside MarshalJSON output are sorted too"},
		{name: "marshalers_raw", in: marshalersValue(), opts: Options{},
			reason: "ensure_ascii=False keeps non-ASCII text and DEL raw"},
		{name: "embedded", in: embedded{Outer: 1, base: base{Inner: "i", Shadow: "hidden"}, Shadow: "outer wins", tagged: &tagged{2.5}},
			opts: Options{EnsureASCII: true, Indent: 2}, reason: "embedded structs lend their fields; the shallower shadow wins"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, ok := want[tt.name]
			if !ok {
				t.Fatalf("no Python text for %s; run python3 testdata/python_dumps.py", tt.name)
			}
			got, err := Marshal(tt.in, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != w {
				t.Errorf("Marshal:\n got %s\nwant %s", got, w)
			}
		})
	}
}

// TestMarshalGo covers Go-only cases that have no Python dict to compare
// with.
func TestMarshalGo(t *testing.T) {
	type omit struct {
		A []int           `json:"a,omitempty"`
		B map[string]int  `json:"b,omitempty"`
		C *int            `json:"c,omitempty"`
		D float64         `json:"d,omitempty"`
		E struct{ X int } `json:"e,omitzero"`
		F bool            `json:"f,omitempty"`
	}
	type quoted struct {
		N int     `json:"n,string"`
		F float64 `json:"f,string"`
		S string  `json:"s,string"`
	}
	type holder struct {
		P ptrJSON  `json:"p"`
		Q *ptrJSON `json:"q"`
	}
	tests := []struct {
		name   string
		in     any
		opts   Options
		want   string
		reason string
	}{
		{name: "verbatim numbers", in: json.RawMessage("[2.50, 1e-7, -0, 1E+2, 12345678901234567890]"), want: "[2.50, 1e-7, -0, 1E+2, 12345678901234567890]",
			reason: "numbers in MarshalJSON output are copied, not reformatted"},
		{name: "float32", in: []float32{0.1, 1e-07, 16777216}, want: "[0.1, 1e-07, 16777216.0]",
			reason: "shortest float32 digits in Python's notation"},
		{name: "named floats", in: []any{seconds(26), ratio(0.1), fixedFloat(3)}, want: "[26.0, 0.1, 3]",
			reason: "a named float is a Python float too, unless its MarshalJSON says otherwise"},
		{name: "omitempty and omitzero", in: omit{}, want: "{}"},
		{name: "omitempty kept", in: omit{A: []int{1}, D: 0.5, F: true}, want: `{"a": [1], "d": 0.5, "f": true}`},
		{name: "string option", in: quoted{N: 3, F: 2, S: "x"}, want: `{"n": "3", "f": 2.0, "s": "\"x\""}`,
			reason: "as encoding/json, but a float keeps Python's float text unquoted"},
		{name: "pointer receiver addressable", in: &holder{P: ptrJSON{1}, Q: &ptrJSON{2}}, want: `{"p": {"ptr": 1}, "q": {"ptr": 2}}`},
		{name: "nil pointer receiver", in: &holder{Q: nil}, want: `{"p": {"ptr": 0}, "q": null}`,
			reason: "a nil pointer is null"},
		{name: "bytes", in: []byte("hi"), want: `"aGk="`, reason: "base64, as encoding/json"},
		{name: "int map keys sorted as text", in: map[int]string{10: "b", 9: "a"}, want: `{"10": "b", "9": "a"}`},
		{name: "nil map", in: map[string]int(nil), want: "null"},
		{name: "nil slices", in: []any{[]string(nil), []float64(nil), []int(nil), Object(nil)}, want: "[null, null, null, {}]",
			reason: "nil slices follow encoding/json; a nil Object is an empty dict"},
		{name: "array", in: [2]bool{true, false}, want: "[true, false]"},
		{name: "interface fields", in: struct {
			M json.Marshaler `json:"m"`
			N json.Marshaler `json:"n"`
			A any            `json:"a"`
		}{M: fixedJSON(`{"x":1.0}`), A: []any{1.5}}, want: `{"m": {"x": 1.0}, "n": null, "a": [1.5]}`,
			reason: "a nil interface is null; a set one encodes its dynamic value"},
		{name: "empty containers indented", in: json.RawMessage(`{"a":{},"b":[],"c":[{}]}`), opts: Options{Indent: 2},
			want: "{\n  \"a\": {},\n  \"b\": [],\n  \"c\": [\n    {}\n  ]\n}"},
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

func TestMarshalMarshalerErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     any
		opts   Options
		want   string
		reason string
	}{
		{name: "invalid", in: json.RawMessage(`{"a":}`), want: "invalid character '}' at start of value within \"/a\" after offset 5"},
		{name: "trailing", in: json.RawMessage(`1 2`), want: "invalid character '2' after top-level value after offset 2"},
		{name: "repeated key", in: json.RawMessage(`{"a":1,"a":2}`), want: `duplicate object member name "a"`,
			reason: "a Python dict cannot hold it"},
		{name: "invalid utf-8", in: json.RawMessage("\"secret\xff\""), want: "invalid UTF-8 after offset 7"},
		{name: "error", in: []any{failingJSON{}}, want: "json: cannot marshal from Go pyjson.failingJSON within \"/0\": boom"},
		{name: "NaN refused", in: []float64{1, math.NaN()},
			want: "out of range float value NaN is not JSON compliant", reason: "allow_nan=False"},
		{name: "Infinity token refused", in: json.RawMessage(`[1, -Infinity]`),
			want: "invalid character 'I' in number (expecting digit) within \"/1\" after offset 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in, tt.opts)
			if err == nil {
				t.Fatalf("Marshal = %s, want error", got)
			}
			if !strings.HasPrefix(err.Error(), "pyjson: ") || !strings.Contains(hyrumless(err), tt.want) {
				t.Errorf("error = %q, want pyjson: ...%q", err, tt.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error leaks the text: %q", err)
			}
		})
	}
	if _, err := Marshal(failingJSON{}, Options{}); !errors.Is(err, errFailing) {
		t.Errorf("error %v does not wrap the MarshalJSON error", err)
	}
}

type node struct {
	Next *node `json:"next"`
}

// TestMarshalDeep checks that a cycle or very deep input fails cleanly.
func TestMarshalDeep(t *testing.T) {
	n := &node{}
	n.Next = n
	if _, err := Marshal(n, Options{}); err == nil || !strings.Contains(err.Error(), "encountered a cycle") {
		t.Errorf("cycle: err = %v", err)
	}
	deep := json.RawMessage(strings.Repeat("[", 10001) + strings.Repeat("]", 10001))
	if _, err := Marshal(deep, Options{}); err == nil {
		t.Error("10001 nested arrays in MarshalJSON output accepted")
	}
	if err := DecodeObject([]byte(`{"a":`+string(deep)+`}`), func(string, json.RawMessage) error { return nil }); err == nil {
		t.Error("DecodeObject accepted 10001 nested arrays")
	}
	ok := json.RawMessage(strings.Repeat("[", 100) + strings.Repeat("]", 100))
	if _, err := Marshal(ok, Options{Indent: 1}); err != nil {
		t.Errorf("100 nested arrays: %v", err)
	}
}

func TestDecodeObject(t *testing.T) {
	type member struct{ Key, Value string }
	tests := []struct {
		name    string
		in      string
		want    []member
		wantErr string
		reason  string
	}{
		{name: "order kept", in: ` {"b": [1, 2 ] , "a":{"x":1}, "c" : "s"} `,
			want: []member{{"b", "[1, 2 ]"}, {"a", `{"x":1}`}, {"c", `"s"`}}, reason: "values are passed as written"},
		{name: "empty", in: `{}`, want: nil},
		{name: "escaped key", in: `{"\u00e9\n":null}`, want: []member{{"é\n", "null"}}},
		{name: "invalid utf-8 key", in: "{\"a\xffb\":1}", want: []member{{"a\ufffdb", "1"}}, reason: "as encoding/json reads it"},
		{name: "nested repeated key allowed", in: `{"a":{"x":1,"x":2}}`, want: []member{{"a", `{"x":1,"x":2}`}},
			reason: "only the object read is checked; its values are the caller's"},
		{name: "repeated key", in: `{"a":1,"b":2,"a":3}`, wantErr: `pyjson: key "a" given twice`},
		{name: "null", in: `null`, wantErr: ErrNotObject.Error()},
		{name: "list", in: ` [1] `, wantErr: ErrNotObject.Error()},
		{name: "trailing object", in: `{} {}`, wantErr: ErrTrailingData.Error()},
		{name: "trailing text", in: `{"a":1}x`, wantErr: ErrTrailingData.Error()},
		{name: "trailing comma", in: `{"a":1,}`, wantErr: "pyjson: invalid JSON at byte 6"},
		{name: "NaN", in: `{"a":NaN}`, wantErr: "pyjson: invalid JSON at byte 5", reason: "strict JSON: callers decode the values with encoding/json"},
		{name: "truncated", in: `{"a":[1,`, wantErr: "pyjson: unexpected end of JSON input"},
		{name: "empty input", in: ``, wantErr: "pyjson: unexpected end of JSON input"},
		{name: "bad escape", in: `{"a\q":1}`, wantErr: "pyjson: invalid JSON at byte 3"},
		{name: "control character", in: "{\"a\n\":1}", wantErr: "pyjson: invalid JSON at byte 3"},
		{name: "leading zero", in: `{"a":01}`, wantErr: "pyjson: invalid JSON at byte 6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []member
			err := DecodeObject([]byte(tt.in), func(k string, v json.RawMessage) error {
				got = append(got, member{k, string(v)})
				return nil
			})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("member %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
	stop := errors.New("stop")
	calls := 0
	err := DecodeObject([]byte(`{"a":1,"b":2}`), func(string, json.RawMessage) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Errorf("DecodeObject = %v after %d calls; want the callback's error unchanged after 1", err, calls)
	}
	var rk *RepeatedKeyError
	var many strings.Builder
	many.WriteString("{")
	for i := range 40 {
		fmt.Fprintf(&many, `"k%d":1,`, i)
	}
	many.WriteString(`"k3":2}`)
	if err := DecodeObject([]byte(many.String()), func(string, json.RawMessage) error { return nil }); !errors.As(err, &rk) || rk.Key != "k3" {
		t.Errorf("40 keys with a repeat: error = %v, want *RepeatedKeyError for k3", err)
	}
}
