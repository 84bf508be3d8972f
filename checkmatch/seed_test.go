package checkmatch

import (
	"errors"
	"strings"
	"testing"
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
				var se *seedError
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
