package serving

import (
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/typevet/typevet-go/internal/serverblock"
)

// vLLM metric names (vLLM v0.30.0, vllm/v1/metrics/loggers.py). Counter
// names are given without the _total suffix that prometheus_client adds;
// see [Snapshot.Counter].
const (
	E2ELatencyHistogram  = "vllm:e2e_request_latency_seconds"
	QueueTimeHistogram   = "vllm:request_queue_time_seconds"
	PrefillTimeHistogram = "vllm:request_prefill_time_seconds"

	PrefixCacheHitsCounter    = "vllm:prefix_cache_hits"
	PrefixCacheQueriesCounter = "vllm:prefix_cache_queries"
	MMCacheHitsCounter        = "vllm:mm_cache_hits"
	MMCacheQueriesCounter     = "vllm:mm_cache_queries"
	PromptTokensCounter       = "vllm:prompt_tokens"
	PromptTokensCachedCounter = "vllm:prompt_tokens_cached"
	GenerationTokensCounter   = "vllm:generation_tokens"
	RequestSuccessCounter     = "vllm:request_success"
	PreemptionsCounter        = "vllm:num_preemptions"

	KVCacheUsageGauge         = "vllm:kv_cache_usage_perc"
	RequestsRunningGauge      = "vllm:num_requests_running"
	RequestsWaitingGauge      = "vllm:num_requests_waiting"
	PercentileBasisUpperBound = "bucket_upper_bound"
)

// Quantiles are the histogram percentiles of a [Histogram], in key order
// p50, p95, p99.
var Quantiles = [3]float64{0.5, 0.95, 0.99}

// Histogram is the change of one vLLM latency histogram over a run: the
// e2e, queue and prefill keys of the server block. Its JSON form is the
// string "unknown" when Known is false, else the object
//
//	{"count": 8.0, "sum": 16.0, "percentile_basis": "bucket_upper_bound",
//	 "p50": 1.0, "p95": "+Inf", "p99": "+Inf"}
//
// in that key order. The zero Histogram is unknown. [HistogramChange]
// builds it; the percentiles are bucket upper edges ([UpperBound]).
type Histogram = serverblock.Histogram

// Counters holds the change of each vLLM counter over a run (prefix and
// multimodal cache hits and queries, prompt, cached prompt and generation
// tokens, request successes, preemptions): after minus before, read with
// [Snapshot.Counter], "unknown" when either reading lacks the counter or a
// reading is missing. Fields are in JSON key order.
type Counters = serverblock.Counters

// Gauge is one vLLM gauge read before and after a run: point readings, not
// peaks. Its JSON form is {"before": v, "after": v}, or the plain string
// "unknown" when Present is false. The zero Gauge is "unknown".
type Gauge = serverblock.Gauge

// Gauges holds the three vLLM gauges of a run, in JSON key order. Summed
// over model_name; a gauge that carries several engine labels in one
// reading is refused (see [EngineError]).
type Gauges = serverblock.Gauges

// Delta is the four-key server block of one throughput-sweep level, built
// by [ServerDelta]. JSON key order: e2e, queue, prefill,
// prefix_cache_hit_rate ([PrefixCacheHitRate]).
type Delta = serverblock.Delta

// RunDelta is the six-key server block of an image run's throughput record
// (receipt.Throughput.Server), built by [RunServerDelta] and
// [MergeRunDelta]. JSON key order: e2e, queue, prefill,
// prefix_cache_hit_rate, counters, gauges.
type RunDelta = serverblock.RunDelta

// counterFields pairs each counter name with its field, in key order.
func counterFields(c *Counters) [9]struct {
	name string
	v    *Value
} {
	return [9]struct {
		name string
		v    *Value
	}{
		{PrefixCacheHitsCounter, &c.PrefixCacheHits},
		{PrefixCacheQueriesCounter, &c.PrefixCacheQueries},
		{MMCacheHitsCounter, &c.MMCacheHits},
		{MMCacheQueriesCounter, &c.MMCacheQueries},
		{PromptTokensCounter, &c.PromptTokens},
		{PromptTokensCachedCounter, &c.PromptTokensCached},
		{GenerationTokensCounter, &c.GenerationTokens},
		{RequestSuccessCounter, &c.RequestSuccess},
		{PreemptionsCounter, &c.Preemptions},
	}
}

// gaugeFields pairs each gauge name with its field, in key order.
func gaugeFields(g *Gauges) [3]struct {
	name string
	v    *Gauge
} {
	return [3]struct {
		name string
		v    *Gauge
	}{
		{KVCacheUsageGauge, &g.KVCacheUsagePerc},
		{RequestsRunningGauge, &g.NumRequestsRunning},
		{RequestsWaitingGauge, &g.NumRequestsWaiting},
	}
}

// HistogramChange returns the change of histogram base between two
// snapshots.
func HistogramChange(before, after Snapshot, base string) Histogram {
	bCount, ok1 := before.Get(base + "_count")
	bSum, ok2 := before.Get(base + "_sum")
	aCount, ok3 := after.Get(base + "_count")
	aSum, ok4 := after.Get(base + "_sum")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return Histogram{}
	}
	bEdges, aEdges := bucketEdges(before, base), bucketEdges(after, base)
	if len(aEdges) == 0 || !slices.Equal(bEdges, aEdges) {
		return Histogram{}
	}
	type edge struct {
		le    string
		bound float64
	}
	edges := make([]edge, len(aEdges))
	for i, le := range aEdges {
		f := math.Inf(1)
		if le != "+Inf" {
			var ok bool
			if f, ok = parsePyFloat(le); !ok || math.IsNaN(f) || math.IsInf(f, -1) {
				return Histogram{}
			}
		}
		edges[i] = edge{le, f}
	}
	sort.SliceStable(edges, func(i, j int) bool { return edges[i].bound < edges[j].bound })
	h := Histogram{
		Known:           true,
		Count:           aCount - bCount,
		Sum:             aSum - bSum,
		PercentileBasis: PercentileBasisUpperBound,
	}
	if !Known(h.Count).Known || !Known(h.Sum).Known {
		return Histogram{}
	}
	for i, p := range []*UpperBound{&h.P50, &h.P95, &h.P99} {
		if h.Count <= 0 {
			break
		}
		rank := math.Ceil(Quantiles[i] * h.Count)
		for _, e := range edges {
			k := Key{Name: base + "_bucket", LE: e.le, HasLE: true}
			if after[k]-before[k] >= rank {
				*p = UpperBound{Edge: e.bound, Set: true}
				break
			}
		}
	}
	return h
}

// bucketEdges returns the sorted le strings of base's buckets in s.
func bucketEdges(s Snapshot, base string) []string {
	var les []string
	for k := range s {
		if k.HasLE && k.Name == base+"_bucket" {
			les = append(les, k.LE)
		}
	}
	slices.Sort(les)
	return les
}

// CounterChange returns after − before of counter name (without _total),
// each read with [Snapshot.Counter]; unknown when either lacks it. The two
// snapshots may spell the counter differently (x_total before, x after).
func CounterChange(before, after Snapshot, name string) Value {
	b, ok1 := before.Counter(name)
	a, ok2 := after.Counter(name)
	if !ok1 || !ok2 {
		return Value{}
	}
	return Known(a - b)
}

// PrefixCacheHitRate returns Δ vllm:prefix_cache_hits / Δ
// vllm:prefix_cache_queries between two snapshots; unknown when any of
// the four values is missing or the queries did not grow (no query ran, or
// the counter was reset).
func PrefixCacheHitRate(before, after Snapshot) Value {
	hb, ok1 := before.Counter(PrefixCacheHitsCounter)
	ha, ok2 := after.Counter(PrefixCacheHitsCounter)
	qb, ok3 := before.Counter(PrefixCacheQueriesCounter)
	qa, ok4 := after.Counter(PrefixCacheQueriesCounter)
	if !ok1 || !ok2 || !ok3 || !ok4 || !(qa > qb) {
		return Value{}
	}
	return Known((ha - hb) / (qa - qb))
}

// ServerDelta returns the four-key server block of a sweep level from the
// readings before and after it. A missing reading, or
// one that is not valid exposition text (see [ParseSnapshot]; the reason
// is in Warnings), makes every key "unknown". No engine check is made.
func ServerDelta(before, after Reading) Delta {
	b, a, warnings := snapshots(before, after, false)
	d := delta(b.snap, a.snap)
	d.Warnings = warnings
	return d
}

// RunServerDelta returns the six-key server block of an image run from the
// readings taken before and after it.
//
// Each present reading that parses is first checked on its own, before then
// after (an invalid text is no reading and is not checked): a
// gauge whose samples carry more than one engine label value (a missing
// label counts as its own engine) is refused with an [*EngineError]. Then
// a missing or invalid reading (reason in Warnings) makes every histogram
// and the hit rate "unknown", and counters and gauges map every key to the
// string "unknown"; otherwise counters hold their changes and gauges their
// before and after values.
func RunServerDelta(before, after Reading) (RunDelta, error) {
	b, a, warnings := snapshots(before, after, true)
	for _, p := range []parsed{b, a} {
		if err := p.engineError(); err != nil {
			return RunDelta{}, err
		}
	}
	r := RunDelta{Delta: delta(b.snap, a.snap)}
	r.Warnings = warnings
	if b.snap == nil || a.snap == nil {
		return r, nil // zero Counters and Gauges are all "unknown"
	}
	for _, f := range counterFields(&r.Counters) {
		*f.v = CounterChange(b.snap, a.snap, f.name)
	}
	for _, f := range gaugeFields(&r.Gauges) {
		*f.v = Gauge{Before: gaugeValue(b.snap, f.name), After: gaugeValue(a.snap, f.name), Present: true}
	}
	return r, nil
}

func gaugeValue(s Snapshot, name string) Value {
	v, ok := s.Get(name)
	if !ok {
		return Value{}
	}
	return Known(v)
}

// delta builds the four keys; a nil snapshot is a missing reading.
func delta(b, a Snapshot) Delta {
	if b == nil || a == nil {
		return Delta{}
	}
	return Delta{
		E2E:                HistogramChange(b, a, E2ELatencyHistogram),
		Queue:              HistogramChange(b, a, QueueTimeHistogram),
		Prefill:            HistogramChange(b, a, PrefillTimeHistogram),
		PrefixCacheHitRate: PrefixCacheHitRate(b, a),
	}
}

// parsed is one reading after parsing: its snapshot (nil when missing or
// invalid) and, when asked for, the engine ids of each gauge.
type parsed struct {
	snap    Snapshot
	engines map[string]map[string]float64 // gauge name -> engine id -> value
}

// gauge returns a gauge of the reading pooled over its engines (vLLM
// --data-parallel-size labels each engine's samples): the sum over
// engines, and the number of engines (1 for a reading without engine
// labels, 0 when the gauge is missing). Within an engine samples are
// summed over the other labels, as [Snapshot.Get] sums them. For a
// reading of one engine the sum is that engine's value.
func (p parsed) gauge(name string) (sum float64, engines int) {
	ids := p.engines[name]
	for _, id := range slices.Sorted(maps.Keys(ids)) { // one sum order on every run
		sum += ids[id]
	}
	return sum, len(ids)
}

// noEngine stands for a gauge sample without an engine label, spelled as
// typevet's message spells it.
const noEngine = "(none)"

// snapshots parses both readings, collecting engine ids when engines is set.
func snapshots(before, after Reading, engines bool) (b, a parsed, warnings []error) {
	parse := func(which string, r Reading) parsed {
		if !r.OK {
			return parsed{}
		}
		p := parsed{snap: Snapshot{}}
		if engines {
			p.engines = map[string]map[string]float64{}
		}
		err := eachSample(r.Text, func(s sample) {
			p.snap[s.key] += s.value
			if !engines {
				return
			}
			switch s.key.Name {
			case KVCacheUsageGauge, RequestsRunningGauge, RequestsWaitingGauge:
				id := noEngine
				if s.hasEngine {
					id = s.engine
				}
				if p.engines[s.key.Name] == nil {
					p.engines[s.key.Name] = map[string]float64{}
				}
				p.engines[s.key.Name][id] += s.value
			}
		})
		if err != nil {
			warnings = append(warnings, &ReadingError{Reading: which, Err: err})
			return parsed{}
		}
		return p
	}
	b = parse("before", before)
	a = parse("after", after)
	return b, a, warnings
}

// engineError returns the refusal for the first gauge, in name order, that
// carries more than one engine id.
func (p parsed) engineError() error {
	for _, name := range []string{KVCacheUsageGauge, RequestsRunningGauge, RequestsWaitingGauge} { // sorted
		ids := p.engines[name]
		if len(ids) > 1 {
			list := make([]string, 0, len(ids))
			for id := range ids {
				list = append(list, id)
			}
			slices.Sort(list)
			return &EngineError{Gauge: name, Engines: list}
		}
	}
	return nil
}
