package backendhttp

import (
	"context"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/typevet/typevet-go/judgment"
)

func TestSnippetRedactsBeforeCut(t *testing.T) {
	key := `sk-"quoted"`
	body := strings.Repeat("a", 495) + key + " tail"
	got := Snippet([]byte(body), judgment.Secrets{Keys: []string{key}})
	if strings.Contains(got, "sk-") || len([]rune(got)) != 500 {
		t.Errorf("snippet %q: the key must be masked before the cut", got[490:])
	}
	escaped := `{"received": "Bearer sk-\"quoted\""}`
	if got := Snippet([]byte(escaped), judgment.Secrets{Keys: []string{key}}); got != `{"received": "Bearer ***"}` {
		t.Errorf("JSON-escaped key: %q", got)
	}
	if got := Snippet([]byte("é\xff"), judgment.Secrets{}); got != "é\uFFFD" {
		t.Errorf("invalid UTF-8: %q", got)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		h    http.Header
		want float64 // NaN = nil
	}{
		{name: "absent", h: http.Header{}, want: math.NaN()},
		{name: "seconds", h: http.Header{"Retry-After": {"7"}}, want: 7},
		{name: "date without Date uses now", h: http.Header{"Retry-After": {"Sun, 29 Nov 2026 12:00:10 GMT"}}, want: 10},
		{name: "bad Date falls back to now", h: http.Header{"Retry-After": {"Sun, 29 Nov 2026 12:00:10 GMT"}, "Date": {"yesterday"}}, want: 10},
		{name: "one year", h: http.Header{"Retry-After": {"31536000"}}, want: 31536000},
		{name: "negative", h: http.Header{"Retry-After": {"-5"}}, want: math.NaN()},
		{name: "empty", h: http.Header{"Retry-After": {""}}, want: math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RetryAfter(tt.h, now)
			if math.IsNaN(tt.want) != (got == nil) || (got != nil && *got != tt.want) {
				t.Errorf("RetryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRateLimitSkipsSentAndAuthorization(t *testing.T) {
	h := http.Header{"X-Ratelimit-Limit": {"10"}, "X-Ratelimit-Mine": {"x"}, "Ratelimit-Policy": {"a", "b"}, "Authorization": {"Bearer k"}}
	got := RateLimit(h, []string{"X-Ratelimit-Mine"})
	want := [][2]string{{"ratelimit-policy", "a, b"}, {"x-ratelimit-limit", "10"}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("RateLimit = %v, want %v", got, want)
	}
}

func TestPythonLiterals(t *testing.T) {
	in := `{"a": NaN, "b": [-Infinity, Infinity], "s": "NaN -Infinity"}`
	out, ok := PythonLiterals([]byte(in))
	want := `{"a": "\u0000py:NaN", "b": ["\u0000py:-Infinity", "\u0000py:Infinity"], "s": "NaN -Infinity"}`
	if !ok || string(out) != want {
		t.Errorf("got %s", out)
	}
	if _, ok := PythonLiterals([]byte(`{"a": "NaN"}`)); ok {
		t.Error("a NaN inside a string is not a literal")
	}
	if out, ok := PythonLiterals([]byte(`{"a": NaN,}`)); ok || string(out) != `{"a": NaN,}` {
		t.Errorf("a body that is not JSON even with the literals is rewritten: %s", out)
	}
}

// The data URI of an image is encoded once per judgment: every call with
// the same image under one WithMedia context returns the same string bytes.
func TestDataURIEncodedOncePerJudgment(t *testing.T) {
	img := judgment.Image{Data: []byte{0x89, 'P', 'N', 'G', 1, 2, 3}, MIMEType: "image/png"}
	ctx := WithMedia(context.Background(), []judgment.Image{img})
	a, b := DataURI(ctx, img), DataURI(ctx, img)
	if a != "data:image/png;base64,iVBORwECAw==" || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Errorf("DataURI = %q; cached = %v", a, unsafe.StringData(a) == unsafe.StringData(b))
	}
	if got := Base64(ctx, img); got != "iVBORwECAw==" {
		t.Errorf("Base64 = %q", got)
	}
	other := judgment.Image{Data: append([]byte(nil), img.Data...), MIMEType: "image/png"}
	if unsafe.StringData(DataURI(ctx, other)) == unsafe.StringData(a) {
		t.Error("a different backing array must not hit the cache")
	}
	allocs := testing.AllocsPerRun(10, func() { DataURI(ctx, img) })
	if allocs != 0 {
		t.Errorf("cached DataURI allocates %v times", allocs)
	}
}
