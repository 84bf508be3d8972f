package wording

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the three pieces of Python string behaviour that typevet's
// wording rules depend on: str.isidentifier (part names), str.strip (empty
// texts) and repr (names in messages). Each is tested against tables that
// Python 3.11 printed (testdata/python-unicode.txt).

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

// isIdentifier reports whether s is a Python identifier (str.isidentifier):
// non-empty, the first rune XID_Start or "_", the rest XID_Continue.
// Keywords count as identifiers, as they do in Python. Go's Unicode tables
// (15.0) are newer than Python 3.11's (14.0); the two agree on every code
// point assigned in Unicode 14.
func isIdentifier(s string) bool {
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

// isPySpace reports whether r is whitespace for Python's str.strip():
// Go's unicode.IsSpace plus the separators U+001C–U+001F, which Python
// counts and Go does not.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// pyStrip trims s the way Python's str.strip() does.
func pyStrip(s string) string { return strings.TrimFunc(s, isPySpace) }

// pyRepr quotes s the way Python's repr(str) does: single quotes, or double
// quotes when s holds a single quote and no double quote; backslash, the
// quote, \t \n \r escaped; other non-printable runes as \xNN, \uNNNN or
// \UNNNNNNNN; printable non-ASCII kept.
func pyRepr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x7f && r >= 0x20, r > 0x7f && unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			var width int
			switch {
			case r < 0x100:
				b.WriteString(`\x`)
				width = 2
			case r < 0x10000:
				b.WriteString(`\u`)
				width = 4
			default:
				b.WriteString(`\U`)
				width = 8
			}
			for i := width - 1; i >= 0; i-- {
				b.WriteByte(hex[r>>(4*i)&0xf])
			}
		}
	}
	b.WriteByte(quote)
	return b.String()
}
