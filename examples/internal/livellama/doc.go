// Package livellama holds the live test against a real llama-server
// build: it starts the binary named by TYPEVET_LLAMA_SERVER_BIN on a
// loopback port (single-model, then router mode), runs the built
// checkmatch, orderings and throughput commands against it as child
// processes, checks that every receipt reads back and recomputes, and
// stops the server by its process id. Without the variable the test skips.
// .ci/run sets it when the repository's ../shared/tools/llama-server holds
// the build; the model files are read from ../models beside the binary.
//
//	TYPEVET_LLAMA_SERVER_BIN=/path/to/llama-server/bin/llama-server \
//	  go test ./examples/internal/livellama -v
package livellama
