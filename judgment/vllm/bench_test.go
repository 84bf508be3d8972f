package vllm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/vllm"
)

// BenchmarkJudgeVLLM measures one check judgment (four questions, one
// 1000×440 PNG, so 4 chat-completion calls; /tokenize only in the
// first judgment, as the Judge caches control ids) against an
// in-process fake vLLM server. ns/op is wall time on a shared machine;
// cpu-ns/op is the process CPU time (client and fake server) per judgment.
func BenchmarkJudgeVLLM(b *testing.B) {
	srv := newServer(b, judgmenttest.CheckModel(), nil)
	judgmenttest.BenchJudge(b, openSession(b, srv, vllm.Settings{}), nil)
}

// BenchmarkJudgeVLLMClient is BenchmarkJudgeVLLM against the canned server
// of cannedVLLMHandler, which only drains requests and writes fixed answers,
// run in a child process (this test binary again, judgmenttest.StartChild) so that the
// client's CPU can be read apart from the server's.
//
// How to read the numbers:
//   - cpu-ns/op is the CPU time (user + system) of this process per
//     judgment: the client alone (session, request encoding, net/http
//     client, decoding), plus the benchmark loop and the Go runtime (GC).
//     This is the number the 2 ms client-CPU goal of issue 3 is about.
//   - server-cpu-ns/op is the child's CPU per judgment (the canned server
//     with its net/http stack), read from the child before and after the
//     loop; it is not part of cpu-ns/op.
//   - ns/op is wall time, B/op and allocs/op are this process only.
func BenchmarkJudgeVLLMClient(b *testing.B) {
	url, serverCPU := judgmenttest.StartChild(b)
	sess, err := vllm.Open(context.Background(), vllm.Settings{BaseURL: url, Model: judgmenttest.DefaultModelID}, vllm.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	judgmenttest.BenchJudge(b, sess, serverCPU)
}

// cannedVLLMHandler answers /tokenize and /v1/chat/completions with fixed
// bodies listing every control token.
func cannedVLLMHandler() http.Handler {
	vocab := judgmenttest.DefaultVocab()
	entries := []string{`{"token":"token_id:9366","logprob":-0.5}`}
	for _, id := range vocab {
		entries = append(entries, fmt.Sprintf(`{"token":"token_id:%d","logprob":-4.0}`, id))
	}
	chat := []byte(`{"id":"c","choices":[{"index":0,"logprobs":{"content":[{"token":"token_id:9366","logprob":-0.5,"top_logprobs":[` +
		strings.Join(entries, ",") + `]}]},"finish_reason":"length"}],"usage":{"prompt_tokens":400,"completion_tokens":1}}`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/tokenize":
			var in struct{ Prompt string }
			json.NewDecoder(r.Body).Decode(&in)
			fmt.Fprintf(w, `{"count":1,"tokens":[%d]}`, vocab[in.Prompt])
		case "/v1/chat/completions":
			io.Copy(io.Discard, r.Body)
			w.Write(chat)
		default:
			http.NotFound(w, r)
		}
	})
}

// TestMain runs the tests, or, in a child started by judgmenttest.StartChild,
// serves cannedVLLMHandler.
func TestMain(m *testing.M) {
	judgmenttest.ServeInChild(cannedVLLMHandler())
	os.Exit(m.Run())
}
