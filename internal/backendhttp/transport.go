package backendhttp

import (
	"context"
	"errors"
	"net/url"
)

// Cause returns the error to report for a failed exchange: the cause
// without Go's *url.Error wrapper (which repeats method and URL), or the
// context's error when ctx ended first. It never holds a request header,
// so "<backend> request failed: " + Cause(ctx, err).Error() is a safe
// TransportError message.
func Cause(ctx context.Context, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		err = ctxErr
	}
	return err
}
