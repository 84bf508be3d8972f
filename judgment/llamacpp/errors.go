package llamacpp

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/judgment"
)

// backendName is the Backend of every [judgment.BackendHTTPError] here.
const backendName = "llama.cpp"

// ProbeError reports that [Open] refused the served model: its template
// is not the required family. It is not a
// judgment.GenerationError (typevet raises ValueError): the session never
// opened, so no run started.
type ProbeError struct {
	// Msg is typevet's message, e.g. "unsupported served template for
	// native vision: degraded_chatml".
	Msg string
}

// Error returns Msg.
func (e *ProbeError) Error() string { return e.Msg }

// errNonJSON is the error for a body that is not JSON.
func errNonJSON() error {
	return &judgment.GenerationError{Msg: "llama.cpp returned non-JSON HTTP body"}
}

// transportError maps a failed exchange to a [judgment.TransportError].
// The detail is the cause without the URL wrapper; it never holds a
// header. The cause stays reachable through Unwrap (a session with secrets
// drops it when masking).
func transportError(ctx context.Context, err error) error {
	err = backendhttp.Cause(ctx, err)
	return &judgment.TransportError{Msg: "llama.cpp request failed: " + err.Error(), Err: err}
}

// statusError maps a non-2xx answer to a [judgment.BackendHTTPError]
// ([backendhttp.StatusError]: redirects not followed, HTML bodies
// withheld, else a redacted 500-character snippet) with the answer's
// Retry-After ([backendhttp.RetryAfter]), which a retry honours (a
// llama-server behind a proxy or a rate limiter sends one); the
// rate-limit headers are not recorded for llama.cpp.
func (c *Client) statusError(resp *http.Response, body []byte) error {
	e := backendhttp.StatusError(backendName, resp, body, c.secrets)
	if resp.StatusCode >= 400 {
		e.RetryAfterSeconds = backendhttp.RetryAfter(resp.Header, time.Now())
	}
	return e
}

// withRequestID sets the request id id on err when it is a
// [judgment.TransportError] or [judgment.BackendHTTPError] without one,
// and returns err.
func withRequestID(err error, id string) error {
	if id == "" {
		return err
	}
	var te *judgment.TransportError
	var he *judgment.BackendHTTPError
	switch {
	case errors.As(err, &te) && te.RequestID == "":
		te.RequestID = id
	case errors.As(err, &he) && he.RequestID == "":
		he.RequestID = id
	}
	return err
}
