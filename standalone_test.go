package typevet_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sectionRef matches a reference to a numbered section of a document the
// user does not have: a section sign followed by a number.
var sectionRef = regexp.MustCompile(`§\s*[0-9]`)

// TestDocsStandOnTheirOwn keeps godoc and test data readable without the
// project's private specs: no Go file cites a numbered spec section (say
// what typevet does, by its function and issue names, instead), and no
// README under a testdata folder sends the reader to ../shared.
func TestDocsStandOnTheirOwn(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		readme := strings.HasPrefix(d.Name(), "README") && strings.Contains(filepath.ToSlash(path), "testdata/")
		if !strings.HasSuffix(path, ".go") && !readme {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasSuffix(path, ".go") && sectionRef.MatchString(line):
				t.Errorf("%s:%d cites a spec section; say what typevet does instead: %s", path, i+1, strings.TrimSpace(line))
			case readme && (strings.Contains(line, "../shared") || strings.Contains(line, "/work/shared") || sectionRef.MatchString(line)):
				t.Errorf("%s:%d points outside the module; describe the file's content and provenance instead: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
