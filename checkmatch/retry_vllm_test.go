package checkmatch_test

import (
	"context"
	"testing"
	"time"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/llamacpp"
	"github.com/typevet/typevet-go/judgment/vllm"
)

// TestRetryVLLMServerErrors: the failures a real vLLM sends that a retry
// may cure are retried: a request that finished with finish_reason
// "error" (HTTP 500 "Internal server error", which vLLM documents as
// retryable) and an admission-control 503, which carries no Retry-After
// (the back-off is the policy's own). A 500 of another kind is not.
func TestRetryVLLMServerErrors(t *testing.T) {
	const chat = "/v1/chat/completions"
	for _, tt := range []struct {
		name     string
		fault    judgmenttest.Fault
		attempts int
		wantErr  bool
	}{
		{"finish_reason error", judgmenttest.Fault{Path: chat, Nth: 1, Tamper: judgmenttest.TamperFinishError}, 2, false},
		{"admission 503", judgmenttest.Fault{Path: chat, Nth: 1, Status: 503,
			Body: `{"error":{"message":"The server is overloaded; retry later.","type":"ServiceUnavailableError","param":null,"code":503}}`}, 2, false},
		{"other 500", judgmenttest.Fault{Path: chat, Nth: 1, Status: 500, Body: `{"error":"boom"}`}, 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := judgmenttest.NewVLLM(judgmenttest.CheckModel())
			t.Cleanup(srv.Close)
			sess, err := vllm.Open(context.Background(), vllm.Settings{BaseURL: srv.URL, Model: judgmenttest.DefaultModelID}, vllm.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sess.Close() })
			srv.Inject(tt.fault)
			p := checkmatch.RetryPolicy{Retries: 2, BaseDelay: time.Millisecond}
			_, attempts, _, _, err := p.Judge(context.Background(), sess, judgmenttest.CheckRequest(nil), nil)
			if attempts != tt.attempts || (err != nil) != tt.wantErr {
				t.Fatalf("attempts %d, error %v (%s); want %d attempts, error %v", attempts, err, judgment.ErrorClass(err), tt.attempts, tt.wantErr)
			}
		})
	}
}

// TestRetryHonoursRetryAfter: a retry waits for the server's Retry-After
// on both backends, capped at the policy's 30 s, also for a Retry-After
// beyond any cap (once read as absent: a 1 s retry into a server that
// asked for days).
func TestRetryHonoursRetryAfter(t *testing.T) {
	for _, tt := range []struct {
		backend, retryAfter string
		want                time.Duration
	}{
		{"llama.cpp", "10", 10 * time.Second},
		{"vLLM", "10", 10 * time.Second},
		{"llama.cpp", "99999999999", 30 * time.Second},
		{"vLLM", "99999999999", 30 * time.Second},
	} {
		t.Run(tt.backend+"/"+tt.retryAfter, func(t *testing.T) {
			var srv *judgmenttest.Server
			var sess judgment.Port
			fault := judgmenttest.Fault{Nth: 1, Status: 429, Body: "slow down", Header: map[string][]string{"Retry-After": {tt.retryAfter}}}
			if tt.backend == "vLLM" {
				srv = judgmenttest.NewVLLM(judgmenttest.CheckModel())
				s, err := vllm.Open(context.Background(), vllm.Settings{BaseURL: srv.URL, Model: judgmenttest.DefaultModelID}, vllm.OpenOptions{})
				if err != nil {
					t.Fatal(err)
				}
				sess, fault.Path = s, "/v1/chat/completions"
			} else {
				srv = judgmenttest.NewLlamaCPP(judgmenttest.CheckModel())
				s, err := llamacpp.Open(context.Background(), llamacpp.Settings{BaseURL: srv.URL}, llamacpp.OpenOptions{Model: judgmenttest.DefaultModelID})
				if err != nil {
					t.Fatal(err)
				}
				sess, fault.Path = s, "/completion"
			}
			t.Cleanup(srv.Close)
			srv.Inject(fault)
			_, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(nil))
			if err == nil {
				t.Fatal("the 429 did not fail the judgment")
			}
			if got := (checkmatch.RetryPolicy{Retries: 1}).Delay(1, err); got != tt.want {
				t.Errorf("delay %v after Retry-After %s, want %v", got, tt.retryAfter, tt.want)
			}
		})
	}
}
