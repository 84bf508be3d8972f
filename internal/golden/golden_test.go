package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
	fatal  bool
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, format)
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = true
	r.errors = append(r.errors, format)
}
func (r *recorder) Logf(string, ...any) {}

func TestCompare(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Compare(r, path, []byte("one\ntwo\n"))
	if len(r.errors) != 0 {
		t.Fatalf("equal bytes reported %v", r.errors)
	}
	if _, err := os.Stat(GotPath(path)); err == nil {
		t.Error("equal bytes wrote a .got file")
	}
	Compare(r, path, []byte("one\n2\n"))
	if len(r.errors) != 1 || r.fatal {
		t.Fatalf("mismatch reported %v (fatal %v), want one error", r.errors, r.fatal)
	}
	got, err := os.ReadFile(filepath.Join(dir, "a.got"))
	if err != nil || string(got) != "one\n2\n" {
		t.Errorf("a.got = %q, %v", got, err)
	}
	r = &recorder{TB: t}
	Compare(r, filepath.Join(dir, "missing.golden"), nil)
	if !r.fatal {
		t.Error("a missing golden file is not fatal")
	}
}

func TestUpdate(t *testing.T) {
	if Update() {
		t.Skip("-update given")
	}
	*update = true
	defer func() { *update = false }()
	path := filepath.Join(t.TempDir(), "new.golden")
	Compare(t, path, []byte("x"))
	if b, err := os.ReadFile(path); err != nil || string(b) != "x" {
		t.Errorf("-update wrote %q, %v", b, err)
	}
}

func TestFirstDiff(t *testing.T) {
	for _, tt := range []struct{ want, got, diff string }{
		{"a\nb\n", "a\nc\n", "line 2:\nwant b\ngot  c"},
		{"a\n", "a\nb", "line 2:\nwant \ngot  b"},
		{"a", "a", "(no line differs)"},
	} {
		if d := FirstDiff([]byte(tt.want), []byte(tt.got)); d != tt.diff {
			t.Errorf("FirstDiff(%q, %q) = %q, want %q", tt.want, tt.got, d, tt.diff)
		}
	}
	if !strings.HasSuffix(GotPath("testdata/x.golden"), "testdata/x.got") || GotPath("x") != "x.got" {
		t.Error("GotPath")
	}
}

func ExampleFirstDiff() {
	fmt.Println(FirstDiff([]byte("cases 140\nrows 20\n"), []byte("cases 140\nrows 2\n")))
	// Output:
	// line 2:
	// want rows 20
	// got  rows 2
}

func TestSeed(t *testing.T) {
	in := []byte(`{"a": 1, "big": {"x": "` + strings.Repeat("y", 50) + `"}, "list": [{"k": 2}, {"k": "` + strings.Repeat("z", 50) + `"}], "s": "t"}`)
	got := string(Seed(t, in, 20))
	if want := `{"a":1,"list":[{"k":2}],"s":"t"}`; got != want {
		t.Errorf("Seed = %s, want %s", got, want)
	}
}
