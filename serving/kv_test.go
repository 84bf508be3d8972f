package serving

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The KV-cache usage read and typevet's mock /metrics line.
func TestKVCacheUsage(t *testing.T) {
	tests := []struct {
		name, reason string
		text         string
		want         Value
	}{
		{name: "sweep mock line", text: "vllm:kv_cache_usage_perc{e=\"0\"} 0.25\n", want: known(0.25)},
		{name: "no labels", text: "vllm:kv_cache_usage_perc 0.5", want: known(0.5)},
		{name: "first line wins, not a sum", text: "vllm:kv_cache_usage_perc{engine=\"0\"} 0.25\nvllm:kv_cache_usage_perc{engine=\"1\"} 0.5\n", want: known(0.25)},
		{name: "tab is not a space", reason: "typevet's pattern needs spaces", text: "vllm:kv_cache_usage_perc\t0.5\n"},
		{name: "tab line skipped, next line read", text: "vllm:kv_cache_usage_perc\t0.5\nvllm:kv_cache_usage_perc 0.75\n", want: known(0.75)},
		{name: "brace in a label skips the line", text: "vllm:kv_cache_usage_perc{a=\"}\"} 0.5\nvllm:kv_cache_usage_perc 0.1\n", want: known(0.1)},
		{name: "first matching value unparsable", reason: "unknown, no later line is tried", text: "vllm:kv_cache_usage_perc x\nvllm:kv_cache_usage_perc 0.1\n"},
		{name: "longer name does not match", text: "vllm:kv_cache_usage_perc_extra 0.5\n"},
		{name: "indented line does not match", text: " vllm:kv_cache_usage_perc 0.5\n"},
		{name: "timestamp ignored", text: "vllm:kv_cache_usage_perc 0.5 1700000000\n", want: known(0.5)},
		{name: "CRLF", text: "a 1\r\nvllm:kv_cache_usage_perc 0.5\r\n", want: known(0.5)},
		{name: "python float", text: "vllm:kv_cache_usage_perc 1_0.5\n", want: known(10.5)},
		{name: "not finite", reason: "JSON has no NaN", text: "vllm:kv_cache_usage_perc NaN\n"},
		{name: "none", text: "vllm:num_requests_running 1\n"},
		{name: "empty", text: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, KVCacheUsage(tt.text)) })
	}
}

func TestReadKVCacheUsage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok/metrics":
			_, _ = w.Write([]byte("vllm:kv_cache_usage_perc{engine=\"0\"} 0.25\n"))
		case "/500/metrics":
			w.WriteHeader(500)
			_, _ = w.Write([]byte("vllm:kv_cache_usage_perc{engine=\"0\"} 0.5\n"))
		case "/slow/metrics":
			<-r.Context().Done()
		default:
			http.Error(w, "not json", 500)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	assert.Equal(t, known(0.25), ReadKVCacheUsage(ctx, srv.Client(), srv.URL+"/ok"))
	assert.Equal(t, known(0.5), ReadKVCacheUsage(ctx, srv.Client(), srv.URL+"/500"), "typevet does not look at the status")
	assert.Equal(t, Value{}, ReadKVCacheUsage(ctx, srv.Client(), srv.URL+"/other"))
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	assert.Equal(t, Value{}, ReadKVCacheUsage(short, srv.Client(), srv.URL+"/slow"))
	assert.Equal(t, 10*time.Second, KVWait)
	assert.Equal(t, 50*time.Millisecond, KVPoll)
}
