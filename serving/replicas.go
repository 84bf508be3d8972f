package serving

import (
	"cmp"
	"maps"
	"slices"
	"time"
)

// Interval is one replica's /metrics readings around one stretch of
// judging: a shard of a run, or a whole run, on one replica.
type Interval struct {
	// Replica names the replica whose /metrics was read (its metrics URL,
	// or "" when one base URL was read); intervals of the same replica are
	// combined in time, different replicas are summed.
	Replica string
	// Start and End are when Before and After were read.
	Start, End time.Time
	// Before and After are the readings.
	Before, After Reading
}

// MergeRunDelta returns the six-key server block ([RunDelta]) of judging
// spread over several stretches and replicas, with the keys and meaning of
// [RunServerDelta]'s block; for one interval it is exactly
// [RunServerDelta] of its two readings.
//
// Per replica, intervals that overlap in time (shards judging at once
// against the same server) are joined into one, from the earliest Before
// to the latest After, since each of their readings already counts the
// others' requests; intervals apart in time are kept apart, so requests
// between them (another client) are not counted. Counters and histograms
// are then the sums of the changes over all joined intervals of all
// replicas (a summed bucket change gives the percentiles). Gauges are point
// readings: per replica, the before value of its first interval and the
// after value of its last; over replicas, num_requests_running and
// num_requests_waiting are summed and kv_cache_usage_perc is the mean.
// Each replica's own gauges are in [ReplicaGauges].
//
// The engines of a vLLM data-parallel server (--data-parallel-size)
// behind one URL are replicas too: one /metrics page labels each engine's
// samples engine="0", engine="1", …, so counters and histograms already
// hold the sum over engines, and a gauge carrying several engine labels,
// which [RunServerDelta] refuses as typevet does (typevet #339, #346), is
// pooled as replicas are: running and waiting summed over engines,
// kv_cache_usage_perc the mean over every engine of every replica (a
// sample without an engine label is an engine of its own). Readings that
// RunServerDelta accepts give its values.
//
// A missing or invalid reading makes the whole block "unknown", as in
// RunServerDelta (reasons in Warnings).
func MergeRunDelta(intervals []Interval) (RunDelta, error) {
	type joined struct {
		before, after parsed
	}
	var warnings []error
	var all []joined
	firstLast := map[string][2]parsed{}
	missing := len(intervals) == 0
	for _, rep := range replicaGroups(intervals) {
		var cur *Interval
		var spans []Interval
		for _, iv := range rep {
			if cur != nil && iv.Start.Before(cur.End) {
				if iv.End.After(cur.End) {
					cur.End, cur.After = iv.End, iv.After
				}
				continue
			}
			spans = append(spans, iv)
			cur = &spans[len(spans)-1]
		}
		for k, sp := range spans {
			b, a, w := snapshots(sp.Before, sp.After, true)
			warnings = append(warnings, w...)
			if b.snap == nil || a.snap == nil {
				missing = true
			}
			all = append(all, joined{b, a})
			fl := firstLast[sp.Replica]
			if k == 0 {
				fl[0] = b
			}
			fl[1] = a
			firstLast[sp.Replica] = fl
		}
	}
	r := RunDelta{}
	r.Warnings = warnings
	if missing {
		return r, nil
	}
	sumB, sumA := Snapshot{}, Snapshot{}
	for _, j := range all {
		for k, v := range j.before.snap {
			sumB[k] += v
		}
		for k, v := range j.after.snap {
			sumA[k] += v
		}
	}
	r.Delta = delta(sumB, sumA)
	r.Warnings = warnings
	for _, f := range counterFields(&r.Counters) {
		*f.v = CounterChange(sumB, sumA, f.name)
	}
	// Replicas in name order, so that the gauges' sums are the same
	// floating-point sums on every run.
	names := slices.Sorted(maps.Keys(firstLast))
	var firsts, lasts []parsed
	for _, n := range names {
		firsts, lasts = append(firsts, firstLast[n][0]), append(lasts, firstLast[n][1])
	}
	for _, f := range gaugeFields(&r.Gauges) {
		*f.v = Gauge{Before: pooledGauge(firsts, f.name), After: pooledGauge(lasts, f.name), Present: true}
	}
	return r, nil
}

// pooledGauge returns gauge name over the engines of every reading:
// the sum, or for kv_cache_usage_perc the mean over engines; unknown when
// a reading lacks it.
func pooledGauge(readings []parsed, name string) Value {
	var sum float64
	var engines int
	for _, p := range readings {
		v, n := p.gauge(name)
		if n == 0 {
			return Value{}
		}
		sum, engines = sum+v, engines+n
	}
	if name == KVCacheUsageGauge {
		return divValue(Known(sum), engines)
	}
	return Known(sum)
}

// ReplicaGauge is one replica's gauges over a run (its first reading's
// before and its last reading's after, pooled over the replica's engines
// as [MergeRunDelta] pools them), for a document beside the receipt:
// typevet's server block has one gauges object, which [MergeRunDelta]
// fills with the pool's sums.
type ReplicaGauge struct {
	// Replica is the replica's name ([Interval].Replica).
	Replica string `json:"replica"`
	// Gauges are its gauges, with the JSON form of the server block's.
	Gauges Gauges `json:"gauges"`
}

// ReplicaGauges returns each replica's gauges in replica name order.
func ReplicaGauges(intervals []Interval) []ReplicaGauge {
	var out []ReplicaGauge
	for _, rep := range replicaGroups(intervals) {
		last := rep[0]
		for _, iv := range rep {
			if iv.End.After(last.End) {
				last = iv
			}
		}
		b, _, _ := snapshots(rep[0].Before, Reading{}, true)
		_, a, _ := snapshots(Reading{}, last.After, true)
		g := ReplicaGauge{Replica: rep[0].Replica}
		for _, f := range gaugeFields(&g.Gauges) {
			if b.snap != nil && a.snap != nil {
				*f.v = Gauge{Before: pooledGauge([]parsed{b}, f.name), After: pooledGauge([]parsed{a}, f.name), Present: true}
			}
		}
		out = append(out, g)
	}
	return out
}

// replicaGroups groups intervals by replica, in name order, each group
// sorted by start time (stable).
func replicaGroups(intervals []Interval) [][]Interval {
	byName := map[string][]Interval{}
	for _, iv := range intervals {
		byName[iv.Replica] = append(byName[iv.Replica], iv)
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([][]Interval, len(names))
	for i, n := range names {
		g := byName[n]
		slices.SortStableFunc(g, func(a, b Interval) int { return cmp.Compare(a.Start.UnixNano(), b.Start.UnixNano()) })
		out[i] = g
	}
	return out
}

func divValue(a Value, n int) Value {
	if !a.Known || n == 0 {
		return Value{}
	}
	return Known(a.Number / float64(n))
}
