package vllm

// CannedChatBody is cannedChatBody, for the canned server of the external
// tests (bench_test.go).
var CannedChatBody = cannedChatBody
