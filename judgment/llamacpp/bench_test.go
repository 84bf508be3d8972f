package llamacpp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/llamacpp"
)

// BenchmarkJudgeLlamaCPP measures one check judgment (four questions, one
// 1000×440 PNG, so 4 /completion calls; /tokenize only in the first
// judgment, as the Judge caches control ids) against an
// in-process fake llama-server. ns/op is wall time on a shared machine;
// cpu-ns/op is the process CPU time (client and fake server) per judgment.
func BenchmarkJudgeLlamaCPP(b *testing.B) {
	srv := newServer(b, judgmenttest.CheckModel(), nil)
	sess := openSession(b, srv, llamacpp.Settings{}, llamacpp.OpenOptions{NVocab: 64})
	judgmenttest.BenchJudge(b, sess, nil)
}

// BenchmarkJudgeLlamaCPPFullVocab is BenchmarkJudgeLlamaCPP with the
// default Gemma 4 vocabulary (262144 entries, about 20 MB per /completion
// answer): the cost of a real llama-server answer, streamed through the
// decoder. B/op and cpu-ns/op include the fake server's encoding.
func BenchmarkJudgeLlamaCPPFullVocab(b *testing.B) {
	m := judgmenttest.CheckModel()
	m.NVocab = 0
	srv := newServer(b, m, nil)
	sess := openSession(b, srv, llamacpp.Settings{Timeout: time.Minute}, llamacpp.OpenOptions{})
	judgmenttest.BenchJudge(b, sess, nil)
}

// BenchmarkJudgeLlamaCPPClient is BenchmarkJudgeLlamaCPP against the canned
// server of cannedLlamaHandler, which only drains requests and writes fixed
// answers, run in a child process (this test binary again, judgmenttest.StartChild) so
// that the client's CPU can be read apart from the server's.
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
func BenchmarkJudgeLlamaCPPClient(b *testing.B) {
	url, serverCPU := judgmenttest.StartChild(b)
	sess, err := llamacpp.Open(context.Background(), llamacpp.Settings{BaseURL: url},
		llamacpp.OpenOptions{Model: judgmenttest.DefaultModelID, NVocab: 64})
	if err != nil {
		b.Fatal(err)
	}
	judgmenttest.BenchJudge(b, sess, serverCPU)
}

// cannedLlamaHandler answers the llama-server calls of a session with fixed
// bodies: every control token and 28 others, uniformly (64 entries).
func cannedLlamaHandler() http.Handler {
	vocab := judgmenttest.DefaultVocab()
	var entries []string
	for _, id := range vocab {
		entries = append(entries, fmt.Sprintf(`{"id":%d,"token":"x","logprob":%v,"bytes":[120]}`, id, math.Log(1.0/64)))
	}
	for i := range 64 - len(vocab) {
		entries = append(entries, fmt.Sprintf(`{"id":%d,"token":"y","logprob":%v,"bytes":[121]}`, 1000+i, math.Log(1.0/64)))
	}
	completion := []byte(`{"completion_probabilities":[{"id":1000,"token":"y","logprob":-4.1,"top_logprobs":[` +
		strings.Join(entries, ",") + `]}],"tokens_evaluated":400,"tokens_predicted":0}`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/props":
			io.WriteString(w, `{"modalities":{"vision":true},"media_marker":"<__media_bench__>"}`)
		case "/apply-template":
			io.WriteString(w, `{"prompt":"<|turn>user\nhello<turn|>\n<|turn>model\n"}`)
		case "/tokenize":
			var in struct{ Content string }
			json.NewDecoder(r.Body).Decode(&in)
			fmt.Fprintf(w, `{"tokens":[%d]}`, vocab[in.Content])
		case "/completion":
			io.Copy(io.Discard, r.Body)
			w.Write(completion)
		default:
			http.NotFound(w, r)
		}
	})
}

// TestMain runs the tests, or, in a child started by judgmenttest.StartChild,
// serves cannedLlamaHandler.
func TestMain(m *testing.M) {
	judgmenttest.ServeInChild(cannedLlamaHandler())
	os.Exit(m.Run())
}
