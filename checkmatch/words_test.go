package checkmatch

import (
	"strings"
	"testing"
)

func TestAmountInWords(t *testing.T) {
	tests := []struct {
		cents  int64
		want   string
		reason string
	}{
		{1, "Zero and 01/100", "zero dollars are written as a word"},
		{100, "One and 00/100", ""},
		{1100, "Eleven and 00/100", ""},
		{1300, "Thirteen and 00/100", ""},
		{1400, "Fourteen and 00/100", ""},
		{1550, "Fifteen and 50/100", ""},
		{1899, "Eighteen and 99/100", ""},
		{1905, "Nineteen and 05/100", "cents are zero padded"},
		{2000, "Twenty and 00/100", "round tens are not hyphenated"},
		{4217, "Forty-two and 17/100", "tens and ones are hyphenated"},
		{10000, "One hundred and 00/100", ""},
		{31400, "Three hundred fourteen and 00/100", "no 'and' inside the number"},
		{50000, "Five hundred and 00/100", ""},
		{100000, "One thousand and 00/100", ""},
		{123456, "One thousand two hundred thirty-four and 56/100", ""},
		{1000000, "Ten thousand and 00/100", ""},
		{1101700, "Eleven thousand seventeen and 00/100", ""},
		{9050099, "Ninety thousand five hundred and 99/100", ""},
		{99999999, "Nine hundred ninety-nine thousand nine hundred ninety-nine and 99/100", ""},
		{100000000, "One million and 00/100", ""},
		{300000000, "Three million and 00/100", ""},
		{1234000010, "Twelve million three hundred forty thousand and 10/100", "empty thousands group is skipped"},
		{2100, "Twenty-one and 00/100", ""},
		{724, "Seven and 24/100", ""},
		{30705, "Three hundred seven and 05/100", ""},
		{100100, "One thousand one and 00/100", ""},
		{100000100, "One million one and 00/100", "empty thousands group between million and ones"},
		{10000000000, "One hundred million and 00/100", ""},
		{99999999999, "Nine hundred ninety-nine million nine hundred ninety-nine thousand nine hundred ninety-nine and 99/100", "MaxCents"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got, err := AmountInWords(tt.cents)
			if err != nil {
				t.Fatalf("AmountInWords(%d): %v", tt.cents, err)
			}
			if got != tt.want {
				t.Errorf("AmountInWords(%d) = %q, want %q", tt.cents, got, tt.want)
			}
		})
	}
}

func TestAmountInWordsErrors(t *testing.T) {
	tests := []struct {
		name  string
		cents int64
		want  string
	}{
		{"zero", 0, "cents must be from 1 to 99999999999, got 0"},
		{"negative", -5, "cents must be from 1 to 99999999999, got -5"},
		{"above max", 100_000_000_000, "cents must be from 1 to 99999999999, got 100000000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AmountInWords(tt.cents)
			if err == nil {
				t.Fatalf("AmountInWords(%d) = %q, want error", tt.cents, got)
			}
			if err.Error() != tt.want || !strings.Contains(err.Error(), "cents") {
				t.Errorf("error = %q, want %q", err, tt.want)
			}
		})
	}
}

func TestWordsLinesSeed0(t *testing.T) {
	// typevet's words line on the clean face and on written_amount_changed.
	want := map[string][2]string{
		"r00": {"One thousand one hundred eighty-eight and 15/100 DOLLARS", "One thousand one hundred seventy-six and 31/100 DOLLARS"},
		"r03": {"Three hundred eighty-nine and 45/100 DOLLARS", "Two hundred forty-four and 13/100 DOLLARS"},
		"r08": {"Three hundred seven and 05/100 DOLLARS", "Seven hundred ninety-four and 22/100 DOLLARS"},
		"r15": {"Two thousand eight hundred one and 05/100 DOLLARS", "Two thousand nine hundred ninety-seven and 78/100 DOLLARS"},
		"r19": {"Thirty-seven and 86/100 DOLLARS", "Five hundred two and 75/100 DOLLARS"},
	}
	cases, err := Cases(0, RowCount)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		w, ok := want[c.ID()[:3]]
		if !ok {
			continue
		}
		var exp string
		switch c.Variant {
		case VariantClean:
			exp = w[0]
		case variantWrittenAmountChanged:
			exp = w[1]
		default:
			continue
		}
		words, err := AmountInWords(c.Face.WrittenCents)
		if err != nil {
			t.Fatal(err)
		}
		if got := words + " DOLLARS"; got != exp {
			t.Errorf("%s words line = %q, want %q", c.ID(), got, exp)
		}
	}
}

func FuzzAmountInWords(f *testing.F) {
	for _, c := range []int64{1, 100, 4217, 100000100, maxCents, 0, -1, maxCents + 1} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, cents int64) {
		got, err := AmountInWords(cents)
		inRange := cents >= 1 && cents <= maxCents
		if (err == nil) != inRange {
			t.Fatalf("AmountInWords(%d) error %v, in range %v", cents, err, inRange)
		}
		if err != nil {
			return
		}
		// Invariant: capitalised, ends in the padded cents, no double space
		// and no "and" before the cents part.
		tail := " and " + formatCents(cents%100) + "/100"
		if !strings.HasSuffix(got, tail) || strings.Contains(got, "  ") ||
			strings.Contains(strings.TrimSuffix(got, tail), " and ") ||
			got[0] < 'A' || got[0] > 'Z' {
			t.Fatalf("AmountInWords(%d) = %q", cents, got)
		}
	})
}

func formatCents(c int64) string {
	return string([]byte{byte('0' + c/10), byte('0' + c%10)})
}
