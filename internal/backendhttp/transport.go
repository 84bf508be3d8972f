package backendhttp

import (
	"context"
	"errors"
	"net"
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

// Unsent reports whether err, from sending a request, is a failure to
// write the request to its connection (the server had closed it: a
// broken pipe or a reset): the server did not read the whole request, so
// it cannot have served it, and sending it again is safe. net/http
// resends such a request by itself only when it wrote no byte of it. A
// body net/http hands to the connection's ReadFrom fails as a "readfrom"
// error wrapping the "write" one; both count.
func Unsent(err error) bool {
	for {
		var oe *net.OpError
		if !errors.As(err, &oe) {
			return false
		}
		if oe.Op == "write" || oe.Op == "readfrom" {
			return true
		}
		err = oe.Err
	}
}
