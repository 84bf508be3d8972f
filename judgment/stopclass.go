package judgment

import (
	"context"
	"errors"
	"fmt"
)

// Error classes [StopClass] gives a run stopped because its context ended:
// Go's own names for the context errors, since typevet has no class for a
// run stopped by Ctrl-C (Python would crash with KeyboardInterrupt and lose
// the outcomes).
const (
	errorClassCanceled         = "Canceled"
	errorClassDeadlineExceeded = "DeadlineExceeded"
)

// StopClass returns the error_class a receipt's stopped record names for
// err, the failure that stopped a run under ctx (typevet's
// type(exc).__name__): "Canceled" or "DeadlineExceeded" when ctx has ended
// and err is about it (Ctrl-C mid-call, which a port reports as a
// TransportError about the context, is not a network failure; pass
// ctx.Err() itself for a run stopped between calls), else [ErrorClass]'s
// class, else "Canceled" or "DeadlineExceeded" for a context error, else
// err's Go type ("*errors.errorString").
func StopClass(ctx context.Context, err error) string {
	if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
		if errors.Is(cerr, context.DeadlineExceeded) {
			return errorClassDeadlineExceeded
		}
		return errorClassCanceled
	}
	if c := ErrorClass(err); c != "" {
		return c
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return errorClassDeadlineExceeded
	case errors.Is(err, context.Canceled):
		return errorClassCanceled
	}
	return fmt.Sprintf("%T", err)
}
