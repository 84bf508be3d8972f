package vllm

import (
	"net/http"
	"strconv"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/backend/backendhttp"
)

// backendName is the Backend of every [judgment.BackendHTTPError] here.
const backendName = "vLLM"

func itoa(n int) string { return strconv.Itoa(n) }

// statusError maps a non-2xx answer to a [judgment.BackendHTTPError]
// (spec §5.5): a 3xx is "redirect not followed" with no Location; a ≥400
// HTML page is "HTML body withheld"; otherwise the message carries a
// redacted 500-character snippet. A ≥400 error records Retry-After and
// the rate-limit headers (never one the request sent, never
// Authorization); every error records the request id.
func (c *Client) statusError(resp *http.Response, body []byte, id string) error {
	prefix := backendName + " HTTP " + itoa(resp.StatusCode) + ": "
	e := &judgment.BackendHTTPError{Backend: backendName, StatusCode: resp.StatusCode, RequestID: id}
	if resp.StatusCode < 400 {
		e.Msg = prefix + "redirect not followed"
		return e
	}
	e.RetryAfterSeconds = backendhttp.RetryAfter(resp.Header, c.now())
	e.RateLimit = backendhttp.RateLimit(resp.Header, c.sent)
	if backendhttp.LooksHTML(resp, body) {
		e.Msg = prefix + "HTML body withheld"
		return e
	}
	e.BodySnippet = backendhttp.Snippet(body, c.masks)
	e.Msg = prefix + e.BodySnippet
	return e
}
