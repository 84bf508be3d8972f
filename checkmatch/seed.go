package checkmatch

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SeedError reports seed text that [ParseSeed] refuses. Its message is
// typevet's: "{Name} must be a non-negative integer: {repr(Text)}", with
// Text quoted the way Python's repr quotes a string.
type SeedError struct {
	Name     string // the variable or flag the text came from
	Text     string // the refused text, outer whitespace removed
	Overflow bool   // the text is all digits but above the uint64 range
}

// Error implements error.
func (e *SeedError) Error() string {
	if e.Overflow {
		return fmt.Sprintf("%s must be a non-negative integer of at most %d: %s",
			e.Name, uint64(math.MaxUint64), pyRepr(e.Text))
	}
	return fmt.Sprintf("%s must be a non-negative integer: %s", e.Name, pyRepr(e.Text))
}

// ParseSeed parses a generator seed from text; name is the variable or flag
// the text came from and is used in the error (spec §2.9).
//
// Outer whitespace is removed (the set Python's str.strip removes). Empty
// text gives [DefaultSeed]. Otherwise the text must be ASCII digits only
// (leading zeros allowed): "+1", "-1", "1_0", "1.5" and non-ASCII digits are
// refused with a [*SeedError]. typevet has no upper bound; a Go seed is a
// uint64, so a larger value is a [*SeedError] with Overflow set, never a
// silent wrap.
func ParseSeed(raw, name string) (uint64, error) {
	text := strings.TrimFunc(raw, pyIsSpace)
	if text == "" {
		return DefaultSeed, nil
	}
	for i := range len(text) {
		if text[i] < '0' || text[i] > '9' {
			return 0, &SeedError{Name: name, Text: text}
		}
	}
	v, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return 0, &SeedError{Name: name, Text: text, Overflow: true}
	}
	return v, nil
}

// pyIsSpace is Python's str.isspace for one character: Go's Unicode White
// Space plus the ASCII separators U+001C..U+001F, which Python also strips.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// pyRepr quotes s the way Python's repr(str) does: single quotes unless the
// text holds a single quote and no double quote; backslash, the chosen quote
// and non-printable characters escaped (\t \n \r, \xhh, \uhhhh, \Uhhhhhhhh);
// printable non-ASCII characters kept literally.
func pyRepr(s string) string {
	quote := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			// Invalid UTF-8 cannot come from Python text; show the byte.
			fmt.Fprintf(&b, `\x%02x`, s[i-1])
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}
