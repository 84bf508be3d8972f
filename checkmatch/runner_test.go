package checkmatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

// runAnswer is one scripted answer of the runner fixture.
type runAnswer struct {
	verdict         string
	payee, amounts  float64
	legibilityLevel int
}

// runRight is _RIGHT: one right answer per variant, in enum order.
var runRight = []runAnswer{
	{VerdictConsistent, 0.9, 0.9, 4},
	{VerdictPayeeMismatch, 0.1, 0.9, 4},
	{VerdictAmountMismatch, 0.9, 0.2, 4},
	{VerdictAmountMismatch, 0.9, 0.1, 4},
	{VerdictDateMismatch, 0.9, 0.9, 4},
	{VerdictUnsigned, 0.9, 0.9, 3},
	{VerdictCannotTell, 0.8, 0.8, 1},
}

// response builds the fixture's response: the chosen verdict 0.75 and the
// five others 0.05, legibility one-hot at the level, 500 input tokens.
func (a runAnswer) response(model string) judgment.Response {
	var probs judgment.Probabilities
	for _, l := range VerdictLabels {
		p := 0.05
		if l == a.verdict {
			p = 0.75
		}
		probs = append(probs, judgment.Probability{Label: l, P: p})
	}
	leg := make([]float64, LegibilityLevels)
	leg[a.legibilityLevel] = 1
	legend := make([]string, LegibilityLevels)
	for i := range legend {
		legend[i] = fmt.Sprintf("level %d", i)
	}
	tokens := 500
	return judgment.Response{
		Model: model,
		Usage: judgment.Usage{InputTokens: &tokens},
		Answers: []judgment.NamedAnswer{
			{Name: QuestionPayeeMatches, Answer: judgment.NoulAnswer{Noul: a.payee}},
			{Name: QuestionAmountsMatch, Answer: judgment.NoulAnswer{Noul: a.amounts}},
			{Name: QuestionVerdict, Answer: judgment.ChoiceAnswer{Choice: a.verdict, Confidence: 0.75, Probabilities: probs}},
			{Name: QuestionLegibility, Answer: judgment.ScoreAnswer{Score: float64(a.legibilityLevel), Confidence: 1, Legend: legend, Probabilities: leg}},
		},
	}
}

// replayPort answers call i (in arrival order) with fn(i, req).
type replayPort struct {
	mu    sync.Mutex
	reqs  []judgment.Request
	reply func(i int, req judgment.Request) (judgment.Response, error)
}

func (p *replayPort) Judge(_ context.Context, req judgment.Request) (judgment.Response, error) {
	p.mu.Lock()
	i := len(p.reqs)
	p.reqs = append(p.reqs, req)
	p.mu.Unlock()
	return p.reply(i, req)
}

func replay(answers []runAnswer, fail map[int]error) *replayPort {
	return &replayPort{reply: func(i int, req judgment.Request) (judgment.Response, error) {
		if err, ok := fail[i]; ok {
			return judgment.Response{}, err
		}
		return answers[i%len(answers)].response(req.Model), nil
	}}
}

// halfClock advances 0.5 per read, starting at 0.
func halfClock() func() float64 {
	var mu sync.Mutex
	reads := 0
	return func() float64 {
		mu.Lock()
		defer mu.Unlock()
		reads++
		return 0.5 * float64(reads-1)
	}
}

// fixtureRequests are the runner fixture's requests: seed 0, row 0, with
// every image the ASCII text "synthetic check bytes".
func fixtureRequests(t testing.TB) []Request {
	return syntheticSlice(t, 0, 1, func(int) []byte { return []byte("synthetic check bytes") }).Requests
}

// numberedRequests are the concurrency fixture's n requests with image i
// the ASCII text "synthetic image {i:03d}".
func numberedRequests(t testing.TB, n int) []Request {
	rows := (n + VariantsPerRow - 1) / VariantsPerRow
	if rows == 0 {
		rows = 1
	}
	s := syntheticSlice(t, 0, rows, func(i int) []byte { return fmt.Appendf(nil, "synthetic image %03d", i) })
	return s.Requests[:n]
}

func TestRunRight(t *testing.T) {
	port := replay(runRight, nil)
	run, err := Run(context.Background(), port, "fake-model", fixtureRequests(t), RunOptions{Clock: halfClock()})
	require.NoError(t, err)
	require.Len(t, port.reqs, 7)
	for i, r := range port.reqs {
		assert.Len(t, r.Media, 1, "call %d", i)
		assert.Equal(t, "fake-model", r.Model)
	}
	assert.Nil(t, run.Stopped)
	require.Len(t, run.Outcomes, 7)
	o := run.Outcomes[0]
	assert.Equal(t, "r00:clean", o.CaseID)
	assert.Equal(t, VariantClean, o.Variant)
	assert.Equal(t, VerdictConsistent, o.Verdict)
	assert.Equal(t, 0.9, o.PayeeConfidence)
	assert.Equal(t, 4, o.LegibilityLevel)
	assert.Equal(t, "e8df15c53d24103080e91b6bd844997828ec0c79c6e3331b1538250c8ef0c3f3", o.RenderSHA256)
	assert.Equal(t, 0.5, o.Latency)
	require.NotNil(t, o.InputTokens)
	assert.Equal(t, 500, *o.InputTokens)
	rec, err := o.Record()
	require.NoError(t, err)
	assert.True(t, rec.Correct)
	rec1, err := run.Outcomes[1].Record()
	require.NoError(t, err)
	require.NotNil(t, rec1.NoulChoiceAgreement)
	assert.True(t, *rec1.NoulChoiceAgreement)
	// started 0, seven calls of two reads each, final read: wall 7.5.
	assert.Equal(t, 7.5, run.WallSeconds)
	assert.Equal(t, 1, run.Concurrency)
	assert.Nil(t, run.Server)
	assert.Nil(t, run.MetricsReadings)

	m, err := outcomeMetrics(run.Outcomes)
	require.NoError(t, err)
	require.NotNil(t, m.Accuracy)
	assert.Equal(t, 1.0, *m.Accuracy)
	require.NotNil(t, m.MeanLatencySeconds)
	assert.Equal(t, 0.5, *m.MeanLatencySeconds)
}

// TestRunStops covers the runner fixture's two failure rows.
func TestRunStops(t *testing.T) {
	tests := []struct {
		name     string
		fail     map[int]error
		outcomes int
		want     Stopped
	}{
		{
			name:     "first response then TransportError",
			fail:     map[int]error{1: &judgment.TransportError{Msg: "refused"}},
			outcomes: 1,
			want:     Stopped{Index: 1, CaseID: "r00:payee_changed", ErrorClass: "TransportError", Message: "refused"},
		},
		{
			name:     "BackendHttpError at once",
			fail:     map[int]error{0: &judgment.BackendHTTPError{Backend: "llama.cpp", StatusCode: 500, Msg: "HTTP 500", BodySnippet: "boom"}},
			outcomes: 0,
			want:     Stopped{Index: 0, CaseID: "r00:clean", ErrorClass: "BackendHttpError", Message: "HTTP 500"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			port := replay(runRight, tt.fail)
			run, err := Run(context.Background(), port, "fake-model", fixtureRequests(t), RunOptions{Clock: halfClock()})
			require.NoError(t, err)
			assert.Len(t, run.Outcomes, tt.outcomes)
			require.NotNil(t, run.Stopped)
			assert.Equal(t, tt.want, *run.Stopped)
			assert.Len(t, port.reqs, tt.outcomes+1, "the run stops at once")

			r, err := BuildReceipt(run, ReceiptParts{Backend: serving.LlamaCPP, Model: "fake-model"})
			require.NoError(t, err)
			b, err := receipt.Marshal(r)
			require.NoError(t, err)
			assert.Contains(t, string(b), `"error_class": "`+tt.want.ErrorClass+`"`)
			assert.Contains(t, string(b), `"discarded": 0`)
		})
	}
}

func TestRunConcurrencyOption(t *testing.T) {
	port := replay(runRight, nil)
	_, err := Run(context.Background(), port, "m", fixtureRequests(t), RunOptions{Concurrency: -1})
	require.EqualError(t, err, "concurrency must be at least 1, got -1")
	assert.Empty(t, port.reqs)

	run, err := Run(context.Background(), port, "m", fixtureRequests(t), RunOptions{})
	require.NoError(t, err)
	assert.Equal(t, 1, run.Concurrency, "the zero value means one at a time")
}

// TestRunContractErrors: a response without an answer or with an unknown
// verdict label is a bug, not a backend failure: the run is lost.
func TestRunContractErrors(t *testing.T) {
	bad := &replayPort{reply: func(i int, req judgment.Request) (judgment.Response, error) {
		r := runRight[0].response(req.Model)
		r.Answers = r.Answers[:3]
		return r, nil
	}}
	_, err := Run(context.Background(), bad, "m", fixtureRequests(t), RunOptions{})
	var ae *answerError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, QuestionLegibility, ae.Question)

	maybe := replay([]runAnswer{{"maybe", 0.5, 0.5, 2}}, nil)
	_, err = Run(context.Background(), maybe, "m", fixtureRequests(t), RunOptions{})
	var uv *unknownVerdictError
	require.ErrorAs(t, err, &uv)
	assert.Contains(t, err.Error(), "unknown verdict label: maybe")

	boom := errors.New("boom")
	_, err = Run(context.Background(), replay(runRight, map[int]error{2: boom}), "m", fixtureRequests(t), RunOptions{Concurrency: 3})
	assert.ErrorIs(t, err, boom)
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port := &replayPort{reply: func(i int, req judgment.Request) (judgment.Response, error) {
		if i == 1 {
			cancel()
		}
		return runRight[i].response(req.Model), nil
	}}
	run, err := Run(ctx, port, "m", fixtureRequests(t), RunOptions{})
	require.NoError(t, err)
	assert.Len(t, run.Outcomes, 2)
	require.NotNil(t, run.Stopped)
	assert.Equal(t, Stopped{Index: 2, CaseID: "r00:written_amount_changed", ErrorClass: "Canceled",
		Message: "run cancelled: context canceled"}, *run.Stopped)
}

// TestRunCancelledMetricsAfter: after Ctrl-C (ctx cancelled mid-run) the
// after-run /metrics read still gets a live context with a deadline, so the
// server block is the delta over the cases that ran, not all "unknown".
func TestRunCancelledMetricsAfter(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		want    time.Duration
	}{
		{name: "default", want: DefaultMetricsAfterTimeout},
		{name: "explicit", timeout: 3 * time.Second, want: 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			port := &replayPort{reply: func(i int, req judgment.Request) (judgment.Response, error) {
				if i == 0 {
					cancel()
				}
				return runRight[i].response(req.Model), nil
			}}
			type seen struct {
				done        bool
				hasDeadline bool
				left        time.Duration
			}
			var reads []seen
			metrics := func(ctx context.Context) (string, bool) {
				dl, ok := ctx.Deadline()
				reads = append(reads, seen{done: ctx.Err() != nil, hasDeadline: ok, left: time.Until(dl)})
				if len(reads) == 1 {
					return metricsBefore, true
				}
				return metricsAfter, ctx.Err() == nil
			}
			run, err := Run(ctx, port, "m", fixtureRequests(t), RunOptions{Metrics: metrics, MetricsAfterTimeout: tt.timeout})
			require.NoError(t, err)
			require.NotNil(t, run.Stopped)
			require.ErrorIs(t, ctx.Err(), context.Canceled)
			require.Len(t, reads, 2)
			assert.False(t, reads[0].done, "before read: the run had not started")
			assert.False(t, reads[1].done, "after read: the context must outlive the cancelled run")
			require.True(t, reads[1].hasDeadline, "after read: bounded by a timeout")
			assert.InDelta(t, tt.want.Seconds(), reads[1].left.Seconds(), 1, "after read: deadline from MetricsAfterTimeout")
			require.NotNil(t, run.Server)
			assert.Equal(t, serving.Known(1500), run.Server.Counters.PrefixCacheHits, "the delta is known")
		})
	}
}

func TestRunMetricsAfterTimeoutNegative(t *testing.T) {
	called := false
	_, err := Run(context.Background(), replay(runRight, nil), "m", fixtureRequests(t), RunOptions{
		Metrics:             func(context.Context) (string, bool) { called = true; return "", false },
		MetricsAfterTimeout: -time.Second,
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "must not be negative")
	assert.False(t, called, "refused before any read")
}

// TestRunDiscarded: 4 requests at concurrency 4; index 1 fails at once,
// 0, 2 and 3 wait for that, then 3 fails and 0 and 2 succeed. (The
// 8-request form of this vector is in package pool, which can observe the
// pool's collection; with 4 requests nothing is left to submit, so the
// result does not depend on the schedule.)
func TestRunDiscarded(t *testing.T) {
	failed := make(chan struct{})
	port := &replayPort{reply: func(i int, req judgment.Request) (judgment.Response, error) {
		a := runAnswer{VerdictConsistent, 0.5, 0.5, 0}
		switch i := caseIndex(req); i {
		case 1:
			defer close(failed)
			return judgment.Response{}, &judgment.TransportError{Msg: "refused 1"}
		case 3:
			<-failed
			return judgment.Response{}, &judgment.TransportError{Msg: "refused 3"}
		default:
			<-failed
			return a.response(req.Model), nil
		}
	}}
	reqs := numberedRequests(t, 4)
	run, err := Run(context.Background(), port, "m", reqs, RunOptions{Concurrency: 4})
	require.NoError(t, err)
	assert.Len(t, port.reqs, 4)
	require.Len(t, run.Outcomes, 1)
	assert.Equal(t, reqs[0].CaseID(), run.Outcomes[0].CaseID)
	require.NotNil(t, run.Stopped)
	assert.Equal(t, Stopped{Index: 1, CaseID: reqs[1].CaseID(), ErrorClass: "TransportError", Message: "refused 1", Discarded: 2}, *run.Stopped)

	r, err := BuildReceipt(run, ReceiptParts{Backend: serving.VLLM, Model: "m", Pins: Pins{ModelRevision: "rev"}})
	require.NoError(t, err)
	assert.Equal(t, 2, r.Throughput.Discarded)
	assert.Equal(t, 4, r.Throughput.Concurrency)
	assert.Equal(t, 1, r.Throughput.Judgments)
}

// caseIndex finds a numbered request's index from its image text.
func caseIndex(req judgment.Request) int {
	var i int
	fmt.Sscanf(string(req.Media[0].Data), "synthetic image %d", &i)
	return i
}

// scriptClock returns the given values, one per read, then repeats the
// last.
func scriptClock(values ...float64) func() float64 {
	var mu sync.Mutex
	n := 0
	return func() float64 {
		mu.Lock()
		defer mu.Unlock()
		v := values[min(n, len(values)-1)]
		n++
		return v
	}
}

// sequentialClock scripts a one-at-a-time run: start 0, then start and end
// of each call, then the end.
func sequentialClock(latencies []float64) func() float64 {
	values := []float64{0}
	now := 0.0
	for _, l := range latencies {
		values = append(values, now, now+l)
		now += l
	}
	return scriptClock(append(values, now)...)
}

func throughputJSON(t *testing.T, tp *receipt.Throughput) string {
	t.Helper()
	b, err := json.Marshal(tp)
	require.NoError(t, err)
	return string(b)
}

// TestRunThroughput covers typevet's throughput vectors through Run
// and BuildReceipt.
func TestRunThroughput(t *testing.T) {
	perm := make([]float64, 20)
	for i := range perm {
		perm[i] = float64(7*i%20 + 1)
	}
	r20 := 20.0 / 210
	tests := []struct {
		name  string
		n     int
		clock func() float64
		wall  float64
		want  receipt.Throughput
	}{
		{
			name: "20 one at a time, latencies a permutation of 1..20", n: 20,
			clock: sequentialClock(perm), wall: 210,
			want: receipt.Throughput{Concurrency: 1, WallSeconds: 210, Judgments: 20, Images: 20,
				JudgmentsPerSecond: &r20, ImagesPerSecond: &r20,
				LatencySeconds: receipt.LatencySummary{N: 20, P50: ptr(10.0), P95: ptr(19.0), P99: ptr(20.0)}},
		},
		{
			name: "3 of 1 s each", n: 3,
			clock: sequentialClock([]float64{1, 1, 1}), wall: 3,
			want: receipt.Throughput{Concurrency: 1, WallSeconds: 3, Judgments: 3, Images: 3,
				JudgmentsPerSecond: ptr(1.0), ImagesPerSecond: ptr(1.0),
				LatencySeconds: receipt.LatencySummary{N: 3, P50: ptr(1.0), P95: ptr(1.0), P99: ptr(1.0)}},
		},
		{
			name: "empty with a constant clock", n: 0,
			clock: scriptClock(5), wall: 0,
			want: receipt.Throughput{Concurrency: 1, LatencySeconds: receipt.LatencySummary{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			port := replay([]runAnswer{{VerdictConsistent, 0.5, 0.5, 0}}, nil)
			run, err := Run(context.Background(), port, "m", numberedRequests(t, tt.n), RunOptions{Clock: tt.clock})
			require.NoError(t, err)
			r, err := BuildReceipt(run, ReceiptParts{Backend: serving.LlamaCPP, Model: "m"})
			require.NoError(t, err)
			assert.Equal(t, tt.wall, r.WallSeconds)
			assert.Equal(t, throughputJSON(t, &tt.want), throughputJSON(t, r.Throughput))
			assert.Contains(t, throughputJSON(t, r.Throughput), `"server":null`)
		})
	}
}

func ptr[T any](v T) *T { return &v }

const metricsBefore = `vllm:prefix_cache_hits_total{engine="0",model_name="m"} 100
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 400
vllm:prompt_tokens_total{engine="0",model_name="m"} 1000
vllm:generation_tokens_total{engine="0",model_name="m"} 10
vllm:request_success_total{engine="0",finished_reason="stop",model_name="m"} 5
vllm:request_success_total{engine="0",finished_reason="length",model_name="m"} 1
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.0
`

const metricsAfter = `vllm:prefix_cache_hits_total{engine="0",model_name="m"} 1600
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 2400
vllm:prompt_tokens_total{engine="0",model_name="m"} 3000
vllm:generation_tokens_total{engine="0",model_name="m"} 22
vllm:request_success_total{engine="0",finished_reason="stop",model_name="m"} 15
vllm:request_success_total{engine="0",finished_reason="length",model_name="m"} 3
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25
`

// TestRunServerMetrics covers typevet's /metrics vectors: two
// reads, both outside the wall time, and their delta.
func TestRunServerMetrics(t *testing.T) {
	var reads []string
	clockReads := 0
	clock := func() float64 { clockReads++; return float64(clockReads) }
	readsAtClock := []int{}
	metrics := func(context.Context) (string, bool) {
		readsAtClock = append(readsAtClock, clockReads)
		if len(reads) == 0 {
			reads = append(reads, "before")
			return metricsBefore, true
		}
		reads = append(reads, "after")
		return metricsAfter, true
	}
	port := replay([]runAnswer{{VerdictConsistent, 0.5, 0.5, 0}}, nil)
	run, err := Run(context.Background(), port, "m", numberedRequests(t, 2), RunOptions{Clock: clock, Metrics: metrics})
	require.NoError(t, err)
	assert.Equal(t, []string{"before", "after"}, reads)
	assert.Equal(t, []int{0, 6}, readsAtClock, "before: no clock read yet; after: started, 2×2 call reads, end")
	require.NotNil(t, run.Server)
	s := run.Server
	assert.Equal(t, serving.Known(1500), s.Counters.PrefixCacheHits)
	assert.Equal(t, serving.Known(2000), s.Counters.PrefixCacheQueries)
	assert.Equal(t, serving.Known(2000), s.Counters.PromptTokens)
	assert.Equal(t, serving.Known(12), s.Counters.GenerationTokens)
	assert.Equal(t, serving.Known(12), s.Counters.RequestSuccess)
	assert.Equal(t, serving.Known(0.75), s.PrefixCacheHitRate)
	gauge, err := json.Marshal(s.Gauges.KVCacheUsagePerc)
	require.NoError(t, err)
	assert.JSONEq(t, `{"before": 0.0, "after": 0.25}`, string(gauge))
	assert.False(t, s.E2E.Known)
	assert.Equal(t, []serving.Reading{{Text: metricsBefore, OK: true}, {Text: metricsAfter, OK: true}}, run.MetricsReadings)

	r, err := BuildReceipt(run, ReceiptParts{Backend: serving.VLLM, Model: "m", Pins: Pins{ModelRevision: "rev"}})
	require.NoError(t, err)
	assert.Same(t, run.Server, r.Throughput.Server)
	b, err := receipt.Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"e2e": "unknown"`)
}

func TestRunServerMetricsMissing(t *testing.T) {
	port := replay([]runAnswer{{VerdictConsistent, 0.5, 0.5, 0}}, nil)
	run, err := Run(context.Background(), port, "m", numberedRequests(t, 2), RunOptions{
		Metrics: func(context.Context) (string, bool) { return "", false },
	})
	require.NoError(t, err)
	require.NotNil(t, run.Server)
	b, err := json.Marshal(run.Server)
	require.NoError(t, err)
	var block map[string]any
	require.NoError(t, json.Unmarshal(b, &block))
	assert.Equal(t, "unknown", block["prefix_cache_hit_rate"])
	for _, k := range []string{"counters", "gauges"} {
		for name, v := range block[k].(map[string]any) {
			assert.Equal(t, "unknown", v, "%s.%s", k, name)
		}
	}
}

// TestRunServerMetricsEngines: readings of a data-parallel vLLM (gauges
// over several engines), which serving.RunServerDelta refuses as typevet
// does, do not lose the run or its server block: the refusal is a warning
// and the block pools the engines (serving.MergeRunDelta).
func TestRunServerMetricsEngines(t *testing.T) {
	engine1 := func(page string) string {
		return page + strings.ReplaceAll(page, `engine="0"`, `engine="1"`)
	}
	readings := []string{engine1(metricsBefore), engine1(metricsAfter)}
	port := replay([]runAnswer{{VerdictConsistent, 0.5, 0.5, 0}}, nil)
	run, err := Run(context.Background(), port, "m", numberedRequests(t, 1), RunOptions{
		Metrics: func(context.Context) (string, bool) { r := readings[0]; readings = readings[1:]; return r, true },
	})
	require.NoError(t, err)
	require.Len(t, run.Outcomes, 1)
	var ee *serving.EngineError
	require.NotEmpty(t, run.Warnings)
	assert.ErrorAs(t, run.Warnings[0], &ee)
	assert.Equal(t, serving.Known(0.75), run.Server.PrefixCacheHitRate, "(1600-100)/(2400-400) on both engines")
	assert.Equal(t, serving.Known(4000), run.Server.Counters.PromptTokens, "2000 per engine")
	assert.Equal(t, serving.Gauge{Before: serving.Known(0), After: serving.Known(0.25), Present: true}, run.Server.Gauges.KVCacheUsagePerc,
		"the mean over engines")
}

// TestReceiptRight builds the receipt of the _RIGHT run.
func TestReceiptRight(t *testing.T) {
	run, err := Run(context.Background(), replay(runRight, nil), "fake-model", fixtureRequests(t), RunOptions{Clock: halfClock()})
	require.NoError(t, err)
	pins := Pins{GeneratorSeed: 0, Dataset: "d", RegisterRows: 1, VariantsPerRow: VariantsPerRow}
	id := receipt.Identity{RunID: "x"}
	r, err := BuildReceipt(run, ReceiptParts{Backend: serving.LlamaCPP, Model: "fake-model", Pins: pins, Identity: id})
	require.NoError(t, err)
	assert.Equal(t, 316, r.Issue)
	assert.Equal(t, "r00:clean", r.Cases[0].CaseID)
	assert.Equal(t, "r00:payee_changed", r.Cases[1].CaseID)
	assert.Equal(t, pins, r.Pins)
	assert.Equal(t, id, r.Identity)
	assert.Equal(t, 7.5, r.WallSeconds)
	assert.Nil(t, r.Stopped)
	assert.Nil(t, r.ServerArgs)
	b, err := receipt.Marshal(r)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "synthetic check bytes")
	assert.NotContains(t, string(b), "c3ludGhldGlj")
	back, err := ReadReceipt(strings.NewReader(string(b)))
	require.NoError(t, err)
	m, err := back.Recompute()
	require.NoError(t, err)
	assert.Equal(t, r.Metrics.Accuracy, m.Accuracy)
	assert.Equal(t, r.Metrics.Nouls, m.Nouls)
}

func TestReceiptEmptyRun(t *testing.T) {
	r, err := BuildReceipt(RunResult{Concurrency: 1}, ReceiptParts{Backend: serving.LlamaCPP, Model: "m", Pins: Pins{GeneratorSeed: 1}})
	require.NoError(t, err)
	assert.Equal(t, uint64(1), r.Pins.GeneratorSeed)
	assert.NotNil(t, r.Cases)
	assert.Empty(t, r.Cases)
	assert.Equal(t, 0, r.Metrics.Cases)
	assert.Nil(t, r.Metrics.Accuracy)
	assert.Nil(t, r.Throughput.JudgmentsPerSecond)
	b, err := receipt.Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"cases": []`)
}

// TestReceiptModelRevision: a vLLM receipt needs pins.model_revision
// (issue 5 item 7); the other backends carry none.
func TestReceiptModelRevision(t *testing.T) {
	tests := []struct {
		name     string
		backend  serving.Backend
		revision string
		wantErr  error
		reason   string
	}{
		{name: "vllm with revision", backend: serving.VLLM, revision: "842da37"},
		{name: "vllm without revision", backend: serving.VLLM, wantErr: errModelRevisionRequired},
		{name: "vllm blank revision", backend: serving.VLLM, revision: " \t", wantErr: errModelRevisionRequired, reason: "typevet strips the variable; blank is missing"},
		{name: "llama.cpp without revision", backend: serving.LlamaCPP, reason: "model_revision is vLLM only"},
		{name: "fake without revision", backend: "fake"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := BuildReceipt(RunResult{Concurrency: 1}, ReceiptParts{Backend: tt.backend, Model: "m", Pins: Pins{ModelRevision: tt.revision}})
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr, tt.reason)
				assert.Contains(t, err.Error(), "pins.model_revision")
				return
			}
			require.NoError(t, err, tt.reason)
			assert.Equal(t, tt.revision, r.Pins.ModelRevision)
		})
	}
}

// TestWithheldMessage: a stopped message that still holds a key or an auth
// header is withheld; the rest of the record stays.
func TestWithheldMessage(t *testing.T) {
	tests := []struct {
		name    string
		message string
		secrets []string
		withold bool
	}{
		{name: "plain", message: "vLLM HTTP 500: boom", withold: false},
		{name: "authorization", message: `HTTP 401: {"echo": "Authorization: ***"}`, withold: true},
		{name: "upper-case bearer", message: "HTTP 401: BEARER ***", withold: true},
		{name: "bearer without space", message: "HTTP 401: bearer-token missing", withold: false},
		{name: "secret", message: "HTTP 401: got sk-123", secrets: []string{"sk-123"}, withold: true},
		{name: "escaped secret", message: `HTTP 401: got a"b`, secrets: []string{`a"b`}, withold: true},
		{name: "empty secret ignored", message: "HTTP 500", secrets: []string{""}, withold: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := RunResult{Concurrency: 1, Stopped: &Stopped{Index: 0, CaseID: "r00:clean", ErrorClass: "BackendHttpError", Message: tt.message}}
			r, err := BuildReceipt(run, ReceiptParts{Backend: serving.VLLM, Model: "m", Pins: Pins{ModelRevision: "rev"}, Secrets: judgment.Secrets{Keys: tt.secrets}})
			require.NoError(t, err)
			want := tt.message
			if tt.withold {
				want = receipt.WithheldMessage
			}
			assert.Equal(t, want, r.Stopped.Message)
			assert.Equal(t, tt.message, run.Stopped.Message, "the run is not changed")
			assert.Equal(t, "BackendHttpError", r.Stopped.ErrorClass)
			b, err := receipt.Marshal(r)
			require.NoError(t, err)
			assert.NoError(t, receipt.CheckKeyFree(b, judgment.Secrets{Keys: tt.secrets}))
		})
	}
}
