package serving

import (
	"fmt"

	"github.com/typevet/typevet-go/internal/pytext"
)

// EngineError refuses a /metrics reading in which one gauge carries several
// engine labels (typevet #339, #346): a sum across engines is not one
// reading. Samples without an engine label count as one engine of their
// own, so mixing labelled and unlabelled samples of a gauge is refused too.
// Each reading is checked alone: engine 0 before and engine 1 after is not
// refused. Counters and histograms are never checked.
type EngineError struct {
	// Gauge is the first refused gauge name in code-point order.
	Gauge string
	// Engines are its distinct engine ids, sorted, a missing label spelled
	// "(none)".
	Engines []string
}

// Error returns typevet's message verbatim, the list in Python's repr:
//
//	gauge vllm:kv_cache_usage_perc carries engine labels ['0', '1']; a sum across engines is not one reading
func (e *EngineError) Error() string {
	return fmt.Sprintf("gauge %s carries engine labels %s; a sum across engines is not one reading",
		e.Gauge, pytext.ReprList(e.Engines))
}

// ReadingError says why a present /metrics reading counted as missing: its
// text is not valid exposition text. It travels in [Delta.Warnings].
type ReadingError struct {
	// Reading is "before" or "after".
	Reading string
	// Err is the parse failure; it wraps the [expfmt.ParseError] that
	// names the line.
	Err error
}

// Error names the reading and the parse failure.
func (e *ReadingError) Error() string {
	return fmt.Sprintf("serving: %s /metrics reading counted as missing: %v", e.Reading, e.Err)
}

// Unwrap returns the parse failure.
func (e *ReadingError) Unwrap() error { return e.Err }

// HTTPError is a server-entry read that got a status other than 200.
type HTTPError struct {
	// Path is the request path, e.g. /v1/models.
	Path string
	// StatusCode is the HTTP status.
	StatusCode int
}

// Error names the path and the status.
func (e *HTTPError) Error() string {
	return fmt.Sprintf("serving: GET %s: HTTP %d", e.Path, e.StatusCode)
}
