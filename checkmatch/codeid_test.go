package checkmatch

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	typevet "github.com/typevet/typevet-go"
	"github.com/typevet/typevet-go/receipt"
)

// codeDirs are the directories whose every non-test Go file must be either
// digested or listed in notRunCode.
var codeDirs = []string{"checkmatch", "pool", "serving", "internal/checkform", "internal/pymath", "internal/pytext"}

// TestCodePathsCoverSources fails when the code fingerprint could go
// stale: a digested file missing from the embedded sources (or from disk),
// a source file of the digested directories in neither CodePaths nor
// notRunCode, or an embedded file that is not digested.
func TestCodePathsCoverSources(t *testing.T) {
	listed := map[string]string{}
	for _, e := range CodePaths() {
		for _, p := range e.Value {
			require.NotContains(t, listed, p, "%s is listed twice", p)
			listed[p] = e.Name
			b, err := fs.ReadFile(typevet.Sources(), p)
			if assert.NoError(t, err, "%s (%s) must be embedded in the module root's sources.go", p, e.Name) {
				disk, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(p)))
				require.NoError(t, err, "%s is listed but not on disk", p)
				assert.Equal(t, disk, b, "%s", p)
			}
		}
	}
	for _, dir := range codeDirs {
		entries, err := os.ReadDir(filepath.Join("..", filepath.FromSlash(dir)))
		require.NoError(t, err)
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			p := path.Join(dir, name)
			if _, ok := listed[p]; !ok && !excluded(t, p) {
				t.Errorf("%s is in no code path: add it to checkmatch.codePaths and the root sources.go embed, or to notRunCode", p)
			}
		}
	}
	err := fs.WalkDir(typevet.Sources(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if _, ok := listed[p]; !ok {
			t.Errorf("%s is embedded but not digested", p)
		}
		return nil
	})
	require.NoError(t, err)
}

func TestCodeDigests(t *testing.T) {
	d, err := CodeDigests()
	require.NoError(t, err)
	var names []string
	for _, e := range d {
		names = append(names, e.Name)
		assert.Len(t, e.Value, 64, e.Name)
	}
	assert.Equal(t, []string{"cases", "metrics", "pool", "render", "request", "runner", "serving_metrics", "words"}, names)

	// A one-file name is the SHA-256 of the file, as receipt.CodeDigests
	// and typevet compute it.
	one, err := receipt.CodeDigests(typevet.Sources(), map[string][]string{"pool": {"pool/pool.go"}, "words": {"checkmatch/words.go"}})
	require.NoError(t, err)
	for _, e := range one {
		got, _ := d.Get(e.Name)
		assert.Equal(t, e.Value, got, e.Name)
	}
	again, err := CodeDigests()
	require.NoError(t, err)
	assert.Equal(t, d, again)
}

// TestCodeDigestRule checks the several-file rule on a small file system
// and that any change of a file, or of a file's path, changes the digest.
func TestCodeDigestRule(t *testing.T) {
	fsys := fstest.MapFS{
		"a/x.go": {Data: []byte("package a\n")},
		"a/y.go": {Data: []byte("package a // y\n")},
		"b.go":   {Data: []byte("package b\n")},
	}
	paths := []receipt.Entry[[]string]{
		{Name: "two", Value: []string{"a/y.go", "a/x.go"}},
		{Name: "one", Value: []string{"b.go"}},
	}
	got, err := codeDigests(fsys, paths)
	require.NoError(t, err)
	h := sha256.New()
	h.Write([]byte("a/x.go\x00package a\n\x00a/y.go\x00package a // y\n\x00"))
	one := sha256.Sum256([]byte("package b\n"))
	assert.Equal(t, receipt.Digests{
		{Name: "one", Value: hex.EncodeToString(one[:])},
		{Name: "two", Value: hex.EncodeToString(h.Sum(nil))},
	}, got)

	fsys["a/x.go"] = &fstest.MapFile{Data: []byte("package a \n")}
	changed, err := codeDigests(fsys, paths)
	require.NoError(t, err)
	assert.NotEqual(t, got[1].Value, changed[1].Value)
	assert.Equal(t, got[0].Value, changed[0].Value)

	_, err = codeDigests(fsys, []receipt.Entry[[]string]{{Name: "gone", Value: []string{"missing.go"}}})
	assert.ErrorContains(t, err, "code digest gone")
}

// excluded reports whether p matches a pattern of notRunCode.
func excluded(t *testing.T, p string) bool {
	for _, pattern := range notRunCode {
		ok, err := path.Match(pattern, p)
		require.NoError(t, err, pattern)
		if ok {
			return true
		}
	}
	return false
}

// TestNotRunCodeIsNotDigested: an excluded file is never also digested.
func TestNotRunCodeIsNotDigested(t *testing.T) {
	for _, e := range CodePaths() {
		for _, p := range e.Value {
			assert.False(t, excluded(t, p), "%s is digested under %s and excluded", p, e.Name)
		}
	}
}
