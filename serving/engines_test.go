package serving

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// engineLabel matches an engine label and the comma after it.
var engineLabel = regexp.MustCompile(`engine="[^"]*",?`)

// onEngine returns the samples of page as engine id of a data-parallel
// vLLM serves them: every sample labelled engine=id (an engine label
// already there is replaced) and its value times scale; comments are
// dropped.
func onEngine(tb testing.TB, page, id string, scale float64) string {
	var out strings.Builder
	for _, line := range strings.Split(page, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cut := strings.LastIndexByte(line, ' ')
		series, value := line[:cut], line[cut+1:]
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			tb.Fatalf("%q: %v", line, err)
		}
		label := `engine="` + id + `"`
		if name, labels, ok := strings.Cut(series, "{"); ok {
			labels = engineLabel.ReplaceAllString(labels, "")
			if labels == "}" {
				series = name + "{" + label + "}"
			} else {
				series = name + "{" + label + "," + labels
			}
		} else {
			series += "{" + label + "}"
		}
		fmt.Fprintf(&out, "%s %s\n", series, strconv.FormatFloat(v*scale, 'g', -1, 64))
	}
	return out.String()
}

// TestDataParallelEnginesPooled: a vLLM data-parallel server behind one
// URL (--data-parallel-size 2) writes both engines' samples on one
// /metrics page. The pages here are the real vLLM page of testdata plus
// the run series of typevet's server-block vector, served by engine 0 and,
// at half the values, by engine 1. RunServerDelta refuses the gauges as
// typevet does; MergeRunDelta records the block that two replicas with
// one engine each, read at their own /metrics, give: counters and
// histograms summed, running and waiting summed, kv_cache_usage_perc the
// mean over the engines.
func TestDataParallelEnginesPooled(t *testing.T) {
	sample := readTestdata(t, "vllm-metrics-sample.txt")
	before := sample + readTestdata(t, "spec61_before.txt")
	after := sample + readTestdata(t, "spec61_after.txt")
	e0b, e0a := onEngine(t, before, "0", 1), onEngine(t, after, "0", 1)
	e1b, e1a := onEngine(t, before, "1", 0.5), onEngine(t, after, "1", 0.5)
	dpBefore, dpAfter := present(e0b+e1b), present(e0a+e1a)

	_, err := RunServerDelta(dpBefore, dpAfter)
	var ee *EngineError
	require.True(t, errors.As(err, &ee), "RunServerDelta keeps typevet's engine refusal: %v", err)

	got, err := MergeRunDelta([]Interval{{Before: dpBefore, After: dpAfter}})
	require.NoError(t, err)
	want, err := MergeRunDelta([]Interval{
		{Replica: "engine0", Before: present(e0b), After: present(e0a)},
		{Replica: "engine1", Before: present(e1b), After: present(e1a)},
	})
	require.NoError(t, err)
	assert.Equal(t, want, got)

	one, err := RunServerDelta(present(e0b), present(e0a))
	require.NoError(t, err)
	require.True(t, one.Counters.PromptTokens.Known && one.E2E.Known && one.PrefixCacheHitRate.Known)
	assert.Equal(t, known(one.Counters.PromptTokens.Number*1.5), got.Counters.PromptTokens)
	assert.Equal(t, one.E2E.Count*3/2, got.E2E.Count)
	assert.Equal(t, one.PrefixCacheHitRate, got.PrefixCacheHitRate, "the same hit rate on both engines")
	assert.Equal(t, known(one.Gauges.NumRequestsRunning.After.Number*1.5), got.Gauges.NumRequestsRunning.After)
	assert.InDelta(t, one.Gauges.KVCacheUsagePerc.After.Number*0.75, got.Gauges.KVCacheUsagePerc.After.Number, 1e-15)

	rg := ReplicaGauges([]Interval{{Before: dpBefore, After: dpAfter}})
	require.Len(t, rg, 1)
	assert.Equal(t, got.Gauges, rg[0].Gauges, "one data-parallel server: its gauges are the pool's")
}
