package checkmatch

import (
	"fmt"
	"math"
	"strconv"

	"github.com/typevet/typevet-go/internal/pytext"
)

// seedError reports seed text that [ParseSeed] refuses. Its message is
// typevet's: "{Name} must be a non-negative integer: {repr(Text)}", with
// Text quoted the way Python's repr quotes a string.
type seedError struct {
	Name     string // the variable or flag the text came from
	Text     string // the refused text, outer whitespace removed
	Overflow bool   // the text is all digits but above the uint64 range
}

// Error implements error.
func (e *seedError) Error() string {
	if e.Overflow {
		return fmt.Sprintf("%s must be a non-negative integer of at most %d: %s",
			e.Name, uint64(math.MaxUint64), pytext.Repr(e.Text))
	}
	return fmt.Sprintf("%s must be a non-negative integer: %s", e.Name, pytext.Repr(e.Text))
}

// ParseSeed parses a generator seed from text; name is the variable or flag
// the text came from and is used in the error.
//
// Outer whitespace is removed (the set Python's str.strip removes). Empty
// text gives [DefaultSeed]. Otherwise the text must be ASCII digits only
// (leading zeros allowed): "+1", "-1", "1_0", "1.5" and non-ASCII digits are
// refused with a seedError. typevet has no upper bound; a Go seed is a
// uint64, so a larger value is a seedError with Overflow set, never a
// silent wrap.
func ParseSeed(raw, name string) (uint64, error) {
	text := pytext.Strip(raw)
	if text == "" {
		return DefaultSeed, nil
	}
	for i := range len(text) {
		if text[i] < '0' || text[i] > '9' {
			return 0, &seedError{Name: name, Text: text}
		}
	}
	v, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return 0, &seedError{Name: name, Text: text, Overflow: true}
	}
	return v, nil
}

// pyIsSpace is [pytext.IsSpace], under the name orderings_receipt.go uses.
func pyIsSpace(r rune) bool { return pytext.IsSpace(r) }
