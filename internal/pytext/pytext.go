package pytext

import (
	"iter"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsSpace reports whether Python's str.isspace() holds for r: Go's
// [unicode.IsSpace] plus the separators U+001C–U+001F, which Python counts
// (bidirectional class B or S) and Go does not.
func IsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// Strip trims s the way Python's str.strip() without arguments does: it
// removes leading and trailing runes for which [IsSpace] holds.
func Strip(s string) string { return strings.TrimFunc(s, IsSpace) }

// Repr quotes s the way Python's repr(str) does: single quotes, or double
// quotes when s holds a single quote and no double quote; the backslash
// and the chosen quote escaped; \t, \n and \r by name; other
// non-printable runes as \xhh, \uhhhh or \Uhhhhhhhh; printable non-ASCII
// runes kept as they are. "Printable" is Python's str.isprintable: Go's
// [unicode.IsPrint] agrees on every code point of Python's tables.
//
// A Go string may hold bytes that are not UTF-8, which Python text cannot;
// Repr writes each such byte as \xhh so the message shows what was there.
func Repr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeHex(&b, `\x`, rune(s[i]), 2)
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteByte(byte(r))
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case unicode.IsPrint(r):
			b.WriteString(s[i : i+size])
		case r < 0x100:
			writeHex(&b, `\x`, r, 2)
		case r < 0x10000:
			writeHex(&b, `\u`, r, 4)
		default:
			writeHex(&b, `\U`, r, 8)
		}
		i += size
	}
	b.WriteByte(quote)
	return b.String()
}

func writeHex(b *strings.Builder, prefix string, r rune, width int) {
	const hex = "0123456789abcdef"
	b.WriteString(prefix)
	for i := width - 1; i >= 0; i-- {
		b.WriteByte(hex[r>>(4*i)&0xf])
	}
}

// ReprList formats items the way Python's repr(list[str]) does:
// "['(none)', '0']", "[]" for none.
func ReprList(items []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Repr(s))
	}
	b.WriteByte(']')
	return b.String()
}

// Lines yields the lines of s split the way Python's str.splitlines()
// splits: at \n, \r, \r\n, \v, \f, U+001C, U+001D, U+001E, U+0085, U+2028
// and U+2029, without the boundaries. A trailing boundary makes no empty
// last line, and "" has no lines.
func Lines(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start := 0
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch r {
			case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			case '\r':
				if i+1 < len(s) && s[i+1] == '\n' {
					size = 2
				}
			default:
				i += size
				continue
			}
			if !yield(s[start:i]) {
				return
			}
			i += size
			start = i
		}
		if start < len(s) {
			yield(s[start:])
		}
	}
}

// SplitLines is Python's str.splitlines(): the lines of [Lines] as a
// slice, nil when s has none.
func SplitLines(s string) []string { return slices.Collect(Lines(s)) }

// IsIdentifier reports whether s is a Python identifier
// (str.isidentifier()): not empty, valid UTF-8, the first rune XID_Start
// or "_", the rest XID_Continue. Keywords count as identifiers, as they do
// in Python.
func IsIdentifier(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for i, r := range s {
		if i == 0 {
			if r != '_' && !isXIDStart(r) {
				return false
			}
		} else if !isXIDContinue(r) {
			return false
		}
	}
	return true
}

// notXID lists the code points that are ID_Start/ID_Continue but not
// XID_Start/XID_Continue (they change under NFKC). Python uses the XID sets.
var notXID = map[rune]bool{
	0x037a: true, 0x309b: true, 0x309c: true,
	0xfc5e: true, 0xfc5f: true, 0xfc60: true, 0xfc61: true, 0xfc62: true, 0xfc63: true,
	0xfdfa: true, 0xfdfb: true,
	0xfe70: true, 0xfe72: true, 0xfe74: true, 0xfe76: true, 0xfe78: true, 0xfe7a: true,
	0xfe7c: true, 0xfe7e: true,
}

// notXIDStart lists the code points that are XID_Continue but, unlike in
// ID_Start, not XID_Start.
var notXIDStart = map[rune]bool{0x0e33: true, 0x0eb3: true, 0xff9e: true, 0xff9f: true}

func isIDStart(r rune) bool {
	if unicode.Is(unicode.Pattern_Syntax, r) || unicode.Is(unicode.Pattern_White_Space, r) {
		return false
	}
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_ID_Start, r)
}

func isXIDStart(r rune) bool {
	return isIDStart(r) && !notXID[r] && !notXIDStart[r]
}

func isXIDContinue(r rune) bool {
	if notXID[r] {
		return false
	}
	if isIDStart(r) {
		return true
	}
	if unicode.Is(unicode.Pattern_Syntax, r) || unicode.Is(unicode.Pattern_White_Space, r) {
		return false
	}
	return unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue)
}

// IsDigit reports whether Python's str.isdigit() holds for r: its Unicode
// Numeric_Type is Decimal (general category Nd, Go's [unicode.IsDigit]) or
// Digit (superscripts such as "²", subscripts, circled digits such as "①",
// and a few script digits). Go has no Numeric_Type table, so the Digit
// code points are listed here; Unicode has not added to them since 6.0.
func IsDigit(r rune) bool {
	return unicode.IsDigit(r) || unicode.Is(numericTypeDigit, r)
}

// numericTypeDigit lists the code points with Numeric_Type=Digit, printed
// by Python 3.11 (c.isdigit() and not c.isdecimal()).
var numericTypeDigit = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x00b2, Hi: 0x00b3, Stride: 1}, // superscript two, three
		{Lo: 0x00b9, Hi: 0x00b9, Stride: 1}, // superscript one
		{Lo: 0x1369, Hi: 0x1371, Stride: 1}, // Ethiopic digits one to nine
		{Lo: 0x19da, Hi: 0x19da, Stride: 1}, // New Tai Lue Tham digit one
		{Lo: 0x2070, Hi: 0x2070, Stride: 1}, // superscript zero
		{Lo: 0x2074, Hi: 0x2079, Stride: 1}, // superscript four to nine
		{Lo: 0x2080, Hi: 0x2089, Stride: 1}, // subscript zero to nine
		{Lo: 0x2460, Hi: 0x2468, Stride: 1}, // circled digit one to nine
		{Lo: 0x2474, Hi: 0x247c, Stride: 1}, // parenthesized digit one to nine
		{Lo: 0x2488, Hi: 0x2490, Stride: 1}, // digit one to nine full stop
		{Lo: 0x24ea, Hi: 0x24ea, Stride: 1}, // circled digit zero
		{Lo: 0x24f5, Hi: 0x24fd, Stride: 1}, // double circled digit one to nine
		{Lo: 0x24ff, Hi: 0x24ff, Stride: 1}, // negative circled digit zero
		{Lo: 0x2776, Hi: 0x277e, Stride: 1}, // dingbat negative circled digits
		{Lo: 0x2780, Hi: 0x2788, Stride: 1}, // dingbat circled sans-serif digits
		{Lo: 0x278a, Hi: 0x2792, Stride: 1}, // dingbat negative circled sans-serif digits
	},
	R32: []unicode.Range32{
		{Lo: 0x10a40, Hi: 0x10a43, Stride: 1}, // Kharoshthi digits one to four
		{Lo: 0x10e60, Hi: 0x10e68, Stride: 1}, // Rumi digits one to nine
		{Lo: 0x11052, Hi: 0x1105a, Stride: 1}, // Brahmi numbers one to nine
		{Lo: 0x1f100, Hi: 0x1f10a, Stride: 1}, // digit zero full stop to digit nine comma
	},
}
