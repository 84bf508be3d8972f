// Package llamacpp scores typed judgments against a stock llama.cpp
// llama-server (router or single model) the way typevet does.
//
// [Open] probes the served model once (GET /props for image input and the
// router's media marker, POST /apply-template for the served-template
// family) and returns a [*Session], a judgment.Port. Each question of a
// judgment is one POST /completion with n_predict 0, the full vocabulary
// as n_probs, cache_prompt false and, with images, the nested
// prompt_string + multimodal_data form with the server's media marker.
//
// # Retries
//
// Exactly two, both from typevet:
//
//   - early close: when the server closes a connection after reading a
//     request but before sending a status line, the request is sent once
//     more on a fresh connection (all calls of this package are read-only);
//   - stale media marker (typevet #322): when a media request gets HTTP 400
//     "failed to tokenize prompt", /props is read once more, the cached
//     marker replaced and the request sent once more. When the resend
//     meets a stale marker again (a router that keeps reloading), its
//     [judgment.BackendHTTPError] says so and names LLAMA_MEDIA_MARKER,
//     which pins the marker across a router's reloads.
//
// Nothing else is retried. Errors are the judgment package's classes:
// [judgment.TransportError] ("llama.cpp request failed: ..."),
// [judgment.BackendHTTPError] ("llama.cpp HTTP <status>: <snippet>"),
// [judgment.GenerationError] for malformed bodies and
// [judgment.ScoringValidationError] for a result that does not cover the
// request. With an API key or extra headers configured, every error a
// [Session] returns has them masked.
//
// # Choices where typevet is silent or Python-specific
//
//   - A 3xx answer is never followed (httpx does not follow redirects, Go's
//     client would) and becomes a [judgment.BackendHTTPError]
//     "llama.cpp HTTP <status>: redirect not followed", Location withheld.
//   - The fresh connection of the early-close resend is obtained by closing
//     the client's idle connections, including those of an injected
//     HTTPClient.
//   - Python's json reads NaN, Infinity and -Infinity; so do the decoders
//     here, so a non-finite logprob is a ScoringValidationError, as in
//     typevet, not a non-JSON body. An id must be a JSON integer and a
//     logprob a JSON number: strings and booleans, which Python's int() and
//     float() would convert, are malformed entries.
//   - Error snippets are redacted of every secret before the 500-character
//     cut, so a key straddling the cut cannot leak a prefix.
//   - A full-vocabulary answer (262144 entries, ~20 MB) is decoded straight
//     from the response body in one validating pass that keeps only the
//     candidates' logprobs, the entry count, the ids seen and the total
//     mass (memory per question: a 64 KB read buffer and a bitset of
//     n_probs bits). Keys match exactly and a repeated key keeps its last
//     value, as Python's json.loads reads them (encoding/json would fold
//     case and merge); only completion_probabilities[0] is read. A body
//     over 256 MiB is cut and so is not JSON. See
//     BenchmarkDecodeCompletionFullVocab and BenchmarkJudgeLlamaCPPFullVocab.
//
// Settings come from [SettingsFromEnv] (TYPEVET_LLAMA__*) or are built in
// code starting from the zero value, which means the published defaults
// ([DefaultSettings]).
package llamacpp
