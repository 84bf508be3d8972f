package pyjson_test

import (
	"encoding/json"
	"fmt"

	"github.com/typevet/typevet-go/internal/pyjson"
)

func Example() {
	m := pyjson.Object{{Key: "b", Value: "é"}, {Key: "a", Value: "<x>"}}
	canonical, _ := pyjson.Canonical(m)
	compact, _ := pyjson.Compact(m)
	raw, _ := pyjson.Raw(m)
	fmt.Println(string(canonical))
	fmt.Println(string(compact))
	fmt.Println(string(raw))
	// Output:
	// {"a": "<x>", "b": "\u00e9"}
	// {"a":"<x>","b":"\u00e9"}
	// {"a": "<x>", "b": "é"}
}

func ExampleFormatFloat() {
	for _, f := range []float64{5, 0.1, 1e-07, 1e16, 0.0001} {
		fmt.Println(pyjson.FormatFloat(f))
	}
	// Output:
	// 5.0
	// 0.1
	// 1e-07
	// 1e+16
	// 0.0001
}

func ExampleMarshal_receipt() {
	type block struct {
		Wall  float64  `json:"wall_seconds"`
		Rate  *float64 `json:"rate"`
		Model string   `json:"model"`
	}
	b, _ := pyjson.Marshal(block{Wall: 26, Model: "café"}, pyjson.Options{EnsureASCII: true, Indent: 2})
	fmt.Println(string(b))
	// Output:
	// {
	//   "wall_seconds": 26.0,
	//   "rate": null,
	//   "model": "caf\u00e9"
	// }
}

func ExampleDecodeObject() {
	err := pyjson.DecodeObject([]byte(`{"b": 1, "a": [2]}`), func(key string, value json.RawMessage) error {
		fmt.Println(key, string(value))
		return nil
	})
	fmt.Println(err)
	err = pyjson.DecodeObject([]byte(`{"a": 1, "a": 2}`), func(string, json.RawMessage) error { return nil })
	fmt.Println(err)
	// Output:
	// b 1
	// a [2]
	// <nil>
	// pyjson: key "a" given twice
}
