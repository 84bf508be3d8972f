package backendhttp

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/typevet/typevet-go/judgment"
)

// SnippetMax is the most characters of a response body kept in an error
// (Python BODY_SNIPPET_MAX).
const SnippetMax = 500

// MaxBodyBytes bounds how much of a response body is read (a full-vocabulary
// llama.cpp /completion answer is tens of megabytes; 256 MiB leaves room).
const MaxBodyBytes = 256 << 20

// ReadBody reads and closes the body of resp, at most [MaxBodyBytes].
func ReadBody(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	return io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes))
}

// BodyTooLargeError is returned by [ReadBodyLimit] for a body longer than
// its bound: no answer the client asked for can be that long.
type BodyTooLargeError struct {
	// Limit is the bound in bytes.
	Limit int64
}

// Error returns "response body larger than <n> bytes".
func (e *BodyTooLargeError) Error() string {
	return "response body larger than " + strconv.FormatInt(e.Limit, 10) + " bytes"
}

// ReadBodyLimit reads and closes the body of resp, refusing with a
// *[BodyTooLargeError] one longer than limit bytes, after reading at most
// limit+1 of them (a hostile server cannot make the client hold more).
func ReadBodyLimit(resp *http.Response, limit int64) ([]byte, error) {
	return ReadBodyLimitInto(resp, limit, nil)
}

// ReadBodyLimitInto is [ReadBodyLimit] reading into buf from its start
// (growing it as needed), so a caller can reuse one buffer across
// responses; the body returned shares buf's array when it fits.
func ReadBodyLimitInto(resp *http.Response, limit int64, buf []byte) ([]byte, error) {
	defer resp.Body.Close()
	b := buf[:0]
	if n := resp.ContentLength; n > 0 && n <= limit && int64(cap(b)) < n+1 {
		b = make([]byte, 0, n+1) // room for the EOF read
	}
	for {
		if int64(len(b)) > limit {
			break // read limit+1 bytes: too long
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		// At most limit+1 bytes in all, as io.LimitReader would.
		room := b[len(b):cap(b)]
		if left := limit + 1 - int64(len(b)); int64(len(room)) > left {
			room = room[:left]
		}
		n, err := resp.Body.Read(room)
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return b, err
		}
	}
	if int64(len(b)) > limit {
		return nil, &BodyTooLargeError{Limit: limit}
	}
	return b, nil
}

// Snippet returns the first [SnippetMax] characters of body after every
// secret is replaced by "***" ([judgment.Secrets.Redact]: keys in every
// form, extra header values as whole tokens). Redaction runs on the whole
// body before the cut, so a key straddling the cut cannot leak a prefix.
// Invalid UTF-8 becomes U+FFFD, as Python's text decoding does.
func Snippet(body []byte, secrets judgment.Secrets) string {
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	s = secrets.Redact(s)
	if utf8.RuneCountInString(s) <= SnippetMax {
		return s
	}
	n := 0
	for i := range s {
		if n == SnippetMax {
			return s[:i]
		}
		n++
	}
	return s
}

// LooksHTML reports whether an error response is an HTML page: its
// content type mentions html or its body starts with '<'.
func LooksHTML(resp *http.Response, body []byte) bool {
	if strings.Contains(strings.ToLower(resp.Header.Get("Content-Type")), "html") {
		return true
	}
	trimmed := strings.TrimLeft(string(body[:min(len(body), 64)]), " \t\r\n")
	return strings.HasPrefix(trimmed, "<")
}
