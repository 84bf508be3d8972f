package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// StopSignals are the signals a run takes as "stop now, keep what
// finished": Ctrl-C (SIGINT), SIGTERM (what timeout, systemd, docker and
// Kubernetes send) and SIGHUP (a lost terminal or SSH session).
var StopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// SignalContext returns a context that the first of [StopSignals]
// cancels, so a run stops sending and writes the receipt of what it did
// (its journal keeps every finished case either way). As soon as the
// context is cancelled (by a signal or by parent), the signals go back to
// Go's default handling: a second Ctrl-C or SIGTERM ends the process at
// once, without a receipt (the journal stays). Call stop when done, as
// with [signal.NotifyContext].
func SignalContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, stop = signal.NotifyContext(parent, StopSignals...)
	context.AfterFunc(ctx, stop)
	return ctx, stop
}

// ErrInterrupted is returned when a stop signal arrives before the first
// case was judged: nothing is written.
var ErrInterrupted = errors.New("interrupted before the first case was judged; nothing was written")

// Interruptible runs fn (a step that does not take a context, such as
// rendering the slice) and returns its result, or [ErrInterrupted] as
// soon as ctx ends, without waiting for fn: a Ctrl-C during set-up is
// honoured at once. fn keeps running on its own goroutine until it
// returns; callers exit soon after.
func Interruptible[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := fn()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ErrInterrupted
	}
}
