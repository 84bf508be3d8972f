package judgment

import (
	"errors"
)

// typevet's judgment error classes. Each Python class is a Go type used as a
// pointer (*JudgmentValidationError and so on). Python subclassing is kept
// through As methods: errors.As(err, &ge) with ge a *GenerationError
// succeeds for every class below, and so do the intermediate umbrellas
// *ScoringError and *JudgmentError for their subclasses. [IsGenerationError]
// is the one test a runner needs ("stop the run on a backend failure, crash
// on anything else"); [ErrorClass] gives the Python class name for receipts.

// GenerationError is the umbrella class: the call failed before a valid
// result existed. Backends return it directly for malformed responses
// (non-JSON body, missing fields); errors.As with a *GenerationError target
// also matches every subclass, with Msg set to the subclass's message.
type GenerationError struct {
	// Msg is the error message, the text typevet's exception carries.
	Msg string
}

// Error returns the message, Msg.
func (e *GenerationError) Error() string     { return e.Msg }
func (e *GenerationError) className() string { return "GenerationError" }

// TransportError reports a connect or read failure or a timeout (no HTTP
// status was received). Err is the underlying cause; [Secrets.Mask] drops it
// but for the context sentinel it matched (context.Canceled,
// context.DeadlineExceeded).
type TransportError struct {
	Msg       string // error message: what failed, e.g. "llama.cpp request failed: ..."
	RequestID string // id sent in the configured request-id header, "" if none
	Err       error  // cause, e.g. a *url.Error or context.DeadlineExceeded
}

// Error returns the message, Msg.
func (e *TransportError) Error() string { return e.Msg }

// Unwrap returns the underlying cause, Err (nil if none).
func (e *TransportError) Unwrap() error     { return e.Err }
func (e *TransportError) className() string { return "TransportError" }

// As lets errors.As match the umbrella *GenerationError.
func (e *TransportError) As(target any) bool { return asUmbrella(e, target) }

// BackendHTTPError reports an HTTP status >= 400 (and, on vLLM, a 3xx that
// was not followed). It never holds a request header.
type BackendHTTPError struct {
	Backend           string      // "llama.cpp" or "vLLM"
	StatusCode        int         // HTTP status code
	Msg               string      // "<backend> HTTP <status>: <snippet>" etc.
	BodySnippet       string      // at most 500 characters, already redacted
	RetryAfterSeconds *float64    // parsed Retry-After; nil when absent or unparseable
	RateLimit         [][2]string // rate-limit header name/value pairs, in response order
	RequestID         string      // id sent in the configured request-id header, "" if none
}

// Error returns the message, Msg.
func (e *BackendHTTPError) Error() string     { return e.Msg }
func (e *BackendHTTPError) className() string { return "BackendHttpError" }

// As lets errors.As match the umbrella *GenerationError.
func (e *BackendHTTPError) As(target any) bool { return asUmbrella(e, target) }

// SchemaValidationError reports a generated payload that failed its JSON
// Schema (generation path only).
type SchemaValidationError struct {
	// Msg is the error message, the text typevet's exception carries.
	Msg string
}

// Error returns the message, Msg.
func (e *SchemaValidationError) Error() string     { return e.Msg }
func (e *SchemaValidationError) className() string { return "SchemaValidationError" }

// As lets errors.As match the umbrella *GenerationError.
func (e *SchemaValidationError) As(target any) bool { return asUmbrella(e, target) }

// GenerationUnsupportedCapabilityError reports a generation request the
// backend cannot serve (for example images on llama.cpp generation),
// raised before any HTTP call.
type GenerationUnsupportedCapabilityError struct {
	// Msg is the error message, the text typevet's exception carries.
	Msg string
}

// Error returns the message, Msg.
func (e *GenerationUnsupportedCapabilityError) Error() string { return e.Msg }
func (e *GenerationUnsupportedCapabilityError) className() string {
	return "GenerationUnsupportedCapabilityError"
}

// As lets errors.As match the umbrella *GenerationError.
func (e *GenerationUnsupportedCapabilityError) As(target any) bool { return asUmbrella(e, target) }

// DecisionExecutionError reports a bad execute input (option count outside
// 2..24) or a degenerate softmax.
type DecisionExecutionError struct {
	// Msg is the error message, the text typevet's exception carries.
	Msg string
}

// Error returns the message, Msg.
func (e *DecisionExecutionError) Error() string     { return e.Msg }
func (e *DecisionExecutionError) className() string { return "DecisionExecutionError" }

// As lets errors.As match the umbrella *GenerationError.
func (e *DecisionExecutionError) As(target any) bool { return asUmbrella(e, target) }

// ScoringError is the umbrella of the scoring classes. errors.As with a
// *ScoringError target matches [ScoringValidationError] and
// [ScoringUnsupportedCapabilityError].
type ScoringError struct {
	// Msg is the error message, the text typevet's exception carries.
	Msg string
}

// Error returns the message, Msg.
func (e *ScoringError) Error() string     { return e.Msg }
func (e *ScoringError) className() string { return "ScoringError" }

// As lets errors.As match the umbrella *GenerationError.
func (e *ScoringError) As(target any) bool { return asUmbrella(e, target) }

// ScoringValidationError reports a scoring request or result that breaks
// the contract: candidate coverage, order, finiteness, media markers,
// image input.
type ScoringValidationError struct {
	// Msg is the error message, the text typevet's exception carries.
	Msg string
}

// Error returns the message, Msg.
func (e *ScoringValidationError) Error() string     { return e.Msg }
func (e *ScoringValidationError) className() string { return "ScoringValidationError" }

// As lets errors.As match *ScoringError and *GenerationError.
func (e *ScoringValidationError) As(target any) bool { return asScoring(e, target) }

// ScoringUnsupportedCapabilityError reports a scoring request the backend
// cannot serve: multi-token candidates, too many candidate ids, no vision.
type ScoringUnsupportedCapabilityError struct {
	// Msg is the error message, the text typevet's exception carries.
	Msg string
}

// Error returns the message, Msg.
func (e *ScoringUnsupportedCapabilityError) Error() string { return e.Msg }
func (e *ScoringUnsupportedCapabilityError) className() string {
	return "ScoringUnsupportedCapabilityError"
}

// As lets errors.As match *ScoringError and *GenerationError.
func (e *ScoringUnsupportedCapabilityError) As(target any) bool { return asScoring(e, target) }

// JudgmentError is the umbrella of the judgment classes. errors.As with a
// *JudgmentError target matches [JudgmentValidationError] and
// [GemmaTemplateError].
type JudgmentError struct {
	// Msg is the error message, the text typevet's exception carries.
	Msg string
}

// Error returns the message, Msg.
func (e *JudgmentError) Error() string     { return e.Msg }
func (e *JudgmentError) className() string { return "JudgmentError" }

// As lets errors.As match the umbrella *GenerationError.
func (e *JudgmentError) As(target any) bool { return asUmbrella(e, target) }

// JudgmentValidationError reports a bad request: question shape, model pin,
// threshold, served-template family, option capacity, text-part template.
type JudgmentValidationError struct {
	// Msg is the error message, the text typevet's exception carries.
	Msg string
}

// Error returns the message, Msg.
func (e *JudgmentValidationError) Error() string     { return e.Msg }
func (e *JudgmentValidationError) className() string { return "JudgmentValidationError" }

// As lets errors.As match *JudgmentError and *GenerationError.
func (e *JudgmentValidationError) As(target any) bool { return asJudgment(e, target) }

// GemmaTemplateError reports a prefix that renders a Gemma 4 model turn
// without the no-thinking prefill (typevet #354).
type GemmaTemplateError struct {
	// Msg is the error message, the text typevet's exception carries.
	Msg string
}

// Error returns the message, Msg.
func (e *GemmaTemplateError) Error() string     { return e.Msg }
func (e *GemmaTemplateError) className() string { return "GemmaTemplateError" }

// As lets errors.As match *JudgmentError and *GenerationError.
func (e *GemmaTemplateError) As(target any) bool { return asJudgment(e, target) }

// classed is implemented by every error class of this file.
type classed interface {
	error
	className() string
	// masked is the class's copy with secrets masked (mask.go).
	masked(msg string, m func(string) string, cause error) error
}

func asUmbrella(e error, target any) bool {
	if t, ok := target.(**GenerationError); ok {
		*t = &GenerationError{Msg: e.Error()}
		return true
	}
	return false
}

func asScoring(e error, target any) bool {
	if t, ok := target.(**ScoringError); ok {
		*t = &ScoringError{Msg: e.Error()}
		return true
	}
	return asUmbrella(e, target)
}

func asJudgment(e error, target any) bool {
	if t, ok := target.(**JudgmentError); ok {
		*t = &JudgmentError{Msg: e.Error()}
		return true
	}
	return asUmbrella(e, target)
}

// IsGenerationError reports whether err, or any error it wraps, is one of
// the classes of this package (the Python GenerationError family). A runner
// stops the run on such an error and keeps earlier outcomes; any other
// error is a bug or bad input.
func IsGenerationError(err error) bool {
	var c classed
	return errors.As(err, &c)
}

// ErrorClass returns the Python class name of the first error of this
// package in err's chain, as receipts record it: "TransportError",
// "BackendHttpError", "ScoringValidationError", ..., "GenerationError" for
// the umbrella. It returns "" when err holds none.
func ErrorClass(err error) string {
	var c classed
	if errors.As(err, &c) {
		return c.className()
	}
	return ""
}

func judgmentErr(msg string) error { return &JudgmentValidationError{Msg: msg} }

func scoringErr(msg string) error { return &ScoringValidationError{Msg: msg} }
