package serverblock_test

import (
	"encoding/json"
	"fmt"

	"github.com/typevet/typevet-go/internal/serverblock"
)

// A block whose e2e histogram and prefix-cache hit rate are known: every
// other value is "unknown" (the zero value), in typevet's key order.
func ExampleRunDelta() {
	var d serverblock.RunDelta
	d.PrefixCacheHitRate = serverblock.Known(0.75)
	d.E2E = serverblock.Histogram{Known: true, Count: 8, Sum: 16, PercentileBasis: "bucket_upper_bound",
		P50: serverblock.UpperBound{Edge: 1, Set: true}}
	b, err := json.Marshal(d)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
	// Output:
	// {"e2e":{"count":8.0,"sum":16.0,"percentile_basis":"bucket_upper_bound","p50":1.0,"p95":null,"p99":null},"queue":"unknown","prefill":"unknown","prefix_cache_hit_rate":0.75,"counters":{"prefix_cache_hits":"unknown","prefix_cache_queries":"unknown","mm_cache_hits":"unknown","mm_cache_queries":"unknown","prompt_tokens":"unknown","prompt_tokens_cached":"unknown","generation_tokens":"unknown","request_success":"unknown","preemptions":"unknown"},"gauges":{"kv_cache_usage_perc":"unknown","num_requests_running":"unknown","num_requests_waiting":"unknown"}}
}
