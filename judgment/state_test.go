package judgment_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

// TestStateJSON checks StateJSON against Python's
// json.dumps(v, ensure_ascii=False); each want was printed by Python 3.11.
func TestStateJSON(t *testing.T) {
	tests := []struct {
		name   string
		in     any
		want   string
		reason string
	}{
		{name: "dict", in: map[string]any{"payee": "Acme <R&D>", "amount": 12.5, "n": 3},
			want:   `{"amount": 12.5, "n": 3, "payee": "Acme <R&D>"}`,
			reason: `", " and ": " separators; <, > and & not escaped; Go map keys sorted`},
		{name: "non-ASCII raw", in: map[string]any{"name": "Zoë 食", "sep": "\u2028"}, want: "{\"name\": \"Zoë 食\", \"sep\": \"\u2028\"}",
			reason: "ensure_ascii=False keeps non-ASCII, U+2028 included, unescaped"},
		{name: "floats", in: []any{1.0, 1e-07, 1e16, 0.1}, want: `[1.0, 1e-07, 1e+16, 0.1]`, reason: "Python's float repr"},
		{name: "nested", in: map[string]any{"rows": []any{map[string]any{"b": true, "a": nil}}, "tags": []string{}},
			want: `{"rows": [{"a": null, "b": true}], "tags": []}`},
		{name: "controls", in: "a\"b\\c\nd\x01", want: `"a\"b\\c\nd\u0001"`, reason: "a string is quoted as json.dumps quotes it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := judgment.StateJSON(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("StateJSON = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestStateJSONErrors(t *testing.T) {
	tests := []struct {
		name string
		in   any
	}{
		{name: "unsupported type", in: struct{ X chan int }{}},
		{name: "invalid utf-8", in: []string{"a\xff"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := judgment.StateJSON(tt.in)
			if err == nil || got != "" {
				t.Fatalf("StateJSON = %q, %v; want an error", got, err)
			}
			if !strings.HasPrefix(err.Error(), "judgment: state: ") {
				t.Errorf("error %q does not name the state", err)
			}
		})
	}
}

// StateJSON renders a structured state as typevet puts it in the prompt.
func ExampleStateJSON() {
	state, err := judgment.StateJSON(map[string]any{"payee": "Zoë & Co", "amount": 125.0})
	if err != nil {
		panic(err)
	}
	fmt.Println(state)
	// Output:
	// {"amount": 125.0, "payee": "Zoë & Co"}
}
