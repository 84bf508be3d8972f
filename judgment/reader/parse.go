package reader

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/typevet/typevet-go/internal/checkform"
)

// ParseNumeric parses the amount box text, [checkform.NumericText]'s
// form "$ 1,188.15", into cents. Only that exact form parses: the "$ "
// prefix, thousands separated by commas, two cent digits.
func ParseNumeric(s string) (int64, error) {
	rest, ok := strings.CutPrefix(s, checkform.NumericPrefix)
	if ok {
		if cents, ok := parseDollars(rest); ok {
			return cents, nil
		}
	}
	return 0, fmt.Errorf("reader: numeric amount %q is not of the form \"$ 1,188.15\"", s)
}

// parseDollars parses [checkform.Dollars]'s form "1,188.15" (whole
// dollars grouped by commas, no leading zero but "0", two cent digits).
func parseDollars(s string) (int64, bool) {
	whole, frac, ok := strings.Cut(s, ".")
	if !ok || len(frac) != 2 || !allDigits(frac) || whole == "" || len(whole) > 15 {
		return 0, false
	}
	groups := strings.Split(whole, ",")
	for i, g := range groups {
		if !allDigits(g) || g == "" || len(g) > 3 || (i > 0 && len(g) != 3) {
			return 0, false
		}
	}
	if len(whole) > 1 && whole[0] == '0' {
		return 0, false
	}
	d, err := strconv.ParseInt(strings.ReplaceAll(whole, ",", ""), 10, 64)
	if err != nil {
		return 0, false
	}
	c, _ := strconv.ParseInt(frac, 10, 64)
	return d*100 + c, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Number words of the words line (typevet's amount_in_words).
var (
	onesWords = [20]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}
	tensWords = [10]string{2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}
)

// ParseWords parses the words line back to cents: the inverse of
// typevet's amount in words followed by [checkform.WordsSuffix], e.g.
// "One thousand one hundred eighty-eight and 15/100 DOLLARS" → 118815.
// Only the canonical form parses: the first letter capitalised and the
// rest lower case, groups as amount_in_words writes them (millions,
// thousands, then the rest; "hundred" after a digit word; tens and ones
// joined by a hyphen; no "and" inside the number), " and ", two cent
// digits, "/100", " DOLLARS". So ParseWords(words) == cents exactly when
// words is the words line of cents, for every cents from 1 to
// 99,999,999,999.
func ParseWords(s string) (int64, error) {
	bad := func(what string) (int64, error) {
		return 0, fmt.Errorf("reader: words amount %q: %s", s, what)
	}
	body, ok := strings.CutSuffix(s, checkform.WordsSuffix)
	if !ok {
		return bad("no " + strings.TrimSpace(checkform.WordsSuffix))
	}
	i := strings.LastIndex(body, " and ")
	if i < 0 {
		return bad("no \" and \" before the cents")
	}
	words, centsText := body[:i], body[i+len(" and "):]
	cd, ok := strings.CutSuffix(centsText, "/100")
	if !ok || len(cd) != 2 || !allDigits(cd) {
		return bad("cents are not of the form \"NN/100\"")
	}
	if words == "" || words[0] < 'A' || words[0] > 'Z' {
		return bad("does not start with a capital letter")
	}
	words = strings.ToLower(words[:1]) + words[1:]
	dollars, ok := parseDollarWords(strings.Split(words, " "))
	if !ok {
		return bad("not a number in words")
	}
	c, _ := strconv.ParseInt(cd, 10, 64)
	cents := dollars*100 + c
	if cents < 1 {
		return bad("the amount is zero")
	}
	return cents, nil
}

// parseDollarWords parses dollars_in_words: "zero", or groups of
// below-thousand words each followed by its scale word, in decreasing
// scale.
func parseDollarWords(w []string) (int64, bool) {
	if len(w) == 1 && w[0] == "zero" {
		return 0, true
	}
	var total int64
	for _, scale := range []struct {
		word string
		size int64
	}{{"million", 1_000_000}, {"thousand", 1_000}, {"", 1}} {
		end := len(w)
		if scale.word != "" {
			end = indexOf(w, scale.word)
			if end < 0 {
				continue
			}
		}
		if end == 0 && scale.word != "" {
			return 0, false
		}
		if end == 0 {
			break
		}
		g, ok := parseBelowThousand(w[:end])
		if !ok {
			return 0, false
		}
		total += g * scale.size
		if scale.word != "" {
			end++
		}
		w = w[end:]
	}
	return total, len(w) == 0 && total > 0
}

// parseBelowThousand parses below_thousand(n) for 1 ≤ n ≤ 999.
func parseBelowThousand(w []string) (int64, bool) {
	var n int64
	if len(w) >= 2 && w[1] == "hundred" {
		h := indexOf(onesWords[1:10], w[0])
		if h < 0 {
			return 0, false
		}
		n = int64(h+1) * 100
		w = w[2:]
	}
	switch len(w) {
	case 0:
		return n, n > 0
	case 1:
	default:
		return 0, false
	}
	word := w[0]
	if t, o, ok := strings.Cut(word, "-"); ok {
		ti, oi := indexOf(tensWords[2:], t), indexOf(onesWords[1:10], o)
		if ti < 0 || oi < 0 {
			return 0, false
		}
		return n + int64(ti+2)*10 + int64(oi+1), true
	}
	if ti := indexOf(tensWords[2:], word); ti >= 0 {
		return n + int64(ti+2)*10, true
	}
	if oi := indexOf(onesWords[1:], word); oi >= 0 {
		return n + int64(oi+1), true
	}
	return 0, false
}

func indexOf(w []string, s string) int {
	for i, x := range w {
		if x == s {
			return i
		}
	}
	return -1
}

// ParseDate parses the date line, [checkform.DateText]'s form
// "April 21, 2025" (English month name, day without zero padding, comma,
// four-digit year), into a date. The day must exist in that month.
func ParseDate(s string) (year int, month time.Month, day int, err error) {
	t, perr := time.Parse("January 2, 2006", s)
	if perr != nil || checkform.DateText(t.Year(), t.Month(), t.Day()) != s {
		return 0, 0, 0, fmt.Errorf("reader: date %q is not of the form \"April 21, 2025\"", s)
	}
	return t.Year(), t.Month(), t.Day(), nil
}
