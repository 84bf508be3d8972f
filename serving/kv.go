package serving

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// The throughput sweep's in-flight read: it waits up
// to KVWait, polling every KVPoll, for the level's first calls to be sent,
// then reads /metrics once with [ReadKVCacheUsage].
const (
	KVWait = 10 * time.Second      // typevet's KV_WAIT_SECONDS
	KVPoll = 50 * time.Millisecond // typevet's polling step
)

// KVCacheUsage returns the kv_cache_usage of a sweep level from a /metrics
// text taken while calls are in flight: the value of
// the first line that starts with vllm:kv_cache_usage_perc, optionally
// followed by {…} with no } inside, then one or more spaces (not tabs) and
// a value. It is that one line's value, not a sum over engines. Unknown
// when no line matches, when the first matching line's value is not a
// Python float, or when the value is not finite.
//
// This is typevet's regex, not the exposition parser: the read happens
// under load and typevet takes whatever the first line says.
func KVCacheUsage(text string) Value {
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if v, ok := kvLine(line); ok {
			f, ok := parsePyFloat(v)
			if !ok {
				return Value{}
			}
			return Known(f)
		}
	}
	return Value{}
}

// kvLine matches `^vllm:kv_cache_usage_perc(?:\{[^}\n]*\})? +(\S+)` and
// returns the value token.
func kvLine(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, KVCacheUsageGauge)
	if !ok {
		return "", false
	}
	if strings.HasPrefix(rest, "{") {
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return "", false
		}
		rest = rest[end+1:]
	}
	spaces := len(rest) - len(strings.TrimLeft(rest, " "))
	if spaces == 0 {
		return "", false
	}
	value := nonSpacePrefix(rest[spaces:])
	return value, value != ""
}

// ReadKVCacheUsage makes one GET /metrics and returns [KVCacheUsage] of the
// body. Like typevet it does not look at the status, so an error page
// simply holds no matching line; a transport error or a done ctx gives
// unknown. Redirects are not followed.
func ReadKVCacheUsage(ctx context.Context, client *http.Client, baseURL string) Value {
	_, body, err := get(ctx, client, baseURL, MetricsPath)
	if err != nil {
		return Value{}
	}
	return KVCacheUsage(string(body))
}
