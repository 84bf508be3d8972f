// Package serving reads what a vLLM or llama.cpp server did during a run
// and how it was configured, and builds the receipt blocks that record it:
// the server block of the throughput record, the server_args block and the
// pins.server entry. The blocks are typed structs whose JSON encodings keep
// typevet's key order, so receipts written here read back in typevet's
// tools and typevet's receipts unmarshal into these types.
//
// # Readings and snapshots
//
// [Read] makes one GET /metrics and returns its text, or no reading for any
// failure or status other than 200. A [Reading] carries the text or its
// absence. [ParseSnapshot] parses the text with the Prometheus exposition
// parser (expfmt) into a [Snapshot]: each (sample name, le) pair summed
// over every other label. A text that is not valid exposition is no
// reading, and the reason travels in the block's Warnings.
//
// # Blocks
//
//   - [RunServerDelta] → [RunDelta], the image run's server block: e2e,
//     queue and prefill [Histogram] changes, prefix_cache_hit_rate, nine
//     [Counters] and three [Gauges]. It refuses a gauge that carries
//     several engine labels ([EngineError]).
//   - [ServerDelta] → [Delta], the sweep level's four-key block.
//   - [CacheConfig], [FirstCacheConfig], [StatedServerArgs] and [ServerArgs]
//     → [ServerArgsBlock], the server_args block.
//   - [ReadServerEntry] → [ServerEntry], pins.server.
//   - [KVCacheUsage] and [ReadKVCacheUsage], the sweep's in-flight KV read.
//
// Where a reading or a series is missing, typevet writes the string
// "unknown" in place of a number; [Value], [Histogram] and [Gauge] carry
// that choice in their zero values, and [UpperBound] carries a percentile
// that is null, a number or "+Inf". Numbers are written the way Python
// writes floats (252.0, 1e-05), so the bytes match typevet's receipts.
//
// # Example block
//
// A run that served eight requests, five of them within one second:
//
//	{"e2e": {"count": 8.0, "sum": 16.0, "percentile_basis": "bucket_upper_bound",
//	         "p50": 1.0, "p95": "+Inf", "p99": "+Inf"},
//	 "queue": "unknown", "prefill": "unknown", "prefix_cache_hit_rate": 0.75,
//	 "counters": {"prefix_cache_hits": 60.0, …, "preemptions": 1.0},
//	 "gauges": {"kv_cache_usage_perc": {"before": 0.1, "after": 0.4}, …}}
//
// The behaviour is typevet's serving_metrics module and its tests.
package serving
