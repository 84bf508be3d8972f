package serving_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/typevet/typevet-go/serving"
)

func ExampleRunServerDelta() {
	before := serving.Reading{OK: true, Text: `# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{le="1.0",model_name="m"} 1.0
vllm:e2e_request_latency_seconds_bucket{le="+Inf",model_name="m"} 3.0
vllm:e2e_request_latency_seconds_count{model_name="m"} 3.0
vllm:e2e_request_latency_seconds_sum{model_name="m"} 6.0
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 10.0
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 40.0
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.1
`}
	after := serving.Reading{OK: true, Text: `# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{le="1.0",model_name="m"} 5.0
vllm:e2e_request_latency_seconds_bucket{le="+Inf",model_name="m"} 11.0
vllm:e2e_request_latency_seconds_count{model_name="m"} 11.0
vllm:e2e_request_latency_seconds_sum{model_name="m"} 22.0
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 70.0
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 120.0
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.4
`}
	server, err := serving.RunServerDelta(before, after)
	if err != nil {
		fmt.Println(err)
		return
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(server)
	// Output:
	// {
	//   "e2e": {
	//     "count": 8.0,
	//     "sum": 16.0,
	//     "percentile_basis": "bucket_upper_bound",
	//     "p50": 1.0,
	//     "p95": "+Inf",
	//     "p99": "+Inf"
	//   },
	//   "queue": "unknown",
	//   "prefill": "unknown",
	//   "prefix_cache_hit_rate": 0.75,
	//   "counters": {
	//     "prefix_cache_hits": 60.0,
	//     "prefix_cache_queries": 80.0,
	//     "mm_cache_hits": "unknown",
	//     "mm_cache_queries": "unknown",
	//     "prompt_tokens": "unknown",
	//     "prompt_tokens_cached": "unknown",
	//     "generation_tokens": "unknown",
	//     "request_success": "unknown",
	//     "preemptions": "unknown"
	//   },
	//   "gauges": {
	//     "kv_cache_usage_perc": {
	//       "before": 0.1,
	//       "after": 0.4
	//     },
	//     "num_requests_running": {
	//       "before": "unknown",
	//       "after": "unknown"
	//     },
	//     "num_requests_waiting": {
	//       "before": "unknown",
	//       "after": "unknown"
	//     }
	//   }
	// }
}

func ExampleRunServerDelta_engines() {
	after := serving.Reading{OK: true, Text: `vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.4
vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.3
`}
	_, err := serving.RunServerDelta(serving.Reading{}, after)
	fmt.Println(err)
	// Output:
	// gauge vllm:kv_cache_usage_perc carries engine labels ['0', '1']; a sum across engines is not one reading
}

func ExampleServerArgs() {
	before := serving.Reading{} // the read before the run failed
	after := serving.Reading{OK: true, Text: `vllm:cache_config_info{block_size="16",enable_prefix_caching="True",engine="0"} 1.0 1700000000
`}
	cache, _ := serving.FirstCacheConfig(before, after)
	env := map[string]string{serving.ServerArgsEnv: "--max-num-seqs 64"}
	stated := serving.StatedServerArgs(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	b, _ := json.Marshal(serving.ServerArgs(cache, stated))
	fmt.Println(string(b))
	// Output:
	// {"cache_config":{"block_size":"16","enable_prefix_caching":"True","engine":"0"},"cache_config_source":"metrics","caller_stated":"--max-num-seqs 64"}
}
