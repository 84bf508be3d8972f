package judgmenttest

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"slices"
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
	// 16-token blocks. The cached prompt tokens (vllm:prompt_tokens_cached)
	// are the hits.
	PrefixCacheQueries, PrefixCacheHits int
	// MMCacheQueries counts the images of answered requests; MMCacheHits
	// those the server had seen before (vLLM's multimodal processor cache:
	// a check's four questions send one image, three of them hits).
	MMCacheQueries, MMCacheHits int
	// Running is the number of scoring requests in flight now.
	Running int
	// E2ESeconds holds the scripted latency of each answer, in order; the
	// prefill time of each answer is its whole latency (one token is
	// generated) and its queue time 0.
	E2ESeconds []float64
	// NoCacheConfig leaves vllm:cache_config_info out of the page
	// (Server.NoCacheConfig).
	NoCacheConfig bool

	lastPrompt string
	images     map[[32]byte]bool // sha256 of each image seen
}

func (c *MetricCounters) add(model, prompt string, promptTokens int, images [][]byte, delay func(string) time.Duration) {
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
	if c.images == nil {
		c.images = map[[32]byte]bool{}
	}
	for _, im := range images {
		sum := sha256.Sum256(im)
		c.MMCacheQueries++
		if c.images[sum] {
			c.MMCacheHits++
		}
		c.images[sum] = true
	}
	var sec float64
	if delay != nil {
		sec = delay(prompt).Seconds()
	}
	c.E2ESeconds = append(c.E2ESeconds, sec)
}

// requestBuckets are vLLM's bounds of the e2e, queue and prefill latency
// histograms.
var requestBuckets = []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680}

// metricsCreated is the _created time of every counter and histogram of a
// fake page (2026-01-01, fixed so that pages are deterministic).
const metricsCreated = 1767225600

// DefaultCacheConfig are the labels of the fake's vllm:cache_config_info
// gauge besides engine: vLLM's CacheConfig fields as a server with
// prefix caching on and the default block size shows them.
var DefaultCacheConfig = [][2]string{
	{"block_size", "16"}, {"cache_dtype", "auto"}, {"calculate_kv_scales", "False"}, {"cpu_offload_gb", "0"},
	{"enable_prefix_caching", "True"}, {"gpu_memory_utilization", "0.9"}, {"num_gpu_blocks", "4096"},
	{"prefix_caching_hash_algo", "sha256"}, {"sliding_window", "None"}, {"swap_space", "4"},
}

// DefaultMetrics renders c as a vLLM v0.30.0-like /metrics page as
// prometheus_client writes it (text format 0.0.4, counters with the _total
// suffix and a _created sample, labels engine="0" and model_name): every
// series typevet records (the e2e, queue and prefill histograms, the
// prefix and multimodal cache counters, prompt, cached prompt and
// generation tokens, request successes by finished_reason, preemptions,
// the running and waiting requests and KV-cache usage) and, unless
// c.NoCacheConfig, vllm:cache_config_info ([DefaultCacheConfig]).
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
	// created writes the _created gauge prometheus_client writes after
	// each counter and histogram family.
	created := func(name, help string, labels ...string) {
		var lines []string
		for _, ls := range labels {
			lines = append(lines, sample(name+"_created", ls, metricsCreated))
		}
		metric(name+"_created", "gauge", help, lines...)
	}
	counter := func(name, help string, v float64) {
		metric(name+"_total", "counter", help, sample(name+"_total", l, v))
		created(name, help, l)
	}
	histogram := func(name, help string, values []float64) {
		var lines []string
		sum := 0.0
		for _, s := range values {
			sum += s
		}
		for _, le := range requestBuckets {
			n := 0
			for _, s := range values {
				if s <= le {
					n++
				}
			}
			lines = append(lines, sample(name+"_bucket", l+`,le="`+promFloat(le)+`"`, float64(n)))
		}
		lines = append(lines,
			sample(name+"_bucket", l+`,le="+Inf"`, float64(len(values))),
			sample(name+"_count", l, float64(len(values))),
			sample(name+"_sum", l, sum))
		metric(name, "histogram", help, lines...)
		created(name, help, l)
	}
	var cfg strings.Builder
	for i, kv := range append(slices.Clone(DefaultCacheConfig), [2]string{"engine", "0"}) {
		if i > 0 {
			cfg.WriteByte(',')
		}
		fmt.Fprintf(&cfg, "%s=%q", kv[0], kv[1])
	}
	if !c.NoCacheConfig {
		metric("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig",
			"vllm:cache_config_info{"+cfg.String()+"} 1.0")
	}
	metric("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.",
		sample("vllm:num_requests_running", l, float64(c.Running)))
	metric("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.",
		sample("vllm:num_requests_waiting", l, 0))
	metric("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.",
		sample("vllm:kv_cache_usage_perc", l, float64(c.Running)/4))
	counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", float64(c.PrefixCacheQueries))
	counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", float64(c.PrefixCacheHits))
	counter("vllm:mm_cache_queries", "Multi-modal cache queries, in terms of number of queried items.", float64(c.MMCacheQueries))
	counter("vllm:mm_cache_hits", "Multi-modal cache hits, in terms of number of cached items.", float64(c.MMCacheHits))
	counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", 0)
	counter("vllm:prompt_tokens", "Number of prefill tokens processed.", float64(c.PromptTokens))
	counter("vllm:prompt_tokens_cached", "Number of cached prompt tokens (local prefix cache hits).", float64(c.PrefixCacheHits))
	counter("vllm:generation_tokens", "Number of generation tokens processed.", float64(c.GenerationTokens))
	var success, reasons []string
	for _, reason := range []string{"stop", "length", "abort", "error", "repetition"} {
		n := 0
		if reason == "length" {
			n = c.Requests
		}
		lr := fmt.Sprintf(`engine="0",finished_reason=%q,model_name=%q`, reason, c.Model)
		success, reasons = append(success, sample("vllm:request_success_total", lr, float64(n))), append(reasons, lr)
	}
	const successHelp = "Count of successfully processed requests."
	metric("vllm:request_success_total", "counter", successHelp, success...)
	created("vllm:request_success", successHelp, reasons...)
	histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", c.E2ESeconds)
	histogram("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", make([]float64, len(c.E2ESeconds)))
	histogram("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", c.E2ESeconds)
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
