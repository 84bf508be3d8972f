package vllm_test

import (
	"context"
	"testing"

	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/vllm"
)

// newServer starts a fake vLLM server for m, closed with the test.
func newServer(tb testing.TB, m *judgmenttest.Model, knobs func(*judgmenttest.Server)) *judgmenttest.Server {
	tb.Helper()
	srv := judgmenttest.NewUnstartedVLLM(m)
	if knobs != nil {
		knobs(srv)
	}
	srv.Start()
	tb.Cleanup(srv.Close)
	return srv
}

// openSession opens a session on srv with a short timeout.
func openSession(tb testing.TB, srv *judgmenttest.Server, s vllm.Settings) *vllm.Session {
	tb.Helper()
	s.BaseURL = srv.URL
	if s.Model == "" {
		s.Model = judgmenttest.DefaultModelID
	}
	if s.Timeout == 0 {
		s.Timeout = 5e9
	}
	sess, err := vllm.Open(context.Background(), s, vllm.OpenOptions{})
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { sess.Close() })
	return sess
}
