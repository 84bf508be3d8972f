//go:build ignore

// exports reports, for one package of the module, where each exported
// top-level name is used: by non-test code of other packages, only by
// tests, only inside its own package, or only in the file that declares
// it. It reads source only (go/parser, no type checking): a name counts
// as used outside when another file writes pkg.Name through an import of
// the package; a name counts as used inside when an identifier of that
// name appears in another file of the package. Methods and fields are not
// reported.
//
// Run from the module root:
//
//	go run .ci/exports.go checkmatch
//
// The exit status is 0; the report is the output.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

const module = "github.com/typevet/typevet-go"

type use struct {
	outside, tests, pkgOther, pkgTests map[string]bool
	declFile                           string
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run .ci/exports.go <package dir, e.g. checkmatch>")
		os.Exit(2)
	}
	dir := filepath.ToSlash(filepath.Clean(os.Args[1]))
	importPath := module + "/" + dir
	fset := token.NewFileSet()
	names := map[string]*use{}
	parse := func(p string) *ast.File {
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return f
	}
	// Exported top-level names of the package's non-test files.
	entries, err := os.ReadDir(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f := parse(path.Join(dir, n))
		for _, d := range f.Decls {
			for _, id := range declNames(d) {
				if id.IsExported() {
					names[id.Name] = &use{outside: map[string]bool{}, tests: map[string]bool{}, pkgOther: map[string]bool{}, pkgTests: map[string]bool{}, declFile: n}
				}
			}
		}
	}
	// Uses everywhere in the module.
	err = filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		p = filepath.ToSlash(p)
		f := parse(p)
		test := strings.HasSuffix(p, "_test.go")
		same := path.Dir(p) == dir && f.Name.Name == path.Base(dir) // the package itself (not its _test package)
		local := ""
		for _, imp := range f.Imports {
			if q, _ := strconv.Unquote(imp.Path.Value); q == importPath {
				local = path.Base(q)
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && local != "" && x.Name == local {
					if u := names[n.Sel.Name]; u != nil {
						from := path.Dir(p)
						switch {
						case test && path.Dir(p) == dir:
							u.pkgTests[path.Base(p)] = true
						case test:
							u.tests[from] = true
						default:
							u.outside[from] = true
						}
					}
				}
			case *ast.Ident:
				if u := names[n.Name]; u != nil && same && path.Base(p) != u.declFile {
					if test {
						u.pkgTests[path.Base(p)] = true
					} else {
						u.pkgOther[path.Base(p)] = true
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	groups := map[string][]string{}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		u := names[n]
		switch {
		case len(u.outside) > 0:
			groups["used by other packages' non-test code"] = append(groups["used by other packages' non-test code"], fmt.Sprintf("%s (%s)", n, strings.Join(slices.Sorted(maps.Keys(u.outside)), ", ")))
		case len(u.pkgOther) > 0:
			groups["used only inside the package (other files)"] = append(groups["used only inside the package (other files)"], n)
		default:
			groups["used only in its own file "+"(non-test)"] = append(groups["used only in its own file "+"(non-test)"], n+" ("+u.declFile+")")
		}
		if len(u.outside) == 0 && len(u.tests) > 0 {
			groups["not used outside except by tests"] = append(groups["not used outside except by tests"], fmt.Sprintf("%s (%s)", n, strings.Join(slices.Sorted(maps.Keys(u.tests)), ", ")))
		}
	}
	fmt.Printf("%s: %d exported top-level names\n", dir, len(names))
	for _, g := range []string{"used by other packages' non-test code", "used only inside the package (other files)", "used only in its own file (non-test)", "not used outside except by tests"} {
		fmt.Printf("\n## %s: %d\n", g, len(groups[g]))
		for _, s := range groups[g] {
			fmt.Println("  " + s)
		}
	}
}

// declNames returns the names a top-level declaration declares.
func declNames(d ast.Decl) []*ast.Ident {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			return []*ast.Ident{d.Name}
		}
	case *ast.GenDecl:
		var out []*ast.Ident
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				out = append(out, s.Name)
			case *ast.ValueSpec:
				out = append(out, s.Names...)
			}
		}
		return out
	}
	return nil
}
