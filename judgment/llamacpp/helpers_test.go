package llamacpp_test

import (
	"context"
	"testing"

	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/llamacpp"
)

// newServer starts a fake llama-server for m, closed with the test.
func newServer(tb testing.TB, m *judgmenttest.Model, knobs func(*judgmenttest.Server)) *judgmenttest.Server {
	tb.Helper()
	srv := judgmenttest.NewUnstartedLlamaCPP(m)
	if knobs != nil {
		knobs(srv)
	}
	srv.Start()
	tb.Cleanup(srv.Close)
	return srv
}

// openSession opens a session on srv with a short timeout.
func openSession(tb testing.TB, srv *judgmenttest.Server, s llamacpp.Settings, opts llamacpp.OpenOptions) *llamacpp.Session {
	tb.Helper()
	s.BaseURL = srv.URL
	if s.Timeout == 0 {
		s.Timeout = 5e9
	}
	if opts.Model == "" {
		opts.Model = judgmenttest.DefaultModelID
	}
	sess, err := llamacpp.Open(context.Background(), s, opts)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { sess.Close() })
	return sess
}
