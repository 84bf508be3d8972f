package wording

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// pythonSets reads testdata/python-unicode.txt: named code-point ranges
// that Python 3.11 printed for str.isidentifier, str.isspace,
// str.isprintable and the assigned code points of its Unicode 14 tables.
func pythonSets(t *testing.T) map[string]*unicode.RangeTable {
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
		var name string
		var lo, hi uint64
		fields := strings.Fields(line)
		name = fields[0]
		lo, _ = strconv.ParseUint(fields[1], 16, 32)
		hi, _ = strconv.ParseUint(fields[2], 16, 32)
		rt := sets[name]
		if rt == nil {
			rt = &unicode.RangeTable{}
			sets[name] = rt
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

// TestPythonUnicodeRules checks isIdentifier's rune classes, isPySpace and
// the printable test of pyRepr against Python on every code point that
// Python's Unicode 14 tables assign (newer code points may differ: Go's
// tables are Unicode 15).
func TestPythonUnicodeRules(t *testing.T) {
	sets := pythonSets(t)
	assigned := sets["assigned"]
	checks := []struct {
		name string
		got  func(r rune) bool
	}{
		{"xid_start", func(r rune) bool { return isIdentifier(string(r)) }},
		{"xid_continue", func(r rune) bool { return isIdentifier("a" + string(r)) }},
		{"space", isPySpace},
		{"printable", func(r rune) bool { return r == ' ' || (r >= 0x20 && r < 0x7f) || (r > 0x7f && unicode.IsPrint(r)) }},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			want := sets[c.name]
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
		{"invalid utf-8", "a\xff", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isIdentifier(tt.in); got != tt.want {
				t.Errorf("isIdentifier(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// TestPyRepr checks repr(str); each want was printed by Python 3.11.
func TestPyRepr(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain", "food", `'food'`},
		{"space", "a b", `'a b'`},
		{"single quote", "it's", `"it's"`},
		{"both quotes", `it's "x"`, `'it\'s "x"'`},
		{"backslash", `a\b`, `'a\\b'`},
		{"controls", "a\tb\nc\rd\x00\x7f", `'a\tb\nc\rd\x00\x7f'`},
		{"non-ASCII printable", "café 食", `'café 食'`},
		{"non-printable", "\u00a0\u2028\U000e0001", `'\xa0\u2028\U000e0001'`},
		{"emoji", "😀", `'😀'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pyRepr(tt.in); got != tt.want {
				t.Errorf("pyRepr(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestPyStrip(t *testing.T) {
	tests := []struct {
		name, in, want, reason string
	}{
		{"ascii", " \t\n x y \r\v\f", "x y", ""},
		{"file separator", "\x1cx\x1f", "x", "Python strips U+001C-U+001F; strings.TrimSpace does not"},
		{"unicode spaces", "\u3000\u00a0x\u2029", "x", ""},
		{"zero width space kept", "\u200bx", "\u200bx", "U+200B is not whitespace in either"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pyStrip(tt.in); got != tt.want {
				t.Errorf("pyStrip(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
