package stats

import (
	"bytes"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/internal/golden"
)

// FuzzReadDocuments feeds arbitrary bytes to both document readers: they
// return a document or an error, never panic, and a document they accept
// writes back and reads again to the same bytes. The seeds are a few
// hundred bytes (the fuzzer minimises every input that reaches new code,
// and on the 8 KB documents that took the whole run: 10 executions in
// 20 s); the whole documents get the property in
// TestReadDocumentsRoundTrip.
func FuzzReadDocuments(f *testing.F) {
	for _, doc := range fixtureDocuments(f) {
		f.Add(golden.Seed(f, doc, 160))
	}
	f.Add([]byte(`{"issue": 316, "backend": "vllm"}`))
	f.Add([]byte(`{"schema": "typevet-go/check-match-intervals", "version": 1, "nouls": {"x": {"brier": null}}}`))
	f.Add([]byte(`{"schema": "typevet-go/check-match-comparison", "version": 0}`))
	f.Fuzz(readDocumentsRoundTrip)
}

// TestReadDocumentsRoundTrip holds FuzzReadDocuments' property on the
// whole intervals and comparison documents of the fixture receipt, and
// checks they are accepted.
func TestReadDocumentsRoundTrip(t *testing.T) {
	docs := fixtureDocuments(t)
	if _, err := ReadIntervals(bytes.NewReader(docs[0])); err != nil {
		t.Fatalf("ReadIntervals of the fixture's intervals: %v", err)
	}
	if _, err := ReadComparison(bytes.NewReader(docs[1])); err != nil {
		t.Fatalf("ReadComparison of the fixture's comparison: %v", err)
	}
	for _, b := range docs {
		readDocumentsRoundTrip(t, b)
	}
}

// fixtureDocuments returns the intervals and the comparison document of
// the fixture receipt (20 resamples), as Marshal writes them.
func fixtureDocuments(tb testing.TB) [][]byte {
	tb.Helper()
	r := readFixture(tb)
	iv, err := ReceiptIntervals(r, Options{Resamples: 20})
	if err != nil {
		tb.Fatal(err)
	}
	cmp, err := Compare(r, r, Options{Resamples: 20})
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for _, doc := range []any{iv, cmp} {
		b, err := Marshal(doc)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// readDocumentsRoundTrip is FuzzReadDocuments' property on one input.
func readDocumentsRoundTrip(t *testing.T, b []byte) {
	if doc, err := ReadIntervals(bytes.NewReader(b)); err == nil {
		roundTrip(t, doc, func(b []byte) (any, error) { return ReadIntervals(bytes.NewReader(b)) })
	}
	if doc, err := ReadComparison(bytes.NewReader(b)); err == nil {
		roundTrip(t, doc, func(b []byte) (any, error) { return ReadComparison(bytes.NewReader(b)) })
	}
}

func roundTrip(t *testing.T, doc any, read func([]byte) (any, error)) {
	first, err := Marshal(doc)
	if err != nil {
		return // NaN cannot come from JSON; a marshal error is a refusal
	}
	back, err := read(first)
	if err != nil {
		t.Fatalf("written document does not read back: %v\n%s", err, first)
	}
	second, err := Marshal(back)
	if err != nil || !bytes.Equal(first, second) {
		t.Fatalf("round trip changed the document: %v\n%s\n%s", err, first, second)
	}
}

// FuzzRegisterRow: a row is returned only for ids with a non-empty part
// before the first ':', and it is that part.
func FuzzRegisterRow(f *testing.F) {
	for _, s := range []string{"r00:clean", "", ":", "r1", "a:b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		row, err := RegisterRow(id)
		i := strings.IndexByte(id, ':')
		if (err == nil) != (i > 0) {
			t.Fatalf("RegisterRow(%q) = %q, %v", id, row, err)
		}
		if err == nil && row != id[:i] {
			t.Fatalf("RegisterRow(%q) = %q", id, row)
		}
	})
}
