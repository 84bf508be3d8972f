package llamacpp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/llamacpp"
)

// BenchmarkJudgeLlamaCPP measures one check judgment (four questions, one
// 1000×440 PNG, so 4 /completion and 10 /tokenize calls) against an
// in-process fake llama-server. ns/op is wall time on a shared machine;
// cpu-ns/op is the process CPU time (client and fake server) per judgment.
func BenchmarkJudgeLlamaCPP(b *testing.B) {
	srv := newServer(b, smallModel(), nil)
	sess := openSession(b, srv, llamacpp.Settings{}, llamacpp.OpenOptions{NVocab: 64})
	benchJudge(b, sess)
}

// BenchmarkJudgeLlamaCPPFullVocab is BenchmarkJudgeLlamaCPP with the
// default Gemma 4 vocabulary (262144 entries, about 20 MB per /completion
// answer): the cost of a real llama-server answer, streamed through the
// decoder. B/op and cpu-ns/op include the fake server's encoding.
func BenchmarkJudgeLlamaCPPFullVocab(b *testing.B) {
	m := smallModel()
	m.NVocab = 0
	srv := newServer(b, m, nil)
	sess := openSession(b, srv, llamacpp.Settings{Timeout: time.Minute}, llamacpp.OpenOptions{})
	benchJudge(b, sess)
}

// BenchmarkJudgeLlamaCPPClient is BenchmarkJudgeLlamaCPP against a canned
// server that only drains requests and writes fixed answers, so cpu-ns/op
// is close to the client's own cost.
func BenchmarkJudgeLlamaCPPClient(b *testing.B) {
	ts := cannedLlamaServer(b)
	sess, err := llamacpp.Open(context.Background(), llamacpp.Settings{BaseURL: ts.URL},
		llamacpp.OpenOptions{Model: judgmenttest.DefaultModelID, NVocab: 64})
	if err != nil {
		b.Fatal(err)
	}
	benchJudge(b, sess)
}

func benchJudge(b *testing.B, sess *llamacpp.Session) {
	pngBytes := checkPNG(b)
	req := checkRequest(pngBytes)
	ctx := context.Background()
	b.SetBytes(int64(len(pngBytes)))
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	for b.Loop() {
		if _, err := sess.Judge(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// cpuTime returns the user plus system CPU time of the process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cannedLlamaServer answers the llama-server calls of a session with fixed
// bodies: every control token and 28 others, uniformly (64 entries).
func cannedLlamaServer(tb testing.TB) *httptest.Server {
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
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	}))
	tb.Cleanup(ts.Close)
	return ts
}
