package vllm

import (
	"net/http"
	"strconv"

	"github.com/typevet/typevet-go/internal/backendhttp"
)

// backendName is the Backend of every [judgment.BackendHTTPError] here.
const backendName = "vLLM"

func itoa(n int) string { return strconv.Itoa(n) }

// statusError maps a non-2xx answer to a [judgment.BackendHTTPError]
// ([backendhttp.StatusError]: a 3xx is "redirect not followed"
// with no Location; a ≥400 HTML page is "HTML body withheld"; otherwise
// the message carries a redacted 500-character snippet). A ≥400 error also
// records Retry-After and the rate-limit headers (never one the request
// sent, never Authorization); every error records the request id.
func (c *Client) statusError(resp *http.Response, body []byte, id string) error {
	e := backendhttp.StatusError(backendName, resp, body, c.secrets)
	e.RequestID = id
	if resp.StatusCode >= 400 {
		e.RetryAfterSeconds = backendhttp.RetryAfter(resp.Header, c.now())
		e.RateLimit = backendhttp.RateLimit(resp.Header, c.sent)
	}
	return e
}
