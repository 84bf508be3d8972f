package checkform

import (
	"fmt"
	"strconv"
	"time"
)

// Fixed parts of the per-check texts.
const (
	NumericPrefix = "$ "       // before the numeric amount
	WordsSuffix   = " DOLLARS" // after the amount in words
)

// Dollars prints non-negative cents as "{whole:,}.{cents:02d}", e.g.
// 118815 → "1,188.15" (thousands separated by commas).
func Dollars(cents int64) string {
	whole := strconv.FormatInt(cents/100, 10)
	out := make([]byte, 0, len(whole)+len(whole)/3+3)
	for i := range len(whole) {
		if i > 0 && (len(whole)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, whole[i])
	}
	c := cents % 100
	return string(append(out, '.', byte('0'+c/10), byte('0'+c%10)))
}

// NumericText is the numeric-amount box text, e.g. "$ 1,188.15".
func NumericText(cents int64) string { return NumericPrefix + Dollars(cents) }

// DateText is the printed date: English month name, day and year without
// zero padding, e.g. "April 21, 2025".
func DateText(year int, month time.Month, day int) string {
	return fmt.Sprintf("%s %d, %d", month, day, year)
}

// MICRText is the text MICR-style line, with exactly three spaces before
// ACCOUNT and before CHECK, e.g.
// "ROUTING 069490182   ACCOUNT 000000000000   CHECK 1001". The Go fonts have
// no MICR symbols, so the line stays plain text as in typevet.
func MICRText(routing, account string, checkNumber int) string {
	return fmt.Sprintf("ROUTING %s   ACCOUNT %s   CHECK %d", routing, account, checkNumber)
}
