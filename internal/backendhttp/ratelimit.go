package backendhttp

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxRetryAfterSeconds is the largest Retry-After kept (one year); a
// longer one is kept as one year, so that a retry still waits its longest
// back-off, never its shortest.
const MaxRetryAfterSeconds = 31536000

// RetryAfter reads the Retry-After header of an error response:
// delta-seconds (digits only), or an HTTP-date minus the response Date
// header (or now when Date is absent or unparsable), floored at 0 and
// capped at [MaxRetryAfterSeconds]. It returns nil when the header is
// absent, repeated or unparsable. It is recorded, and a retry waits for
// it up to its own cap.
func RetryAfter(h http.Header, now time.Time) *float64 {
	vals := h.Values("Retry-After")
	if len(vals) != 1 {
		return nil
	}
	v := strings.TrimSpace(vals[0])
	var secs float64
	if v != "" && strings.Trim(v, "0123456789") == "" {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil
		}
		secs = n
	} else {
		at, err := http.ParseTime(v)
		if err != nil {
			return nil
		}
		base := now
		if ds := h.Values("Date"); len(ds) == 1 {
			if d, err := http.ParseTime(ds[0]); err == nil {
				base = d
			}
		}
		secs = max(at.Sub(base).Seconds(), 0)
	}
	secs = min(secs, MaxRetryAfterSeconds)
	return &secs
}

// RateLimit returns the response headers whose lower-cased name starts
// with "x-ratelimit-" or "ratelimit-", with lower-cased names and verbatim
// values (repeated fields joined by ", "), sorted by name because Go's
// header map has no wire order. Any header the request sent (sent holds
// canonical names) and Authorization are skipped.
func RateLimit(h http.Header, sent []string) [][2]string {
	var out [][2]string
	for name, vals := range h {
		lower := strings.ToLower(name)
		if !strings.HasPrefix(lower, "x-ratelimit-") && !strings.HasPrefix(lower, "ratelimit-") {
			continue
		}
		if lower == "authorization" || slices.ContainsFunc(sent, func(s string) bool { return strings.EqualFold(s, name) }) {
			continue
		}
		out = append(out, [2]string{lower, strings.Join(vals, ", ")})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out
}
