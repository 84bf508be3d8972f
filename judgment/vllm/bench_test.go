package vllm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/vllm"
)

// BenchmarkJudgeVLLM measures one check judgment (four questions, one
// 1000×440 PNG, so 4 chat-completion and 10 /tokenize calls) against an
// in-process fake vLLM server. ns/op is wall time on a shared machine;
// cpu-ns/op is the process CPU time (client and fake server) per judgment.
func BenchmarkJudgeVLLM(b *testing.B) {
	srv := newServer(b, smallModel(), nil)
	benchJudge(b, openSession(b, srv, vllm.Settings{}))
}

// BenchmarkJudgeVLLMClient is BenchmarkJudgeVLLM against a canned server
// that only drains requests and writes fixed answers, so cpu-ns/op is close
// to the client's own cost.
func BenchmarkJudgeVLLMClient(b *testing.B) {
	ts := cannedVLLMServer(b)
	sess, err := vllm.Open(context.Background(), vllm.Settings{BaseURL: ts.URL, Model: judgmenttest.DefaultModelID}, vllm.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	benchJudge(b, sess)
}

func benchJudge(b *testing.B, sess *vllm.Session) {
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

// cannedVLLMServer answers /tokenize and /v1/chat/completions with fixed
// bodies listing every control token.
func cannedVLLMServer(tb testing.TB) *httptest.Server {
	vocab := judgmenttest.DefaultVocab()
	entries := []string{`{"token":"token_id:9366","logprob":-0.5}`}
	for _, id := range vocab {
		entries = append(entries, fmt.Sprintf(`{"token":"token_id:%d","logprob":-4.0}`, id))
	}
	chat := []byte(`{"id":"c","choices":[{"index":0,"logprobs":{"content":[{"token":"token_id:9366","logprob":-0.5,"top_logprobs":[` +
		strings.Join(entries, ",") + `]}]},"finish_reason":"length"}],"usage":{"prompt_tokens":400,"completion_tokens":1}}`)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	}))
	tb.Cleanup(ts.Close)
	return ts
}
