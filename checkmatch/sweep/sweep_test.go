package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/typevet/typevet-go/internal/golden"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/judgment/fake"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/serving"
)

// vllmSession opens a vLLM session on srv.
func vllmSession(t *testing.T, srv *judgmenttest.Server) *backend.Session {
	t.Helper()
	env := map[string]string{
		"TYPEVET_BACKEND":        "vllm",
		"TYPEVET_VLLM__BASE_URL": srv.URL,
		"TYPEVET_VLLM__MODEL":    judgmenttest.DefaultModelID,
	}
	s, err := backend.SettingsFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	require.NoError(t, err)
	sess, err := backend.Open(context.Background(), s, "")
	require.NoError(t, err)
	t.Cleanup(func() { sess.Close() })
	return sess
}

// sweepOptions reads /metrics and the in-flight KV value from sess.
func sweepOptions(sess *backend.Session, levels []int, stated *string) Options {
	return Options{
		Levels: levels,
		Metrics: func(ctx context.Context) (string, bool) {
			return serving.Read(ctx, sess.HTTPClient, sess.BaseURL)
		},
		KVCacheUsage: func(ctx context.Context) serving.Value {
			return serving.ReadKVCacheUsage(ctx, sess.HTTPClient, sess.BaseURL)
		},
		CallerStated: stated,
	}
}

func TestSweepAgainstVLLM(t *testing.T) {
	reqs := testSlice(t).Requests
	srv := judgmenttest.NewUnstartedVLLM(&judgmenttest.Model{Delay: func(string) time.Duration { return 5 * time.Millisecond }})
	var reads atomic.Int64
	srv.NoCacheConfig = true
	srv.Metrics = func(c judgmenttest.MetricCounters) string {
		n := reads.Add(1)
		text := judgmenttest.DefaultMetrics(c)
		if n >= 4 { // from the second level's first read on
			text += fmt.Sprintf("vllm:cache_config_info{block_size=\"%d\",engine=\"0\"} 1.0\n", n)
		}
		return text
	}
	srv.Start()
	t.Cleanup(srv.Close)
	sess := vllmSession(t, srv)
	stated := "--max-num-seqs 64"

	res, err := Run(context.Background(), sess.Port, sess.Model, reqs, sweepOptions(sess, []int{1, 4, 16}, &stated))
	require.NoError(t, err)
	require.Len(t, res.Levels, 3)
	assert.EqualValues(t, 9, reads.Load(), "three /metrics reads per level: before, in flight, after")
	assert.Equal(t, 4*7*3, srv.Count("/v1/chat/completions"), "4 scoring calls per case, 7 cases, 3 levels")

	for i, want := range []int{1, 4, 16} {
		lv := res.Levels[i]
		assert.Equal(t, want, lv.Concurrency)
		assert.Equal(t, want, lv.Throughput.Concurrency)
		assert.Equal(t, 7, lv.Throughput.Judgments)
		assert.Equal(t, 7, lv.Throughput.Images)
		assert.Nil(t, lv.Stopped)
		require.NotNil(t, lv.Throughput.JudgmentsPerSecond)
		require.NotNil(t, lv.Server, "the four-key delta")
		require.True(t, lv.Server.E2E.Known, "e2e histogram of the level")
		assert.Equal(t, 28.0, lv.Server.E2E.Count, "the level's own 28 scoring requests")
		require.NotNil(t, lv.Throughput.Server, "the run's full server block stays in the throughput block")
		assert.Equal(t, 28.0, lv.Throughput.Server.Counters.RequestSuccess.Number)
		require.NotNil(t, lv.KVCacheUsage)
		assert.True(t, lv.KVCacheUsage.Known, "level %d: the fake serves vllm:kv_cache_usage_perc", want)
		b, err := json.Marshal(lv)
		require.NoError(t, err)
		golden.InOrder(t, string(b), `"concurrency"`, `"throughput"`, `"server":{"e2e"`, `"queue"`, `"prefill"`, `"prefix_cache_hit_rate"`, `"kv_cache_usage"`, `"stopped":null`)
	}

	// The sweep rule: level 1's readings lack the gauge; level 4's before
	// reading (read 4) holds it and wins; level 16 never overwrites it.
	assert.Nil(t, res.LevelServerArgs[0].CacheConfig)
	require.NotNil(t, res.ServerArgs.CacheConfig)
	assert.Equal(t, serving.Labels{{Name: "block_size", Value: "4"}, {Name: "engine", Value: "0"}}, res.ServerArgs.CacheConfig)
	assert.Equal(t, res.ServerArgs, res.LevelServerArgs[1])
	assert.Equal(t, res.ServerArgs, res.LevelServerArgs[2])
	require.NotNil(t, res.ServerArgs.CallerStated)
	assert.Equal(t, stated, *res.ServerArgs.CallerStated)
	assert.Equal(t, "metrics", res.ServerArgs.CacheConfigSource)
}

// The in-flight read comes while the level runs: with 4 slow calls in
// flight, the fake's KV gauge (running/4) reads above zero.
func TestSweepKVReadInFlight(t *testing.T) {
	reqs := testSlice(t).Requests
	srv := judgmenttest.NewVLLM(&judgmenttest.Model{Delay: func(string) time.Duration { return 150 * time.Millisecond }})
	t.Cleanup(srv.Close)
	sess := vllmSession(t, srv)
	var started atomic.Int64
	port := judgment.PortFunc(func(ctx context.Context, req judgment.Request) (judgment.Response, error) {
		started.Add(1)
		return sess.Port.Judge(ctx, req)
	})
	opts := sweepOptions(sess, []int{4}, nil)
	read := opts.KVCacheUsage
	var startedAtRead int64
	opts.KVCacheUsage = func(ctx context.Context) serving.Value {
		startedAtRead = started.Load()
		// The sweep reads once 4 judgments were sent; on a loaded machine
		// none of their calls may have reached the fake yet. A read after
		// the level ended would wait here in vain and find 0.
		for end := time.Now().Add(10 * time.Second); srv.Counters().Running == 0 && time.Now().Before(end); {
			time.Sleep(time.Millisecond)
		}
		return read(ctx)
	}
	res, err := Run(context.Background(), port, sess.Model, reqs[:4], opts)
	require.NoError(t, err)
	assert.EqualValues(t, 4, startedAtRead, "the KV read must wait until the level's 4 judgments were sent")
	require.NotNil(t, res.Levels[0].KVCacheUsage)
	assert.Positive(t, res.Levels[0].KVCacheUsage.Number)
	assert.Nil(t, res.ServerArgs.CallerStated)
	bs, _ := res.ServerArgs.CacheConfig.Get("block_size")
	assert.Equal(t, "16", bs, "the fake serves vllm:cache_config_info")
}

func TestSweepStopsAtFailedLevel(t *testing.T) {
	reqs := testSlice(t).Requests
	srv := judgmenttest.NewVLLM(nil)
	t.Cleanup(srv.Close)
	// Level 1 takes 28 scoring calls; fail the 2nd case of level 4.
	srv.Inject(judgmenttest.Fault{Path: "/v1/chat/completions", Nth: 28 + 5, Status: 503, Body: `{"error": "overloaded"}`})
	sess := vllmSession(t, srv)
	res, err := Run(context.Background(), sess.Port, sess.Model, reqs, sweepOptions(sess, []int{1, 4, 16}, nil))
	require.NoError(t, err)
	require.Len(t, res.Levels, 2, "the sweep ends with the level that failed")
	assert.Nil(t, res.Levels[0].Stopped)
	require.NotNil(t, res.Levels[1].Stopped)
	assert.Equal(t, "BackendHttpError", res.Levels[1].Stopped.ErrorClass)
	assert.Equal(t, res.Levels[1].Stopped.Discarded, res.Levels[1].Throughput.Discarded)
}

func TestSweepOffline(t *testing.T) {
	reqs := testSlice(t).Requests
	res, err := Run(context.Background(), fake.New(nil), "fake-model", reqs, Options{Levels: []int{1, 2}})
	require.NoError(t, err)
	require.Len(t, res.Levels, 2)
	for _, lv := range res.Levels {
		assert.Nil(t, lv.Server)
		assert.Nil(t, lv.KVCacheUsage)
		assert.Nil(t, lv.Throughput.Server)
		assert.Len(t, lv.Run.Outcomes, 7)
	}
	assert.Equal(t, serving.ServerArgs(nil, nil), res.ServerArgs)
	b, err := json.Marshal(res.Levels[0])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"server":null,"kv_cache_usage":null`)

	_, err = Run(context.Background(), fake.New(nil), "m", reqs, Options{Levels: []int{1, 0}})
	assert.EqualError(t, err, "concurrency must be at least 1, got 0")
	assert.Equal(t, []int{1, 4, 16, 32}, defaultLevels)
}

// TestDrift compares hand-made level records with the first level's: one
// verdict flip (right → wrong), the largest probability change 0.25 (a
// verdict probability), a case only the first level judged left out.
func TestDrift(t *testing.T) {
	rec := func(id, verdict string, correct bool, payee, consistent float64) checkmatch.CaseRecord {
		return checkmatch.CaseRecord{
			CaseID: id, Verdict: verdict, Correct: correct, PayeeConfidence: payee, AmountsConfidence: 0.5,
			VerdictProbabilities:    judgment.Probabilities{{Label: "consistent", P: consistent}, {Label: "unsigned", P: 1 - consistent}},
			LegibilityProbabilities: checkmatch.ByLevel[float64]{0.1, 0.9},
		}
	}
	first := []checkmatch.CaseRecord{
		rec("r00:clean", "consistent", true, 0.9, 0.8),
		rec("r00:unsigned", "unsigned", true, 0.9, 0.3),
		rec("r01:clean", "consistent", true, 0.9, 0.9),
	}
	level := []checkmatch.CaseRecord{
		rec("r00:clean", "unsigned", false, 0.95, 0.55),
		rec("r00:unsigned", "unsigned", true, 0.9, 0.3),
	}
	d, err := drift(first, level)
	require.NoError(t, err)
	assert.Equal(t, 2, d.Cases)
	assert.InDelta(t, 0.25, d.MaxAbsProbabilityDifference, 1e-15)
	assert.Equal(t, 1, d.VerdictFlips)
	require.NotNil(t, d.AccuracyChange)
	assert.Equal(t, -0.5, *d.AccuracyChange)

	same, err := drift(first, first)
	require.NoError(t, err)
	assert.Equal(t, AnswerDrift{Cases: 3, AccuracyChange: same.AccuracyChange}, same)
	assert.Equal(t, 0.0, *same.AccuracyChange)

	none, err := drift(first, nil)
	require.NoError(t, err)
	assert.Nil(t, none.AccuracyChange)
}

// TestSweepJournalsAndFinished: a sweep journals every level; resumed
// with its first level finished (its receipt) and the second's journal
// complete, it makes no call, and its summary's answers equal the first
// sweep's.
func TestSweepJournalsAndFinished(t *testing.T) {
	slice := testSlice(t)
	dir := t.TempDir()
	rc := checkmatch.RunContext{Backend: "fake", Model: "fake-model", ServedTemplate: "fake"}
	var calls atomic.Int64
	port := judgment.PortFunc(func(ctx context.Context, req judgment.Request) (judgment.Response, error) {
		calls.Add(1)
		return fake.New(nil).Judge(ctx, req)
	})
	open := func(create bool) func(int) (*checkmatch.Journal, error) {
		return func(level int) (*checkmatch.Journal, error) {
			h, err := checkmatch.ShardJournalHeader(rc, slice, level, checkmatch.Shard{})
			require.NoError(t, err)
			path := fmt.Sprintf("%s/c%d.json.journal.jsonl", dir, level)
			if create {
				return checkmatch.CreateJournal(path, h)
			}
			return checkmatch.ResumeJournal(path, h, slice.Requests)
		}
	}
	var done []int
	first, err := Run(context.Background(), port, rc.Model, slice.Requests, Options{Levels: []int{1, 2}, Journal: open(true),
		LevelDone: func(lv Level, _ serving.ServerArgsBlock) error { done = append(done, lv.Concurrency); return nil }})
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2}, done, "LevelDone as each level ends")
	assert.EqualValues(t, 2*len(slice.Requests), calls.Load(), "one judgment per case and level")
	rec1, err := checkmatch.BuildReceipt(first.Levels[0].Run, rc.ReceiptParts(slice, first.Levels[0].Run))
	require.NoError(t, err)

	calls.Store(0)
	done = nil
	again, err := Run(context.Background(), port, rc.Model, slice.Requests, Options{Levels: []int{1, 2}, Journal: open(false),
		Finished:  map[int]checkmatch.Receipt{1: rec1},
		LevelDone: func(lv Level, _ serving.ServerArgsBlock) error { done = append(done, lv.Concurrency); return nil }})
	require.NoError(t, err)
	assert.Zero(t, calls.Load(), "level 1 finished, level 2 wholly journaled")
	assert.Equal(t, []int{2}, done, "not called for a finished level")
	assert.Equal(t, len(slice.Requests), again.Levels[1].Run.Resumed)
	a, err := NewSummary(first)
	require.NoError(t, err)
	b, err := NewSummary(again)
	require.NoError(t, err)
	for i := range a.Levels {
		assert.Equal(t, a.Levels[i].Answers, b.Levels[i].Answers)
		assert.Equal(t, a.Levels[i].Cases, b.Levels[i].Cases)
	}
	assert.Equal(t, rec1.Throughput.JudgmentsPerSecond, b.Levels[0].JudgmentsPerSecond, "taken from the receipt")

	_, err = Run(context.Background(), port, rc.Model, slice.Requests, Options{Levels: []int{2},
		Finished: map[int]checkmatch.Receipt{2: rec1}})
	assert.ErrorContains(t, err, "not a complete check-match receipt of concurrency 2")
}

// testSlice renders the slice of seed 1, one register row.
func testSlice(t testing.TB) checkmatch.Slice {
	t.Helper()
	s, err := checkmatch.BuildSlice(1, 1, nil)
	require.NoError(t, err)
	return s
}
