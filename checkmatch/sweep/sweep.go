package sweep

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/repeats"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

// defaultLevels are the concurrency levels of a throughput sweep when
// none are given (typevet #335).
var defaultLevels = []int{1, 4, 16, 32}

// imagesPerJudgment is the number of images one check-match judgment
// sends, as a level's throughput block counts them.
const imagesPerJudgment = 1

// Options configures [Run]. The zero value sweeps the levels 1, 4, 16 and
// 32 (typevet #335) without /metrics reads (llama.cpp, the fake).
type Options struct {
	// Levels are the concurrency levels, run in this order; nil means
	// 1, 4, 16, 32. Each must be at least 1.
	Levels []int
	// Metrics reads the server's /metrics text (vLLM); nil means no
	// reading. Each level reads it before and after its run (outside the
	// wall time, as [checkmatch.Run] does).
	Metrics func(ctx context.Context) (text string, ok bool)
	// KVCacheUsage makes the in-flight KV read of a level (vLLM: a closure
	// over [serving.ReadKVCacheUsage]); nil means none, and the level's
	// kv_cache_usage is null.
	KVCacheUsage func(ctx context.Context) serving.Value
	// KVWait and KVPoll bound the wait for the level's first calls before
	// the KV read; zero means [serving.KVWait] and [serving.KVPoll].
	KVWait, KVPoll time.Duration
	// CallerStated is TYPEVET_VLLM_SERVER_ARGS as the caller stated it
	// ([serving.StatedServerArgs]); nil when unset.
	CallerStated *string
	// Clock is passed to each level's [checkmatch.Run]; nil means Go's monotonic
	// clock.
	Clock func() float64
	// Journal, when set, opens the journal of each level as the level
	// starts ([checkmatch.CreateJournal] for a new level, [checkmatch.ResumeJournal] to finish
	// one; the level's identity is journalHeader at that concurrency, or
	// [checkmatch.ShardJournalHeader]); nil, or a nil *checkmatch.Journal, means none for that
	// level. The level's [checkmatch.Run] appends every finished case to it and
	// judges only the cases it lacks ([checkmatch.RunOptions].Journal); the sweep
	// closes it when the level's run ends (the file stays). An error
	// ends the sweep before the level's first call.
	Journal func(level int) (*checkmatch.Journal, error)
	// Retry is every level's retry policy ([checkmatch.RunOptions].Retry); the zero
	// value never retries, typevet's rule.
	Retry checkmatch.RetryPolicy
	// Shard, when set, makes every level judge only that shard's cases
	// ([checkmatch.RunOptions].Shard).
	Shard checkmatch.Shard
	// Finished holds, by concurrency, the receipts of the levels an
	// earlier part of a resumed sweep finished: such a level is not run
	// again (no call, no /metrics read). Its entry is taken from its
	// receipt: the throughput block, the cases (for [NewSummary]'s
	// answer drift) and the server_args block, which continues the sweep
	// rule; kv_cache_usage, read in flight by the earlier part, is null.
	Finished map[int]checkmatch.Receipt
	// LevelDone, when set, is called as each level run now ends (not for
	// the levels of Finished), with its entry and its server_args block
	// by the sweep rule ([Result].LevelServerArgs): where a caller
	// writes the level's receipt at once, so a sweep killed at a later
	// level keeps it. An error ends the sweep and is returned as it is.
	LevelDone func(level Level, serverArgs serving.ServerArgsBlock) error
}

// Level is one concurrency level of a throughput sweep:
// its fields, in order, are the level's keys.
type Level struct {
	// Concurrency is the level.
	Concurrency int `json:"concurrency"`
	// Throughput is the level's throughput block, 1 image per judgment;
	// its server key holds the image-run /metrics delta ([checkmatch.Run]).
	Throughput receipt.Throughput `json:"throughput"`
	// Server is the level's four-key /metrics delta
	// ([serving.ServerDelta]): e2e, queue, prefill and the prefix-cache hit
	// rate; nil (null) without a Metrics reader.
	Server *serving.Delta `json:"server"`
	// KVCacheUsage is the vllm:kv_cache_usage_perc value read once while
	// the level's calls were in flight; nil (null) without a KV reader.
	KVCacheUsage *serving.Value `json:"kv_cache_usage"`
	// Stopped is the level's first backend failure, or nil.
	Stopped *checkmatch.Stopped `json:"stopped"`

	// Began and Ended are when the level's run began and ended (the
	// readings around it included), for a shard record's
	// [checkmatch.ShardReading]; zero for a level taken from
	// [Options].Finished. Not part of the JSON.
	Began, Ended time.Time `json:"-"`

	// Run is the level's whole run, for its check-match receipt
	// ([checkmatch.BuildReceipt]); empty for a level taken from
	// [Options].Finished. Not part of the JSON.
	Run checkmatch.RunResult `json:"-"`

	// records are the case records of a level taken from its receipt;
	// nil for a level run now (its records are Run's outcomes').
	records []checkmatch.CaseRecord
}

// Result is what a throughput sweep did.
type Result struct {
	// Levels holds one entry per level run, in order. A sweep stopped by a
	// failure ends with the level that failed.
	Levels []Level
	// ServerArgs is the sweep's server_args block by the sweep rule:
	// it starts with no cache config and the caller's
	// statement, and takes the cache config of the first level whose
	// before or after reading holds vllm:cache_config_info; later levels
	// never overwrite it.
	ServerArgs serving.ServerArgsBlock
	// LevelServerArgs[i] is ServerArgs as it stood when level i finished:
	// the block level i's receipt records.
	LevelServerArgs []serving.ServerArgsBlock
}

// Sweep runs the same requests once per concurrency level against one
// server (typevet #335): for each level, [checkmatch.Run] with that concurrency (and
// opts.Metrics, so the level reads /metrics before and after), the four-key
// [serving.ServerDelta] of those two readings, and one in-flight KV read.
//
// The in-flight read waits, polling every KVPoll, until min(level, number of
// requests) calls have been sent or KVWait has passed, then reads once. If
// the level's run ends first, the wait ends and the read is made then (the
// value is then no longer in flight; typevet leaves this case open). A
// level makes exactly three /metrics reads with both readers set: before,
// in flight, after.
//
// A sweep loses nothing that finished: with [Options].Journal each
// level journals its cases as [checkmatch.Run] does, so a killed or stopped sweep is
// resumed level by level: the levels it finished (their receipts in
// [Options].Finished) are not run again, the level it was in judges
// only the cases its journal lacks (its wall time the sum of the parts,
// as [checkmatch.Run] counts it), and the levels after it run afresh.
// [Options].Retry and [Options].Shard apply to every level.
//
// A level that stops on a backend failure (or ctx ending) ends the sweep:
// its entry, with Stopped set, is the last one. Errors that would crash a
// run crash the sweep too, and so does a level below 1 (before any call).
func Run(ctx context.Context, port judgment.Port, model string, reqs []checkmatch.Request, opts Options) (Result, error) {
	levels := opts.Levels
	if levels == nil {
		levels = defaultLevels
	}
	for _, l := range levels {
		if l < 1 {
			return Result{}, fmt.Errorf("concurrency must be at least 1, got %d", l)
		}
	}
	wait, poll := opts.KVWait, opts.KVPoll
	if wait == 0 {
		wait = serving.KVWait
	}
	if poll == 0 {
		poll = serving.KVPoll
	}

	res := Result{ServerArgs: serving.ServerArgs(nil, opts.CallerStated)}
	for _, level := range levels {
		if rec, ok := opts.Finished[level]; ok {
			lv, err := finishedLevel(level, rec)
			if err != nil {
				return Result{}, err
			}
			if a := rec.ServerArgs; res.ServerArgs.CacheConfig == nil && a != nil && a.CacheConfig != nil {
				res.ServerArgs = *a
			}
			res.Levels = append(res.Levels, lv)
			res.LevelServerArgs = append(res.LevelServerArgs, res.ServerArgs)
			continue
		}
		var j *checkmatch.Journal
		if opts.Journal != nil {
			var err error
			if j, err = opts.Journal(level); err != nil {
				return Result{}, fmt.Errorf("level %d: %w", level, err)
			}
		}
		began := time.Now()
		var sent atomic.Int64
		counting := judgment.PortFunc(func(ctx context.Context, req judgment.Request) (judgment.Response, error) {
			sent.Add(1)
			return port.Judge(ctx, req)
		})

		var kv *serving.Value
		var wg sync.WaitGroup
		runDone := make(chan struct{})
		if opts.KVCacheUsage != nil {
			want := int64(min(level, len(reqs)))
			wg.Add(1)
			go func() {
				defer wg.Done()
				waitSent(ctx, &sent, want, wait, poll, runDone)
				v := opts.KVCacheUsage(ctx)
				kv = &v
			}()
		}

		run, err := checkmatch.Run(ctx, counting, model, reqs, checkmatch.RunOptions{Concurrency: level, Clock: opts.Clock, Metrics: opts.Metrics,
			Journal: j, Retry: opts.Retry, Shard: opts.Shard})
		close(runDone)
		wg.Wait()
		if j != nil {
			if cerr := j.Close(); err == nil && cerr != nil {
				err = cerr
			}
		}
		if err != nil {
			return Result{}, fmt.Errorf("level %d: %w", level, err)
		}

		latencies := make([]float64, len(run.Outcomes))
		for i, o := range run.Outcomes {
			latencies[i] = o.Latency
		}
		lv := Level{
			Concurrency:  level,
			Throughput:   receipt.NewThroughput(latencies, imagesPerJudgment, run.WallSeconds, run.Concurrency, run.Discarded, run.Server),
			KVCacheUsage: kv,
			Stopped:      run.Stopped,
			Began:        began,
			Ended:        time.Now(),
			Run:          run,
		}
		if len(run.MetricsReadings) == 2 {
			d := serving.ServerDelta(run.MetricsReadings[0], run.MetricsReadings[1])
			lv.Server = &d
			if res.ServerArgs.CacheConfig == nil {
				if cache, ok := serving.FirstCacheConfig(run.MetricsReadings...); ok {
					res.ServerArgs = serving.ServerArgs(cache, opts.CallerStated)
				}
			}
		}
		res.Levels = append(res.Levels, lv)
		res.LevelServerArgs = append(res.LevelServerArgs, res.ServerArgs)
		if opts.LevelDone != nil {
			if err := opts.LevelDone(lv, res.ServerArgs); err != nil {
				return Result{}, err
			}
		}
		if run.Stopped != nil {
			break
		}
	}
	return res, nil
}

// finishedLevel is the entry of a level an earlier part of the sweep
// finished, from its receipt rec.
func finishedLevel(level int, rec checkmatch.Receipt) (Level, error) {
	if rec.Throughput == nil || rec.Stopped != nil || rec.Pins.Concurrency != level {
		return Level{}, fmt.Errorf("level %d: the finished receipt is not a complete check-match receipt of concurrency %d", level, level)
	}
	records := rec.Cases
	if records == nil {
		records = []checkmatch.CaseRecord{}
	}
	return Level{
		Concurrency: level,
		Throughput:  *rec.Throughput,
		Run:         checkmatch.RunResult{Concurrency: level, WallSeconds: rec.WallSeconds},
		records:     records,
	}, nil
}

// waitSent waits until sent reaches want, polling every poll, for at most
// wait, or until done is closed or ctx ends.
func waitSent(ctx context.Context, sent *atomic.Int64, want int64, wait, poll time.Duration, done <-chan struct{}) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for sent.Load() < want {
		select {
		case <-tick.C:
		case <-deadline.C:
			return
		case <-done:
			return
		case <-ctx.Done():
			return
		}
	}
}

// AnswerDrift says whether a sweep level's answers moved from the first
// level's: the same requests at another concurrency should get the same
// answers, and batch-dependent numerics on the server (vLLM #7779,
// #11778) are how they would not. Its fields, in order, are the object's
// keys.
type AnswerDrift struct {
	// Cases is the number of cases both levels judged (by case id).
	Cases int `json:"cases"`
	// MaxAbsProbabilityDifference is the largest |Δp| of any recorded
	// probability over those cases (MaxProbabilityDifference: both Noul
	// confidences, every verdict probability, every legibility level);
	// 0.0 means bit-equal answers.
	MaxAbsProbabilityDifference float64 `json:"max_abs_probability_difference"`
	// VerdictFlips counts the cases whose verdict differs.
	VerdictFlips int `json:"verdict_flips"`
	// AccuracyChange is this level's accuracy minus the first level's, over
	// the shared cases; null when there are none.
	AccuracyChange *float64 `json:"accuracy_change"`
}

// drift compares a level's case records with the first level's, over the
// case ids both hold (in first's order): a level stopped early compares
// only the cases it judged. A verdict or legibility label of first missing
// from level is an error naming the case.
func drift(first, level []checkmatch.CaseRecord) (AnswerDrift, error) {
	at := make(map[string]int, len(level))
	for i, c := range level {
		at[c.CaseID] = i
	}
	var a, b []checkmatch.CaseRecord
	for _, c := range first {
		if j, ok := at[c.CaseID]; ok {
			a, b = append(a, c), append(b, level[j])
		}
	}
	d := AnswerDrift{Cases: len(a)}
	if len(a) == 0 {
		return d, nil
	}
	var err error
	if d.MaxAbsProbabilityDifference, err = repeats.MaxProbabilityDifference([]checkmatch.Receipt{{Cases: a}, {Cases: b}}); err != nil {
		return AnswerDrift{}, err
	}
	right := 0
	for i := range a {
		if a[i].Verdict != b[i].Verdict {
			d.VerdictFlips++
		}
		right += boolCount(b[i].Correct) - boolCount(a[i].Correct)
	}
	change := float64(right) / float64(len(a))
	d.AccuracyChange = &change
	return d, nil
}

func boolCount(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The throughput sweep's summary document.
const (
	// SummarySchema is the "schema" of a [Summary].
	SummarySchema = "typevet-go/throughput-sweep-summary"
	// summaryVersion is the version written.
	summaryVersion = 1
)

// Summary is the summary document of a throughput sweep
// ([NewSummary]), written by examples/throughput beside the level
// receipts (which stay typevet's schema). Its fields, in order, are the
// document's keys: {"schema": "typevet-go/throughput-sweep-summary",
// "version": 1, "levels": […]}.
type Summary struct {
	// Schema is always [SummarySchema].
	Schema string `json:"schema"`
	// Version is 1.
	Version int `json:"version"`
	// Levels holds one entry per level run, in order.
	Levels []SummaryLevel `json:"levels"`
}

// SummaryLevel is one level of a [Summary]: its fields, in
// order, are the entry's keys.
type SummaryLevel struct {
	// Concurrency is the level.
	Concurrency int `json:"concurrency"`
	// Receipt is the path of the level's receipt, and ReceiptSHA256 the
	// SHA-256 of its bytes; "" until the caller has written it.
	Receipt       string `json:"receipt"`
	ReceiptSHA256 string `json:"receipt_sha256"`
	// Cases is the number of cases the level judged.
	Cases int `json:"cases"`
	// JudgmentsPerSecond, ImagesPerSecond, P50Seconds and P95Seconds are
	// the level's throughput block values; null as there.
	JudgmentsPerSecond *float64 `json:"judgments_per_second"`
	ImagesPerSecond    *float64 `json:"images_per_second"`
	P50Seconds         *float64 `json:"p50_seconds"`
	P95Seconds         *float64 `json:"p95_seconds"`
	// Discarded is the throughput block's discarded count.
	Discarded int `json:"discarded"`
	// KVCacheUsage is the level's in-flight KV read; null without one.
	KVCacheUsage *serving.Value `json:"kv_cache_usage"`
	// Stopped is true when the level stopped on a backend failure.
	Stopped bool `json:"stopped"`
	// Answers compares the level's answers with the first level's
	// (drift); the first level compares with itself (all zero).
	Answers AnswerDrift `json:"answers_vs_first_level"`
}

// NewSummary builds the summary document of a sweep, Receipt and
// ReceiptSHA256 left "" for the caller.
func NewSummary(res Result) (Summary, error) {
	s := Summary{Schema: SummarySchema, Version: summaryVersion, Levels: []SummaryLevel{}}
	var first []checkmatch.CaseRecord
	for i, lv := range res.Levels {
		recs := lv.records
		if recs == nil {
			var err error
			if recs, err = levelRecords(lv.Run.Outcomes); err != nil {
				return Summary{}, fmt.Errorf("level %d: %w", lv.Concurrency, err)
			}
		}
		if i == 0 {
			first = recs
		}
		d, err := drift(first, recs)
		if err != nil {
			return Summary{}, fmt.Errorf("level %d: %w", lv.Concurrency, err)
		}
		tp := lv.Throughput
		s.Levels = append(s.Levels, SummaryLevel{
			Concurrency:        lv.Concurrency,
			Cases:              len(recs),
			JudgmentsPerSecond: tp.JudgmentsPerSecond,
			ImagesPerSecond:    tp.ImagesPerSecond,
			P50Seconds:         tp.LatencySeconds.P50,
			P95Seconds:         tp.LatencySeconds.P95,
			Discarded:          tp.Discarded,
			KVCacheUsage:       lv.KVCacheUsage,
			Stopped:            lv.Stopped != nil,
			Answers:            d,
		})
	}
	return s, nil
}

// levelRecords returns the receipt records of a level's outcomes, in order.
func levelRecords(outcomes []checkmatch.Outcome) ([]checkmatch.CaseRecord, error) {
	out := make([]checkmatch.CaseRecord, len(outcomes))
	for i, o := range outcomes {
		r, err := o.Record()
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}
