package checkmatch

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/pool"
	"github.com/typevet/typevet-go/serving"
)

// DefaultMetricsAfterTimeout bounds the /metrics read after a run when
// [RunOptions].MetricsAfterTimeout is 0.
const DefaultMetricsAfterTimeout = 10 * time.Second

// RunOptions configures [Run]. The zero value means one judgment at a
// time, Go's monotonic clock, no /metrics reads and (with a Metrics
// reader) an after-run read bounded by [DefaultMetricsAfterTimeout].
type RunOptions struct {
	// Concurrency is the most judgments in flight. 0 means 1; a negative
	// value is an error ("concurrency must be at least 1, got -1") before
	// any call.
	Concurrency int
	// Clock returns seconds on a monotonic clock; it is read for the wall
	// time and before and after each call (see [pool.Options]). nil means
	// the time since Run started.
	Clock func() float64
	// Metrics, when set, reads the server's /metrics text (vLLM: a closure
	// over [serving.Read] with the session client). Run calls it once before
	// the wall time starts and once after it ends; ok false is no reading.
	// The after-run read gets a context that is not cancelled with Run's
	// (context.WithoutCancel) and is bounded by MetricsAfterTimeout, so a
	// run stopped by Ctrl-C still records the server's delta.
	Metrics func(ctx context.Context) (text string, ok bool)
	// MetricsAfterTimeout bounds the after-run /metrics read; 0 means
	// [DefaultMetricsAfterTimeout] (10 s). A negative value is an error.
	MetricsAfterTimeout time.Duration
	// Journal, when set, is the run's journal ([CreateJournal], or
	// [ResumeJournal] to resume): every case that finishes is appended and
	// synced before it counts as done, also a case after a failure that
	// the receipt drops; cases the journal already holds are not judged
	// again and join the outcomes in slice order. nil means no journal.
	Journal *Journal
	// Retry is the retry policy for a judgment that failed on the way
	// (retryable); the zero value never retries, typevet's rule.
	Retry RetryPolicy
	// Shard, when set, judges only the cases of that shard ([Shard.Has]);
	// the outcomes then hold that shard's cases in slice order. The zero
	// Shard judges the whole slice. A shard run's output is its journal
	// (see [ShardJournalHeader] and [ShardRecord]), not a receipt.
	Shard Shard
}

// RunResult is what a check-match run did.
type RunResult struct {
	// Outcomes are the kept cases in slice order: every case before the
	// first failure. A resumed run's outcomes include the journal's.
	Outcomes []Outcome
	// Stopped is the first failure, or nil when every case was judged.
	// Message is the error text as the port returned it (a session port
	// masks secrets); [BuildReceipt] withholds it when it still holds an
	// auth header.
	Stopped *Stopped
	// WallSeconds is the unrounded wall time: the clock after the pool
	// drained minus the clock before the first submission. The /metrics
	// reads are outside it. A resumed run adds the earlier parts' wall
	// time ([Journal.PriorWallSeconds]): the sum of the parts, each killed
	// part counted to its last finished case.
	WallSeconds float64
	// Concurrency is the concurrency the run used.
	Concurrency int
	// Discarded counts cases after the failure that reached the backend and
	// were dropped (Stopped.Discarded; 0 without a failure). With a
	// journal they are dropped from the receipt only: the journal keeps
	// them for a resume.
	Discarded int
	// Resumed counts the outcomes taken from the journal instead of
	// judged; 0 without one.
	Resumed int
	// Calls counts the judgment calls this run made, retries included.
	Calls int
	// Server is the /metrics delta over the run ([serving.RunServerDelta]),
	// nil when no Metrics reader was given. A resumed run's delta covers
	// its own part only.
	Server *serving.RunDelta
	// MetricsReadings are the readings before and after the run, kept for
	// the server_args block (not written to the receipt); nil when no
	// Metrics reader was given.
	MetricsReadings []serving.Reading
	// Warnings lists doubts that did not stop the run: a /metrics reading
	// refused by [serving.RunServerDelta] (a gauge over several engines, as
	// a data-parallel vLLM writes them; the server block then pools the
	// engines, [serving.MergeRunDelta]) and the delta's own warnings.
	Warnings []error
}

// judged is one finished call of Run's pool.
type judged struct {
	outcome  Outcome
	attempts int
}

// Run judges reqs in slice order with port and model and
// returns the outcomes, the stopped record and the wall time.
//
// A backend failure ([judgment.IsGenerationError]) stops the run: earlier
// outcomes are kept and Stopped records it, with error_class from
// [judgment.ErrorClass]. With [RunOptions].Retry a retryable failure
// (retryable) is first retried; Stopped names the failure of the last
// attempt. So does ctx ending (Ctrl-C): Stopped then has class
// "Canceled" (or "DeadlineExceeded", [judgment.StopClass]), whether a call
// in flight saw it (its message kept) or the run stopped between calls
// (Stopped names the first case not sent, with the message "run
// cancelled: " followed by the context's cause ([context.Cause]: "context
// canceled" for a plain cancel, "interrupt signal received" when the
// example commands' Ctrl-C context ends the run)). The after-run /metrics
// read still happens after ctx ends (see [RunOptions].Metrics). Any other
// error (a port breaking its contract, an answer that is missing or not
// one of the six verdict labels, a journal that cannot be written) is
// returned and the run's outcomes are lost, as in typevet, except the ones
// its journal holds.
//
// With a [RunOptions].Journal, only the cases the journal lacks are
// judged and the outcomes are the journal's and the new ones merged in
// slice order, as if the run had not stopped.
func Run(ctx context.Context, port judgment.Port, model string, reqs []Request, opts RunOptions) (RunResult, error) {
	n := opts.Concurrency
	if n == 0 {
		n = 1
	}
	if n < 1 {
		return RunResult{}, fmt.Errorf("concurrency must be at least 1, got %d", n)
	}
	afterTimeout := opts.MetricsAfterTimeout
	if afterTimeout == 0 {
		afterTimeout = DefaultMetricsAfterTimeout
	}
	if afterTimeout < 0 {
		return RunResult{}, fmt.Errorf("metrics after-run timeout must not be negative, got %v", afterTimeout)
	}
	if err := opts.Retry.Check(); err != nil {
		return RunResult{}, err
	}
	if err := opts.Journal.checkKind(journalKind); err != nil {
		return RunResult{}, err
	}
	clock := opts.Clock
	if clock == nil {
		start := time.Now()
		clock = func() float64 { return time.Since(start).Seconds() }
	}
	j := opts.Journal
	todo := make([]int, 0, len(reqs))
	inShard := make([]bool, len(reqs))
	for i := range reqs {
		inShard[i] = opts.Shard.Has(reqs[i].CaseID())
		if inShard[i] && (j == nil || !j.has(i)) {
			todo = append(todo, i)
		}
	}
	var before serving.Reading
	if opts.Metrics != nil {
		before = readMetrics(ctx, opts.Metrics)
	}
	var calls atomic.Int64
	retry := opts.Retry.ForRun()
	started := clock()
	res, err := pool.JudgeInOrder(ctx, todo, n, func(ctx context.Context, _ int, i int) (judged, error) {
		resp, attempts, latency, end, err := retry.Judge(ctx, port, reqs[i].Judgment(model), clock)
		calls.Add(int64(attempts))
		if err != nil {
			return judged{}, err
		}
		o, err := newOutcome(reqs[i], resp, latency)
		if err != nil {
			return judged{}, err
		}
		if j != nil {
			if err := j.Record(newJournalCase(i, o, attempts, j.part, end-started)); err != nil {
				return judged{}, err
			}
		}
		return judged{outcome: o, attempts: attempts}, nil
	}, pool.Options{Clock: zeroClock})
	if err != nil {
		return RunResult{}, err
	}
	wall := clock() - started

	stop := len(reqs) // slice index of the failure
	if res.Failure != nil {
		stop = todo[res.Failure.Index]
	}
	out := RunResult{WallSeconds: wall, Concurrency: n, Outcomes: make([]Outcome, 0, stop), Calls: int(calls.Load())}
	if j != nil {
		out.WallSeconds += j.prior
	}
	k := 0 // next of res.Values
	for i := range stop {
		if !inShard[i] {
			continue
		}
		if j != nil && j.has(i) {
			out.Outcomes = append(out.Outcomes, j.finished[i].outcome(reqs[i]))
			out.Resumed++
			continue
		}
		out.Outcomes = append(out.Outcomes, res.Values[k].outcome)
		k++
	}
	if f := res.Failure; f != nil {
		out.Discarded = f.Discarded
		out.Stopped = &Stopped{
			Index:      stop,
			CaseID:     reqs[stop].CaseID(),
			ErrorClass: judgment.StopClass(ctx, f.Err),
			Message:    f.Err.Error(),
			Discarded:  f.Discarded,
		}
	}
	if opts.Metrics != nil {
		// The after read outlives a cancelled run (Ctrl-C): the server's
		// delta over the cases that ran is still worth recording.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), afterTimeout)
		after := readMetrics(actx, opts.Metrics)
		cancel()
		out.MetricsReadings = []serving.Reading{before, after}
		delta, err := serving.RunServerDelta(before, after)
		if err != nil {
			// A gauge over several engines: a data-parallel vLLM behind
			// one URL, whose engines are pooled as replicas are.
			out.Warnings = append(out.Warnings, err)
			delta, _ = serving.MergeRunDelta([]serving.Interval{{Before: before, After: after}})
		}
		out.Warnings = append(out.Warnings, delta.Warnings...)
		out.Server = &delta
	}
	return out, nil
}

// zeroClock is the pool's clock: Run measures latencies itself, around
// the attempt that succeeded.
func zeroClock() float64 { return 0 }

func readMetrics(ctx context.Context, read func(context.Context) (string, bool)) serving.Reading {
	text, ok := read(ctx)
	return serving.Reading{Text: text, OK: ok}
}

// answerError reports a response that lacks one of the four answers or
// holds one of the wrong type: the port broke its contract.
type answerError struct {
	// CaseID is the judged case.
	CaseID string
	// Question is the missing answer's question id.
	Question string
}

// Error returns "case <id>: response has no valid answer <question>".
func (e *answerError) Error() string {
	return "case " + e.CaseID + ": response has no valid answer " + e.Question
}

// newOutcome returns the outcome of req from the port's response and the
// call's latency in seconds. render_sha256 is the digest of the
// image bytes the request sent. It fails on a response without the four
// answers (an answerError) or whose verdict is not one of the six labels
// (an unknownVerdictError naming the case).
func newOutcome(req Request, resp judgment.Response, latency float64) (Outcome, error) {
	id := req.CaseID()
	payee, ok := resp.Noul(QuestionPayeeMatches)
	if !ok {
		return Outcome{}, &answerError{CaseID: id, Question: QuestionPayeeMatches}
	}
	amounts, ok := resp.Noul(QuestionAmountsMatch)
	if !ok {
		return Outcome{}, &answerError{CaseID: id, Question: QuestionAmountsMatch}
	}
	verdict, ok := resp.Choice(QuestionVerdict)
	if !ok {
		return Outcome{}, &answerError{CaseID: id, Question: QuestionVerdict}
	}
	legibility, ok := resp.Score(QuestionLegibility)
	if !ok || len(legibility.Probabilities) != LegibilityLevels {
		return Outcome{}, &answerError{CaseID: id, Question: QuestionLegibility}
	}
	if err := checkVerdict(verdict.Choice); err != nil {
		return Outcome{}, fmt.Errorf("case %s: %w", id, err)
	}
	digest := req.ImageDigest()
	var tokens *int
	if resp.Usage.InputTokens != nil {
		t := *resp.Usage.InputTokens
		tokens = &t
	}
	return Outcome{
		CaseID:                  id,
		Variant:                 req.Case.Variant,
		Expected:                req.Case.Expected,
		Verdict:                 verdict.Choice,
		VerdictProbabilities:    slices.Clone(verdict.Probabilities),
		PayeeConfidence:         payee.Noul,
		AmountsConfidence:       amounts.Noul,
		LegibilityScore:         legibility.Score,
		LegibilityLevel:         legibility.Level(),
		LegibilityProbabilities: slices.Clone(legibility.Probabilities),
		RenderSHA256:            digest,
		Latency:                 latency,
		InputTokens:             tokens,
	}, nil
}
