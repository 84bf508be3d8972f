package serving_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/serving"
)

// page renders the fake vLLM /metrics page after requests answers of
// latency sec each, with running requests in flight.
func page(requests, running int, sec float64) serving.Reading {
	c := judgmenttest.MetricCounters{Model: "m", Requests: requests, PromptTokens: 10 * requests,
		GenerationTokens: requests, PrefixCacheQueries: 10 * requests, PrefixCacheHits: 4 * requests, Running: running}
	for range requests {
		c.E2ESeconds = append(c.E2ESeconds, sec)
	}
	return serving.Reading{Text: judgmenttest.DefaultMetrics(c), OK: true}
}

func at(s int) time.Time { return time.Unix(1_700_000_000+int64(s), 0) }

func marshal(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestMergeRunDeltaOneIntervalIsRunServerDelta(t *testing.T) {
	b, a := page(3, 0, 0.4), page(11, 2, 0.4)
	want, err := serving.RunServerDelta(b, a)
	require.NoError(t, err)
	got, err := serving.MergeRunDelta([]serving.Interval{{Start: at(0), End: at(5), Before: b, After: a}})
	require.NoError(t, err)
	assert.Equal(t, marshal(t, want), marshal(t, got))
}

// TestMergeRunDeltaSumsReplicas: two replicas, each read around the run;
// counters and histograms add up, gauges are the pool's.
func TestMergeRunDeltaSumsReplicas(t *testing.T) {
	got, err := serving.MergeRunDelta([]serving.Interval{
		{Replica: "b", Start: at(0), End: at(9), Before: page(0, 0, 0.4), After: page(5, 1, 0.4)},
		{Replica: "a", Start: at(0), End: at(9), Before: page(2, 0, 1.2), After: page(9, 3, 1.2)},
	})
	require.NoError(t, err)
	assert.Equal(t, 12.0, got.Counters.RequestSuccess.Number)
	assert.Equal(t, 120.0, got.Counters.PromptTokens.Number)
	assert.Equal(t, 12.0, got.E2E.Count)
	assert.InDelta(t, 5*0.4+7*1.2, got.E2E.Sum, 1e-9)
	assert.Equal(t, 1.5, got.E2E.P50.Edge, "5 of 12 at 0.4 s, the rest at 1.2 s: the 6th is in the 1.5 s bucket")
	assert.InDelta(t, 0.4, got.PrefixCacheHitRate.Number, 1e-12)
	assert.Equal(t, 4.0, got.Gauges.NumRequestsRunning.After.Number, "summed over replicas")
	assert.Equal(t, 0.5, got.Gauges.KVCacheUsagePerc.After.Number, "the mean of 0.25 and 0.75")

	per := serving.ReplicaGauges([]serving.Interval{
		{Replica: "b", Start: at(0), End: at(9), Before: page(0, 0, 0.4), After: page(5, 1, 0.4)},
		{Replica: "a", Start: at(0), End: at(9), Before: page(2, 0, 1.2), After: page(9, 3, 1.2)},
	})
	require.Len(t, per, 2)
	assert.Equal(t, "a", per[0].Replica)
	assert.Equal(t, 3.0, per[0].Gauges.NumRequestsRunning.After.Number)
}

// TestMergeRunDeltaJoinsOverlappingIntervals: shards at the same time
// against one server each see the others' requests; apart in time they
// add up without what ran between them.
func TestMergeRunDeltaJoinsOverlappingIntervals(t *testing.T) {
	overlap, err := serving.MergeRunDelta([]serving.Interval{
		{Start: at(0), End: at(10), Before: page(0, 0, 0.4), After: page(8, 0, 0.4)},
		{Start: at(1), End: at(12), Before: page(1, 0, 0.4), After: page(10, 0, 0.4)},
	})
	require.NoError(t, err)
	assert.Equal(t, 10.0, overlap.Counters.RequestSuccess.Number, "earliest before to latest after")
	apart, err := serving.MergeRunDelta([]serving.Interval{
		{Start: at(20), End: at(30), Before: page(13, 0, 0.4), After: page(20, 0, 0.4)},
		{Start: at(0), End: at(10), Before: page(0, 0, 0.4), After: page(5, 0, 0.4)},
	})
	require.NoError(t, err)
	assert.Equal(t, 12.0, apart.Counters.RequestSuccess.Number, "the 8 requests between the shards are another client's")
}

func TestMergeRunDeltaMissingReading(t *testing.T) {
	got, err := serving.MergeRunDelta([]serving.Interval{
		{Replica: "a", Start: at(0), End: at(9), Before: page(0, 0, 0.4), After: page(5, 1, 0.4)},
		{Replica: "b", Start: at(0), End: at(9), Before: serving.Reading{}, After: page(5, 1, 0.4)},
	})
	require.NoError(t, err)
	assert.Equal(t, `"unknown"`, marshal(t, got.E2E))
	assert.False(t, got.Counters.RequestSuccess.Known)
}
