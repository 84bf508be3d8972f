package cli

import (
	"context"
	"os"
	"os/signal"
)

// SignalContext returns a context that the first interrupt (Ctrl-C)
// cancels, so a run stops sending and writes the receipt of what it did.
// As soon as the context is cancelled (by the interrupt or by parent), the
// interrupt goes back to Go's default handling: a second Ctrl-C ends the
// process at once, without a receipt. Call stop when done, as with
// [signal.NotifyContext].
func SignalContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, stop = signal.NotifyContext(parent, os.Interrupt)
	context.AfterFunc(ctx, stop)
	return ctx, stop
}
