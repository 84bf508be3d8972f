package vllm

import "io"

// scanChat reads body with a fresh scanner.
func scanChat(body []byte) (chatAnswer, bool) {
	var s chatScanner
	ok := s.scan(body)
	return s.a, ok
}

// reader returns the body as one reader and its length.
func (r *splicedReader) reader() (io.ReadCloser, int64) { return r, r.size() }

// CannedChatBody is cannedChatBody, for the canned server of the external
// tests (bench_test.go).
var CannedChatBody = cannedChatBody
