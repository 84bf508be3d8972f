package orderings

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

// receiptDoc is the receipt schema page.
var receiptDoc = filepath.Join("..", "..", "docs", "receipt.md")

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

// receiptKeys collects every JSON object key t can write: struct field
// names from json tags, and the keys of customSamples' output.
func receiptKeys(t *testing.T, typ reflect.Type, keys map[string]string, seen map[reflect.Type]bool) {
	t.Helper()
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array {
		typ = typ.Elem()
	}
	if seen[typ] || slices.Contains(leafTypes, typ) {
		return
	}
	seen[typ] = true
	if sample, ok := customSamples[typ]; ok {
		b, err := json.Marshal(sample)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		collectJSONKeys(v, typ.String(), keys)
		return
	}
	if typ.Implements(reflect.TypeFor[json.Marshaler]()) && typ.Kind() == reflect.Struct {
		t.Errorf("%s writes its own JSON: add a filled sample to customSamples", typ)
		return
	}
	if strings.HasPrefix(typ.Name(), "Ordered[") || strings.HasPrefix(typ.Name(), "ByLevel[") || strings.HasPrefix(typ.Name(), "Entry[") {
		// Keyed by data; the values may still be structs (score_by_variant).
		if typ.Kind() == reflect.Struct {
			if f, ok := typ.FieldByName("Value"); ok {
				receiptKeys(t, f.Type, keys, seen)
			}
		}
		return
	}
	if typ.Kind() != reflect.Struct {
		return
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
		receiptKeys(t, f.Type, keys, seen)
	}
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

// TestReceiptDocListsEveryKey: docs/receipt.md names, as `key`, every JSON
// key an option-order receipt can hold (checkmatch's test of the same name
// covers a check-match receipt with its throughput block; the walk is
// checkmatch's receiptKeys, which this package's tests cannot import).
func TestReceiptDocListsEveryKey(t *testing.T) {
	doc, err := os.ReadFile(receiptDoc)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	seen := map[reflect.Type]bool{}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[Receipt](),
	} {
		receiptKeys(t, typ, keys, seen)
	}
	if len(keys) < 80 {
		t.Fatalf("found only %d keys; the walk is broken", len(keys))
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("%s does not list key %q (%s)", receiptDoc, k, keys[k])
		}
	}
}
