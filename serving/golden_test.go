package serving

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// readTestdata returns the text of testdata/name.
func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// indentJSON marshals v with two-space indent and a final newline.
func indentJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// present is a present reading of text.
func present(text string) Reading { return Reading{Text: text, OK: true} }

// jsonBuffer encodes compact JSON without HTML escaping, as a receipt
// writer does.
type jsonBuffer struct{ bytes.Buffer }

func (b *jsonBuffer) encode(v any) error {
	enc := json.NewEncoder(&b.Buffer)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1)
	return nil
}
