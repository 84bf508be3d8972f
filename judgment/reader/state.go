package reader

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/typevet/typevet-go/judgment"
)

// Register is the check register row a state text holds: what the check
// must show.
type Register struct {
	CheckNumber int        // e.g. 1001
	Year        int        // the register date, e.g. 2025
	Month       time.Month // e.g. time.April
	Day         int        // e.g. 21
	Payee       string     // e.g. "Lanternfield Electric"
	AmountCents int64      // e.g. 118815 for $1,188.15
}

// StateError reports a state text the reader cannot take a register row
// from. Missing names the first part that is missing or malformed:
// "check number", "date", "payee" or "amount". The message never holds
// the state text.
type StateError struct{ Missing string }

// Error returns "reader: the state holds no register row: <part> is
// missing or malformed", naming the part and never the state text.
func (e *StateError) Error() string {
	return fmt.Sprintf("reader: the state holds no register row: %s is missing or malformed", e.Missing)
}

// As lets errors.As match a *StateError as a
// *judgment.JudgmentValidationError (and its umbrellas), so
// [judgment.IsGenerationError] holds and a run stops cleanly.
func (e *StateError) As(target any) bool {
	return errors.As(&judgment.JudgmentValidationError{Msg: e.Error()}, target)
}

// ParseState takes the register row out of a check-match state text: the
// first "check number N; date YYYY-MM-DD; payee P; amount $D,DDD.CC" in
// it (the register row text of typevet's check register). Anything around
// the row is ignored; the row's parts must appear in this order with these
// separators. An error is a *StateError naming the part it could not
// read.
func ParseState(state string) (Register, error) {
	var reg Register
	const (
		numKey   = "check number "
		dateKey  = "; date "
		payeeKey = "; payee "
		amtKey   = "; amount $"
	)
	i := strings.Index(state, numKey)
	if i < 0 {
		return reg, &StateError{Missing: "check number"}
	}
	rest := state[i+len(numKey):]
	num, rest := leadingDigits(rest)
	n, err := strconv.Atoi(num)
	if err != nil || len(num) > 9 || !strings.HasPrefix(rest, dateKey) {
		return reg, &StateError{Missing: "check number"}
	}
	reg.CheckNumber = n
	rest = rest[len(dateKey):]
	if len(rest) < 10 {
		return reg, &StateError{Missing: "date"}
	}
	d, err := time.Parse(time.DateOnly, rest[:10])
	if err != nil || !strings.HasPrefix(rest[10:], payeeKey) {
		return reg, &StateError{Missing: "date"}
	}
	reg.Year, reg.Month, reg.Day = d.Date()
	rest = rest[10+len(payeeKey):]
	j := strings.Index(rest, amtKey)
	if j <= 0 || strings.TrimSpace(rest[:j]) != rest[:j] || strings.Contains(rest[:j], ";") {
		return reg, &StateError{Missing: "payee"}
	}
	reg.Payee = rest[:j]
	rest = rest[j+len(amtKey):]
	k := strings.IndexFunc(rest, func(r rune) bool { return !(r >= '0' && r <= '9' || r == ',' || r == '.') })
	if k < 0 {
		k = len(rest)
	}
	// A sentence may end right after the amount: "$1,188.15. Compare …".
	cents, ok := parseDollars(strings.TrimSuffix(rest[:k], "."))
	if !ok {
		return reg, &StateError{Missing: "amount"}
	}
	reg.AmountCents = cents
	return reg, nil
}

func leadingDigits(s string) (digits, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}
