package main

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzPyInt checks the Python int() reading of TYPEVET_CHECK_MATCH_ROWS and
// TYPEVET_IMAGE_CONCURRENCY: an accepted text holds only a sign, ASCII
// digits and single inner underscores around its outer space, and means the
// number strconv reads once the underscores are gone; the number's own
// decimal form is always accepted back as the same number.
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
		body := strings.TrimSpace(s)
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
