package pyjson_test

import (
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
