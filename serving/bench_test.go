package serving

import (
	"fmt"
	"strings"
	"testing"
)

// page500 writes a vLLM-shaped /metrics page of exactly 500 series: three
// latency histograms with 16 bucket edges over three models, nine counters
// over engines and models, gauges, and the cache-config gauge.
func page500(scale float64) string {
	var b strings.Builder
	n := 0
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, format+"\n", args...)
		n++
	}
	edges := []string{"0.005", "0.01", "0.025", "0.05", "0.1", "0.2", "0.3", "0.5", "0.8", "1.0", "1.5", "2.0", "5.0", "10.0", "30.0", "+Inf"}
	for _, h := range []string{E2ELatencyHistogram, QueueTimeHistogram, PrefillTimeHistogram} {
		fmt.Fprintf(&b, "# HELP %s Histogram.\n# TYPE %s histogram\n", h, h)
		for m := range 3 {
			for i, le := range edges {
				line(`%s_bucket{engine="0",le="%s",model_name="model-%d"} %g`, h, le, m, scale*float64(i+1))
			}
			line(`%s_count{engine="0",model_name="model-%d"} %g`, h, m, scale*16)
			line(`%s_sum{engine="0",model_name="model-%d"} %g`, h, m, scale*3.25)
			line(`%s_created{engine="0",model_name="model-%d"} 1.7e9`, h, m)
		}
	}
	var c Counters
	for _, f := range counterFields(&c) {
		fmt.Fprintf(&b, "# TYPE %s counter\n", f.name)
		for m := range 4 {
			line(`%s_total{engine="0",model_name="model-%d"} %g`, f.name, m, scale*float64(100+m))
		}
	}
	line(`vllm:cache_config_info{block_size="16",engine="0",gpu_memory_utilization="0.9"} 1.0`)
	for _, g := range []string{KVCacheUsageGauge, RequestsRunningGauge, RequestsWaitingGauge} {
		line(`%s{engine="0",model_name="model-0"} %g`, g, scale/10)
	}
	for i := 0; n < 500; i++ {
		line(`http_requests_total{handler="/v1/h%d",method="POST",status="2xx"} %d`, i, i)
	}
	return b.String()
}

func TestPage500(t *testing.T) {
	page := page500(1)
	s, err := ParseSnapshot(page)
	if err != nil {
		t.Fatal(err)
	}
	series := 0
	for _, l := range strings.Split(page, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			series++
		}
	}
	if series != 500 {
		t.Fatalf("page has %d series, want 500", series)
	}
	r, err := RunServerDelta(present(page500(1)), present(page500(3)))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Counters.PromptTokens; got != known(2*(100+101+102+103)) {
		t.Errorf("prompt tokens %v", got)
	}
	if !r.E2E.Known || r.E2E.Count != 96 {
		t.Errorf("e2e %+v", r.E2E)
	}
	if v, _ := s.Counter(PromptTokensCounter); v != 406 {
		t.Errorf("snapshot prompt tokens %v", v)
	}
}

// Same readings, same bytes: map order never reaches the output.
func TestRunServerDeltaDeterministic(t *testing.T) {
	before, after := present(page500(1.1)), present(page500(3.7))
	var first []byte
	for i := range 5 {
		r, err := RunServerDelta(before, after)
		if err != nil {
			t.Fatal(err)
		}
		got := indentJSON(t, r)
		if i == 0 {
			first = got
		} else if string(got) != string(first) {
			t.Fatalf("run %d differs:\n%s\n%s", i, got, first)
		}
	}
}

// BenchmarkParseSnapshot500 reads the 500-series page.
func BenchmarkParseSnapshot500(b *testing.B) {
	page := page500(1)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseSnapshot(page); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunServerDelta500(b *testing.B) {
	before, after := present(page500(1)), present(page500(3))
	b.SetBytes(int64(len(before.Text) + len(after.Text)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := RunServerDelta(before, after); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCacheConfig500(b *testing.B) {
	page := page500(1)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, ok := CacheConfig(page); !ok {
			b.Fatal("no cache config")
		}
	}
}
