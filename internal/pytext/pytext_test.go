package pytext

import (
	"bufio"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// pythonSets reads testdata/python-unicode.txt: named code-point ranges
// that Python 3.11 printed (see testdata/README).
func pythonSets(t testing.TB) map[string]*unicode.RangeTable {
	t.Helper()
	f, err := os.Open("testdata/python-unicode.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sets := map[string]*unicode.RangeTable{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 3 {
			t.Fatalf("bad line %q", line)
		}
		lo, err1 := strconv.ParseUint(fields[1], 16, 32)
		hi, err2 := strconv.ParseUint(fields[2], 16, 32)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad line %q", line)
		}
		rt := sets[fields[0]]
		if rt == nil {
			rt = &unicode.RangeTable{}
			sets[fields[0]] = rt
		}
		rt.R32 = append(rt.R32, unicode.Range32{Lo: uint32(lo), Hi: uint32(hi), Stride: 1})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sets
}

// checkedRunes are the code points TestPythonUnicodeRules compares: planes
// 0-3 and the tags/variation selectors of plane 14, where every non-private
// character lives, plus the ends of the two private-use planes.
var checkedRunes = [][2]rune{{0, 0x3ffff}, {0xe0000, 0xe0fff}, {0xf0000, 0xf0000}, {0xffffd, 0x100000}, {0x10fffd, 0x10ffff}}

// TestPythonUnicodeRules checks IsIdentifier's rune classes, IsSpace,
// Repr's printable test and IsDigit against Python on every code point
// that Python's Unicode 14 tables assign (newer code points may differ:
// Go's tables are newer).
func TestPythonUnicodeRules(t *testing.T) {
	sets := pythonSets(t)
	assigned := sets["assigned"]
	checks := []struct {
		name string
		got  func(r rune) bool
	}{
		{"xid_start", func(r rune) bool { return IsIdentifier(string(r)) }},
		{"xid_continue", func(r rune) bool { return IsIdentifier("a" + string(r)) }},
		{"space", IsSpace},
		{"printable", func(r rune) bool {
			q := Repr(string(r))
			return q == "'"+string(r)+"'" || q == `"'"` || r == '\\'
		}},
		{"digit", IsDigit},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			want := sets[c.name]
			if want == nil {
				t.Fatalf("testdata has no set %q", c.name)
			}
			bad, n := 0, 0
			for _, span := range checkedRunes {
				for r := span[0]; r <= span[1]; r++ {
					if r >= 0xd800 && r <= 0xdfff || !unicode.Is(assigned, r) {
						continue // surrogates cannot be in a Go string; unassigned in Python's tables
					}
					n++
					if got, w := c.got(r), unicode.Is(want, r); got != w {
						if bad++; bad <= 10 {
							t.Errorf("U+%04X: Go %v, Python %v", r, got, w)
						}
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d code points differ", bad, n)
			}
			if n < 140000 {
				t.Errorf("only %d code points compared", n)
			}
		})
	}
}

func TestIsIdentifier(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   bool
		reason string
	}{
		{"plain", "food", true, ""},
		{"underscore start", "_x1", true, ""},
		{"keyword", "class", true, "keywords count, as in Python"},
		{"space", "air travel", false, ""},
		{"digit start", "7", false, "an integer-like label gets option names"},
		{"empty", "", false, ""},
		{"accent", "café", true, ""},
		{"CJK", "食べ物", true, ""},
		{"hyphen", "a-b", false, ""},
		{"not XID", "a\u309b", false, "U+309B is ID_Continue but not XID_Continue; Python uses XID"},
		{"invalid utf-8", "a\xff", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsIdentifier(tt.in); got != tt.want {
				t.Errorf("IsIdentifier(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// TestRepr checks repr(str); each want was printed by Python 3.11 except
// the invalid UTF-8 row, which Python text cannot hold.
func TestRepr(t *testing.T) {
	tests := []struct {
		name, in, want, reason string
	}{
		{"plain", "food", `'food'`, ""},
		{"space", "a b", `'a b'`, ""},
		{"single quote", "it's", `"it's"`, "a lone single quote switches to double quotes"},
		{"both quotes", `it's "x"`, `'it\'s "x"'`, ""},
		{"double quote only", `say "x"`, `'say "x"'`, ""},
		{"backslash", `a\b`, `'a\\b'`, ""},
		{"controls", "a\tb\nc\rd\x00\x7f", `'a\tb\nc\rd\x00\x7f'`, ""},
		{"non-ASCII printable", "café 食", `'café 食'`, ""},
		{"non-printable", "\u00a0\u2028\U000e0001", `'\xa0\u2028\U000e0001'`, "no-break space, line separator, tag"},
		{"emoji", "😀", `'😀'`, ""},
		{"invalid utf-8", "a\xffb\xc3", `'a\xffb\xc3'`, "each byte that is not UTF-8 shows as \\xhh"},
		{"replacement char", "\ufffd", "'\ufffd'", "a real U+FFFD is printable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Repr(tt.in); got != tt.want {
				t.Errorf("Repr(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestReprList(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want string
	}{
		{"nil", nil, "[]"},
		{"engines", []string{"(none)", "0"}, "['(none)', '0']"},
		{"quote", []string{"it's"}, `["it's"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReprList(tt.in); got != tt.want {
				t.Errorf("ReprList(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestStrip(t *testing.T) {
	tests := []struct {
		name, in, want, reason string
	}{
		{"ascii", " \t\n x y \r\v\f", "x y", ""},
		{"file separator", "\x1cx\x1f", "x", "Python strips U+001C-U+001F; strings.TrimSpace does not"},
		{"unicode spaces", "\u3000\u00a0x\u2029", "x", ""},
		{"zero width space kept", "\u200bx", "\u200bx", "U+200B is not whitespace in either"},
		{"all space", " \x1d ", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Strip(tt.in); got != tt.want {
				t.Errorf("Strip(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestSplitLines checks str.splitlines; each want was printed by Python.
func TestSplitLines(t *testing.T) {
	tests := []struct {
		name, in, reason string
		want             []string
	}{
		{name: "empty", in: "", want: nil},
		{name: "no boundary", in: "a", want: []string{"a"}},
		{name: "trailing newline", in: "a\n", want: []string{"a"}, reason: "no empty last line"},
		{name: "only newline", in: "\n", want: []string{""}},
		{name: "blank middle", in: "a\n\nb", want: []string{"a", "", "b"}},
		{name: "cr and crlf", in: "a\rb\r\nc", want: []string{"a", "b", "c"}},
		{name: "lf cr", in: "a\n\rb", want: []string{"a", "", "b"}, reason: "\\n\\r is two boundaries"},
		{name: "trailing cr", in: "a\r", want: []string{"a"}},
		{name: "python separators", in: "a\vb\fc\x1cd\x1de\x1ef\u0085g\u2028h\u2029i", want: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}},
		{name: "unit separator kept", in: "a\x1fb", want: []string{"a\x1fb"}, reason: "U+001F is whitespace but not a line boundary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SplitLines(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SplitLines(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLinesStopsEarly(t *testing.T) {
	var got []string
	for l := range Lines("a\nb\nc") {
		got = append(got, l)
		if l == "b" {
			break
		}
	}
	if want := []string{"a", "b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestIsDigit(t *testing.T) {
	tests := []struct {
		name   string
		in     rune
		want   bool
		reason string
	}{
		{"ascii", '7', true, ""},
		{"arabic-indic", '\u0663', true, "Nd"},
		{"superscript two", '²', true, "Numeric_Type=Digit, not in Go's unicode.IsDigit"},
		{"circled one", '①', true, "Numeric_Type=Digit"},
		{"subscript zero", '₀', true, ""},
		{"circled ten", '⑩', false, "Numeric_Type=Numeric: isnumeric, not isdigit"},
		{"vulgar half", '½', false, ""},
		{"roman numeral", 'Ⅳ', false, "Nl"},
		{"letter", 'a', false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsDigit(tt.in); got != tt.want {
				t.Errorf("IsDigit(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzSplitLines checks that no line holds a boundary and that the lines
// are, in order, the non-boundary text of the input.
func FuzzSplitLines(f *testing.F) {
	for _, s := range []string{"", "a\r\nb", "a\n\n", "\u2028x\x1c", "a\xffb\rc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lines := SplitLines(s)
		isBoundary := func(r rune) bool {
			return strings.ContainsRune("\n\r\v\f\x1c\x1d\x1e\u0085\u2028\u2029", r)
		}
		for _, l := range lines {
			if strings.ContainsFunc(l, isBoundary) {
				t.Fatalf("line %q holds a boundary", l)
			}
		}
		var want strings.Builder
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			if !isBoundary(r) {
				want.WriteString(s[i : i+size])
			}
			i += size
		}
		if strings.Join(lines, "") != want.String() {
			t.Fatalf("lines %q lose text of %q", lines, s)
		}
	})
}

// FuzzRepr checks that Repr's output is printable ASCII-or-printable text
// between matching quotes, and that unquoting the Python escapes gives the
// input back for valid UTF-8.
func FuzzRepr(f *testing.F) {
	for _, s := range []string{"", "it's", `a'b"c`, "\x00\u2028😀", "a\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Repr(s)
		if len(q) < 2 || q[0] != q[len(q)-1] || (q[0] != '\'' && q[0] != '"') {
			t.Fatalf("Repr(%q) = %s: not quoted", s, q)
		}
		for _, r := range q {
			if !unicode.IsPrint(r) {
				t.Fatalf("Repr(%q) = %s holds non-printable %U", s, q, r)
			}
		}
		if !utf8.ValidString(s) {
			return
		}
		got, err := unrepr(q)
		if err != nil {
			t.Fatalf("Repr(%q) = %s: %v", s, q, err)
		}
		if got != s {
			t.Fatalf("Repr(%q) = %s unquotes to %q", s, q, got)
		}
	})
}

// unrepr reads back a Python str literal as Repr writes it.
func unrepr(q string) (string, error) {
	var b strings.Builder
	body := q[1 : len(q)-1]
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == q[0] {
			return "", fmt.Errorf("unescaped quote at %d", i)
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i++; i == len(body) {
			return "", fmt.Errorf("trailing backslash")
		}
		width := 0
		switch body[i] {
		case '\\', '\'', '"':
			b.WriteByte(body[i])
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'x':
			width = 2
		case 'u':
			width = 4
		case 'U':
			width = 8
		default:
			return "", fmt.Errorf("unknown escape %q", body[i])
		}
		if width > 0 {
			if i+width >= len(body) {
				return "", fmt.Errorf("short escape")
			}
			v, err := strconv.ParseUint(body[i+1:i+1+width], 16, 32)
			if err != nil {
				return "", err
			}
			b.WriteRune(rune(v))
			i += width
		}
	}
	return b.String(), nil
}

func BenchmarkRepr(b *testing.B) {
	s := "payee_mismatch: it's \"Zoë & Co\"\t\u2028 食べ物"
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		Repr(s)
	}
}

func BenchmarkSplitLines(b *testing.B) {
	s := strings.Repeat(" M receipt/write.go\r\n?? notes/draft.md\n", 50)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		SplitLines(s)
	}
}
