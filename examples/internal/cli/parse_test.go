package cli

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/internal/pytext"
)

func TestParseSeed(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    uint64
		wantErr string
		reason  string
	}{
		{name: "plain", raw: "7", want: 7},
		{name: "outer spaces", raw: " 7 ", want: 7},
		{name: "leading zeros", raw: "007", want: 7},
		{name: "empty", raw: "", want: 0},
		{name: "blank", raw: "  ", want: 0},
		{name: "unicode space stripped", raw: "\u00a07\u3000", want: 7, reason: "Python strip removes Unicode whitespace"},
		{name: "file separator stripped", raw: "\x1c7", want: 7, reason: "Python treats U+001C..U+001F as whitespace"},
		{name: "max uint64", raw: "18446744073709551615", want: 1<<64 - 1},
		{name: "plus", raw: "+1", wantErr: "SEED must be a non-negative integer: '+1'"},
		{name: "minus", raw: "-1", wantErr: "SEED must be a non-negative integer: '-1'"},
		{name: "underscore", raw: "1_0", wantErr: "SEED must be a non-negative integer: '1_0'", reason: "Python int() accepts it; parse_seed does not"},
		{name: "decimal", raw: "1.0", wantErr: "SEED must be a non-negative integer: '1.0'"},
		{name: "fraction", raw: "1.5", wantErr: "SEED must be a non-negative integer: '1.5'"},
		{name: "word", raw: " one ", wantErr: "SEED must be a non-negative integer: 'one'", reason: "repr of the stripped text"},
		{name: "fullwidth", raw: "１", wantErr: "SEED must be a non-negative integer: '１'", reason: "printable non-ASCII stays literal"},
		{name: "arabic-indic", raw: "٣", wantErr: "SEED must be a non-negative integer: '٣'"},
		{name: "single quote", raw: "a'b", wantErr: `SEED must be a non-negative integer: "a'b"`, reason: "repr switches to double quotes"},
		{name: "both quotes", raw: `a'"b`, wantErr: `SEED must be a non-negative integer: 'a\'"b'`},
		{name: "control", raw: "1\x002", wantErr: `SEED must be a non-negative integer: '1\x002'`},
		{name: "inner newline", raw: "1\n2", wantErr: `SEED must be a non-negative integer: '1\n2'`},
		{name: "overflow", raw: "18446744073709551616", wantErr: "SEED must be a non-negative integer of at most 18446744073709551615: '18446744073709551616'", reason: "never wraps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSeed(tt.raw, "SEED")
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("ParseSeed(%q) = %d, want error", tt.raw, got)
				}
				if err.Error() != tt.wantErr {
					t.Errorf("error = %s\n want %s", err, tt.wantErr)
				}
				var se *SeedError
				if !errors.As(err, &se) || se.Name != "SEED" {
					t.Errorf("error %T is not a *SeedError naming SEED", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseSeed(%q) = %d, %v, want %d", tt.raw, got, err, tt.want)
			}
		})
	}
}

func FuzzParseSeed(f *testing.F) {
	for _, s := range []string{"7", " 7 ", "007", "", "+1", "1_0", "１", "18446744073709551616", "a'b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := ParseSeed(raw, "SEED")
		if err != nil {
			// Invariant: every refusal names the variable and quotes the text.
			if !strings.HasPrefix(err.Error(), "SEED must be a non-negative integer") {
				t.Fatalf("error %q does not name SEED", err)
			}
			return
		}
		// Invariant: an accepted seed prints back to its digits (minus
		// leading zeros), and is stable under a second parse.
		again, err := ParseSeed(strings.Repeat(" ", 2)+uintText(v), "SEED")
		if err != nil || again != v {
			t.Fatalf("ParseSeed(%q) = %d, reparse %d, %v", raw, v, again, err)
		}
	})
}

func uintText(v uint64) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}

// TestParseConcurrency holds typevet's concurrency-parsing vectors.
func TestParseConcurrency(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		want   int
		reason string
	}{
		{name: "unset or empty", raw: "", want: 1},
		{name: "space", raw: " ", want: 1},
		{name: "python whitespace", raw: "\u3000\x1c", want: 1, reason: "str.strip removes these too"},
		{name: "one", raw: "1", want: 1},
		{name: "padded 16", raw: " 16 ", want: 16},
		{name: "underscore", raw: "1_6", want: 16, reason: "int() accepts single underscores"},
		{name: "plus", raw: "+8", want: 8},
		{name: "max", raw: "1048576", want: maxConcurrency},
		{name: "zero", raw: "0"},
		{name: "negative", raw: "-4"},
		{name: "word", raw: "four"},
		{name: "fraction", raw: "2.5"},
		{name: "over max", raw: "1048577", reason: "this port's bound"},
		{name: "huge", raw: "99999999999999999999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ParseConcurrency(tt.raw, ConcurrencyEnv)
			if tt.want == 0 {
				assert.EqualError(t, err, "TYPEVET_IMAGE_CONCURRENCY must be a whole number of at least 1", tt.reason)
				return
			}
			require.NoError(t, err, tt.reason)
			assert.Equal(t, tt.want, n)
		})
	}
}

func TestParseRows(t *testing.T) {
	tests := []struct {
		name, raw string
		want      int
		err       string
		reason    string
	}{
		{name: "twenty", raw: "20", want: 20},
		{name: "padded", raw: " 7 ", want: 7},
		{name: "underscore", raw: "1_0", want: 10},
		{name: "zero", raw: "0", err: "TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: 0"},
		{name: "21", raw: " 21 ", err: "TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: 21"},
		{name: "negative", raw: "-3", err: "TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: -3"},
		{name: "text", raw: "two", err: "TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: not a whole number", reason: "the text is not echoed"},
		{name: "blank", raw: "", err: "TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: not a whole number", reason: "typevet crashes on int(\"\")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ParseRows(tt.raw, RowsEnv)
			if tt.err != "" {
				assert.EqualError(t, err, tt.err, tt.reason)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, n)
		})
	}
}

func TestPyInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"7", 7, true}, {" +7\n", 7, true}, {"-3", -3, true}, {"1_000", 1000, true}, {"007", 7, true},
		{"\u30007\u3000", 7, true},
		{"", 0, false}, {"_1", 0, false}, {"1_", 0, false}, {"1__0", 0, false}, {"+-1", 0, false}, {"-_1", 0, false},
		{"1.0", 0, false}, {"0x10", 0, false}, {"٣", 0, false}, {"9223372036854775808", 0, false}, {"1 0", 0, false},
	}
	for _, tt := range tests {
		n, ok := pyInt(tt.in)
		assert.Equal(t, tt.ok, ok, "%q", tt.in)
		assert.Equal(t, tt.want, n, "%q", tt.in)
	}
}

// FuzzParseConcurrency: an accepted value is 1..MaxConcurrency, and a
// refusal never echoes the text.
func FuzzParseConcurrency(f *testing.F) {
	for _, s := range []string{"", " 16 ", "0", "-4", "four", "2.5", "1_6", "+1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n, err := ParseConcurrency(raw, "V")
		if err != nil {
			if err.Error() != "V must be a whole number of at least 1" {
				t.Fatalf("message %q", err)
			}
			return
		}
		if n < 1 || n > maxConcurrency {
			t.Fatalf("ParseConcurrency(%q) = %d", raw, n)
		}
	})
}

// FuzzPyInt checks the Python int() reading of the rows and concurrency
// settings: an accepted text holds only a sign, ASCII digits and single
// inner underscores around its outer space, and means the number strconv
// reads once the underscores are gone; the number's own decimal form is
// always accepted back as the same number.
func FuzzPyInt(f *testing.F) {
	for _, s := range []string{"7", " 16 ", "-4", "1_000", "", "_1", "1__0", "2.5", "four", "+0", "٣", "9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := pyInt(s)
		if !ok {
			if n != 0 {
				t.Fatalf("pyInt(%q) refused but returned %d", s, n)
			}
			return
		}
		body := pytext.Strip(s)
		if strings.Trim(body, "+-0123456789_") != "" {
			t.Fatalf("pyInt(%q) accepted a character outside sign, digits and _", s)
		}
		if strings.Contains(body, "__") {
			t.Fatalf("pyInt(%q) accepted a double underscore", s)
		}
		want, err := strconv.ParseInt(strings.ReplaceAll(body, "_", ""), 10, 64)
		if err != nil || want != n {
			t.Fatalf("pyInt(%q) = %d, strconv says %d, %v", s, n, want, err)
		}
		if back, ok := pyInt(strconv.FormatInt(n, 10)); !ok || back != n {
			t.Fatalf("pyInt(%d) round trip = %d, %v", n, back, ok)
		}
	})
}

func TestParseOrderingsRows(t *testing.T) {
	// typevet's orderings_rows vectors.
	accepted := []struct {
		name, raw string
		want      int
	}{
		{name: "twenty", raw: "20", want: 20},
		{name: "one", raw: "1", want: 1},
		{name: "outer spaces", raw: " 7 ", want: 7},
		{name: "blank", raw: " ", want: 3},
		{name: "empty", raw: "", want: 3},
		{name: "leading zero", raw: "07", want: 7},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOrderingsRows(tt.raw)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	refused := []struct {
		name, raw, reason string
	}{
		{name: "zero", raw: "0"},
		{name: "above 20", raw: "21"},
		{name: "fullwidth digit", raw: "１", reason: "ASCII digits only, though Python's int() accepts it"},
		{name: "negative", raw: "-1"},
		{name: "float", raw: "3.0"},
		{name: "word", raw: "abc"},
		{name: "digits then junk", raw: "007x"},
		{name: "long", raw: "0000000000000000000005", reason: "more than two digits is never 1..20"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseOrderingsRows(tt.raw)
			require.EqualError(t, err, "TYPEVET_CHECK_ORDERINGS_ROWS must be an integer from 1 to 20", tt.reason)
			assert.NotContains(t, err.Error(), strings.TrimSpace(tt.raw)+" ", "value not echoed")
		})
	}
}

// FuzzParseOrderingsRows: an accepted value is 1..20 and its stripped text
// is ASCII digits; a refusal is always the one fixed message, which never
// echoes the value.
func FuzzParseOrderingsRows(f *testing.F) {
	for _, s := range []string{"20", "1", " 7 ", " ", "", "0", "21", "１", "-1", "3.0", "abc", "007x", "\u00a05\u2003"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n, err := ParseOrderingsRows(raw)
		if err != nil {
			if err.Error() != "TYPEVET_CHECK_ORDERINGS_ROWS must be an integer from 1 to 20" {
				t.Fatalf("refusal %q", err)
			}
			return
		}
		if n < 1 || n > 20 {
			t.Fatalf("%q gave %d", raw, n)
		}
		text := strings.TrimFunc(raw, pytext.IsSpace)
		if text == "" {
			if n != DefaultOrderingsRows {
				t.Fatalf("blank %q gave %d", raw, n)
			}
			return
		}
		for _, c := range []byte(text) {
			if c < '0' || c > '9' {
				t.Fatalf("%q accepted with a non-digit", raw)
			}
		}
	})
}
