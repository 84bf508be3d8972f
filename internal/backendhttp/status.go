package backendhttp

import (
	"net/http"
	"strconv"

	"github.com/typevet/typevet-go/judgment"
)

// StatusError maps a non-2xx answer of backend ("llama.cpp", "vLLM") to a
// [judgment.BackendHTTPError] with the message "<backend> HTTP <status>:
// <detail>":
//
//   - a 3xx is "redirect not followed" (Go's client would follow it;
//     typevet's httpx does not), with no snippet and no Location;
//   - a ≥400 HTML page (a content type mentioning html, or a body
//     starting with '<') is "HTML body withheld", with no snippet;
//   - any other error carries the first [SnippetMax] characters of the body
//     as the detail and BodySnippet, redacted of secrets first ([Snippet]).
//
// Backends add what is theirs to the returned error (vLLM: Retry-After,
// rate-limit headers, the request id).
func StatusError(backend string, resp *http.Response, body []byte, secrets judgment.Secrets) *judgment.BackendHTTPError {
	prefix := backend + " HTTP " + strconv.Itoa(resp.StatusCode) + ": "
	e := &judgment.BackendHTTPError{Backend: backend, StatusCode: resp.StatusCode}
	switch {
	case resp.StatusCode < 400:
		e.Msg = prefix + "redirect not followed"
	case LooksHTML(resp, body):
		e.Msg = prefix + "HTML body withheld"
	default:
		e.BodySnippet = Snippet(body, secrets)
		e.Msg = prefix + e.BodySnippet
	}
	return e
}
