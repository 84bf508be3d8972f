package checkmatch

import (
	"fmt"
	"strings"
)

// maxCents is the largest amount [AmountInWords] writes: $999,999,999.99.
const maxCents = 99_999_999_999

var (
	onesWords = [20]string{
		"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
		"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
		"seventeen", "eighteen", "nineteen",
	}
	tensWords = [10]string{
		"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
	}
	scales = []struct {
		size int64
		word string
	}{{1_000_000, "million"}, {1_000, "thousand"}}
)

// AmountInWords writes an amount the way the check's words line does:
// the dollars in lower-case English words without "and", only the
// first letter capitalised, then " and " and the cents as "NN/100".
//
//	AmountInWords(123456) == "One thousand two hundred thirty-four and 56/100"
//
// cents must be from 1 to 99,999,999,999 ($999,999,999.99); any other value is an error whose
// message names cents (typevet raises ValueError there; this port returns
// the error instead of panicking).
func AmountInWords(cents int64) (string, error) {
	if cents < 1 || cents > maxCents {
		return "", fmt.Errorf("cents must be from 1 to %d, got %d", int64(maxCents), cents)
	}
	w := dollarsInWords(cents / 100)
	return strings.ToUpper(w[:1]) + w[1:] + fmt.Sprintf(" and %02d/100", cents%100), nil
}

// dollarsInWords writes 0 <= d <= 999,999,999 in lower-case words.
func dollarsInWords(d int64) string {
	if d == 0 {
		return "zero"
	}
	var words []string
	rest := d
	for _, s := range scales {
		g := rest / s.size
		rest %= s.size
		if g > 0 {
			words = appendBelowThousand(words, g)
			words = append(words, s.word)
		}
	}
	if rest > 0 {
		words = appendBelowThousand(words, rest)
	}
	return strings.Join(words, " ")
}

// appendBelowThousand appends the words of 1 <= n <= 999.
func appendBelowThousand(words []string, n int64) []string {
	h, r := n/100, n%100
	if h > 0 {
		words = append(words, onesWords[h], "hundred")
	}
	switch {
	case r >= 20 && r%10 == 0:
		words = append(words, tensWords[r/10])
	case r >= 20:
		words = append(words, tensWords[r/10]+"-"+onesWords[r%10])
	case r > 0:
		words = append(words, onesWords[r])
	}
	return words
}
