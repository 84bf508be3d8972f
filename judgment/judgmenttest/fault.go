package judgmenttest

import (
	"net/http"
	"strconv"
	"time"
)

// Fault is one injected misbehaviour (see [Server.Inject]). A fault applies
// to the requests it matches (Path, Nth); the first injected fault that
// applies to a request wins. What it does, in this order:
//
//  1. Header is added to the response (any status, including a normal answer):
//     Retry-After, x-ratelimit-*, ratelimit-*, Location, ...
//  2. Delay: the server waits before doing anything else; the wait ends
//     early when the request context ends (the client gave up) or the
//     server closes.
//  3. Close: the server hijacks the connection and closes it without
//     writing a byte, after reading the whole request (llama.cpp's
//     "Server disconnected without sending a response").
//  4. Status (non-zero): the server answers Status with Body instead of the
//     normal answer (an error, a 3xx with a Location Header, or a 200 with
//     a non-JSON Body).
//  5. Otherwise the normal answer is sent, changed by Tamper.
type Fault struct {
	// Path selects the request path ("/completion", "/v1/chat/completions",
	// ...); "" matches every path.
	Path string
	// Nth selects the Nth matching request (1-based) counted from the
	// Inject call; 0 selects every matching request.
	Nth int

	// Header holds extra response headers.
	Header http.Header
	// Delay is a wait before answering.
	Delay time.Duration
	// Close drops the connection without a response.
	Close bool
	// Status, when non-zero, is the status code of the replacement answer.
	Status int
	// Body is the replacement body sent with Status.
	Body string
	// ContentType of Body ("" = "application/json" when Body starts with
	// '{' or '[', else "text/plain; charset=utf-8"). Use "text/html" for an
	// HTML error page.
	ContentType string

	// Tamper changes the normal scoring answer (llama.cpp /completion or
	// vLLM /v1/chat/completions); ignored on other paths and with Status.
	Tamper Tamper
}

// Tamper is a change of an otherwise valid scoring answer. The "first
// candidate" is the token of control "0" on llama.cpp (the server does not
// know which tokens the client wants) and the first of logprob_token_ids on
// vLLM.
type Tamper int

const (
	// TamperNone sends the normal answer.
	TamperNone Tamper = iota
	// TamperMissingCandidate leaves the first candidate's token out of
	// the logprob list.
	TamperMissingCandidate
	// TamperDuplicateCandidate lists the first candidate's token twice.
	TamperDuplicateCandidate
	// TamperPositiveLogprob sends +0.5 as the first candidate's logprob (a
	// probability-like value where a logprob belongs).
	TamperPositiveLogprob
	// TamperNonFiniteLogprob sends the number literal -1e400 as the first
	// candidate's logprob. It is valid JSON (RFC 8259 puts no bound on
	// magnitude) that Python's json reads as -inf; Go's strconv.ParseFloat
	// gives -Inf with ErrRange and encoding/json refuses it for a float64.
	TamperNonFiniteLogprob
	// TamperNaNLogprob sends the bare literal NaN as the first candidate's
	// logprob, as Python's json.dumps writes float("nan"); the body is then
	// not valid JSON. On vLLM the answer is instead what vLLM sends when a
	// logprob is NaN: its JSON encoder refuses the value and the request
	// fails with HTTP 400 ("Out of range float values are not JSON
	// compliant: nan").
	TamperNaNLogprob
	// TamperDropImage answers as if no image had been sent: the model sees
	// the text only and the prompt-token count is the text-only count
	// (tokens_evaluated is the only sign of a dropped image).
	TamperDropImage
	// TamperFinishError makes vLLM finish the request with finish_reason
	// "error" (an engine-side failure of this request alone), which vLLM
	// answers with HTTP 500 {"error": {"message": "Internal server error",
	// "type": "InternalServerError", ...}} and documents as retryable.
	// Ignored on llama.cpp.
	TamperFinishError
)

var tamperNames = [...]string{"none", "missing_candidate", "duplicate_candidate", "positive_logprob",
	"non_finite_logprob", "nan_logprob", "drop_image", "finish_error"}

// String returns the tamper's snake_case name.
func (t Tamper) String() string {
	if t >= 0 && int(t) < len(tamperNames) {
		return tamperNames[t]
	}
	return "Tamper(" + strconv.Itoa(int(t)) + ")"
}
