// Package golden is the golden-file helper of typevet-go's tests: one
// comparison and one -update flag for every package.
//
// A test compares the bytes it produced with a file under testdata:
//
//	golden.Compare(t, "testdata/blocks.golden", got)
//
// go test -update rewrites the golden files instead of comparing; a
// mismatch writes the bytes beside the golden file with the extension
// .got (ignored by git) and reports the first line that differs.
//
// Only tests import this package: importing it defines the -update flag.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata instead of comparing against them")

// Update reports whether the test binary was run with -update, for tests
// that rewrite golden files of their own shape (a digest list, images).
func Update() bool { return *update }

// Compare compares got with the golden file at path. Under -update it
// writes got to path and returns. A missing golden file fails the test;
// a mismatch fails it, names the first differing line and writes got to
// path with its extension replaced by .got for diffing.
func Compare(tb testing.TB, path string, got []byte) {
	tb.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run go test -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gotPath := GotPath(path)
	if err := os.WriteFile(gotPath, got, 0o644); err != nil {
		tb.Logf("cannot write %s: %v", gotPath, err)
	}
	tb.Errorf("%s differs (got written to %s; diff the two, or rerun with -update after an intended change)\n%s",
		path, gotPath, FirstDiff(want, got))
}

// GotPath is where a mismatch against the golden file path is written:
// path with its extension replaced by .got ("testdata/a.golden" gives
// "testdata/a.got"; a path without an extension gets .got appended).
func GotPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".got"
}

// FirstDiff describes the first line in which two texts differ: its
// number, the wanted line and the line got.
func FirstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nwant %s\ngot  %s", i+1, wl, gl)
		}
	}
	return "(no line differs)"
}

// InOrder checks that each of keys occurs in text after the one before
// it (a receipt's keys in typevet's order), failing tb at the first that
// does not.
func InOrder(tb testing.TB, text string, keys ...string) {
	tb.Helper()
	at := 0
	for _, k := range keys {
		i := strings.Index(text[at:], k)
		if i < 0 {
			tb.Errorf("%s does not occur after offset %d", k, at)
			return
		}
		at += i + len(k)
	}
}
