package judgmenttest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MetricCounters are the running counters behind the fake vLLM /metrics
// page. They advance once per answered scoring request, deterministically:
// latencies are the scripted Model.Delay, not wall time.
type MetricCounters struct {
	// Model is the served model id (the model_name label).
	Model string
	// Requests counts answered scoring requests (finished_reason "length").
	Requests int
	// PromptTokens and GenerationTokens sum the usage of those answers.
	PromptTokens, GenerationTokens int
	// PrefixCacheQueries sums prompt tokens; PrefixCacheHits sums the
	// prompt prefix shared with the previous answered prompt, in whole
	// 16-token blocks.
	PrefixCacheQueries, PrefixCacheHits int
	// Running is the number of scoring requests in flight now.
	Running int
	// E2ESeconds holds the scripted latency of each answer, in order.
	E2ESeconds []float64

	lastPrompt string
}

func (c *MetricCounters) add(model, prompt string, promptTokens int, delay func(string) time.Duration) {
	c.Model = model
	c.Requests++
	c.PromptTokens += promptTokens
	c.GenerationTokens++
	c.PrefixCacheQueries += promptTokens
	shared := 0
	for i := 0; i < len(prompt) && i < len(c.lastPrompt) && prompt[i] == c.lastPrompt[i]; i++ {
		shared = i + 1
	}
	shared = utf8.RuneCountInString(prompt[:shared]) / 16 * 16
	c.PrefixCacheHits += min(shared, promptTokens)
	c.lastPrompt = prompt
	var sec float64
	if delay != nil {
		sec = delay(prompt).Seconds()
	}
	c.E2ESeconds = append(c.E2ESeconds, sec)
}

// e2eBuckets are vLLM's e2e latency histogram bounds.
var e2eBuckets = []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680}

// DefaultMetrics renders c as a small vLLM v0.30.0-like /metrics page
// (Prometheus text format 0.0.4, counters with the _total suffix, labels
// engine="0" and model_name).
func DefaultMetrics(c MetricCounters) string {
	var b strings.Builder
	l := fmt.Sprintf(`engine="0",model_name=%q`, c.Model)
	metric := func(name, typ, help string, lines ...string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
		for _, line := range lines {
			b.WriteString(line + "\n")
		}
	}
	sample := func(name, labels string, v float64) string {
		return name + "{" + labels + "} " + promFloat(v)
	}
	metric("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.",
		sample("vllm:num_requests_running", l, float64(c.Running)))
	metric("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.",
		sample("vllm:num_requests_waiting", l, 0))
	metric("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.",
		sample("vllm:kv_cache_usage_perc", l, float64(c.Running)/4))
	metric("vllm:prefix_cache_queries_total", "counter", "Prefix cache queries, in terms of number of queried tokens.",
		sample("vllm:prefix_cache_queries_total", l, float64(c.PrefixCacheQueries)))
	metric("vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in terms of number of cached tokens.",
		sample("vllm:prefix_cache_hits_total", l, float64(c.PrefixCacheHits)))
	metric("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.",
		sample("vllm:prompt_tokens_total", l, float64(c.PromptTokens)))
	metric("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.",
		sample("vllm:generation_tokens_total", l, float64(c.GenerationTokens)))
	metric("vllm:request_success_total", "counter", "Count of successfully processed requests.",
		sample("vllm:request_success_total", `engine="0",finished_reason="length",model_name=`+fmt.Sprintf("%q", c.Model), float64(c.Requests)),
		sample("vllm:request_success_total", `engine="0",finished_reason="stop",model_name=`+fmt.Sprintf("%q", c.Model), 0))
	var lines []string
	sum := 0.0
	for _, s := range c.E2ESeconds {
		sum += s
	}
	for _, le := range e2eBuckets {
		n := 0
		for _, s := range c.E2ESeconds {
			if s <= le {
				n++
			}
		}
		lines = append(lines, sample("vllm:e2e_request_latency_seconds_bucket", l+`,le="`+promFloat(le)+`"`, float64(n)))
	}
	lines = append(lines,
		sample("vllm:e2e_request_latency_seconds_bucket", l+`,le="+Inf"`, float64(len(c.E2ESeconds))),
		sample("vllm:e2e_request_latency_seconds_count", l, float64(len(c.E2ESeconds))),
		sample("vllm:e2e_request_latency_seconds_sum", l, sum))
	metric("vllm:e2e_request_latency_seconds", "histogram", "Histogram of e2e request latency in seconds.", lines...)
	return b.String()
}

func (s *Server) vllmMetrics(x *exchange) {
	c := s.Counters()
	render := s.Metrics
	if render == nil {
		render = DefaultMetrics
	}
	x.raw(http.StatusOK, "text/plain; version=0.0.4; charset=utf-8", []byte(render(c)))
}

// promFloat formats v as prometheus_client does: "100.0", "0.25", "1e-05".
func promFloat(v float64) string {
	t := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(t, ".eIN") {
		t += ".0"
	}
	return t
}
