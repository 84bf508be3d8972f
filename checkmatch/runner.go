package checkmatch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
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
}

// RunResult is what a check-match run did.
type RunResult struct {
	// Outcomes are the kept cases in slice order: every case before the
	// first failure.
	Outcomes []Outcome
	// Stopped is the first failure, or nil when every case was judged.
	// Message is the error text as the port returned it (a session port
	// masks secrets); [BuildReceipt] withholds it when it still holds an
	// auth header.
	Stopped *Stopped
	// WallSeconds is the unrounded wall time: the clock after the pool
	// drained minus the clock before the first submission. The /metrics
	// reads are outside it.
	WallSeconds float64
	// Concurrency is the concurrency the run used.
	Concurrency int
	// Discarded counts cases after the failure that reached the backend and
	// were dropped (Stopped.Discarded; 0 without a failure).
	Discarded int
	// Server is the /metrics delta over the run ([serving.RunServerDelta]),
	// nil when no Metrics reader was given.
	Server *serving.RunDelta
	// MetricsReadings are the readings before and after the run, kept for
	// the server_args block (not written to the receipt); nil when no
	// Metrics reader was given.
	MetricsReadings []serving.Reading
	// Warnings lists doubts that did not stop the run: a /metrics reading
	// refused by [serving.RunServerDelta] (a gauge over several engines; the
	// server block is then all "unknown") and the delta's own warnings.
	Warnings []error
}

// Error classes a [Stopped] record names for a cancelled run: Go's own
// names for the context errors, since typevet has no class for a run
// stopped by Ctrl-C (Python would crash with KeyboardInterrupt and lose the
// outcomes).
const (
	ErrorClassCanceled         = "Canceled"
	ErrorClassDeadlineExceeded = "DeadlineExceeded"
)

// Run judges reqs in slice order with port and model and
// returns the outcomes, the stopped record and the wall time.
//
// A backend failure ([judgment.IsGenerationError]) stops the run: earlier
// outcomes are kept and Stopped records it, with error_class from
// [judgment.ErrorClass]. So does ctx ending (Ctrl-C): when a call in flight
// saw it, Stopped names that call's error (usually a TransportError about
// the context); when the run stopped between calls, Stopped names the first
// case not sent, with class [ErrorClassCanceled] (or
// [ErrorClassDeadlineExceeded]) and the message "run cancelled: " followed
// by the context's cause ([context.Cause]: "context canceled" for a plain
// cancel, "interrupt signal received" when the example commands' Ctrl-C
// context ends the run). The after-run /metrics read still happens after ctx ends (see
// [RunOptions].Metrics). Any other error (a port breaking its contract, an answer that
// is missing or not one of the six verdict labels) is returned and the run
// is lost, as in typevet.
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
	clock := opts.Clock
	if clock == nil {
		start := time.Now()
		clock = func() float64 { return time.Since(start).Seconds() }
	}
	var before serving.Reading
	if opts.Metrics != nil {
		before = readMetrics(ctx, opts.Metrics)
	}
	started := clock()
	res, err := pool.JudgeInOrder(ctx, reqs, n, func(ctx context.Context, _ int, r Request) (judgment.Response, error) {
		return port.Judge(ctx, r.Judgment(model))
	}, pool.Options{Clock: clock})
	if err != nil {
		return RunResult{}, err
	}
	wall := clock() - started

	out := RunResult{WallSeconds: wall, Concurrency: n, Outcomes: make([]Outcome, len(res.Values))}
	for i, resp := range res.Values {
		o, err := NewOutcome(reqs[i], resp, res.Latencies[i])
		if err != nil {
			return RunResult{}, err
		}
		out.Outcomes[i] = o
	}
	if f := res.Failure; f != nil {
		out.Discarded = f.Discarded
		out.Stopped = &Stopped{
			Index:      f.Index,
			CaseID:     reqs[f.Index].CaseID(),
			ErrorClass: errorClass(f.Err),
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
			out.Warnings = append(out.Warnings, err)
			delta, _ = serving.RunServerDelta(serving.Reading{}, serving.Reading{})
		}
		out.Warnings = append(out.Warnings, delta.Warnings...)
		out.Server = &delta
	}
	return out, nil
}

func readMetrics(ctx context.Context, read func(context.Context) (string, bool)) serving.Reading {
	text, ok := read(ctx)
	return serving.Reading{Text: text, OK: ok}
}

// errorClass names a failure for the stopped record.
func errorClass(err error) string {
	if c := judgment.ErrorClass(err); c != "" {
		return c
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return ErrorClassDeadlineExceeded
	case errors.Is(err, context.Canceled):
		return ErrorClassCanceled
	}
	return fmt.Sprintf("%T", err)
}

// AnswerError reports a response that lacks one of the four answers or
// holds one of the wrong type: the port broke its contract.
type AnswerError struct {
	// CaseID is the judged case.
	CaseID string
	// Question is the missing answer's question id.
	Question string
}

// Error returns "case <id>: response has no valid answer <question>".
func (e *AnswerError) Error() string {
	return "case " + e.CaseID + ": response has no valid answer " + e.Question
}

// NewOutcome returns the outcome of req from the port's response and the
// call's latency in seconds. render_sha256 is the digest of the
// image bytes the request sent. It fails on a response without the four
// answers (an [*AnswerError]) or whose verdict is not one of the six labels
// (an [*UnknownVerdictError] naming the case).
func NewOutcome(req Request, resp judgment.Response, latency float64) (Outcome, error) {
	id := req.CaseID()
	payee, ok := resp.Noul(QuestionPayeeMatches)
	if !ok {
		return Outcome{}, &AnswerError{CaseID: id, Question: QuestionPayeeMatches}
	}
	amounts, ok := resp.Noul(QuestionAmountsMatch)
	if !ok {
		return Outcome{}, &AnswerError{CaseID: id, Question: QuestionAmountsMatch}
	}
	verdict, ok := resp.Choice(QuestionVerdict)
	if !ok {
		return Outcome{}, &AnswerError{CaseID: id, Question: QuestionVerdict}
	}
	legibility, ok := resp.Score(QuestionLegibility)
	if !ok || len(legibility.Probabilities) != LegibilityLevels {
		return Outcome{}, &AnswerError{CaseID: id, Question: QuestionLegibility}
	}
	if err := checkVerdict(verdict.Choice); err != nil {
		return Outcome{}, fmt.Errorf("case %s: %w", id, err)
	}
	var digest string
	if len(req.Media) > 0 {
		sum := sha256.Sum256(req.Media[0].Data)
		digest = hex.EncodeToString(sum[:])
	}
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
