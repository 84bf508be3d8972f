package apicheck

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the module's api/*.txt files from the source")

// root is the module root, from this package's directory.
const root = "../.."

const regenerate = "go test ./internal/apicheck -update"

func loadModule(t *testing.T) []*Package {
	t.Helper()
	pkgs, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestAPIFiles fails when the exported API of a public package differs
// from its file under api/, or a file names a package that is gone: a
// change to what users import shows in review as a change to api/*.txt.
func TestAPIFiles(t *testing.T) {
	want := map[string]string{}
	for _, p := range loadModule(t) {
		if p.Public() {
			want[p.APIFile()] = strings.Join(p.API(), "\n") + "\n"
		}
	}
	have := map[string]string{}
	err := filepath.WalkDir(filepath.Join(root, "api"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".txt") {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(root, path)
		have[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if *update {
		for file := range have {
			if _, ok := want[file]; !ok {
				if err := os.Remove(filepath.Join(root, file)); err != nil {
					t.Fatal(err)
				}
			}
		}
		for file, text := range want {
			path := filepath.Join(root, file)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for _, file := range slices.Sorted(func(yield func(string) bool) {
		for f := range want {
			if !yield(f) {
				return
			}
		}
	}) {
		got, ok := have[file]
		switch {
		case !ok:
			t.Errorf("%s is missing", file)
		case got != want[file]:
			t.Errorf("%s differs from the source (- file, + source):\n%s", file, lineDiff(got, want[file]))
		}
	}
	for file := range have {
		if _, ok := want[file]; !ok {
			t.Errorf("%s names no public package", file)
		}
	}
	if t.Failed() {
		t.Errorf("the exported API changed; if that is intended, regenerate the API files and commit them with the change:\n\t%s", regenerate)
	}
}

// lineDiff lists the lines only in a (-) and only in b (+); API files are
// sorted sets of lines.
func lineDiff(a, b string) string {
	as, bs := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for _, l := range as {
		if l != "" && !slices.Contains(bs, l) {
			out = append(out, "\t- "+l)
		}
	}
	for _, l := range bs {
		if l != "" && !slices.Contains(as, l) {
			out = append(out, "\t+ "+l)
		}
	}
	return strings.Join(out, "\n")
}

// TestAPILines checks the line form of each kind of declaration.
func TestAPILines(t *testing.T) {
	dir := t.TempDir()
	src := `package p

// C is a constant.
const C = 3
const (
	A Kind = iota
	b
	B
)
var V, w = 1, 2
var E error
type Kind int
type Alias = map[string]int
type S[T any] struct {
	Field, other T
	*Embedded
	hidden
}
type Embedded struct{}
type hidden struct{}
type I interface {
	fmt.Stringer
	M(a, b int) (n int, err error)
	m()
}
func F(ctx context.Context, xs ...string) error { return nil }
func G[T comparable](x T) {}
func (s *S[T]) Method(x T) T { return x }
func (hidden) Exported() {}
func f() {}
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pkgs, err := Load(dir)
	if err != nil || len(pkgs) != 1 {
		t.Fatalf("Load = %v, %v", pkgs, err)
	}
	want := []string{
		"const A Kind",
		"const B",
		"const C = 3",
		"func F(context.Context, ...string) error",
		"func G[T comparable](T)",
		"method (*S[T]) Method(T) T",
		"type Alias = map[string]int",
		"type Embedded struct",
		"type I interface",
		"type I interface, M(int, int) (int, error)",
		"type I interface, fmt.Stringer",
		"type I interface, unexported methods",
		"type Kind int",
		"type S[T any] struct",
		"type S[T any] struct, Field T",
		"type S[T any] struct, embedded *Embedded",
		"var E error",
		"var V",
	}
	if got := pkgs[0].API(); !slices.Equal(got, want) {
		t.Errorf("API:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
