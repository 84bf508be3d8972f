//go:build ignore

// narrow unexports the exported top-level names of one package of the module
// (checkmatch by default) that no other package's non-test code uses, and
// checks that the package's go doc stays short.
//
// A name stays exported when non-test code of another package writes
// pkg.Name through an import of the package, or when it appears in the
// exported API of a name that stays: a parameter, result, exported field,
// exported method or constant type. Every other exported top-level name is
// renamed to its unexported form (AccuracyByGroup -> accuracyByGroup,
// PNGKind -> pngKind, or the name in overrides below) across the package's
// files, its internal tests included, with doc links ([Name], [*Name],
// [Name.Method]) and the leading word of its doc comment rewritten too.
//
// The rename is type-checked (go/types over `go list -export` data, a few
// seconds), where gopls rename costs about a minute a name on this machine.
// A name that only tests of other packages use stays exported and is
// listed ("tests only"): it is used outside the package, but a caller may
// not need it. A name is not renamed, and is reported as blocked, when
//   - an external test (package pkg_test, the Examples) of this package
//     uses it: move the test inside the package or show an exported way;
//   - the new name would collide: another package-level name, an import, a
//     local variable in scope at a use, or a built-in the package uses (add
//     an entry to overrides);
//   - a struct embeds the type (the field name would change).
//
// The renames applied are added to .ci/narrow-renames.tsv (old<TAB>new).
// Run it again after merging branches that add names: it is idempotent.
// Before type-checking it replays that map on references a merged branch
// still makes to an old name (BlurKind where blurKind is now declared), so
// the package compiles again; references from other packages to a renamed
// name are compile errors to fix by hand (the map says the new name, and
// a name now used outside may need to be exported again).
//
// Run from the module root:
//
//	go run .ci/narrow.go            # rename, then report
//	go run .ci/narrow.go -n         # report what it would rename
//	go run .ci/narrow.go -check     # exit 1 if a name would be renamed, is
//	                                # blocked, or go doc -short lists more
//	                                # than -max lines
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

const module = "github.com/typevet/typevet-go"

// overrides names the unexported form where the plain one collides.
var overrides = map[string]string{
	"CodeDigests":      "checkCodeDigests", // codeDigests(fsys, paths) is the rule
	"Metrics":          "recordMetrics",    // metrics(records, unrounded) is the body
	"OrderingsFixture": "orderingsFixtureName",
	"Payees":           "payeeNames", // payees is the array
}

var (
	dryRun  = flag.Bool("n", false, "report only; change no file")
	check   = flag.Bool("check", false, "report only; exit 1 if a name would be renamed, is blocked, or go doc is too long")
	maxDoc  = flag.Int("max", 79, "most lines go doc -short may list (with -check)")
	tsvPath = flag.String("tsv", ".ci/narrow-renames.tsv", "rename map to update")
)

func main() {
	flag.Parse()
	dir := "checkmatch"
	if flag.NArg() > 0 {
		dir = filepath.ToSlash(filepath.Clean(flag.Arg(0)))
	}
	if err := run(dir); err != nil {
		fmt.Fprintln(os.Stderr, "narrow:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	importPath := module + "/" + dir
	if !*dryRun && !*check {
		if err := replay(dir); err != nil {
			return err
		}
	}
	outside, testUse, embedded, err := scanModule(dir, importPath)
	if err != nil {
		return err
	}
	tp, err := typeCheck(dir, importPath)
	if err != nil {
		return err
	}
	scope := tp.pkg.Scope()

	var exported []types.Object
	for _, n := range scope.Names() {
		o := scope.Lookup(n)
		if o.Exported() && !strings.HasSuffix(tp.fset.Position(o.Pos()).Filename, "_test.go") {
			exported = append(exported, o)
		}
	}
	kept := keep(tp.pkg, exported, outside)

	type rename struct {
		obj      types.Object
		old, new string
	}
	var renames []rename
	var blocked, testOnly []string
	taken := map[string]bool{}
	for _, o := range exported {
		if kept[o.Name()] != "" {
			continue
		}
		var own, other []string
		for _, f := range slices.Sorted(maps.Keys(testUse[o.Name()])) {
			if path.Dir(f) == dir {
				own = append(own, f)
			} else {
				other = append(other, f)
			}
		}
		if len(own) > 0 && len(other) == 0 {
			blocked = append(blocked, fmt.Sprintf("%s: used by the package's external tests (%s): test it inside the package, or show only exported names", o.Name(), strings.Join(own, ", ")))
			continue
		}
		if len(other) > 0 {
			testOnly = append(testOnly, fmt.Sprintf("%s (%s)", o.Name(), strings.Join(other, ", ")))
			continue
		}
		if embedded[o.Name()] {
			blocked = append(blocked, o.Name()+": embedded in a struct")
			continue
		}
		nn := unexport(o.Name())
		if why := conflict(tp, o, nn, taken); why != "" {
			blocked = append(blocked, fmt.Sprintf("%s -> %s: %s (add an override)", o.Name(), nn, why))
			continue
		}
		taken[nn] = true
		renames = append(renames, rename{o, o.Name(), nn})
	}

	fmt.Printf("%s: %d exported top-level names; %d used outside or in the API of one, %d only by tests of other packages, %d to unexport, %d blocked\n",
		dir, len(exported), len(kept), len(testOnly), len(renames), len(blocked))
	for _, n := range testOnly {
		fmt.Printf("  tests only %s\n", n)
	}
	for _, r := range renames {
		fmt.Printf("  rename %s -> %s\n", r.old, r.new)
	}
	for _, b := range blocked {
		fmt.Printf("  blocked %s\n", b)
	}

	if !*dryRun && !*check && len(renames) > 0 {
		m := map[types.Object]string{}
		byName := map[string]string{}
		for _, r := range renames {
			m[r.obj] = r.new
			byName[r.old] = r.new
		}
		if err := apply(tp, m, byName); err != nil {
			return err
		}
		if err := writeTSV(byName); err != nil {
			return err
		}
	}

	lines, err := docLines(dir)
	if err != nil {
		return err
	}
	fmt.Printf("go doc -short ./%s: %d lines\n", dir, lines)
	if *check && (len(renames) > 0 || len(blocked) > 0 || lines > *maxDoc) {
		return fmt.Errorf("%s: %d names used only inside the package, %d blocked, go doc -short %d lines (at most %d)",
			dir, len(renames), len(blocked), lines, *maxDoc)
	}
	return nil
}

// scanModule parses every Go file of the module. It returns the exported
// names of the package that other packages' non-test code selects, the
// names tests outside the package select (by test directory), and the names
// the package's files embed in a struct.
func scanModule(dir, importPath string) (outside map[string]bool, testUse map[string]map[string]bool, embedded map[string]bool, err error) {
	outside, testUse, embedded = map[string]bool{}, map[string]map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
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
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		test := strings.HasSuffix(p, "_test.go")
		if path.Dir(p) == dir && f.Name.Name == path.Base(dir) {
			ast.Inspect(f, func(n ast.Node) bool {
				if st, ok := n.(*ast.StructType); ok {
					for _, fl := range st.Fields.List {
						if len(fl.Names) == 0 {
							t := fl.Type
							if s, ok := t.(*ast.StarExpr); ok {
								t = s.X
							}
							if id, ok := t.(*ast.Ident); ok {
								embedded[id.Name] = true
							}
						}
					}
				}
				return true
			})
			return nil
		}
		local := ""
		for _, imp := range f.Imports {
			if q, _ := strconv.Unquote(imp.Path.Value); q == importPath {
				local = path.Base(q)
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
		}
		if local == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := s.X.(*ast.Ident); ok && x.Name == local {
					if !test {
						outside[s.Sel.Name] = true
					} else {
						if testUse[s.Sel.Name] == nil {
							testUse[s.Sel.Name] = map[string]bool{}
						}
						testUse[s.Sel.Name][p] = true
					}
				}
			}
			return true
		})
		return nil
	})
	return outside, testUse, embedded, err
}

// keep returns the exported names that stay exported, each with why.
func keep(pkg *types.Package, exported []types.Object, outside map[string]bool) map[string]string {
	kept := map[string]string{}
	var queue []types.Object
	add := func(o types.Object, why string) {
		if o == nil || o.Pkg() != pkg || o.Parent() != pkg.Scope() || !o.Exported() || kept[o.Name()] != "" {
			return
		}
		kept[o.Name()] = why
		queue = append(queue, o)
	}
	for _, o := range exported {
		if outside[o.Name()] {
			add(o, "used outside")
		}
	}
	seen := map[types.Type]bool{}
	var walk func(t types.Type, why string)
	walk = func(t types.Type, why string) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Named:
			add(t.Obj(), why)
			for i := range t.TypeArgs().Len() {
				walk(t.TypeArgs().At(i), why)
			}
		case *types.Alias:
			add(t.Obj(), why)
			walk(types.Unalias(t), why)
		case *types.Pointer:
			walk(t.Elem(), why)
		case *types.Slice:
			walk(t.Elem(), why)
		case *types.Array:
			walk(t.Elem(), why)
		case *types.Map:
			walk(t.Key(), why)
			walk(t.Elem(), why)
		case *types.Chan:
			walk(t.Elem(), why)
		case *types.Signature:
			for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
				for i := range tup.Len() {
					walk(tup.At(i).Type(), why)
				}
			}
		case *types.Struct:
			for i := range t.NumFields() {
				if f := t.Field(i); f.Exported() || f.Embedded() {
					walk(f.Type(), why)
				}
			}
		case *types.Interface:
			for i := range t.NumMethods() {
				if m := t.Method(i); m.Exported() {
					walk(m.Type(), why)
				}
			}
			for i := range t.NumEmbeddeds() {
				walk(t.EmbeddedType(i), why)
			}
		case *types.Union:
			for i := range t.Len() {
				walk(t.Term(i).Type(), why)
			}
		case *types.TypeParam:
			walk(t.Constraint(), why)
		}
	}
	for len(queue) > 0 {
		o := queue[0]
		queue = queue[1:]
		why := "in the API of " + o.Name()
		switch o := o.(type) {
		case *types.TypeName:
			walk(o.Type().Underlying(), why)
			if n, ok := o.Type().(*types.Named); ok {
				for i := range n.TypeParams().Len() {
					walk(n.TypeParams().At(i).Constraint(), why)
				}
				for i := range n.NumMethods() {
					if m := n.Method(i); m.Exported() {
						walk(m.Type(), why)
					}
				}
			}
		case *types.Func:
			sig := o.Type().(*types.Signature)
			for i := range sig.TypeParams().Len() {
				walk(sig.TypeParams().At(i).Constraint(), why)
			}
			walk(sig, why)
		default:
			walk(o.Type(), why)
		}
	}
	return kept
}

// unexport returns the unexported form of an exported name: its leading
// upper-case run lowered, but for the last letter of a run that starts a
// word (PNGKind -> pngKind, ABAValid -> abaValid, ECE -> ece).
func unexport(name string) string {
	if o := overrides[name]; o != "" {
		return o
	}
	r := []rune(name)
	n := 0
	for n < len(r) && unicode.IsUpper(r[n]) {
		n++
	}
	if n > 1 && n < len(r) && unicode.IsLower(r[n]) {
		n--
	}
	for i := range n {
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

type typed struct {
	fset    *token.FileSet
	pkg     *types.Package
	info    *types.Info
	files   []*ast.File // type-checked
	names   []string    // their paths
	ignored []string    // the package's files other build tags select
}

// typeCheck type-checks the package with its internal test files.
func typeCheck(dir, importPath string) (*typed, error) {
	out, err := exec.Command("go", "list", "-e", "-export", "-deps", "-test", "-json=ImportPath,Export,Dir,GoFiles,CgoFiles,TestGoFiles,IgnoredGoFiles,Name", "./"+dir).Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v", err)
	}
	exports := map[string]string{}
	var self struct {
		Dir                                            string
		GoFiles, CgoFiles, TestGoFiles, IgnoredGoFiles []string
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath, Export, Dir, Name                  string
			GoFiles, CgoFiles, TestGoFiles, IgnoredGoFiles []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if p.Export != "" && !strings.Contains(p.ImportPath, " ") {
			exports[p.ImportPath] = p.Export
		}
		if p.ImportPath == importPath {
			self.Dir, self.GoFiles, self.CgoFiles, self.TestGoFiles, self.IgnoredGoFiles = p.Dir, p.GoFiles, p.CgoFiles, p.TestGoFiles, p.IgnoredGoFiles
		}
	}
	if self.Dir == "" {
		return nil, fmt.Errorf("go list found no package %s", importPath)
	}
	tp := &typed{fset: token.NewFileSet()}
	for _, n := range slices.Concat(self.GoFiles, self.CgoFiles, self.TestGoFiles) {
		p := path.Join(dir, n)
		f, err := parser.ParseFile(tp.fset, p, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		tp.files = append(tp.files, f)
		tp.names = append(tp.names, p)
	}
	for _, n := range self.IgnoredGoFiles {
		tp.ignored = append(tp.ignored, path.Join(dir, n))
	}
	imp := importer.ForCompiler(tp.fset, "gc", func(p string) (io.ReadCloser, error) {
		e, ok := exports[p]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", p)
		}
		return os.Open(e)
	})
	tp.info = &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp}
	tp.pkg, err = conf.Check(importPath, tp.fset, tp.files, tp.info)
	if err != nil {
		return nil, fmt.Errorf("type-check %s: %v", dir, err)
	}
	return tp, nil
}

// conflict says why renaming o to nn would change the program, or "".
func conflict(tp *typed, o types.Object, nn string, taken map[string]bool) string {
	scope := tp.pkg.Scope()
	if scope.Lookup(nn) != nil || taken[nn] {
		return "another package-level name " + nn
	}
	if token.IsKeyword(nn) {
		return "a keyword"
	}
	if types.Universe.Lookup(nn) != nil {
		for _, u := range tp.info.Uses {
			if u.Parent() == types.Universe && u.Name() == nn {
				return "the package uses the built-in " + nn
			}
		}
	}
	for id, u := range tp.info.Uses {
		if u != o {
			continue
		}
		if inner := scope.Innermost(id.Pos()); inner != nil {
			if s, _ := inner.LookupParent(nn, id.Pos()); s != nil && s != scope && s != types.Universe {
				return "a local name " + nn + " in scope at " + tp.fset.Position(id.Pos()).String()
			}
		}
	}
	return ""
}

// docLink matches a doc link to a package-level name: [Name], [*Name],
// [Name.Method]. A renamed name's link becomes plain text (name,
// name.Method): go doc does not link unexported names.
var docLink = regexp.MustCompile(`\[\*?([A-Z][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_]+)?)\]`)

// apply rewrites the package's files: identifiers, doc links (to plain
// text), the leading word of each renamed declaration's doc comment.
func apply(tp *typed, m map[types.Object]string, byName map[string]string) error {
	type edit struct {
		off int
		old string
		new string
	}
	edits := map[string][]edit{}
	ident := func(id *ast.Ident, nn string) {
		pos := tp.fset.Position(id.Pos())
		edits[pos.Filename] = append(edits[pos.Filename], edit{pos.Offset, id.Name, nn})
	}
	for id, o := range tp.info.Defs {
		if nn, ok := m[o]; ok && o != nil {
			ident(id, nn)
		}
	}
	for id, o := range tp.info.Uses {
		if nn, ok := m[o]; ok {
			ident(id, nn)
		}
	}
	// Files other build tags select: rename bare identifiers by name.
	for _, p := range tp.ignored {
		f, err := parser.ParseFile(tp.fset, p, nil, parser.ParseComments)
		if err != nil || f.Name.Name != tp.pkg.Name() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok {
				ast.Inspect(s.X, func(n ast.Node) bool { return true })
				if id, ok := s.X.(*ast.Ident); ok {
					if nn, ok := byName[id.Name]; ok {
						ident(id, nn)
					}
				}
				return false
			}
			if kv, ok := n.(*ast.KeyValueExpr); ok {
				ast.Inspect(kv.Value, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok {
						if nn, ok := byName[id.Name]; ok {
							ident(id, nn)
						}
					}
					return true
				})
				return false
			}
			if id, ok := n.(*ast.Ident); ok {
				if nn, ok := byName[id.Name]; ok {
					ident(id, nn)
				}
			}
			return true
		})
		tp.files = append(tp.files, f)
		tp.names = append(tp.names, p)
	}
	// Comments: doc links anywhere in the package; the leading word of the
	// renamed declarations' own doc comments.
	for _, f := range tp.files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				pos := tp.fset.Position(c.Pos())
				for _, sm := range docLink.FindAllStringSubmatchIndex(c.Text, -1) {
					if nn, ok := byName[c.Text[sm[2]:sm[3]]]; ok {
						edits[pos.Filename] = append(edits[pos.Filename], edit{pos.Offset + sm[0], c.Text[sm[0]:sm[1]], nn + c.Text[sm[4]:sm[5]]})
					}
				}
			}
		}
		for _, d := range f.Decls {
			var doc *ast.CommentGroup
			var ids []*ast.Ident
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					doc, ids = d.Doc, []*ast.Ident{d.Name}
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						sd := s.Doc
						if sd == nil && len(d.Specs) == 1 {
							sd = d.Doc
						}
						leadWord(tp, sd, []*ast.Ident{s.Name}, byName, func(off int, old, nn string) {
							pos := tp.fset.Position(sd.Pos())
							edits[pos.Filename] = append(edits[pos.Filename], edit{off, old, nn})
						})
					case *ast.ValueSpec:
						sd := s.Doc
						if sd == nil && len(d.Specs) == 1 {
							sd = d.Doc
						}
						leadWord(tp, sd, s.Names, byName, func(off int, old, nn string) {
							pos := tp.fset.Position(sd.Pos())
							edits[pos.Filename] = append(edits[pos.Filename], edit{off, old, nn})
						})
					}
				}
			}
			if doc != nil {
				leadWord(tp, doc, ids, byName, func(off int, old, nn string) {
					pos := tp.fset.Position(doc.Pos())
					edits[pos.Filename] = append(edits[pos.Filename], edit{off, old, nn})
				})
			}
		}
	}
	for _, file := range slices.Sorted(maps.Keys(edits)) {
		src, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		es := edits[file]
		sort.Slice(es, func(i, j int) bool { return es[i].off > es[j].off })
		last := -1
		for _, e := range es {
			if e.off == last {
				continue // the same identifier seen twice
			}
			last = e.off
			if string(src[e.off:e.off+len(e.old)]) != e.old {
				return fmt.Errorf("%s:#%d: expected %q", file, e.off, e.old)
			}
			src = slices.Concat(src[:e.off], []byte(e.new), src[e.off+len(e.old):])
		}
		if out, err := format.Source(src); err == nil {
			src = out
		}
		if err := os.WriteFile(file, src, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// leadWord reports the doc comment's first word when it is one of ids and
// is renamed.
func leadWord(tp *typed, doc *ast.CommentGroup, ids []*ast.Ident, byName map[string]string, f func(off int, old, nn string)) {
	if doc == nil || len(doc.List) == 0 {
		return
	}
	c := doc.List[0]
	text := strings.TrimPrefix(c.Text, "//")
	skip := len(c.Text) - len(text)
	trimmed := strings.TrimLeft(text, " \t")
	skip += len(text) - len(trimmed)
	for _, id := range ids {
		nn, ok := byName[id.Name]
		if ok && strings.HasPrefix(trimmed, id.Name) && (len(trimmed) == len(id.Name) || !isWord(trimmed[len(id.Name)])) {
			f(tp.fset.Position(c.Pos()).Offset+skip, id.Name, nn)
		}
	}
}

func isWord(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// writeTSV adds the renames to the rename map.
func writeTSV(byName map[string]string) error {
	all := map[string]string{}
	if b, err := os.ReadFile(*tsvPath); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if old, nn, ok := strings.Cut(line, "\t"); ok {
				all[old] = nn
			}
		}
	}
	maps.Copy(all, byName)
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(all)) {
		fmt.Fprintf(&b, "%s\t%s\n", k, all[k])
	}
	return os.WriteFile(*tsvPath, []byte(b.String()), 0o644)
}

// replay applies the rename map to references a merged branch still makes
// to an old name, so the package type-checks again: in the package's files
// (its tests included), a bare identifier (not a selector's name, a field,
// a method or a composite-literal key) spelling an old name that no
// package-level declaration of the package declares any more becomes the
// new name, and so does a doc link to it.
func replay(dir string) error {
	b, err := os.ReadFile(*tsvPath)
	if os.IsNotExist(err) {
		return nil
	} else if err != nil {
		return err
	}
	renamed := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if old, nn, ok := strings.Cut(line, "\t"); ok {
			renamed[old] = nn
		}
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		p := path.Join(dir, e.Name())
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name != path.Base(dir) {
			continue // an external test: it cannot use an unexported name
		}
		files[p] = f
		for _, d := range f.Decls {
			var ids []*ast.Ident
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					ids = []*ast.Ident{d.Name}
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						ids = append(ids, sp.Name)
					case *ast.ValueSpec:
						ids = append(ids, sp.Names...)
					}
				}
			}
			for _, id := range ids {
				delete(renamed, id.Name) // declared again: not stale
			}
		}
	}
	if len(renamed) == 0 {
		return nil
	}
	for p, f := range files {
		skip := map[*ast.Ident]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				skip[n.Sel] = true
			case *ast.Field:
				for _, id := range n.Names {
					skip[id] = true
				}
			case *ast.FuncDecl:
				if n.Recv != nil {
					skip[n.Name] = true
				}
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok {
					skip[id] = true
				}
			}
			return true
		})
		var offs []int
		var olds, news []string
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && !skip[id] {
				if nn, ok := renamed[id.Name]; ok {
					offs, olds, news = append(offs, fset.Position(id.Pos()).Offset), append(olds, id.Name), append(news, nn)
				}
			}
			return true
		})
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				for _, sm := range docLink.FindAllStringSubmatchIndex(c.Text, -1) {
					if nn, ok := renamed[c.Text[sm[2]:sm[3]]]; ok {
						offs = append(offs, fset.Position(c.Pos()).Offset+sm[0])
						olds = append(olds, c.Text[sm[0]:sm[1]])
						news = append(news, nn+c.Text[sm[4]:sm[5]])
					}
				}
			}
		}
		if len(offs) == 0 {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		idx := make([]int, len(offs))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, b int) bool { return offs[idx[a]] > offs[idx[b]] })
		for _, i := range idx {
			src = slices.Concat(src[:offs[i]], []byte(news[i]), src[offs[i]+len(olds[i]):])
		}
		if out, err := format.Source(src); err == nil {
			src = out
		}
		if err := os.WriteFile(p, src, 0o644); err != nil {
			return err
		}
		fmt.Printf("  replayed the rename map on %s (%d references)\n", p, len(offs))
	}
	return nil
}

// docLines counts the lines go doc -short lists for the package.
func docLines(dir string) (int, error) {
	out, err := exec.Command("go", "doc", "-short", "./"+dir).Output()
	if err != nil {
		return 0, fmt.Errorf("go doc: %v", err)
	}
	return bytes.Count(out, []byte("\n")), nil
}
