// Package vllm scores typed judgments against an OpenAI-compatible vLLM
// server the way typevet does. The server applies its own chat
// template ([judgment.FamilyChat]); thinking is switched off in each request.
//
// [Open] makes no HTTP call. Each question of a judgment is one POST
// /v1/chat/completions with max_tokens 1, logprob_token_ids set to the
// candidates' token ids and return_tokens_as_token_ids, so the server
// returns the raw logprobs of exactly those ids at the first generated
// position (run the server with --logprobs-mode raw_logprobs). Images go
// as data-URI content blocks, each encoded once per judgment.
//
// Nothing is retried and redirects are never followed. Errors are the
// judgment package's classes: [judgment.TransportError]
// ("vLLM request failed: ..."), [judgment.BackendHTTPError] ("vLLM HTTP
// <status>: <snippet>", "... redirect not followed", "... HTML body
// withheld", with Retry-After, rate-limit headers and the request id),
// [judgment.GenerationError] for malformed bodies and
// [judgment.ScoringValidationError] for a result that does not cover the
// request. With an API key or extra headers configured, every error a
// [Session] returns has them masked.
//
// Rate-limit headers are recorded with lower-cased names, sorted by name
// (Go's header map keeps no wire order), repeated fields joined by ", ".
// Python's NaN/Infinity literals are read as in typevet, so a non-finite
// logprob is a ScoringValidationError.
package vllm
