package serving

import (
	"cmp"
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
// A reading refused by the engine check of [RunServerDelta] is an error;
// a missing or invalid reading makes the whole block "unknown", as in
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
			for _, p := range []parsed{b, a} {
				if err := p.engineError(); err != nil {
					return RunDelta{}, err
				}
			}
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
	for _, f := range gaugeFields(&r.Gauges) {
		before, after := Known(0), Known(0)
		for _, fl := range firstLast {
			before = addValue(before, gaugeValue(fl[0].snap, f.name))
			after = addValue(after, gaugeValue(fl[1].snap, f.name))
		}
		if f.name == KVCacheUsageGauge {
			before, after = divValue(before, len(firstLast)), divValue(after, len(firstLast))
		}
		*f.v = Gauge{Before: before, After: after, Present: true}
	}
	return r, nil
}

// ReplicaGauge is one replica's gauges over a run (its first reading's
// before and its last reading's after), for a document beside the receipt:
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
		b, _, _ := snapshots(rep[0].Before, Reading{}, false)
		_, a, _ := snapshots(Reading{}, last.After, false)
		g := ReplicaGauge{Replica: rep[0].Replica}
		for _, f := range gaugeFields(&g.Gauges) {
			if b.snap != nil && a.snap != nil {
				*f.v = Gauge{Before: gaugeValue(b.snap, f.name), After: gaugeValue(a.snap, f.name), Present: true}
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

func addValue(a, b Value) Value {
	if !a.Known || !b.Known {
		return Value{}
	}
	return Known(a.Number + b.Number)
}

func divValue(a Value, n int) Value {
	if !a.Known || n == 0 {
		return Value{}
	}
	return Known(a.Number / float64(n))
}
