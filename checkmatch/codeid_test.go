package checkmatch

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	typevet "github.com/typevet/typevet-go"
	"github.com/typevet/typevet-go/receipt"
)

// TestCodePathsCoverSources fails when the code fingerprint could go
// stale: a listed file missing from the embedded sources or differing from
// the file on disk, a file listed twice, or an embedded non-test Go file
// that codeFiles does not list (under a name, or as run by none).
func TestCodePathsCoverSources(t *testing.T) {
	listed := map[string]string{}
	var notRun []string
	for _, e := range codeFiles {
		if e.name == "" {
			assert.Zero(t, e.runs, "the files no run executes are digested by no run")
			notRun = append(notRun, e.files...)
			continue
		}
		assert.NotZero(t, e.runs, "%s is recorded by no run", e.name)
		for _, p := range e.files {
			require.NotContains(t, listed, p, "%s is listed twice", p)
			listed[p] = e.name
			b, err := fs.ReadFile(typevet.Sources(), p)
			if assert.NoError(t, err, "%s (%s) must be embedded by the module root's sources.go", p, e.name) {
				disk, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(p)))
				require.NoError(t, err, "%s is listed but not on disk", p)
				assert.Equal(t, disk, b, "%s", p)
			}
		}
	}
	err := fs.WalkDir(typevet.Sources(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "_test.go") {
			return err
		}
		run := slices.ContainsFunc(notRun, func(pattern string) bool {
			ok, err := path.Match(pattern, p)
			require.NoError(t, err, pattern)
			return ok
		})
		if _, ok := listed[p]; ok && run {
			t.Errorf("%s is digested and also matches a pattern of the files no run executes", p)
		}
		if _, ok := listed[p]; !ok && !run {
			t.Errorf("%s is embedded but in no code path: add it to checkmatch.codeFiles under the logical name whose code it is, or to the entry of files no run executes", p)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"cases", "orderings", "render", "request", "words"}, slices.Collect(func(yield func(string) bool) {
		for _, e := range codePathsOf(studyRun) {
			if !yield(e.Name) {
				return
			}
		}
	}), "an option-order study's logical names")
}

func TestCodeDigests(t *testing.T) {
	d, err := checkCodeDigests()
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
	again, err := checkCodeDigests()
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
	paths := receipt.Ordered[[]string]{
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

	_, err = codeDigests(fsys, receipt.Ordered[[]string]{{Name: "gone", Value: []string{"missing.go"}}})
	assert.ErrorContains(t, err, `code digest "gone"`)
	_, err = codeDigests(fsys, receipt.Ordered[[]string]{{Name: "one", Value: []string{"b.go"}}, {Name: "one", Value: []string{"a/x.go"}}})
	assert.ErrorContains(t, err, `code digest "one": name listed twice`)
}
