// Package apicheck holds two guardrails over the module's source, run by
// its tests: the API file of each public package (api/<path>.txt, one
// line per exported name with its signature, as golang/go keeps
// api/go1.*.txt), which must change with the API, and the names and file
// paths that README.md, docs/*.md, examples/README.md and godoc comments
// mention, which must resolve.
//
// After an intended API change, regenerate the files with
//
//	go test ./internal/apicheck -update
package apicheck

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// Package is one package of the module, parsed without its tests.
type Package struct {
	// Path is the package's directory relative to the module root, with
	// slashes ("." for the root package).
	Path string
	// Name is the package name.
	Name string
	// Files are the package's non-test files for the host platform.
	Files []*ast.File
	// Fset positions Files.
	Fset *token.FileSet
}

// Public reports whether the package's API is the module's promise to its
// users: not a command and not under an internal directory.
func (p *Package) Public() bool {
	if p.Name == "main" {
		return false
	}
	for _, elem := range strings.Split(p.Path, "/") {
		if elem == "internal" {
			return false
		}
	}
	return true
}

// Load parses every package of the module rooted at root, skipping
// testdata, hidden and underscore directories.
func Load(root string) ([]*Package, error) {
	var pkgs []*Package
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		bp, err := build.ImportDir(path, 0)
		if _, ok := err.(*build.NoGoError); ok {
			return nil
		}
		if err != nil {
			return fmt.Errorf("apicheck: %s: %w", path, err)
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		p := &Package{Path: filepath.ToSlash(rel), Name: bp.Name, Fset: token.NewFileSet()}
		for _, f := range bp.GoFiles {
			file, err := parser.ParseFile(p.Fset, filepath.Join(path, f), nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return fmt.Errorf("apicheck: %w", err)
			}
			p.Files = append(p.Files, file)
		}
		pkgs = append(pkgs, p)
		return nil
	})
	return pkgs, err
}

// APIFile is the module-relative path of p's API file: api/<path>.txt,
// api/typevet.txt for the root package.
func (p *Package) APIFile() string {
	if p.Path == "." {
		return "api/typevet.txt"
	}
	return "api/" + p.Path + ".txt"
}

// API returns the exported API of p, one sorted line per name:
//
//	const NAME = value | const NAME T
//	var NAME T
//	func NAME(params) results
//	type NAME struct | interface | underlying type
//	type NAME struct, FIELD T
//	type NAME interface, METHOD(params) results
//	method (RECV) NAME(params) results
//
// Parameter names are left out: renaming one changes no caller.
func (p *Package) API() []string {
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	for _, f := range p.Files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					add("func %s%s%s", d.Name.Name, typeParams(d.Type.TypeParams), signature(d.Type))
					continue
				}
				recv := d.Recv.List[0].Type
				if !ast.IsExported(baseTypeName(recv)) {
					continue
				}
				add("method (%s) %s%s", types.ExprString(recv), d.Name.Name, signature(d.Type))
			case *ast.GenDecl:
				p.genDecl(d, add)
			}
		}
	}
	slices.Sort(lines)
	return slices.Compact(lines)
}

func (p *Package) genDecl(d *ast.GenDecl, add func(string, ...any)) {
	for _, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.ValueSpec:
			kind := d.Tok.String()
			for i, name := range s.Names {
				if !name.IsExported() {
					continue
				}
				switch {
				case s.Type != nil:
					add("%s %s %s", kind, name.Name, types.ExprString(s.Type))
				case d.Tok == token.CONST && i < len(s.Values):
					add("%s %s = %s", kind, name.Name, types.ExprString(s.Values[i]))
				default:
					add("%s %s", kind, name.Name) // iota or a typed expression
				}
			}
		case *ast.TypeSpec:
			if !s.Name.IsExported() {
				continue
			}
			head := "type " + s.Name.Name + typeParams(s.TypeParams)
			if s.Assign.IsValid() {
				add("%s = %s", head, types.ExprString(s.Type))
				continue
			}
			switch t := s.Type.(type) {
			case *ast.StructType:
				add("%s struct", head)
				for _, f := range t.Fields.List {
					if len(f.Names) == 0 {
						if ast.IsExported(baseTypeName(f.Type)) {
							add("%s struct, embedded %s", head, types.ExprString(f.Type))
						}
						continue
					}
					for _, n := range f.Names {
						if n.IsExported() {
							add("%s struct, %s %s", head, n.Name, types.ExprString(f.Type))
						}
					}
				}
			case *ast.InterfaceType:
				add("%s interface", head)
				for _, m := range t.Methods.List {
					switch {
					case len(m.Names) == 0:
						add("%s interface, %s", head, types.ExprString(m.Type))
					case m.Names[0].IsExported():
						add("%s interface, %s%s", head, m.Names[0].Name, signature(m.Type.(*ast.FuncType)))
					default:
						add("%s interface, unexported methods", head)
					}
				}
			default:
				add("%s %s", head, types.ExprString(s.Type))
			}
		}
	}
}

// baseTypeName is the type name under pointers, type arguments and
// package qualifiers.
func baseTypeName(x ast.Expr) string {
	for {
		switch t := x.(type) {
		case *ast.StarExpr:
			x = t.X
		case *ast.IndexExpr:
			x = t.X
		case *ast.IndexListExpr:
			x = t.X
		case *ast.SelectorExpr:
			return t.Sel.Name
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// signature is "(params) results" with the parameter names left out.
func signature(t *ast.FuncType) string {
	s := "(" + fieldTypes(t.Params) + ")"
	if t.Results == nil {
		return s
	}
	r := fieldTypes(t.Results)
	if len(t.Results.List) == 1 && len(t.Results.List[0].Names) <= 1 {
		return s + " " + r
	}
	return s + " (" + r + ")"
}

// typeParams is "[T any, U comparable]", or "" without type parameters.
func typeParams(l *ast.FieldList) string {
	if l == nil {
		return ""
	}
	var parts []string
	for _, f := range l.List {
		for _, n := range f.Names {
			parts = append(parts, n.Name+" "+types.ExprString(f.Type))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// fieldTypes lists the types of l, once per name.
func fieldTypes(l *ast.FieldList) string {
	if l == nil {
		return ""
	}
	var parts []string
	for _, f := range l.List {
		t := types.ExprString(f.Type)
		for range max(1, len(f.Names)) {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, ", ")
}
