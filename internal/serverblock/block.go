package serverblock

import (
	"encoding/json"
	"fmt"
)

// Histogram is the change of one vLLM latency histogram over a run: the e2e, queue and prefill keys of the server block. Its JSON
// form is the string "unknown" when Known is false, else the object
//
//	{"count": 8.0, "sum": 16.0, "percentile_basis": "bucket_upper_bound",
//	 "p50": 1.0, "p95": "+Inf", "p99": "+Inf"}
//
// in that key order. The zero Histogram is unknown.
type Histogram struct {
	// Known is false when _count or _sum is missing from either reading,
	// the after reading has no bucket, the two readings' le sets differ,
	// an le is not a number (or is NaN or -Inf), a reading is missing,
	// or count or sum is not finite.
	Known bool
	// Count is the change of <base>_count: the requests the run observed.
	Count float64
	// Sum is the change of <base>_sum, in seconds.
	Sum float64
	// PercentileBasis is always "bucket_upper_bound": the percentiles are
	// bucket edges, not exact values.
	PercentileBasis string
	// P50, P95 and P99 are the upper edges of the first bucket (edges in
	// ascending order, +Inf last) whose change of cumulative count is at
	// least ceil(q × Count). Unset (null) when Count ≤ 0 or no bucket
	// qualifies.
	P50, P95, P99 UpperBound
}

// histogramWire is the JSON object of a known Histogram.
type histogramWire struct {
	Count           pyFloat    `json:"count"`
	Sum             pyFloat    `json:"sum"`
	PercentileBasis string     `json:"percentile_basis"`
	P50             UpperBound `json:"p50"`
	P95             UpperBound `json:"p95"`
	P99             UpperBound `json:"p99"`
}

// MarshalJSON writes "unknown" or the object of the type comment.
func (h Histogram) MarshalJSON() ([]byte, error) {
	if !h.Known {
		return []byte(`"unknown"`), nil
	}
	return json.Marshal(histogramWire{pyFloat(h.Count), pyFloat(h.Sum), h.PercentileBasis, h.P50, h.P95, h.P99})
}

// UnmarshalJSON reads "unknown" or the object of the type comment.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	if isUnknown(b) {
		*h = Histogram{}
		return nil
	}
	var w histogramWire
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("serving: histogram must be %q or an object: %w", Unknown, err)
	}
	*h = Histogram{true, float64(w.Count), float64(w.Sum), w.PercentileBasis, w.P50, w.P95, w.P99}
	return nil
}

// Counters holds the change of each vLLM counter over a run: after minus
// before, read with [github.com/typevet/typevet-go/serving.Snapshot.Counter], "unknown" when either reading lacks
// the counter or a reading is missing. Other clients of the same server
// move these counters too. Fields are in JSON key order.
type Counters struct {
	PrefixCacheHits    Value `json:"prefix_cache_hits"`    // vllm:prefix_cache_hits
	PrefixCacheQueries Value `json:"prefix_cache_queries"` // vllm:prefix_cache_queries
	MMCacheHits        Value `json:"mm_cache_hits"`        // vllm:mm_cache_hits
	MMCacheQueries     Value `json:"mm_cache_queries"`     // vllm:mm_cache_queries
	PromptTokens       Value `json:"prompt_tokens"`        // vllm:prompt_tokens
	PromptTokensCached Value `json:"prompt_tokens_cached"` // vllm:prompt_tokens_cached
	GenerationTokens   Value `json:"generation_tokens"`    // vllm:generation_tokens
	RequestSuccess     Value `json:"request_success"`      // vllm:request_success, summed over finished_reason
	Preemptions        Value `json:"preemptions"`          // vllm:num_preemptions
}

// Gauge is one vLLM gauge read before and after a run: point readings, not
// peaks. Its JSON form is {"before": v, "after": v}, each v a number or
// "unknown" when that reading lacks the gauge; or the plain string
// "unknown" when Present is false. The zero Gauge is "unknown".
type Gauge struct {
	// Before is the gauge in the reading taken before the run.
	Before Value
	// After is the gauge in the reading taken after the run.
	After Value
	// Present is false when either whole reading was missing.
	Present bool
}

type gaugeWire struct {
	Before Value `json:"before"`
	After  Value `json:"after"`
}

// MarshalJSON writes "unknown" or {"before": …, "after": …}.
func (g Gauge) MarshalJSON() ([]byte, error) {
	if !g.Present {
		return []byte(`"unknown"`), nil
	}
	return json.Marshal(gaugeWire{g.Before, g.After})
}

// UnmarshalJSON reads "unknown" or {"before": …, "after": …}.
func (g *Gauge) UnmarshalJSON(b []byte) error {
	if isUnknown(b) {
		*g = Gauge{}
		return nil
	}
	var w gaugeWire
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("serving: gauge must be %q or an object: %w", Unknown, err)
	}
	*g = Gauge{Before: w.Before, After: w.After, Present: true}
	return nil
}

// Gauges holds the three vLLM gauges of a run, in JSON key order. Summed
// over model_name; a gauge that carries several engine labels in one
// reading is refused (see [github.com/typevet/typevet-go/serving.EngineError]).
type Gauges struct {
	KVCacheUsagePerc   Gauge `json:"kv_cache_usage_perc"`  // vllm:kv_cache_usage_perc
	NumRequestsRunning Gauge `json:"num_requests_running"` // vllm:num_requests_running
	NumRequestsWaiting Gauge `json:"num_requests_waiting"` // vllm:num_requests_waiting
}

// Delta is the four-key server block of one throughput-sweep level,
// built by [github.com/typevet/typevet-go/serving.ServerDelta]. JSON key order: e2e, queue,
// prefill, prefix_cache_hit_rate.
type Delta struct {
	// E2E is the change of vllm:e2e_request_latency_seconds.
	E2E Histogram `json:"e2e"`
	// Queue is the change of vllm:request_queue_time_seconds.
	Queue Histogram `json:"queue"`
	// Prefill is the change of vllm:request_prefill_time_seconds.
	Prefill Histogram `json:"prefill"`
	// PrefixCacheHitRate is Δ prefix-cache hits / Δ prefix-cache queries;
	// see [github.com/typevet/typevet-go/serving.PrefixCacheHitRate].
	PrefixCacheHitRate Value `json:"prefix_cache_hit_rate"`
	// Warnings says why a present reading counted as missing (a
	// [*github.com/typevet/typevet-go/serving.ReadingError] for a text that is not valid exposition). Not part
	// of the JSON.
	Warnings []error `json:"-"`
}

// RunDelta is the six-key server block of an image run's throughput record,
// built by [github.com/typevet/typevet-go/serving.RunServerDelta]. JSON
// key order: e2e, queue, prefill, prefix_cache_hit_rate, counters, gauges.
type RunDelta struct {
	Delta
	// Counters are the counter changes.
	Counters Counters `json:"counters"`
	// Gauges are the gauges before and after the run.
	Gauges Gauges `json:"gauges"`
}

// isUnknown reports whether b is the JSON string "unknown".
func isUnknown(b []byte) bool {
	var s string
	return len(b) > 0 && b[0] == '"' && json.Unmarshal(b, &s) == nil && s == Unknown
}
