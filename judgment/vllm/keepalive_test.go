package vllm_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/vllm"
)

// keepAliveRace judges calls cases at once against a fake vLLM whose
// server closes connections idle for serverIdle; each case judges once,
// waits a pause spread evenly over serverIdle ± spread, and judges again
// on a connection its pool kept. It returns the number of failed second
// judgments.
func keepAliveRace(t *testing.T, settings vllm.Settings, serverIdle, spread time.Duration, calls int) (failed int64, firstErr error) {
	t.Helper()
	srv := newServer(t, judgmenttest.CheckModel(), func(s *judgmenttest.Server) {
		s.IdleTimeout = serverIdle
	})
	if settings.Timeout == 0 {
		settings.Timeout = time.Minute // 128 judgments at once on a loaded machine
	}
	sess := openSession(t, srv, settings)
	req := judgmenttest.CheckRequest(nil)
	var bad atomic.Int64
	var once sync.Once
	var wg sync.WaitGroup
	for i := range calls {
		pause := serverIdle - spread + time.Duration(i)*2*spread/time.Duration(calls-1)
		wg.Go(func() {
			if _, err := sess.Judge(context.Background(), req); err != nil {
				t.Errorf("first judgment: %v", err)
				return
			}
			time.Sleep(pause)
			if _, err := sess.Judge(context.Background(), req); err != nil {
				bad.Add(1)
				once.Do(func() { firstErr = err })
			}
		})
	}
	wg.Wait()
	return bad.Load(), firstErr
}

// TestIdleConnectionsExpireBeforeTheServers: with the default settings,
// 128 judgments each after a pause just under or just over a server's
// keep-alive of 5 s (uvicorn's under vLLM) all succeed: the pool drops a
// connection idle for 4 s before the server can close it under a request.
func TestIdleConnectionsExpireBeforeTheServers(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 5 s")
	}
	t.Parallel()
	if n, err := keepAliveRace(t, vllm.Settings{}, 5*time.Second, 5*time.Millisecond, 128); n != 0 {
		t.Fatalf("%d of 128 judgments after a pause of 5 s ± 5 ms failed; first: %v", n, err)
	}
}

// TestRequestOnAClosingConnectionIsResent: a pool that keeps idle
// connections longer than the server (a keep-alive set above a proxy's
// idle timeout) still loses no judgment: a request the server's close
// met on a reused connection, before any answer, is sent again on a
// fresh one. Without the resend 128 pauses around the server's
// keep-alive fail several.
func TestRequestOnAClosingConnectionIsResent(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 1 s")
	}
	t.Parallel()
	s := vllm.Settings{KeepAliveExpiry: time.Minute}
	if n, err := keepAliveRace(t, s, time.Second, 5*time.Millisecond, 128); n != 0 {
		t.Fatalf("%d of 128 judgments after a pause of 1 s ± 5 ms failed; first: %v", n, err)
	}
}

// TestEarlyCloseResentOnce: a server that closes a reused connection
// without a byte of an answer gets the request once more, on a fresh
// connection, and no more: a server that closes that one too fails the
// judgment with a TransportError after two sends.
func TestEarlyCloseResentOnce(t *testing.T) {
	const chat = "/v1/chat/completions"
	for _, tt := range []struct {
		name      string
		nth       int
		wantErr   bool
		wantCalls int
	}{
		{"first close resent", 1, false, 5},
		{"every close", 0, true, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, judgmenttest.CheckModel(), nil)
			sess := openSession(t, srv, vllm.Settings{})
			srv.Inject(judgmenttest.Fault{Path: chat, Close: true, Nth: tt.nth})
			_, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(nil))
			if got := judgment.ErrorClass(err); (got == "TransportError") != tt.wantErr || (err != nil && !tt.wantErr) {
				t.Fatalf("error %v (class %q), want error %v", err, got, tt.wantErr)
			}
			if got := srv.Count(chat); got != tt.wantCalls {
				t.Errorf("scoring calls = %d, want %d", got, tt.wantCalls)
			}
		})
	}
}
