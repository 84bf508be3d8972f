// Package judgmenttest provides fake llama-server and vLLM servers that
// speak the wire APIs of typevet's judgment backends with a scripted model,
// injectable faults, and a conformance suite for any [judgment.Port].
//
// # Servers
//
// [NewLlamaCPP] and [NewVLLM] start an [httptest.Server]-like [Server] on a
// loopback port; the NewUnstarted variants let a test set knobs first.
// Both servers check the scoring bodies exactly as typevet's clients send them and
// answer a drifting client with HTTP 400 naming the field (messages prefixed
// "judgmenttest:").
//
// The llama.cpp fake serves GET /props, POST /apply-template,
// POST /tokenize, POST /completion, GET /v1/models (and /models, /health).
// /completion returns min(n_probs, Model.NVocab) entries of the scripted
// next-token distribution, which sums to 1 over the whole vocabulary, so a
// small NVocab exercises the off-option mass rule quickly. A nested
// {prompt_string, multimodal_data} prompt must hold the current media
// marker once per image, else HTTP 400 "Failed to tokenize prompt" (a stale
// router marker, typevet #322); a top-level multimodal_data beside a string
// prompt is accepted and the image silently dropped, as the real server does.
//
// The llama.cpp fake behaves as llama-server v0.5.0 (commit de3ff81) was
// measured to: a single-model server ignores every request's "model"; the
// media marker is "<__media_" + 32 letters and digits + "__>", random per
// server; n_predict 0 still generates one token (tokens_predicted 1); a
// wrong method is HTTP 404 not_found_error like an unknown path; malformed
// JSON is HTTP 500 server_error; an image on a model without a projector is
// HTTP 400; /apply-template renders Gemma 4's thinking system turn and no
// "<bos>"; the control strings have Gemma 4's real token ids; a connection
// closes after 100 requests. [Server.Router] plays a router
// (--models-max 1): router props, a required model name, autoload with a
// new marker per load ([Server.PinMarker] plays LLAMA_MEDIA_MARKER) and
// HTTP 500 "model limit reached" for a load while busy. [Model.RealShape]
// and [RealSizeCompletion] give a full-vocabulary answer the real one's
// size and shape, for decoder benchmarks.
//
// The vLLM fake serves POST /tokenize, POST /v1/chat/completions,
// GET /v1/models, GET /version, GET /metrics (and /health). A scoring answer
// lists the sampled token and each requested logprob_token_ids entry in
// "token_id:N" form.
//
// # Scripted model
//
// A [Model] names its control-token vocabulary and returns, per prompt and
// images, the logprob of each control string. [Script] keys those answers by
// question name (the "<name>: " line of typevet's field block), by whether
// an image was sent, and by image bytes. [Probs] turns probabilities into
// logprobs.
//
// # Faults
//
// [Server.Inject] adds a [Fault] for a path and request number: a status
// with a JSON, plain or HTML body, a redirect, a non-JSON 200, an early
// connection close, a slow answer, extra headers (Retry-After,
// x-ratelimit-*), or a [Tamper] of the scoring answer (missing, duplicated,
// positive or non-finite candidate logprob, dropped image).
// [Server.RotateMarker] and [Server.RotateMarkerEvery] reproduce llama.cpp
// router reloads.
//
// # Conformance
//
// [Run] runs named subtests against a Port built on a server scripted with
// [ConformanceModel], or on the offline fake loaded with
// [ConformanceDistributions].
//
// # Check judgments and benchmarks
//
// [CheckRequest] is a four-question judgment with one check-sized PNG
// ([CheckPNG], built into the package) that [CheckModel] answers; the
// backends' tests and benchmarks share them. [BenchJudge] measures a
// Port's CPU per judgment, and [StartChild] with [ServeInChild] run the
// server in a child process, so a client's CPU is read apart from its
// server's.
package judgmenttest
