package serving

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the .golden files under testdata/")

// checkGolden compares got with testdata/<name>.golden; -update rewrites the
// golden file. On a mismatch it writes testdata/<name>.got (ignored by git).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gotPath := filepath.Join("testdata", name+".got")
		_ = os.WriteFile(gotPath, got, 0o644)
		t.Errorf("%s differs from %s (got written to %s)\n got: %s\nwant: %s", name, path, gotPath, got, want)
	}
}

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
