package apicheck

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// index knows every package-level name of the module's packages and the
// methods and fields of each type.
type index struct {
	byPath  map[string]*pkgNames // "checkmatch/orderings"
	byName  map[string][]*pkgNames
	pkgs    []*Package
	imports map[*ast.File]map[string]bool // names the file imports under
}

type pkgNames struct {
	ix      *index
	pkg     *Package
	names   map[string]bool            // package-level, exported or not
	members map[string]map[string]bool // type -> methods and fields
	// embeds holds, per type, the types it embeds or aliases, as
	// "Name" or "pkg.Name": their members are its members too.
	embeds map[string][]string
}

func newIndex(pkgs []*Package) *index {
	ix := &index{byPath: map[string]*pkgNames{}, byName: map[string][]*pkgNames{}, pkgs: pkgs, imports: map[*ast.File]map[string]bool{}}
	for _, p := range pkgs {
		n := &pkgNames{ix: ix, pkg: p, names: map[string]bool{}, members: map[string]map[string]bool{}, embeds: map[string][]string{}}
		member := func(typ, name string) {
			if n.members[typ] == nil {
				n.members[typ] = map[string]bool{}
			}
			n.members[typ][name] = true
		}
		for _, f := range p.Files {
			imp := map[string]bool{}
			for _, is := range f.Imports {
				name := path.Base(strings.Trim(is.Path.Value, `"`))
				if is.Name != nil {
					name = is.Name.Name
				}
				imp[name] = true
			}
			ix.imports[f] = imp
			for _, decl := range f.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil {
						n.names[d.Name.Name] = true
					} else {
						member(baseTypeName(d.Recv.List[0].Type), d.Name.Name)
					}
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						switch s := spec.(type) {
						case *ast.ValueSpec:
							for _, id := range s.Names {
								n.names[id.Name] = true
							}
						case *ast.TypeSpec:
							n.names[s.Name.Name] = true
							if s.Assign.IsValid() {
								n.embeds[s.Name.Name] = append(n.embeds[s.Name.Name], types.ExprString(s.Type))
							}
							var fields *ast.FieldList
							switch t := s.Type.(type) {
							case *ast.StructType:
								fields = t.Fields
							case *ast.InterfaceType:
								fields = t.Methods
							}
							if fields == nil {
								continue
							}
							for _, f := range fields.List {
								for _, id := range f.Names {
									member(s.Name.Name, id.Name)
								}
								if len(f.Names) == 0 {
									member(s.Name.Name, baseTypeName(f.Type))
									emb := strings.TrimPrefix(types.ExprString(f.Type), "*")
									n.embeds[s.Name.Name] = append(n.embeds[s.Name.Name], emb)
								}
							}
						}
					}
				}
			}
		}
		ix.byPath[p.Path] = n
		name := p.Name
		if p.Name == "main" {
			name = path.Base(p.Path)
		}
		ix.byName[name] = append(ix.byName[name], n)
	}
	return ix
}

// packages returns the module packages that q names: a module-relative
// path (checkmatch/orderings) or a package name (orderings).
func (ix *index) packages(q string) []*pkgNames {
	if n, ok := ix.byPath[q]; ok {
		return []*pkgNames{n}
	}
	return ix.byName[q]
}

// resolves reports whether sel (Name, Name.Member or Name.Member.Field…
// where only the first member is checked) names something in n.
func (n *pkgNames) resolves(sel []string) bool {
	if !n.names[sel[0]] {
		return false
	}
	if len(sel) == 1 {
		return true
	}
	return n.hasMember(sel[0], sel[1], 0)
}

// hasMember reports whether typ has the method or field name, its own or
// promoted from a type it embeds or aliases, in this package or another.
func (n *pkgNames) hasMember(typ, name string, depth int) bool {
	if n.members[typ][name] {
		return true
	}
	if depth > 8 {
		return false
	}
	for _, emb := range n.embeds[typ] {
		emb, _, _ = strings.Cut(emb, "[") // type arguments
		pkg, t, qualified := strings.Cut(emb, ".")
		if !qualified {
			if n.hasMember(pkg, name, depth+1) {
				return true
			}
			continue
		}
		for _, c := range n.ix.packages(pkg) {
			if c.hasMember(t, name, depth+1) {
				return true
			}
		}
	}
	return false
}

// A qualified reference: pkg.Name or pkg/path.Name, with an optional
// .Member; the package part is lower case, the name upper case.
var qualifiedRef = regexp.MustCompile(`(?:^|[^\w./\-])([a-z][a-z0-9]*(?:/[a-z][a-z0-9]*)*)\.([A-Z]\w*)(?:\.([A-Za-z_]\w*))?`)

// checkQualified reports each module reference in text that does not
// resolve; references to packages outside the module are not checked.
func (ix *index) checkQualified(text string, report func(string)) {
	for _, m := range qualifiedRef.FindAllStringSubmatch(text, -1) {
		cands := ix.packages(m[1])
		if len(cands) == 0 {
			continue
		}
		sel := []string{m[2]}
		if m[3] != "" {
			sel = append(sel, m[3])
		}
		if !anyResolves(cands, sel) && !(len(sel) == 2 && anyResolves(cands, sel[:1]) && !isUpper(sel[1])) {
			report(m[1] + "." + strings.Join(sel, "."))
		}
	}
}

func anyResolves(cands []*pkgNames, sel []string) bool {
	for _, c := range cands {
		if c.resolves(sel) {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isUpper(s string) bool { return s != "" && unicode.IsUpper(rune(s[0])) }

// A path in text: module-relative, at least one slash, a known file
// extension or a trailing slash.
var pathRef = regexp.MustCompile("(?:^|[\\s`\"'(])((?:[a-z][\\w.-]*/)+(?:[\\w.-]+\\.(?:go|md|txt|json|tsv|py|png|sh)|[\\w-]*/?))(?:$|[\\s`\"'),:;])")

// checkPaths reports each module-relative path in text that names no file
// or folder of the module, relative to the root or to dir.
func checkPaths(text, dir string, report func(string)) {
	for _, m := range pathRef.FindAllStringSubmatch(text, -1) {
		p := strings.TrimSuffix(m[1], "/")
		if !moduleDir(p) {
			continue // a run's output (receipts/a.json) or prose (and/or)
		}
		if exists(filepath.Join(root, p)) || exists(filepath.Join(root, dir, p)) {
			continue
		}
		report(m[1])
	}
}

// moduleDir reports whether p starts with a top-level folder of the
// module: such paths are checked, while the files a run writes
// (receipts/a.json) and prose with slashes (and/or) are not.
func moduleDir(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	switch first {
	case "checkmatch", "judgment", "internal", "examples", "receipt", "serving", "wording", "pool", "docs", "api":
		return true
	}
	return false
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestDocNames fails when README.md, docs/*.md, examples/README.md or a Go
// comment names a module identifier (pkg.Name, pkg.Type.Method, a doc link
// [Name] or [pkg.Name]) or a module file path that does not exist, and
// when the godoc of an exported name shows an unexported name of its
// package.
func TestDocNames(t *testing.T) {
	ix := newIndex(loadModule(t))
	docs := []string{"README.md", "examples/README.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range more {
		rel, _ := filepath.Rel(root, m)
		docs = append(docs, filepath.ToSlash(rel))
	}
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			report := func(what string) { t.Errorf("%s:%d names %s, which does not exist", doc, i+1, what) }
			ix.checkQualified(line, report)
			checkPaths(line, path.Dir(doc), report)
			for _, link := range mdLink.FindAllStringSubmatch(line, -1) {
				target, _, _ := strings.Cut(link[1], "#")
				if target != "" && !strings.Contains(target, "://") && !strings.HasPrefix(target, "mailto:") &&
					!exists(filepath.Join(root, path.Dir(doc), target)) {
					report(link[1])
				}
			}
		}
	}
	for _, p := range ix.pkgs {
		for _, f := range p.Files {
			ix.checkComments(t, p, f)
		}
	}
	if t.Failed() {
		t.Log("a name or path above went stale: name what exists now, or drop the reference")
	}
}

// mdLink is the target of a Markdown link.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// docLink is a godoc link: [Name], [*Name], [Name.Member], [pkg.Name] …
var docLink = regexp.MustCompile(`\[\*?([A-Za-z_][\w]*(?:[./][A-Za-z_]\w*)*)\]`)

// unexportedWord is a camelCase word that could be an unexported
// identifier.
var unexportedWord = regexp.MustCompile(`\b[a-z][a-z0-9]*[A-Z]\w*\b`)

func (ix *index) checkComments(t *testing.T, p *Package, f *ast.File) {
	self := ix.byPath[p.Path]
	for _, cg := range f.Comments {
		pos := p.Fset.Position(cg.Pos())
		rel, _ := filepath.Rel(root, pos.Filename)
		text := cg.Text()
		at := func(off int) string {
			return fmt.Sprintf("%s:%d", filepath.ToSlash(rel), pos.Line+strings.Count(text[:off], "\n"))
		}
		report := func(off int) func(string) {
			return func(what string) { t.Errorf("%s names %s, which does not exist", at(off), what) }
		}
		for i, line := range strings.SplitAfter(text, "\n") {
			off := len(strings.Join(strings.SplitAfter(text, "\n")[:i], ""))
			ix.checkQualified(line, report(off))
			checkPaths(line, path.Dir(p.Path), report(off))
		}
		for _, m := range docLink.FindAllStringSubmatchIndex(text, -1) {
			ref := text[m[2]:m[3]]
			if end := m[1]; end < len(text) && (text[end] == '(' || text[end] == ':') {
				continue // a Markdown-style link or link definition
			}
			if start := m[0]; start > 0 && (isWordByte(text[start-1]) || text[start-1] == ']' || text[start-1] == ')') {
				continue // an index expression, buf[off], not a link
			}
			if strings.HasPrefix(ref, "Example") {
				continue // Examples live in test files
			}
			if !ix.docLinkResolves(self, f, ref) {
				report(m[0])("[" + ref + "]")
			}
		}
	}
	// The godoc of exported names shows no unexported name of the package.
	if !p.Public() {
		return
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var docs []*ast.CommentGroup
		switch d := n.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && (d.Recv == nil || ast.IsExported(baseTypeName(d.Recv.List[0].Type))) {
				docs = append(docs, d.Doc)
			}
		case *ast.TypeSpec:
			if !d.Name.IsExported() {
				return false
			}
			docs = append(docs, d.Doc, d.Comment)
			if st, ok := d.Type.(*ast.StructType); ok {
				for _, fld := range st.Fields.List {
					if len(fld.Names) > 0 && fld.Names[0].IsExported() {
						docs = append(docs, fld.Doc, fld.Comment)
					}
				}
			}
		case *ast.GenDecl:
			if d.Tok != token.TYPE && len(d.Specs) == 1 {
				if vs, ok := d.Specs[0].(*ast.ValueSpec); ok && vs.Names[0].IsExported() {
					docs = append(docs, d.Doc)
				}
			}
		}
		for _, cg := range docs {
			if cg == nil {
				continue
			}
			for _, w := range unexportedWord.FindAllString(cg.Text(), -1) {
				if self.names[w] {
					pos := p.Fset.Position(cg.Pos())
					rel, _ := filepath.Rel(root, pos.Filename)
					t.Errorf("%s:%d: the godoc of an exported name shows the unexported %s; say what it is instead", filepath.ToSlash(rel), pos.Line, w)
				}
			}
		}
		return true
	})
}

// docLinkResolves resolves a godoc link as go/doc does: a name of the
// package, or pkg.Name where pkg is an import of the file or a module
// package. Links to packages outside the module are not checked.
func (ix *index) docLinkResolves(self *pkgNames, f *ast.File, ref string) bool {
	parts := strings.Split(ref, ".")
	switch {
	case len(parts) == 1 && !isUpper(parts[0]):
		return true // [pkg], or a word in brackets; go/doc links only what resolves
	case !isUpper(parts[0]):
		cands := ix.packages(parts[0])
		if len(cands) == 0 {
			return true // outside the module
		}
		return anyResolves(cands, parts[1:])
	}
	return self.resolves(parts)
}
