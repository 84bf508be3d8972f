// Package pool judges items in slice order with bounded concurrency and stops
// at the first backend failure, like typevet's judge_in_order.
//
// [JudgeInOrder] keeps up to N calls in flight, submitting items in slice
// order. Once any call fails with a stop error (by default a backend failure,
// [judgment.IsGenerationError]) or ctx is done, it submits nothing more but
// lets the calls in flight finish. The result keeps the items before the
// first failure in slice order, so a deterministic backend gives the same
// kept results at every concurrency; calls after the failure that reached
// the backend are counted as discarded.
package pool

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/typevet/typevet-go/judgment"
)

// Options configures [JudgeInOrder]. The zero value means: stop on
// [judgment.IsGenerationError] and measure latencies with the monotonic
// clock.
type Options struct {
	// Stop reports whether a call's error is a failure that stops the run
	// and keeps the earlier results; any other error aborts the run and is
	// returned. nil means [judgment.IsGenerationError]. An error for which
	// errors.Is(err, ctx.Err()) holds after ctx is done always stops.
	Stop func(error) bool
	// Clock returns the time in seconds on a monotonic clock. Each call
	// reads it immediately before and (on success only) after the call,
	// inside the goroutine that makes the call. It must be safe for
	// concurrent use. nil means the time since JudgeInOrder started, read
	// from Go's monotonic clock.
	Clock func() float64
}

// Result is what [JudgeInOrder] kept.
type Result[R any] struct {
	// Values are the results of items 0 .. len(Values)-1, in slice order:
	// every item before the first failure (all items without one).
	Values []R
	// Latencies[i] is the wall time of the call that gave Values[i], in
	// seconds: the clock after the call minus the clock before it.
	Latencies []float64
	// Failure is the first failure in slice order, or nil when every item
	// was judged.
	Failure *Failure
}

// Discarded returns the number of calls after the first failure that
// reached the backend (completed or failed) and were dropped; 0 without a
// failure.
func (r Result[R]) Discarded() int {
	if r.Failure == nil {
		return 0
	}
	return r.Failure.Discarded
}

// Failure is the failure that stopped a run: the smallest failed index,
// even when a later item failed first.
type Failure struct {
	// Index is the slice index of the failed item.
	Index int
	// Err is the call's error. When ctx ended the run before the item
	// was submitted, Err is a *[CanceledError] and no call was made for
	// Index.
	Err error
	// Discarded counts items with an index above Index whose calls
	// completed or failed: they reached the backend but are dropped by
	// design. Always 0 one at a time.
	Discarded int
}

// CanceledError is the failure recorded for the first item not submitted
// because ctx was done (Ctrl-C or a deadline): the run stops as on a
// backend failure, with the earlier results kept.
type CanceledError struct {
	// Cause is context.Cause(ctx): context.Canceled,
	// context.DeadlineExceeded or the cause given to the cancel function.
	Cause error
}

// Error returns "run cancelled: <cause>".
func (e *CanceledError) Error() string { return "run cancelled: " + e.Cause.Error() }

// Unwrap returns Cause, so errors.Is(err, context.Canceled) works.
func (e *CanceledError) Unwrap() error { return e.Cause }

// Call judges item i. It must honour ctx.
type Call[T, R any] func(ctx context.Context, i int, item T) (R, error)

// JudgeInOrder calls call for items in slice order with at most concurrency
// calls in flight and returns the kept results (see [Result]).
//
// concurrency < 1 is an error ("concurrency must be at least 1, got N")
// before any call. With concurrency 1 the items are judged one at a time on
// the calling goroutine, stopping at once on the first failure (Discarded
// is then 0). With more, each call runs on its own goroutine; after the
// first failure is observed no item is submitted, the calls in flight
// finish, and the results of items below the smallest failed index are
// kept.
//
// When ctx is done the run stops like on a backend failure: the first item
// not yet submitted fails with a *CanceledError, and calls in flight
// finish (a Port returns promptly once ctx is done, usually with a
// TransportError). The smallest failed index wins as always.
//
// A call error that is not a stop error (see [Options.Stop]) is returned
// as JudgeInOrder's error, after the calls in flight finish, with an empty
// Result.
func JudgeInOrder[T, R any](ctx context.Context, items []T, concurrency int, call Call[T, R], opts Options) (Result[R], error) {
	if concurrency < 1 {
		return Result[R]{}, fmt.Errorf("concurrency must be at least 1, got %d", concurrency)
	}
	clock := opts.Clock
	if clock == nil {
		start := time.Now()
		clock = func() float64 { return time.Since(start).Seconds() }
	}
	stop := opts.Stop
	if stop == nil {
		stop = judgment.IsGenerationError
	}
	r := runner[T, R]{ctx: ctx, items: items, call: call, clock: clock, stop: stop}
	if concurrency == 1 {
		return r.sequential()
	}
	return r.concurrent(concurrency)
}

type runner[T, R any] struct {
	ctx   context.Context
	items []T
	call  Call[T, R]
	clock func() float64
	stop  func(error) bool
}

// outcome is one finished call.
type outcome[R any] struct {
	i       int
	value   R
	latency float64
	err     error
}

// judge makes call i with one clock read before and, on success, one after.
func (r *runner[T, R]) judge(i int) outcome[R] {
	t0 := r.clock()
	v, err := r.call(r.ctx, i, r.items[i])
	if err != nil {
		return outcome[R]{i: i, err: err}
	}
	return outcome[R]{i: i, value: v, latency: r.clock() - t0}
}

// isFailure reports whether err stops the run (as opposed to aborting it).
func (r *runner[T, R]) isFailure(err error) bool {
	if r.stop(err) {
		return true
	}
	ctxErr := r.ctx.Err()
	return ctxErr != nil && errors.Is(err, ctxErr)
}

func (r *runner[T, R]) canceled(i int) *Failure {
	return &Failure{Index: i, Err: &CanceledError{Cause: context.Cause(r.ctx)}}
}

func (r *runner[T, R]) sequential() (Result[R], error) {
	var res Result[R]
	for i := range r.items {
		if r.ctx.Err() != nil {
			res.Failure = r.canceled(i)
			return res, nil
		}
		o := r.judge(i)
		if o.err != nil {
			if !r.isFailure(o.err) {
				return Result[R]{}, o.err
			}
			res.Failure = &Failure{Index: i, Err: o.err}
			return res, nil
		}
		res.Values = append(res.Values, o.value)
		res.Latencies = append(res.Latencies, o.latency)
	}
	return res, nil
}

// afterCollect, when set by a test, is called on the collecting goroutine
// after each finished call has been recorded.
var afterCollect func(i int, err error)

func (r *runner[T, R]) concurrent(n int) (Result[R], error) {
	done := make(chan outcome[R], n)
	finished := make([]outcome[R], len(r.items))
	completed := make([]bool, len(r.items))
	var failure *Failure // smallest failed index so far
	var abort error
	next, inFlight, stopped := 0, 0, false
	for {
		for !stopped && inFlight < n && next < len(r.items) {
			if r.ctx.Err() != nil {
				failure = minFailure(failure, r.canceled(next))
				stopped = true
				break
			}
			i := next
			next++
			inFlight++
			go func() { done <- r.judge(i) }()
		}
		if inFlight == 0 {
			break
		}
		o := <-done
		inFlight--
		finished[o.i], completed[o.i] = o, true
		if o.err != nil {
			stopped = true
			if !r.isFailure(o.err) {
				if abort == nil {
					abort = o.err
				}
			} else {
				failure = minFailure(failure, &Failure{Index: o.i, Err: o.err})
			}
		}
		if afterCollect != nil {
			afterCollect(o.i, o.err)
		}
	}
	if abort != nil {
		return Result[R]{}, abort
	}
	kept := len(r.items)
	var res Result[R]
	if failure != nil {
		kept = failure.Index
		for i := failure.Index + 1; i < len(r.items); i++ {
			if completed[i] {
				failure.Discarded++
			}
		}
		res.Failure = failure
	}
	res.Values = make([]R, kept)
	res.Latencies = make([]float64, kept)
	for i := range kept {
		res.Values[i], res.Latencies[i] = finished[i].value, finished[i].latency
	}
	return res, nil
}

func minFailure(a, b *Failure) *Failure {
	if a == nil || b.Index < a.Index {
		return b
	}
	return a
}
