package serving

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/internal/golden"
)

func known(f float64) Value { return Value{Number: f, Known: true} }

func bound(f float64) UpperBound { return UpperBound{Edge: f, Set: true} }

func pair(before, after Value) Gauge { return Gauge{Before: before, After: after, Present: true} }

// typevet's delta vectors: "counter and gauge deltas".
func TestRunServerDeltaSpec61(t *testing.T) {
	r, err := RunServerDelta(present(readTestdata(t, "spec61_before.txt")), present(readTestdata(t, "spec61_after.txt")))
	require.NoError(t, err)
	assert.Empty(t, r.Warnings)
	assert.Equal(t, Counters{
		PrefixCacheHits: known(60), PrefixCacheQueries: known(80), MMCacheHits: known(6),
		MMCacheQueries: known(8), PromptTokens: known(2000), PromptTokensCached: known(1200),
		GenerationTokens: known(8), RequestSuccess: known(8), Preemptions: known(1),
	}, r.Counters)
	assert.Equal(t, Gauges{
		KVCacheUsagePerc:   pair(known(0.1), known(0.4)),
		NumRequestsRunning: pair(known(0), known(3)),
		NumRequestsWaiting: pair(known(0), known(2)),
	}, r.Gauges)
	require.True(t, r.PrefixCacheHitRate.Known)
	assert.InDelta(t, 0.75, r.PrefixCacheHitRate.Number, 1e-12)
	assert.Equal(t, Histogram{Known: true, Count: 8, Sum: 16, PercentileBasis: "bucket_upper_bound",
		P50: bound(1), P95: bound(math.Inf(1)), P99: bound(math.Inf(1))}, r.E2E)
	assert.False(t, r.Queue.Known)
	assert.False(t, r.Prefill.Known)
	golden.Compare(t, "testdata/spec61_run_delta.golden", indentJSON(t, r))
}

// typevet's engine rows (#339, #346) and the merging of engines.
func TestRunServerDeltaEngines(t *testing.T) {
	after := readTestdata(t, "spec61_after.txt")
	before := readTestdata(t, "spec61_before.txt")
	const twoEngines = "gauge vllm:kv_cache_usage_perc carries engine labels ['0', '1']; a sum across engines is not one reading"
	const mixed = "gauge vllm:kv_cache_usage_perc carries engine labels ['(none)', '0']; a sum across engines is not one reading"
	tests := []struct {
		name, reason   string
		before, after  Reading
		wantErr        string
		wantErrEngines []string
		check          func(t *testing.T, r RunDelta)
	}{
		{name: "two engines after", before: present(before),
			after:   present(after + "vllm:kv_cache_usage_perc{engine=\"1\",model_name=\"m\"} 0.3\n"),
			wantErr: twoEngines, wantErrEngines: []string{"0", "1"}},
		{name: "two engines before", before: present(after + "vllm:kv_cache_usage_perc{engine=\"1\",model_name=\"m\"} 0.3\n"),
			after: present(after), wantErr: twoEngines},
		{name: "labelled and unlabelled after", reason: "#346: a sample without engine is its own engine",
			before: present(before), after: present(after + "vllm:kv_cache_usage_perc{model_name=\"m\"} 0.3\n"),
			wantErr: mixed, wantErrEngines: []string{"(none)", "0"}},
		{name: "labelled and unlabelled before", before: present(after + "vllm:kv_cache_usage_perc{model_name=\"m\"} 0.3\n"),
			after: present(after), wantErr: mixed},
		{name: "unlabelled samples sum as one engine",
			before: present("vllm:num_requests_running 1.0\n"),
			after:  present("vllm:num_requests_running{model_name=\"m\"} 2.0\nvllm:num_requests_running{model_name=\"n\"} 3.0\n"),
			check: func(t *testing.T, r RunDelta) {
				assert.Equal(t, pair(known(1), known(5)), r.Gauges.NumRequestsRunning)
			}},
		{name: "one engine sums over other labels", before: present(before),
			after: present(after + "vllm:num_requests_running{engine=\"0\",model_name=\"n\"} 4.0\n"),
			check: func(t *testing.T, r RunDelta) {
				assert.Equal(t, pair(known(0), known(7)), r.Gauges.NumRequestsRunning)
			}},
		{name: "engine swapped between readings", reason: "each reading is checked alone",
			before: present("vllm:kv_cache_usage_perc{engine=\"0\"} 0.1\n"),
			after:  present("vllm:kv_cache_usage_perc{engine=\"1\"} 0.2\n"),
			check: func(t *testing.T, r RunDelta) {
				assert.Equal(t, pair(known(0.1), known(0.2)), r.Gauges.KVCacheUsagePerc)
			}},
		{name: "counters are never checked",
			before: present("vllm:prompt_tokens_total{engine=\"0\"} 1\nvllm:prompt_tokens_total{engine=\"1\"} 2\n"),
			after:  present("vllm:prompt_tokens_total{engine=\"0\"} 5\nvllm:prompt_tokens_total{engine=\"1\"} 6\n"),
			check: func(t *testing.T, r RunDelta) {
				assert.Equal(t, known(8), r.Counters.PromptTokens)
			}},
		{name: "first gauge in code-point order wins", reason: "num_requests_waiting and kv both split: kv sorts first",
			before: present("vllm:num_requests_waiting{engine=\"2\"} 0\nvllm:num_requests_waiting{engine=\"3\"} 0\n" +
				"vllm:kv_cache_usage_perc{engine=\"0\"} 0\nvllm:kv_cache_usage_perc{engine=\"1\"} 0\n"),
			after: present(""), wantErr: twoEngines},
		{name: "refused even when the other reading is missing", before: present(after + "vllm:kv_cache_usage_perc{engine=\"1\"} 0.3\n"),
			wantErr: twoEngines},
		{name: "invalid reading is not checked", reason: "it is no reading; the after reading is still checked",
			before: present("vllm:kv_cache_usage_perc{engine=\"0\"} 0\nvllm:kv_cache_usage_perc{engine=\"1\"} x\n"),
			after:  present(after),
			check: func(t *testing.T, r RunDelta) {
				require.Len(t, r.Warnings, 1)
				assert.Equal(t, Gauge{}, r.Gauges.KVCacheUsagePerc)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := RunServerDelta(tt.before, tt.after)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				var ee *EngineError
				require.True(t, errors.As(err, &ee))
				assert.Equal(t, KVCacheUsageGauge, ee.Gauge)
				if tt.wantErrEngines != nil {
					assert.Equal(t, tt.wantErrEngines, ee.Engines)
				}
				return
			}
			require.NoError(t, err)
			tt.check(t, r)
		})
	}
}

// typevet's delta vectors: "names follow the pin".
func TestNamesFollowPin(t *testing.T) {
	var c Counters
	var names []string
	for _, f := range counterFields(&c) {
		names = append(names, f.name)
	}
	assert.Equal(t, []string{"vllm:prefix_cache_hits", "vllm:prefix_cache_queries", "vllm:mm_cache_hits", "vllm:mm_cache_queries",
		"vllm:prompt_tokens", "vllm:prompt_tokens_cached", "vllm:generation_tokens", "vllm:request_success", "vllm:num_preemptions"}, names)
	var g Gauges
	names = nil
	for _, f := range gaugeFields(&g) {
		names = append(names, f.name)
	}
	assert.Equal(t, []string{"vllm:kv_cache_usage_perc", "vllm:num_requests_running", "vllm:num_requests_waiting"}, names)
	assert.Equal(t, []string{"vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds", "vllm:request_prefill_time_seconds"},
		[]string{E2ELatencyHistogram, QueueTimeHistogram, PrefillTimeHistogram})
	b, err := json.Marshal(Counters{})
	require.NoError(t, err)
	assert.Equal(t, `{"prefix_cache_hits":"unknown","prefix_cache_queries":"unknown","mm_cache_hits":"unknown","mm_cache_queries":"unknown","prompt_tokens":"unknown","prompt_tokens_cached":"unknown","generation_tokens":"unknown","request_success":"unknown","preemptions":"unknown"}`, string(b))
}

// typevet's delta vectors: "absent series, bare names", and counter changes.
func TestCounterChange(t *testing.T) {
	snap := func(text string) Snapshot {
		s, err := ParseSnapshot(text)
		require.NoError(t, err)
		return s
	}
	tests := []struct {
		name, reason  string
		before, after string
		counter       string
		want          Value
	}{
		{name: "bare names", before: "vllm:prompt_tokens 5", after: "vllm:prompt_tokens 9", counter: PromptTokensCounter, want: known(4)},
		{name: "versus empty text", before: "", after: "vllm:prompt_tokens 9", counter: PromptTokensCounter, want: Value{}},
		{name: "total before, bare after", before: "vllm:prompt_tokens_total 1\n", after: "vllm:prompt_tokens 3\n", counter: PromptTokensCounter, want: known(2)},
		{name: "total wins over bare", reason: "_total is read first when both exist",
			before: "vllm:prompt_tokens_total 1\nvllm:prompt_tokens 100\n", after: "vllm:prompt_tokens_total 4\n", counter: PromptTokensCounter, want: known(3)},
		{name: "counter reset gives a negative change", before: "vllm:prompt_tokens_total 10\n", after: "vllm:prompt_tokens_total 4\n", counter: PromptTokensCounter, want: known(-6)},
		{name: "non-finite change is unknown", reason: "JSON has no Infinity",
			before: "vllm:prompt_tokens_total 1\n", after: "vllm:prompt_tokens_total +Inf\n", counter: PromptTokensCounter, want: Value{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, CounterChange(snap(tt.before), snap(tt.after), tt.counter))
		})
	}

	r, err := RunServerDelta(present("vllm:prompt_tokens_total 1\n"), present("vllm:prompt_tokens 3\n"))
	require.NoError(t, err)
	assert.Equal(t, known(2), r.Counters.PromptTokens)
	assert.Equal(t, Value{}, r.Counters.GenerationTokens)
	assert.Equal(t, pair(Value{}, Value{}), r.Gauges.KVCacheUsagePerc)
	b, err := json.Marshal(r.Gauges.KVCacheUsagePerc)
	require.NoError(t, err)
	assert.Equal(t, `{"before":"unknown","after":"unknown"}`, string(b))
}

// typevet's delta vectors: "missing reading" and "failed read".
func TestRunServerDeltaMissingReading(t *testing.T) {
	before := readTestdata(t, "spec61_before.txt")
	for _, tt := range []struct {
		name          string
		before, after Reading
	}{
		{"after missing", present(before), Reading{}},
		{"before missing", Reading{}, present(before)},
		{"both missing", Reading{}, Reading{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := RunServerDelta(tt.before, tt.after)
			require.NoError(t, err)
			assert.Empty(t, r.Warnings)
			b, err := json.Marshal(r)
			require.NoError(t, err)
			assert.Equal(t, `{"e2e":"unknown","queue":"unknown","prefill":"unknown","prefix_cache_hit_rate":"unknown",`+
				`"counters":{"prefix_cache_hits":"unknown","prefix_cache_queries":"unknown","mm_cache_hits":"unknown","mm_cache_queries":"unknown","prompt_tokens":"unknown","prompt_tokens_cached":"unknown","generation_tokens":"unknown","request_success":"unknown","preemptions":"unknown"},`+
				`"gauges":{"kv_cache_usage_perc":"unknown","num_requests_running":"unknown","num_requests_waiting":"unknown"}}`, string(b))
		})
	}
	t.Run("invalid after reading counts as missing", func(t *testing.T) {
		r, err := RunServerDelta(present(before), present("<html><body>502 Bad Gateway</body></html>"))
		require.NoError(t, err)
		require.Len(t, r.Warnings, 1)
		var re *ReadingError
		require.True(t, errors.As(r.Warnings[0], &re))
		assert.Equal(t, "after", re.Reading)
		var pe expfmt.ParseError
		assert.True(t, errors.As(r.Warnings[0], &pe), "the expfmt.ParseError naming the line is reachable")
		assert.Equal(t, Gauge{}, r.Gauges.NumRequestsWaiting)
		assert.Equal(t, Value{}, r.Counters.PromptTokens)
	})
}

// server_delta, the sweep's four keys.
func TestServerDeltaSpec62(t *testing.T) {
	before := readTestdata(t, "spec62_before.txt")
	after := readTestdata(t, "spec62_after.txt")
	unknown4 := Delta{}
	tests := []struct {
		name, reason  string
		before, after Reading
		check         func(t *testing.T, d Delta)
	}{
		{name: "histogram and prefix", before: present(before), after: present(after), check: func(t *testing.T, d Delta) {
			assert.True(t, d.E2E.Known)
			assert.Equal(t, 100.0, d.E2E.Count)
			assert.InDelta(t, 80.0, d.E2E.Sum, 1e-9)
			assert.Equal(t, "bucket_upper_bound", d.E2E.PercentileBasis)
			assert.Equal(t, []UpperBound{bound(0.5), bound(1.0), bound(math.Inf(1))}, []UpperBound{d.E2E.P50, d.E2E.P95, d.E2E.P99})
			assert.False(t, d.Queue.Known)
			assert.False(t, d.Prefill.Known)
			assert.InDelta(t, 0.8, d.PrefixCacheHitRate.Number, 1e-12)
			golden.Compare(t, "testdata/spec62_delta.golden", indentJSON(t, d))
		}},
		{name: "absent text", before: Reading{}, after: present(after), check: func(t *testing.T, d Delta) {
			assert.Equal(t, unknown4, d)
		}},
		{name: "bare counters", before: present("vllm:prefix_cache_hits 1\nvllm:prefix_cache_queries 4\n"),
			after: present("vllm:prefix_cache_hits 4\nvllm:prefix_cache_queries 10\n"), check: func(t *testing.T, d Delta) {
				assert.Equal(t, known(0.5), d.PrefixCacheHitRate)
			}},
		{name: "bare counters with an unparsable line", reason: "documented: typevet skips `x abc`; expfmt refuses the page, so the before reading counts as missing",
			before: present("vllm:prefix_cache_hits 1\nvllm:prefix_cache_queries 4\nx abc\n"),
			after:  present("vllm:prefix_cache_hits 4\nvllm:prefix_cache_queries 10\n"), check: func(t *testing.T, d Delta) {
				assert.Equal(t, Value{}, d.PrefixCacheHitRate)
				require.Len(t, d.Warnings, 1)
				assert.Contains(t, d.Warnings[0].Error(), `line 3: expected float as value, got "abc"`)
			}},
		{name: "same versus same", before: present("vllm:prefix_cache_hits 4\nvllm:prefix_cache_queries 10\n"),
			after: present("vllm:prefix_cache_hits 4\nvllm:prefix_cache_queries 10\n"), check: func(t *testing.T, d Delta) {
				assert.Equal(t, Value{}, d.PrefixCacheHitRate)
			}},
		{name: "empty before", before: present(""), after: present("vllm:prefix_cache_hits 4\nvllm:prefix_cache_queries 10\n"),
			check: func(t *testing.T, d Delta) { assert.Equal(t, Value{}, d.PrefixCacheHitRate) }},
		{name: "bucket mismatch", before: present(before), after: present(strings.Replace(after, `le="0.5"`, `le="0.25"`, 1)),
			check: func(t *testing.T, d Delta) { assert.False(t, d.E2E.Known) }},
		{name: "flat histogram", before: present(before), after: present(before), check: func(t *testing.T, d Delta) {
			assert.Equal(t, Histogram{Known: true, PercentileBasis: "bucket_upper_bound"}, d.E2E)
			b, err := json.Marshal(d.E2E)
			require.NoError(t, err)
			assert.Equal(t, `{"count":0.0,"sum":0.0,"percentile_basis":"bucket_upper_bound","p50":null,"p95":null,"p99":null}`, string(b))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, ServerDelta(tt.before, tt.after)) })
	}
}

// The run delta and typevet's check-match /metrics vector.
func TestRunServerDeltaSpec63(t *testing.T) {
	before, after := present(readTestdata(t, "spec63_before.txt")), present(readTestdata(t, "spec63_after.txt"))
	r, err := RunServerDelta(before, after)
	require.NoError(t, err)
	assert.Equal(t, Counters{PrefixCacheHits: known(1500), PrefixCacheQueries: known(2000), PromptTokens: known(2000),
		GenerationTokens: known(12), RequestSuccess: known(12)}, r.Counters)
	assert.Equal(t, known(0.75), r.PrefixCacheHitRate)
	assert.Equal(t, Gauges{KVCacheUsagePerc: pair(known(0), known(0.25)), NumRequestsRunning: pair(Value{}, Value{}),
		NumRequestsWaiting: pair(Value{}, Value{})}, r.Gauges)
	assert.Equal(t, Histogram{}, r.E2E)
	golden.Compare(t, "testdata/spec63_run_delta.golden", indentJSON(t, r))

	failed, err := RunServerDelta(before, Reading{})
	require.NoError(t, err)
	assert.Equal(t, RunDelta{}, failed)
}

// Histogram changes beyond typevet's vectors.
func TestHistogramChange(t *testing.T) {
	const base = "h"
	tests := []struct {
		name, reason  string
		before, after string
		want          Histogram
	}{
		{name: "missing +Inf bucket", reason: "vLLM's doc page has none; the edges that exist are used",
			before: "h_bucket{le=\"0.5\"} 0\nh_bucket{le=\"1.0\"} 0\nh_count 0\nh_sum 0\n",
			after:  "h_bucket{le=\"0.5\"} 1\nh_bucket{le=\"1.0\"} 3\nh_count 4\nh_sum 2\n",
			want:   Histogram{Known: true, Count: 4, Sum: 2, PercentileBasis: PercentileBasisUpperBound, P50: bound(1.0)}},
		{name: "le spelled differently", reason: "le sets compare as strings: 1.0 and 1 differ",
			before: "h_bucket{le=\"1.0\"} 0\nh_count 0\nh_sum 0\n", after: "h_bucket{le=\"1\"} 1\nh_count 1\nh_sum 1\n"},
		{name: "no bucket after", before: "h_count 0\nh_sum 0\n", after: "h_count 1\nh_sum 1\n"},
		{name: "missing sum", before: "h_bucket{le=\"1\"} 0\nh_count 0\n", after: "h_bucket{le=\"1\"} 1\nh_count 1\nh_sum 1\n"},
		{name: "le not a number", reason: "typevet would raise; we say unknown",
			before: "h_bucket{le=\"abc\"} 0\nh_count 0\nh_sum 0\n", after: "h_bucket{le=\"abc\"} 1\nh_count 1\nh_sum 1\n"},
		{name: "edges sort by value", reason: "10 sorts before 9 as text",
			before: "h_bucket{le=\"10\"} 0\nh_bucket{le=\"9\"} 0\nh_count 0\nh_sum 0\n",
			after:  "h_bucket{le=\"10\"} 10\nh_bucket{le=\"9\"} 9\nh_count 10\nh_sum 50\n",
			want:   Histogram{Known: true, Count: 10, Sum: 50, PercentileBasis: PercentileBasisUpperBound, P50: bound(9), P95: bound(10), P99: bound(10)}},
		{name: "rank is a float ceiling", reason: "0.95·20 = 19 exactly, so a bucket holding 19 of 20 is p95",
			before: "h_bucket{le=\"1\"} 0\nh_bucket{le=\"+Inf\"} 0\nh_count 0\nh_sum 0\n",
			after:  "h_bucket{le=\"1\"} 19\nh_bucket{le=\"+Inf\"} 20\nh_count 20\nh_sum 20\n",
			want:   Histogram{Known: true, Count: 20, Sum: 20, PercentileBasis: PercentileBasisUpperBound, P50: bound(1), P95: bound(1), P99: bound(math.Inf(1))}},
		{name: "infinite count", reason: "JSON has no Infinity: unknown",
			before: "h_bucket{le=\"1\"} 0\nh_count 0\nh_sum 0\n", after: "h_bucket{le=\"1\"} 1\nh_count +Inf\nh_sum 1\n"},
		{name: "typed histogram le is re-spelled", reason: "documented: expfmt reads le as a number; 1 becomes 1.0 in both readings",
			before: "# TYPE h histogram\nh_bucket{le=\"1\"} 0\nh_count 0\nh_sum 0\n",
			after:  "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_count 1\nh_sum 0.5\n",
			want:   Histogram{Known: true, Count: 1, Sum: 0.5, PercentileBasis: PercentileBasisUpperBound, P50: bound(1), P95: bound(1), P99: bound(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := ParseSnapshot(tt.before)
			require.NoError(t, err)
			a, err := ParseSnapshot(tt.after)
			require.NoError(t, err)
			assert.Equal(t, tt.want, HistogramChange(b, a, base))
		})
	}
}

// A typevet receipt's throughput.server object reads into RunDelta and
// writes back byte for byte (compact form).
func TestRunDeltaReadsTypevetReceipt(t *testing.T) {
	var receipt struct {
		Pins struct {
			Server json.RawMessage `json:"server"`
		} `json:"pins"`
		Throughput struct {
			Server json.RawMessage `json:"server"`
		} `json:"throughput"`
	}
	for _, file := range []string{"check_match_vllm_throughput_c4.head.json", "check_match_vllm_throughput_full_c16.head.json"} {
		t.Run(file, func(t *testing.T) {
			require.NoError(t, json.Unmarshal([]byte(readTestdata(t, file)), &receipt))
			var r RunDelta
			require.NoError(t, json.Unmarshal(receipt.Throughput.Server, &r))
			assert.True(t, r.E2E.Known)
			assert.Equal(t, pair(known(0), known(0)), r.Gauges.KVCacheUsagePerc)
			got, err := json.Marshal(r)
			require.NoError(t, err)
			var want bytes.Buffer
			require.NoError(t, json.Compact(&want, receipt.Throughput.Server))
			assert.Equal(t, want.String(), string(got), "Python float spelling and key order survive")

			var e ServerEntry
			require.NoError(t, json.Unmarshal(receipt.Pins.Server, &e))
			assert.Nil(t, e.LlamaCPP)
			got, err = json.Marshal(e)
			require.NoError(t, err)
			want.Reset()
			require.NoError(t, json.Compact(&want, receipt.Pins.Server))
			assert.Equal(t, want.String(), string(got))
		})
	}
	c4 := RunDelta{}
	require.NoError(t, json.Unmarshal([]byte(readTestdata(t, "check_match_vllm_throughput_c4.head.json")), &receipt))
	require.NoError(t, json.Unmarshal(receipt.Throughput.Server, &c4))
	assert.Equal(t, Histogram{Known: true, Count: 252, Sum: 37.07447338104248, PercentileBasis: "bucket_upper_bound",
		P50: bound(0.3), P95: bound(0.5), P99: bound(1.0)}, c4.E2E)
	assert.Equal(t, known(0.5506054110422339), c4.PrefixCacheHitRate)
	assert.Equal(t, known(120827), c4.Counters.PrefixCacheQueries)
}

// The JSON forms of the small types, both ways.
func TestBlockJSON(t *testing.T) {
	tests := []struct {
		name, json string
		into       any
		wantErr    string
	}{
		{name: "value number", json: `0.75`, into: new(Value)},
		{name: "value unknown", json: `"unknown"`, into: new(Value)},
		{name: "value null", json: `null`, into: new(Value), wantErr: `serving: value must be a number or "unknown", got null`},
		{name: "value other string", json: `"n/a"`, into: new(Value), wantErr: `serving: value must be a number or "unknown", got "n/a"`},
		{name: "bound null", json: `null`, into: new(UpperBound)},
		{name: "bound inf", json: `"+Inf"`, into: new(UpperBound)},
		{name: "bound number", json: `2.5`, into: new(UpperBound)},
		{name: "bound other string", json: `"Inf"`, into: new(UpperBound), wantErr: `serving: percentile must be null, "+Inf" or a number, got "Inf"`},
		{name: "histogram unknown", json: `"unknown"`, into: new(Histogram)},
		{name: "histogram object", json: `{"count":1.0,"sum":0.5,"percentile_basis":"bucket_upper_bound","p50":1.0,"p95":"+Inf","p99":null}`, into: new(Histogram)},
		{name: "histogram number", json: `1`, into: new(Histogram), wantErr: "serving: histogram must be"},
		{name: "gauge unknown", json: `"unknown"`, into: new(Gauge)},
		{name: "gauge pair", json: `{"before":"unknown","after":1e-05}`, into: new(Gauge)},
		{name: "gauge bad", json: `[1]`, into: new(Gauge), wantErr: "serving: gauge must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := json.Unmarshal([]byte(tt.json), tt.into)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			got, err := json.Marshal(tt.into)
			require.NoError(t, err)
			assert.Equal(t, tt.json, string(got))
		})
	}
	_, err := json.Marshal(Value{Number: math.NaN(), Known: true})
	assert.ErrorContains(t, err, "not finite")
	assert.Equal(t, Value{}, Known(math.Inf(-1)))
	assert.Equal(t, "1e-05", known(0.00001).String())
	assert.Equal(t, "unknown", Value{}.String())
}
