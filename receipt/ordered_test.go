package receipt

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestOrderedMarshal(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		in     any
		want   string
	}{
		{name: "keeps order", in: Digests{{Name: "verdict", Value: "b"}, {Name: "amounts_match", Value: "a"}}, want: `{"verdict":"b","amounts_match":"a"}`},
		{name: "nil is empty object", reason: "typevet writes fixture_digests as {}", in: Digests(nil), want: `{}`},
		{name: "counts", in: Counts{{Name: "judgments", Value: 140}}, want: `{"judgments":140}`},
		{name: "html unescaped", reason: "Python writes <, > and & raw", in: Digests{{Name: "a<b", Value: "R&D"}}, want: `{"a<b":"R&D"}`},
		{name: "escapes", in: Digests{{Name: "q\"", Value: "\n"}}, want: `{"q\"":"\n"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := json.Compact(&got, b); err != nil {
				t.Fatal(err)
			}
			if got.String() != tt.want {
				t.Errorf("Marshal = %s, want %s", got.String(), tt.want)
			}
		})
	}
}

func TestOrderedUnmarshal(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Digests
		wantErr string
	}{
		{name: "keeps order", in: `{"z": "1", "a": "2"}`, want: Digests{{Name: "z", Value: "1"}, {Name: "a", Value: "2"}}},
		{name: "empty", in: `{}`, want: Digests{}},
		{name: "null", in: `null`, want: nil},
		{name: "duplicate key", in: `{"a": "1", "a": "2"}`, wantErr: `key "a" given twice`},
		{name: "array", in: `["a"]`, wantErr: "want a JSON object"},
		{name: "wrong value type", in: `{"a": 1}`, wantErr: `value of "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Digests
			err := json.Unmarshal([]byte(tt.in), &got)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
			if v, ok := got.Get("a"); len(tt.want) == 2 && (!ok || v != "2") {
				t.Errorf("Get(a) = %q, %v", v, ok)
			}
		})
	}
}

// TestOrderedPythonText checks the text MarshalJSON writes: values through
// pyjson, so floats are Python's float text, and a repeated name is refused.
func TestOrderedPythonText(t *testing.T) {
	b, err := Ordered[float64]{{Name: "consistent", Value: 1}, {Name: "<a&b>", Value: 1e-07}, {Name: "x", Value: 0.5}}.MarshalJSON()
	if want := `{"consistent":1.0,"<a&b>":1e-07,"x":0.5}`; err != nil || string(b) != want {
		t.Errorf("MarshalJSON = %s, %v; want %s", b, err, want)
	}
	type pair struct {
		A float64 `json:"a"`
	}
	b, err = Ordered[pair]{{Name: "p", Value: pair{26}}}.MarshalJSON()
	if want := `{"p":{"a":26.0}}`; err != nil || string(b) != want {
		t.Errorf("MarshalJSON of structs = %s, %v; want %s", b, err, want)
	}
	if _, err := (Digests{{Name: "a", Value: "1"}, {Name: "a", Value: "2"}}).MarshalJSON(); err == nil ||
		err.Error() != `receipt: pyjson: object key "a" given twice` {
		t.Errorf("repeated name: err = %v", err)
	}
}

func TestDifferingNames(t *testing.T) {
	a := Digests{{Name: "x", Value: "1"}, {Name: "y", Value: "2"}, {Name: "z", Value: "3"}}
	b := Digests{{Name: "w", Value: "0"}, {Name: "y", Value: "2"}, {Name: "x", Value: "9"}}
	got := DifferingNames(a, b)
	want := []string{"x", "z", "w"}
	if !slices.Equal(got, want) {
		t.Fatalf("DifferingNames = %q, want %q", got, want)
	}
	if got := DifferingNames(a, a); len(got) != 0 {
		t.Fatalf("a receipt against itself differs in %q", got)
	}
}
