// Package typevet is the root of typevet-go, a Go library for evaluating
// vision-language-model judges the way the Python project typevet does.
//
// A run generates a seeded slice of synthetic bank checks, renders them,
// asks a served model typed questions about each image through llama.cpp or
// vLLM, scores the answers (accuracy, false-clear rate, ROC-AUC, ECE,
// reliability, agreement) and writes a self-describing JSON receipt. The
// receipt keeps typevet's keys, key order and meaning, so typevet's tools
// read receipts written here and this module reads typevet's.
//
// # Map of the module
//
// Dependencies point down the list: no package imports one listed above
// it.
//
//   - examples/: one main per run type (checksheets, checkmatch, wording and
//     the derived runs), thin: flags and environment variables become
//     library calls. Only examples read the environment or exit.
//   - [github.com/typevet/typevet-go/checkmatch/view]: the receipt viewer:
//     a static site of receipts that shows each check only when its
//     re-render matches the receipt's digest, with the statistics' intervals.
//   - [github.com/typevet/typevet-go/checkmatch/sweep]: the throughput sweep
//     (typevet #335): one check-match run per concurrency level against one
//     server, and the sweep's summary document.
//   - [github.com/typevet/typevet-go/checkmatch/orderings]: the option-order
//     study (typevet #105): the verdict asked under balanced orderings of
//     its options, its statistics, journal, shards and receipt.
//   - [github.com/typevet/typevet-go/checkmatch/repeats]: the repeat-run
//     study (typevet #357): whether several receipts of one slice agree.
//   - [github.com/typevet/typevet-go/checkmatch/stats]: error bars on a
//     check receipt (Wilson and bootstrap intervals, Brier score, log loss)
//     and the paired comparison of two runs (exact McNemar), each its own
//     schema-versioned document.
//   - [github.com/typevet/typevet-go/checkmatch]: the synthetic check slice
//     (generator, amounts in words, renderer, contact sheets), the request
//     builder, the runner, the metrics and the check receipt.
//   - [github.com/typevet/typevet-go/checkmatch/journal]: a run's finished
//     work on disk while it goes (JSON Lines beside the receipt), so a
//     killed run resumes without losing or repeating a judgment.
//   - [github.com/typevet/typevet-go/wording]: wording parts of a question,
//     their digests, length caps and the wording judge's identity.
//   - [github.com/typevet/typevet-go/receipt]: the blocks every receipt
//     shares: experiment identity (git fingerprint, prompt and code digests),
//     the throughput block and the key-free, create-exclusive writer.
//   - [github.com/typevet/typevet-go/serving]: what the server did and how it
//     was configured: vLLM /metrics changes, server_args and the server entry.
//   - [github.com/typevet/typevet-go/pool]: judge items in slice order with
//     bounded concurrency, stopping at the first backend failure.
//   - The backends, judgment's subpackages:
//     [github.com/typevet/typevet-go/judgment/backend] (settings from the
//     environment, one Open for all), judgment/llamacpp, judgment/vllm, the
//     offline judgment/fake, judgment/reader (the built-in reader judge: it
//     answers the check-match questions from the pixels of a rendered
//     check and the register text) and judgment/judgmenttest (httptest
//     fakes of both servers' wire APIs and a conformance suite for any
//     Port).
//   - internal/backendhttp: the HTTP plumbing the llama.cpp and vLLM
//     backends share (auth and header rules, the client, redacted body
//     snippets, Retry-After); it returns judgment's errors.
//   - [github.com/typevet/typevet-go/judgment]: typed questions (Noul,
//     Choice, Score), requests, answers, the Port every run uses, errors and
//     the log-probability scoring algorithm.
//   - internal/: Python-compatible JSON (pyjson), sums and rounding
//     (pymath) and string rules (pytext), the check form's layout
//     (checkform) that the renderer and the reader share, and the
//     server-block values (serverblock) that receipt and serving share.
//
// # Quick start
//
// Offline, with no model and no server, run the main job (the whole
// check slice judged by the built-in reader, a receipt written to a new
// path), look at the checks, and run the tests:
//
//	go run ./examples/checkmatch -backend reader -receipt receipts/check_match_reader.json
//	go run ./examples/checksheets -seed 1 -out sheets
//	go test ./...
//
// In Go, a slice is two calls away:
//
//	cases, err := checkmatch.Cases(1, 20) // seed 1, 20 register rows, 140 cases
//	png, err := checkmatch.Render(cases[0])
//
// README.md shows how to judge the slice with a llama.cpp or vLLM server and
// what the receipt holds.
package typevet
