package reader_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/internal/checkform"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/reader"
)

// wordsVectors are worked examples of typevet's amount_in_words.
var wordsVectors = []int64{1, 100, 1100, 1300, 1400, 1550, 1899, 1905, 2000, 4217, 10000, 31400, 50000,
	100000, 123456, 1000000, 1101700, 9050099, 99999999, 100000000, 300000000, 1234000010, 2100, 724,
	30705, 100100, 100000100, 10000000000, 99999999999}

func TestParseWordsInvertsAmountInWords(t *testing.T) {
	for _, cents := range wordsVectors {
		w, err := checkmatch.AmountInWords(cents)
		if err != nil {
			t.Fatal(err)
		}
		got, err := reader.ParseWords(w + checkform.WordsSuffix)
		if err != nil || got != cents {
			t.Errorf("ParseWords(%q) = %d, %v, want %d", w+checkform.WordsSuffix, got, err, cents)
		}
	}
}

func TestParseWordsRefuses(t *testing.T) {
	tests := []struct{ name, in, reason string }{
		{"no suffix", "One and 00/100", ""},
		{"lower-case start", "one and 00/100 DOLLARS", ""},
		{"no cents", "One DOLLARS", ""},
		{"one cent digit", "One and 5/100 DOLLARS", ""},
		{"zero", "Zero and 00/100 DOLLARS", "amount_in_words needs at least one cent"},
		{"and inside", "One hundred and five and 00/100 DOLLARS", "amount_in_words writes no and inside a number"},
		{"teen with hyphen", "Ten-one and 00/100 DOLLARS", ""},
		{"tens then ones apart", "Twenty one and 00/100 DOLLARS", "tens and ones are joined by a hyphen"},
		{"scale order", "One thousand one million and 00/100 DOLLARS", ""},
		{"bare scale", "Thousand and 00/100 DOLLARS", ""},
		{"hundred without digit", "Hundred and 00/100 DOLLARS", ""},
		{"zero inside", "One thousand zero and 00/100 DOLLARS", ""},
		{"capital inside", "One Thousand and 00/100 DOLLARS", ""},
		{"double space", "One  thousand and 00/100 DOLLARS", ""},
		{"ten hundred", "Ten hundred and 00/100 DOLLARS", "hundreds take a digit word"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := reader.ParseWords(tt.in); err == nil {
				t.Errorf("ParseWords(%q) = %d, want an error (%s)", tt.in, got, tt.reason)
			}
		})
	}
}

// FuzzParseWords: whatever parses is exactly the words line of the cents
// it parses to.
func FuzzParseWords(f *testing.F) {
	for _, c := range wordsVectors {
		w, _ := checkmatch.AmountInWords(c)
		f.Add(w + checkform.WordsSuffix)
	}
	f.Add("One thousand one million and 00/100 DOLLARS")
	f.Fuzz(func(t *testing.T, s string) {
		cents, err := reader.ParseWords(s)
		if err != nil {
			return
		}
		w, werr := checkmatch.AmountInWords(cents)
		if werr != nil || w+checkform.WordsSuffix != s {
			t.Fatalf("ParseWords(%q) = %d, whose words line is %q (%v)", s, cents, w+checkform.WordsSuffix, werr)
		}
	})
}

func TestParseNumeric(t *testing.T) {
	for _, cents := range []int64{0, 1, 99, 100, 118815, 100000, 123456789, 99999999999} {
		s := checkform.NumericText(cents)
		if got, err := reader.ParseNumeric(s); err != nil || got != cents {
			t.Errorf("ParseNumeric(%q) = %d, %v, want %d", s, got, err, cents)
		}
	}
	for _, s := range []string{"", "$1,188.15", "$ 1188.15", "$ 1,188.1", "$ 01.00", "$ 1,18.15", "$ ,188.15", "$ 1,188.15 ", "1,188.15", "$ 1.188,15"} {
		if got, err := reader.ParseNumeric(s); err == nil {
			t.Errorf("ParseNumeric(%q) = %d, want an error", s, got)
		}
	}
}

// FuzzParseNumeric: whatever parses is exactly the box text of its cents.
func FuzzParseNumeric(f *testing.F) {
	f.Add("$ 1,188.15")
	f.Add("$ 0.07")
	f.Fuzz(func(t *testing.T, s string) {
		cents, err := reader.ParseNumeric(s)
		if err == nil && checkform.NumericText(cents) != s {
			t.Fatalf("ParseNumeric(%q) = %d, printed %q", s, cents, checkform.NumericText(cents))
		}
	})
}

func TestParseDate(t *testing.T) {
	y, m, d, err := reader.ParseDate("April 21, 2025")
	if err != nil || y != 2025 || m != time.April || d != 21 {
		t.Errorf("ParseDate = %d %v %d %v", y, m, d, err)
	}
	for _, s := range []string{"April 021, 2025", "april 21, 2025", "April 31, 2025", "April 21 2025", "Apr 21, 2025", "2025-04-21", ""} {
		if _, _, _, err := reader.ParseDate(s); err == nil {
			t.Errorf("ParseDate(%q) succeeded, want an error", s)
		}
	}
}

// FuzzParseDate: a date ParseDate accepts prints back to the same text
// and is a real calendar day (time.Date does not normalise it); anything
// else is an error with zero values.
func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"April 21, 2025", "February 29, 2024", "February 29, 2025", "December 31, 9999", "January 1, 0001", "April 021, 2025", "Apr 21, 2025", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		y, m, d, err := reader.ParseDate(s)
		if err != nil {
			if y != 0 || m != 0 || d != 0 {
				t.Fatalf("ParseDate(%q) failed but returned %d %v %d", s, y, m, d)
			}
			return
		}
		if got := checkform.DateText(y, m, d); got != s {
			t.Fatalf("ParseDate(%q) = %d %v %d, printed %q", s, y, m, d, got)
		}
		if m < time.January || m > time.December || d < 1 || d > 31 {
			t.Fatalf("ParseDate(%q) = month %d day %d, out of range", s, m, d)
		}
		if n := time.Date(y, m, d, 0, 0, 0, 0, time.UTC); n.Year() != y || n.Month() != m || n.Day() != d {
			t.Fatalf("ParseDate(%q) = %d %v %d, not a calendar day", s, y, m, d)
		}
	})
}

func TestParseState(t *testing.T) {
	rows, err := checkmatch.RegisterRows(1, checkmatch.RowCount)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		got, err := reader.ParseState(checkmatch.State(row))
		want := reader.Register{CheckNumber: row.CheckNumber, Year: row.Date.Year, Month: row.Date.Month,
			Day: row.Date.Day, Payee: row.Payee, AmountCents: row.AmountCents}
		if err != nil || got != want {
			t.Errorf("ParseState(State(%s)) = %+v, %v, want %+v", row.Text(), got, err, want)
		}
	}
}

func TestParseStateErrors(t *testing.T) {
	const row = "check number 1001; date 2025-04-21; payee Lanternfield Electric; amount $1,188.15"
	tests := []struct{ name, state, missing string }{
		{"empty", "", "check number"},
		{"no number", strings.Replace(row, "1001", "", 1), "check number"},
		{"no date key", strings.Replace(row, "; date", "; day", 1), "check number"},
		{"bad date", strings.Replace(row, "2025-04-21", "2025-04-31", 1), "date"},
		{"short date", strings.Replace(row, "2025-04-21", "2025-4-21", 1), "date"},
		{"empty payee", strings.Replace(row, "Lanternfield Electric", "", 1), "payee"},
		{"no amount", strings.Replace(row, "; amount $1,188.15", "", 1), "payee"},
		{"bad amount", strings.Replace(row, "$1,188.15", "$1188.15", 1), "amount"},
		{"amount without cents", strings.Replace(row, "$1,188.15", "$1,188", 1), "amount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := reader.ParseState("The image shows one paper check. " + tt.state + ". Compare.")
			var se *reader.StateError
			if !errors.As(err, &se) || se.Missing != tt.missing {
				t.Fatalf("err = %v, want a StateError missing %q", err, tt.missing)
			}
			var jve *judgment.JudgmentValidationError
			if !errors.As(err, &jve) || !judgment.IsGenerationError(err) || judgment.ErrorClass(err) != "JudgmentValidationError" {
				t.Errorf("err %v is not a JudgmentValidationError to errors.As", err)
			}
			if strings.Contains(err.Error(), "Lanternfield") {
				t.Errorf("err %q repeats the state", err)
			}
		})
	}
}

// FuzzParseState: a parsed row, printed back as a register row, parses
// to itself.
func FuzzParseState(f *testing.F) {
	f.Add("check number 1001; date 2025-04-21; payee Lanternfield Electric; amount $1,188.15")
	f.Add("x check number 7; date 2024-02-29; payee A; amount $0.01. y")
	f.Fuzz(func(t *testing.T, s string) {
		reg, err := reader.ParseState(s)
		if err != nil {
			return
		}
		text := fmt.Sprintf("check number %d; date %04d-%02d-%02d; payee %s; amount $%s",
			reg.CheckNumber, reg.Year, int(reg.Month), reg.Day, reg.Payee, checkform.Dollars(reg.AmountCents))
		again, err := reader.ParseState(text)
		if err != nil || again != reg {
			t.Fatalf("ParseState(%q) = %+v; printed %q parses to %+v, %v", s, reg, text, again, err)
		}
	})
}
