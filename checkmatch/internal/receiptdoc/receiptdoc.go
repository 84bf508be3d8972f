// Package receiptdoc is the test helper behind the receipt schema page
// (docs/receipt.md): it walks a receipt's Go types for every JSON key they
// can write and checks that the page names each one. The tests of
// checkmatch (check-match receipts) and checkmatch/orderings (option-order
// receipts) share it.
package receiptdoc

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

// Check fails t unless the page at doc names, as `key`, every JSON key the
// types can write; fewer than min keys means the walk is broken.
func Check(t *testing.T, doc string, min int, types ...reflect.Type) {
	t.Helper()
	text, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := Keys(types...)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) < min {
		t.Fatalf("found only %d keys; the walk is broken", len(keys))
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !strings.Contains(string(text), "`"+k+"`") {
			t.Errorf("%s does not list key %q (%s)", doc, k, keys[k])
		}
	}
}

// customSamples are filled values of the receipt types that write their
// own JSON (json.Marshaler), so their keys can be read from the output.
// A new Marshaler in a receipt needs a sample here.
var customSamples = map[reflect.Type]any{
	reflect.TypeFor[serving.ServerEntry](): []serving.ServerEntry{
		{Served: []serving.ServedModel{{ID: "m"}}, BuildInfo: "b", LlamaCPP: &serving.LlamaCPPFacts{HTTPKeepalive: true}},
		{BuildInfo: "reader", BackendPin: json.RawMessage(`{}`)},
	},
	reflect.TypeFor[serving.Histogram]():   []serving.Histogram{{Known: true, PercentileBasis: serving.PercentileBasisUpperBound}},
	reflect.TypeFor[serving.Gauge]():       []serving.Gauge{{Present: true, Before: serving.Known(1), After: serving.Known(2)}},
	reflect.TypeFor[receipt.WorkingTree](): []receipt.WorkingTree{{Dirty: true, DirtyPaths: []string{"a.go"}, DirtyDigest: "d"}},
}

// leafTypes write JSON without keys of their own (numbers, strings, the
// "unknown" value, ordered maps keyed by data such as labels or
// variants, level maps).
var leafTypes = []reflect.Type{
	reflect.TypeFor[serving.Value](),
	reflect.TypeFor[serving.UpperBound](),
	reflect.TypeFor[serving.Labels](),
	reflect.TypeFor[serving.Backend](),
	reflect.TypeFor[json.RawMessage](),
}

// Keys returns every JSON object key the types can write, each with the
// Go type and field it comes from ("orderings.Stats.Decision"): struct
// field names from json tags, and the keys of customSamples' output. A
// struct that writes its own JSON without a sample is an error.
func Keys(types ...reflect.Type) (map[string]string, error) {
	keys := map[string]string{}
	seen := map[reflect.Type]bool{}
	for _, typ := range types {
		if err := receiptKeys(typ, keys, seen); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// receiptKeys adds the keys typ can write to keys.
func receiptKeys(typ reflect.Type, keys map[string]string, seen map[reflect.Type]bool) error {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array {
		typ = typ.Elem()
	}
	if seen[typ] || slices.Contains(leafTypes, typ) {
		return nil
	}
	seen[typ] = true
	if sample, ok := customSamples[typ]; ok {
		b, err := json.Marshal(sample)
		if err != nil {
			return err
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		collectJSONKeys(v, typ.String(), keys)
		return nil
	}
	if typ.Implements(reflect.TypeFor[json.Marshaler]()) && typ.Kind() == reflect.Struct {
		return fmt.Errorf("%s writes its own JSON: add a filled sample to customSamples", typ)
	}
	if strings.HasPrefix(typ.Name(), "Ordered[") || strings.HasPrefix(typ.Name(), "ByLevel[") || strings.HasPrefix(typ.Name(), "Entry[") {
		// Keyed by data; the values may still be structs (score_by_variant).
		if typ.Kind() == reflect.Struct {
			if f, ok := typ.FieldByName("Value"); ok {
				return receiptKeys(f.Type, keys, seen)
			}
		}
		return nil
	}
	if typ.Kind() != reflect.Struct {
		return nil
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name != "" {
			keys[name] = typ.String() + "." + f.Name
		}
		if err := receiptKeys(f.Type, keys, seen); err != nil {
			return err
		}
	}
	return nil
}

// collectJSONKeys adds the object keys of a decoded JSON value.
func collectJSONKeys(v any, from string, keys map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			keys[k] = from
			collectJSONKeys(e, from, keys)
		}
	case []any:
		for _, e := range v {
			collectJSONKeys(e, from, keys)
		}
	}
}
