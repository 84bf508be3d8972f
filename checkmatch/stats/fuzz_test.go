package stats

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadDocuments feeds arbitrary bytes to both document readers: they
// return a document or an error, never panic, and a document they accept
// writes back and reads again to the same bytes.
func FuzzReadDocuments(f *testing.F) {
	r := readFixture(f)
	iv, err := ReceiptIntervals(r, Options{Resamples: 20})
	if err != nil {
		f.Fatal(err)
	}
	cmp, err := Compare(r, r, Options{Resamples: 20})
	if err != nil {
		f.Fatal(err)
	}
	for _, doc := range []any{iv, cmp} {
		b, err := Marshal(doc)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"issue": 316, "backend": "vllm"}`))
	f.Add([]byte(`{"schema": "typevet-go/check-match-intervals", "version": 1, "nouls": {"x": {"brier": null}}}`))
	f.Add([]byte(`{"schema": "typevet-go/check-match-comparison", "version": 0}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if doc, err := ReadIntervals(bytes.NewReader(b)); err == nil {
			roundTrip(t, doc, func(b []byte) (any, error) { return ReadIntervals(bytes.NewReader(b)) })
		}
		if doc, err := ReadComparison(bytes.NewReader(b)); err == nil {
			roundTrip(t, doc, func(b []byte) (any, error) { return ReadComparison(bytes.NewReader(b)) })
		}
	})
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
