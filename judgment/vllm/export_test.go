package vllm

import "io"

// reader returns the body as one reader and its length.
func (r *splicedReader) reader() (io.ReadCloser, int64) { return r, r.size() }

// CannedChatBody is cannedChatBody, for the canned server of the external
// tests (bench_test.go).
var CannedChatBody = cannedChatBody
