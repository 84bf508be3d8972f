package serving

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const okPage = "vllm:num_requests_running{engine=\"0\"} 2.0\n"

func TestRead(t *testing.T) {
	var redirectTargetHits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/ok/metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte(okPage))
	})
	mux.HandleFunc("/fail/metrics", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "internal error", http.StatusInternalServerError)
	})
	mux.HandleFunc("/redirect/metrics", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ok/metrics", http.StatusFound)
	})
	mux.HandleFunc("/target/metrics", func(w http.ResponseWriter, r *http.Request) {
		redirectTargetHits.Add(1)
		_, _ = w.Write([]byte(okPage))
	})
	mux.HandleFunc("/redirect2/metrics", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/target/metrics", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/html/metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html><body><h1>502 Bad Gateway</h1></body></html>"))
	})
	mux.HandleFunc("/htmlok/metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body>login</body></html>"))
	})
	mux.HandleFunc("/slow/metrics", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	tests := []struct {
		name, reason string
		base         string
		timeout      time.Duration
		wantText     string
		wantOK       bool
	}{
		{name: "200", base: srv.URL + "/ok", wantText: okPage, wantOK: true},
		{name: "trailing slash on the base URL", base: srv.URL + "/ok/", wantText: okPage, wantOK: true},
		{name: "500", base: srv.URL + "/fail"},
		{name: "redirect", reason: "redirects are not followed; a 3xx is no reading (typevet raises instead)", base: srv.URL + "/redirect"},
		{name: "moved permanently", base: srv.URL + "/redirect2"},
		{name: "HTML error page", reason: "typevet raises BackendHttpError; we say no reading", base: srv.URL + "/html"},
		{name: "HTML with 200", reason: "the status decides; the parser later refuses the text", base: srv.URL + "/htmlok",
			wantText: "<html><body>login</body></html>", wantOK: true},
		{name: "timeout", base: srv.URL + "/slow", timeout: 50 * time.Millisecond},
		{name: "bad base URL", base: "http://[::1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			text, ok := Read(ctx, srv.Client(), tt.base)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.wantText, text)
		})
	}
	assert.Zero(t, redirectTargetHits.Load(), "a redirect target must never be fetched")

	t.Run("transport error", func(t *testing.T) {
		closed := httptest.NewServer(http.NotFoundHandler())
		closed.Close()
		text, ok := Read(context.Background(), nil, closed.URL)
		assert.False(t, ok)
		assert.Empty(t, text)
	})
	t.Run("caller's client is not changed", func(t *testing.T) {
		c := srv.Client()
		_, _ = Read(context.Background(), c, srv.URL+"/redirect")
		assert.Nil(t, c.CheckRedirect)
	})
	t.Run("HTML 200 reading counts as missing with a reason", func(t *testing.T) {
		text, ok := Read(context.Background(), srv.Client(), srv.URL+"/htmlok")
		require.True(t, ok)
		d := ServerDelta(present(text), present(okPage))
		require.Len(t, d.Warnings, 1)
		assert.Contains(t, d.Warnings[0].Error(), "before /metrics reading counted as missing")
	})
}

func TestParseSnapshot(t *testing.T) {
	k := func(name string) Key { return Key{Name: name} }
	le := func(name, le string) Key { return Key{Name: name, LE: le, HasLE: true} }
	tests := []struct {
		name, reason string
		text         string
		want         Snapshot // checked key by key when wantAll is false
		wantAll      bool
		wantErr      string
	}{
		{name: "empty", text: "", want: Snapshot{}, wantAll: true},
		{name: "comments only", text: "# HELP x y\n# a plain comment\n\n", want: Snapshot{}, wantAll: true},
		{name: "typevet example", reason: "other labels sum away",
			text: "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\",model_name=\"m\"} 2.0\n" +
				"vllm:request_success_total{engine=\"0\",finished_reason=\"abort\",model_name=\"m\"} 1.0\n",
			want: Snapshot{k("vllm:request_success_total"): 3}, wantAll: true},
		{name: "real vLLM page", text: readTestdata(t, "vllm-metrics-sample.txt"), want: Snapshot{
			k("vllm:num_requests_running"):                         8,
			k("vllm:generation_tokens_total"):                      27453,
			k("vllm:request_success_total"):                        132,
			le("vllm:time_to_first_token_seconds_bucket", "0.001"): 0,
			le("vllm:time_to_first_token_seconds_bucket", "0.1"):   140,
			k("vllm:time_to_first_token_seconds_count"):            140,
			le("vllm:iteration_tokens_total_bucket", "512.0"):      3,
			k("vllm:iteration_tokens_total_sum"):                   0,
			k("http_requests_total"):                               201,
			k("http_request_duration_highr_seconds_count"):         201,
		}},
		{name: "several engines", reason: "counters and histograms sum over engine; gauges are refused later, not here",
			text: "vllm:prompt_tokens_total{engine=\"0\",model_name=\"m\"} 10\n" +
				"vllm:prompt_tokens_total{engine=\"1\",model_name=\"m\"} 32\n" +
				"vllm:kv_cache_usage_perc{engine=\"0\"} 0.25\nvllm:kv_cache_usage_perc{engine=\"1\"} 0.5\n" +
				"# TYPE vllm:e2e_request_latency_seconds histogram\n" +
				"vllm:e2e_request_latency_seconds_bucket{engine=\"0\",le=\"1.0\"} 1\n" +
				"vllm:e2e_request_latency_seconds_bucket{engine=\"0\",le=\"+Inf\"} 2\n" +
				"vllm:e2e_request_latency_seconds_count{engine=\"0\"} 2\n" +
				"vllm:e2e_request_latency_seconds_sum{engine=\"0\"} 1.5\n" +
				"vllm:e2e_request_latency_seconds_bucket{engine=\"1\",le=\"1.0\"} 3\n" +
				"vllm:e2e_request_latency_seconds_bucket{engine=\"1\",le=\"+Inf\"} 3\n" +
				"vllm:e2e_request_latency_seconds_count{engine=\"1\"} 3\n" +
				"vllm:e2e_request_latency_seconds_sum{engine=\"1\"} 0.5\n",
			want: Snapshot{
				k("vllm:prompt_tokens_total"):                         42,
				k("vllm:kv_cache_usage_perc"):                         0.75,
				le("vllm:e2e_request_latency_seconds_bucket", "1.0"):  4,
				le("vllm:e2e_request_latency_seconds_bucket", "+Inf"): 5,
				k("vllm:e2e_request_latency_seconds_count"):           5,
				k("vllm:e2e_request_latency_seconds_sum"):             2,
			}, wantAll: true},
		{name: "integer timestamps ignored", text: "a 1 1700000000000\na{x=\"y\"} 2 -5\n", want: Snapshot{k("a"): 3}, wantAll: true},
		{name: "float timestamp refused", reason: "documented: typevet ignores it; expfmt refuses the page",
			text: "a 1 1.5\n", wantErr: `line 1: expected integer as timestamp, got "1.5"`},
		{name: "created series kept under their own name",
			text: "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\nh_sum 2\nh_created 1.7e9\nc_total 3\nc_created 1.7e9\n",
			want: Snapshot{le("h_bucket", "+Inf"): 1, k("h_count"): 1, k("h_sum"): 2, k("h_created"): 1.7e9, k("c_total"): 3, k("c_created"): 1.7e9}, wantAll: true},
		{name: "typed histogram without +Inf or _count", reason: "only written parts appear",
			text: "# TYPE h histogram\nh_bucket{le=\"0.5\"} 1\nh_sum 2\n",
			want: Snapshot{le("h_bucket", "0.5"): 1, k("h_sum"): 2}, wantAll: true},
		{name: "counter TYPE with _total samples", reason: "the sample name stays as written",
			text: "# TYPE vllm:prompt_tokens counter\nvllm:prompt_tokens_total 5\n",
			want: Snapshot{k("vllm:prompt_tokens_total"): 5}, wantAll: true},
		{name: "counter TYPE with the bare name",
			text: "# TYPE vllm:prompt_tokens counter\nvllm:prompt_tokens 5\n",
			want: Snapshot{k("vllm:prompt_tokens"): 5}, wantAll: true},
		{name: "typed le re-spelled like prometheus_client", reason: "documented: 1 → 1.0, 1000000 → 1e+06",
			text: "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"1000000\"} 2\nh_bucket{le=\"+Inf\"} 3\n",
			want: Snapshot{le("h_bucket", "1.0"): 1, le("h_bucket", "1e+06"): 2, le("h_bucket", "+Inf"): 3}, wantAll: true},
		{name: "untyped le kept as written", text: "h_bucket{le=\"1\"} 1\nh_bucket{le=\"1.0\"} 2\n",
			want: Snapshot{le("h_bucket", "1"): 1, le("h_bucket", "1.0"): 2}, wantAll: true},
		{name: "typed histogram, fractional bucket, no _count", reason: "documented expfmt normalisation: _count 0 appears",
			text: "# TYPE h histogram\nh_bucket{le=\"1\"} 1.5\nh_sum 2\n",
			want: Snapshot{le("h_bucket", "1.0"): 1.5, k("h_count"): 0, k("h_sum"): 2}, wantAll: true},
		{name: "typed histogram, repeated _count", reason: "documented: expfmt keeps the last, typevet would sum",
			text: "# TYPE h histogram\nh_count 1\nh_count 2\nh_bucket{le=\"+Inf\"} 1\nh_bucket{le=\"+Inf\"} 2\n",
			want: Snapshot{le("h_bucket", "+Inf"): 3, k("h_count"): 2}, wantAll: true},
		{name: "typed histogram, negative bucket", text: "# TYPE h histogram\nh_bucket{le=\"1\"} -1\n", wantErr: "negative bucket population"},
		{name: "summary quantiles sum into the base", text: "# TYPE s summary\ns{quantile=\"0.5\"} 1\ns{quantile=\"0.9\"} 2\ns_count 3\ns_sum 4\n",
			want: Snapshot{k("s"): 3, k("s_count"): 3, k("s_sum"): 4}, wantAll: true},
		{name: "brace in a label value", reason: "documented: valid exposition; typevet skips the line",
			text: "a{x=\"}\"} 1\n", want: Snapshot{k("a"): 1}, wantAll: true},
		{name: "duplicate series summed", text: "a 1\na 2\n", want: Snapshot{k("a"): 3}, wantAll: true},
		{name: "special values", text: "a +Inf\nb -Inf\nc NaN\n",
			want: Snapshot{k("a"): math.Inf(1), k("b"): math.Inf(-1)}},
		{name: "CRLF and no final newline", text: "a 1\r\nb 2", want: Snapshot{k("a"): 1, k("b"): 2}, wantAll: true},
		{name: "indented sample", reason: "documented: expfmt reads it; typevet skips it", text: "  a 1\n", want: Snapshot{k("a"): 1}, wantAll: true},
		{name: "quoted UTF-8 name", text: "{\"my.metric\",x=\"1\"} 4\n", want: Snapshot{k("my.metric"): 4}, wantAll: true},
		{name: "unparsable value", reason: "documented: typevet skips the line, expfmt refuses the page",
			text: "a 1\nx abc\n", wantErr: `line 2: expected float as value, got "abc"`},
		{name: "underscore in value", reason: "documented: typevet's float() reads 1000.0, expfmt refuses the page",
			text: "a 1_000\n", wantErr: `expected float as value, got "1_000"`},
		{name: "exemplar", text: "a 1 # {t=\"1\"} 1\n", wantErr: "expected integer as timestamp"},
		{name: "duplicate label name", text: "a{x=\"1\",x=\"2\"} 1\n", wantErr: "duplicate label names"},
		{name: "HTML", text: "<html></html>\n", wantErr: "invalid metric name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSnapshot(tt.text)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				var pe expfmt.ParseError
				assert.True(t, errors.As(err, &pe))
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			if tt.wantAll {
				assert.Equal(t, tt.want, got)
				return
			}
			for key, v := range tt.want {
				assert.Equal(t, v, got[key], "%+v", key)
			}
		})
	}
	t.Run("NaN kept", func(t *testing.T) {
		s, err := ParseSnapshot("c NaN\n")
		require.NoError(t, err)
		v, ok := s.Get("c")
		assert.True(t, ok && math.IsNaN(v))
	})
}

func TestSnapshotCounter(t *testing.T) {
	s := Snapshot{{Name: "a_total"}: 1, {Name: "a"}: 2, {Name: "b"}: 3, {Name: "c_total", LE: "1", HasLE: true}: 4}
	for _, tt := range []struct {
		name   string
		want   float64
		wantOK bool
	}{{"a", 1, true}, {"b", 3, true}, {"c", 0, false}} {
		v, ok := s.Counter(tt.name)
		assert.Equal(t, tt.wantOK, ok, tt.name)
		assert.Equal(t, tt.want, v, tt.name)
	}
}

func TestLEString(t *testing.T) {
	for _, tt := range []struct {
		in   float64
		want string
	}{
		{0.005, "0.005"}, {1, "1.0"}, {2.5, "2.5"}, {8192, "8192.0"}, {999999, "999999.0"},
		{1e6, "1e+06"}, {1234567.5, "1.2345675e+06"}, {1e10, "1e+010"}, {1e16, "1e+16"},
		{math.Inf(1), "+Inf"}, {math.Inf(-1), "-Inf"}, {math.NaN(), "NaN"}, {-1e7, "-10000000.0"}, {1e-5, "1e-05"},
	} {
		assert.Equal(t, tt.want, leString(tt.in), "%v", tt.in)
	}
}

func TestParsePyFloat(t *testing.T) {
	for _, tt := range []struct {
		in     string
		want   float64
		wantOK bool
	}{
		{"1.0", 1, true}, {"-2e3", -2000, true}, {"+Inf", math.Inf(1), true}, {"inf", math.Inf(1), true},
		{"-Infinity", math.Inf(-1), true}, {"1_000", 1000, true}, {"1_0.5", 10.5, true}, {"1e400", math.Inf(1), true},
		{"_1", 0, false}, {"1_", 0, false}, {"1__0", 0, false}, {"0x10", 0, false}, {"abc", 0, false}, {"", 0, false},
	} {
		got, ok := parsePyFloat(tt.in)
		assert.Equal(t, tt.wantOK, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
	f, ok := parsePyFloat("NaN")
	assert.True(t, ok && math.IsNaN(f))
}

// realPage is a /metrics page in the layout vLLM's V1 engine writes: a
// _created series beside each counter and histogram, the cache-config
// gauge with the engine label and a label starting with "_", and every
// finished_reason vLLM writes (stop, length, abort, error, repetition).
const realPage = `# HELP vllm:request_success_total Count of successfully processed requests.
# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0",finished_reason="stop",model_name="m"} 11.0
vllm:request_success_total{engine="0",finished_reason="length",model_name="m"} 3.0
vllm:request_success_total{engine="0",finished_reason="abort",model_name="m"} 2.0
vllm:request_success_total{engine="0",finished_reason="error",model_name="m"} 1.0
vllm:request_success_total{engine="0",finished_reason="repetition",model_name="m"} 0.0
vllm:request_success_created{engine="0",finished_reason="stop",model_name="m"} 1.7617e+09
# HELP vllm:prompt_tokens_total Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{engine="0",model_name="m"} 4096.0
vllm:prompt_tokens_created{engine="0",model_name="m"} 1.7617e+09
# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{_block_size_resolved="True",block_size="16",cache_dtype="auto",engine="0",gpu_memory_utilization="0.9",num_gpu_blocks="4096"} 1.0
# HELP vllm:e2e_request_latency_seconds Histogram of e2e request latency in seconds.
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_sum{engine="0",model_name="m"} 12.5
vllm:e2e_request_latency_seconds_bucket{engine="0",le="0.3",model_name="m"} 2.0
vllm:e2e_request_latency_seconds_bucket{engine="0",le="1.0",model_name="m"} 10.0
vllm:e2e_request_latency_seconds_bucket{engine="0",le="1e+06",model_name="m"} 16.0
vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf",model_name="m"} 17.0
vllm:e2e_request_latency_seconds_count{engine="0",model_name="m"} 17.0
vllm:e2e_request_latency_seconds_created{engine="0",model_name="m"} 1.7617e+09
`

// TestParseSnapshotRealPage reads every sample of [realPage], named as
// written.
func TestParseSnapshotRealPage(t *testing.T) {
	got, err := ParseSnapshot(realPage)
	require.NoError(t, err)
	e2e := "vllm:e2e_request_latency_seconds"
	bucket := func(le string) Key { return Key{Name: e2e + "_bucket", LE: le, HasLE: true} }
	assert.Equal(t, Snapshot{
		{Name: "vllm:request_success_total"}:   17,
		{Name: "vllm:request_success_created"}: 1.7617e9,
		{Name: "vllm:prompt_tokens_total"}:     4096,
		{Name: "vllm:prompt_tokens_created"}:   1.7617e9,
		{Name: "vllm:cache_config_info"}:       1,
		{Name: e2e + "_sum"}:                   12.5,
		bucket("0.3"):                          2,
		bucket("1.0"):                          10,
		bucket("1e+06"):                        16,
		bucket("+Inf"):                         17,
		{Name: e2e + "_count"}:                 17,
		{Name: e2e + "_created"}:               1.7617e9,
	}, got)
	cfg, ok := CacheConfig(realPage)
	require.True(t, ok)
	for name, want := range map[string]string{"engine": "0", "_block_size_resolved": "True", "num_gpu_blocks": "4096"} {
		v, ok := cfg.Get(name)
		assert.True(t, ok && v == want, "cache config label %s = %q, want %q", name, v, want)
	}
}
