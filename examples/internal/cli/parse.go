package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/internal/pytext"
)

// The environment variables of the run commands, and the parsers of their
// text with typevet's accept/refuse rules. The library takes numbers; the
// commands own the variable names, so every refusal names what the user
// set (the variable, or the flag that overrides it).
const (
	// SeedEnv is the variable typevet reads the generator seed from
	// ([ParseSeed]).
	SeedEnv = "TYPEVET_CHECK_MATCH_SEED"
	// RowsEnv is the variable of a check-match run's register rows
	// ([ParseRows]).
	RowsEnv = "TYPEVET_CHECK_MATCH_ROWS"
	// ConcurrencyEnv is the variable of the image concurrency setting
	// ([ParseConcurrency]).
	ConcurrencyEnv = "TYPEVET_IMAGE_CONCURRENCY"
	// OrderingsReceiptEnv names the receipt path of an option-order study;
	// it must name a new file.
	OrderingsReceiptEnv = "TYPEVET_CHECK_ORDERINGS_RECEIPT"
	// OrderingsRowsEnv names the study's register row count
	// ([ParseOrderingsRows]).
	OrderingsRowsEnv = "TYPEVET_CHECK_ORDERINGS_ROWS"
	// DefaultOrderingsRows is the row count of typevet's committed study:
	// 3 rows, 21 cases, 126 verdict requests.
	DefaultOrderingsRows = 3
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
			e.Name, uint64(math.MaxUint64), pytext.Repr(e.Text))
	}
	return fmt.Sprintf("%s must be a non-negative integer: %s", e.Name, pytext.Repr(e.Text))
}

// ParseSeed parses a generator seed from text; name is the variable or flag
// the text came from and is used in the error.
//
// Outer whitespace is removed (the set Python's str.strip removes). Empty
// text gives [checkmatch.DefaultSeed]. Otherwise the text must be ASCII digits only
// (leading zeros allowed): "+1", "-1", "1_0", "1.5" and non-ASCII digits are
// refused with a SeedError. typevet has no upper bound; a Go seed is a
// uint64, so a larger value is a SeedError with Overflow set, never a
// silent wrap.
func ParseSeed(raw, name string) (uint64, error) {
	text := pytext.Strip(raw)
	if text == "" {
		return checkmatch.DefaultSeed, nil
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

// maxConcurrency is the largest concurrency [ParseConcurrency] accepts, a
// bound typevet does not have: more judgments in flight than this is a
// typo, not a setting.
const maxConcurrency = 1 << 20

// ParseConcurrency parses the image concurrency setting from
// raw, the text of the variable or flag name: blank (Python whitespace
// only) means 1; otherwise the text is read as Python's int() reads it
// ([ParseRows] has the rules), and anything that is not a whole number
// from 1 to maxConcurrency is refused with "<name> must be a whole number
// of at least 1" (typevet maps unparsable text to 0 and refuses that).
func ParseConcurrency(raw, name string) (int, error) {
	if pytext.Strip(raw) == "" {
		return 1, nil
	}
	n, ok := pyInt(raw)
	if !ok || n < 1 || n > maxConcurrency {
		return 0, fmt.Errorf("%s must be a whole number of at least 1", name)
	}
	return int(n), nil
}

// ParseRows parses a check-match run's register rows
// from raw, the set text of the variable or flag name (an unset variable
// means [checkmatch.RowCount]; the caller decides that). The text is read as Python's
// int() reads ASCII text: outer whitespace stripped, an optional sign,
// decimal digits with single underscores between them. A value outside 1
// to [checkmatch.RowCount] is refused with "<name> must be 1 to 20: <value>".
// Decision: text int() refuses (typevet crashes on it, blank text
// included), non-ASCII digits (which int() accepts) and values outside
// int64 are refused with "<name> must be 1 to 20: not a whole number",
// without echoing the text.
func ParseRows(raw, name string) (int, error) {
	n, ok := pyInt(raw)
	if !ok {
		return 0, fmt.Errorf("%s must be 1 to %d: not a whole number", name, checkmatch.RowCount)
	}
	if n < 1 || n > checkmatch.RowCount {
		return 0, fmt.Errorf("%s must be 1 to %d: %d", name, checkmatch.RowCount, n)
	}
	return int(n), nil
}

// pyInt parses text the way Python's int() does for ASCII input: outer
// whitespace stripped, an optional sign, decimal digits with single
// underscores between them. Non-ASCII digits, which Python also accepts,
// and values outside int64 are refused (ok false, n 0).
func pyInt(s string) (int64, bool) {
	s = pytext.Strip(s)
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 || body == "" || body[0] == '_' || body[len(body)-1] == '_' || strings.Contains(body, "__") {
		return 0, false
	}
	for i := 0; i < len(body); i++ {
		if c := body[i]; c != '_' && (c < '0' || c > '9') {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// ParseOrderingsRows parses the study's row count from the text of
// [OrderingsRowsEnv] (typevet's orderings_rows): outer
// whitespace is removed (Python's str.strip set); blank text gives
// [DefaultOrderingsRows]; otherwise the text must be ASCII digits with a
// value from 1 to 20. A refusal names the variable and never echoes the
// value: "TYPEVET_CHECK_ORDERINGS_ROWS must be an integer from 1 to 20".
func ParseOrderingsRows(raw string) (int, error) {
	text := pytext.Strip(raw)
	if text == "" {
		return DefaultOrderingsRows, nil
	}
	errRows := errors.New(OrderingsRowsEnv + " must be an integer from 1 to 20")
	if len(text) > 2 {
		return 0, errRows
	}
	n := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c < '0' || c > '9' {
			return 0, errRows
		}
		n = n*10 + int(c-'0')
	}
	if n < 1 || n > checkmatch.RowCount {
		return 0, errRows
	}
	return n, nil
}
