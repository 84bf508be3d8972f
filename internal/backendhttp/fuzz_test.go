package backendhttp

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzRetryAfter feeds arbitrary Retry-After and Date values to
// RetryAfter. Invariant: the result is nil or a finite number of seconds
// in [0, MaxRetryAfterSeconds]; a repeated header is nil; delta-seconds
// (digits only) are read exactly and do not depend on Date or now.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range [][2]string{
		{"120", ""}, {"0", ""}, {"31536000", ""}, {"31536001", ""}, {"99999999999999999999999999", ""}, {" 7 ", ""},
		{"-1", ""}, {"1.5", ""}, {"", ""}, {"Wed, 21 Oct 2015 07:28:00 GMT", "Wed, 21 Oct 2015 07:27:00 GMT"},
		{"Wed, 21 Oct 2015 07:28:00 GMT", "garbage"}, {"Sunday, 06-Nov-94 08:49:37 GMT", ""}, {"Sun Nov  6 08:49:37 1994", ""},
	} {
		f.Add(s[0], s[1], false, int64(1445412480))
	}
	f.Add("5", "", true, int64(0))
	f.Fuzz(func(t *testing.T, value, date string, repeat bool, nowUnix int64) {
		h := http.Header{}
		h.Add("Retry-After", value)
		if repeat {
			h.Add("Retry-After", value)
		}
		if date != "" {
			h.Add("Date", date)
		}
		got := RetryAfter(h, time.Unix(nowUnix, 0))
		if got == nil {
			return
		}
		if repeat {
			t.Fatalf("repeated Retry-After %q read as %v, want nil", value, *got)
		}
		if s := *got; math.IsNaN(s) || s < 0 || s > MaxRetryAfterSeconds {
			t.Fatalf("Retry-After %q (Date %q) = %v, want nil or in [0, %d]", value, date, s, MaxRetryAfterSeconds)
		}
		v := strings.TrimSpace(value)
		if v != "" && strings.Trim(v, "0123456789") == "" {
			want, _ := strconv.ParseFloat(v, 64)
			if *got != min(want, MaxRetryAfterSeconds) {
				t.Fatalf("delta-seconds %q = %v, want %v", value, *got, want)
			}
			if other := RetryAfter(http.Header{"Retry-After": {value}}, time.Unix(nowUnix+1e6, 0)); other == nil || *other != *got {
				t.Fatalf("delta-seconds %q depend on Date or now: %v then %v", value, *got, other)
			}
		}
	})
}

// FuzzRateLimit feeds headers with arbitrary names and values, in canonical
// and raw map keys, to RateLimit. Invariant: every name returned is lower
// case with an x-ratelimit- or ratelimit- prefix, is never authorization
// nor a name the request sent, names come sorted, and every other
// rate-limit header is returned with its values joined by ", ".
func FuzzRateLimit(f *testing.F) {
	f.Add("X-RateLimit-Remaining", "10", "ratelimit-reset", "5", "X-Ratelimit-Remaining")
	f.Add("RateLimit-Policy", "100;w=60", "x-ratelimit-limit", "a, b", "x-ratelimit-limit")
	f.Add("Authorization", "Bearer sk-x", "x-ratelimit-", "", "")
	f.Add("x-ratelimit-a", "1", "X-RATELIMIT-A", "2", "X-Other")
	f.Fuzz(func(t *testing.T, name1, value1, name2, value2, sentName string) {
		h := http.Header{}
		h.Add(name1, value1)                // canonical key
		h[name2] = append(h[name2], value2) // raw key, as a proxy may leave it
		h.Add("Authorization", "Bearer sk-secret")
		sent := []string{http.CanonicalHeaderKey(sentName), "Authorization"}
		got := RateLimit(h, sent)

		want := 0
		for name := range h {
			lower := strings.ToLower(name)
			if (strings.HasPrefix(lower, "x-ratelimit-") || strings.HasPrefix(lower, "ratelimit-")) &&
				!slices.ContainsFunc(sent, func(s string) bool { return strings.EqualFold(s, name) }) {
				want++
			}
		}
		if len(got) != want {
			t.Fatalf("RateLimit(%v, %q) = %q, want %d pairs", h, sent, got, want)
		}
		for i, kv := range got {
			name := kv[0]
			if name != strings.ToLower(name) || !strings.HasPrefix(name, "x-ratelimit-") && !strings.HasPrefix(name, "ratelimit-") {
				t.Fatalf("returned %q, not a lower-case rate-limit name", name)
			}
			if name == "authorization" || slices.ContainsFunc(sent, func(s string) bool { return strings.EqualFold(s, name) }) {
				t.Fatalf("returned %q, a header the request sent", name)
			}
			if i > 0 && got[i-1][0] > name {
				t.Fatalf("names not sorted: %q", got)
			}
			var joined []string
			for k, vals := range h {
				if strings.ToLower(k) == name {
					joined = append(joined, strings.Join(vals, ", "))
				}
			}
			if !slices.Contains(joined, kv[1]) {
				t.Fatalf("%s = %q, want one of %q", name, kv[1], joined)
			}
		}
	})
}
