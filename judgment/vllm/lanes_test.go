package vllm_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/vllm"
)

// TestCaseOnOneConnection (issue 17): on the session's own pool the four
// scoring calls of one case arrive on one connection, so a router that
// routes by connection keeps a case on one replica (its prefix and image
// cache); and the run opens no more connections than it judges cases at
// once (plus a few), as the issue 18 pool did. The server records the
// remote address of each case's calls, for 96 cases at concurrency 8 and
// 16.
func TestCaseOnOneConnection(t *testing.T) {
	for _, conc := range []int{8, 16} {
		t.Run(fmt.Sprint("c", conc), func(t *testing.T) {
			canned := cannedVLLMHandler()
			caseText := regexp.MustCompile(`case-(\d+)`)
			var mu sync.Mutex
			addrs := map[string]map[string]bool{} // case -> remote addresses
			calls := map[string]int{}
			var conns atomic.Int64
			closed := map[string]bool{} // remote addresses of connections closed during the run
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/chat/completions" {
					body, _ := io.ReadAll(r.Body)
					m := caseText.FindSubmatch(body)
					if m == nil {
						t.Error("a scoring body without its case")
					} else {
						mu.Lock()
						if addrs[string(m[1])] == nil {
							addrs[string(m[1])] = map[string]bool{}
						}
						addrs[string(m[1])][r.RemoteAddr] = true
						calls[string(m[1])]++
						mu.Unlock()
					}
					r.Body = io.NopCloser(bytes.NewReader(body))
				}
				canned.ServeHTTP(w, r)
			}))
			srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
				switch s {
				case http.StateNew:
					conns.Add(1)
				case http.StateClosed, http.StateHijacked:
					mu.Lock()
					closed[c.RemoteAddr().String()] = true
					mu.Unlock()
				}
			}
			srv.Start()
			defer srv.Close()
			sess, err := vllm.Open(context.Background(), vllm.Settings{BaseURL: srv.URL, Model: judgmenttest.DefaultModelID}, vllm.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			const cases = 96
			png := judgmenttest.CheckPNG()
			var next atomic.Int64
			var wg sync.WaitGroup
			for range conc {
				wg.Go(func() {
					for n := next.Add(1); n <= cases; n = next.Add(1) {
						req := judgmenttest.CheckRequest(png)
						req.State = fmt.Sprintf("case-%d", n)
						if _, err := sess.Judge(context.Background(), req); err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			if len(addrs) != cases {
				t.Fatalf("%d cases reached the server, want %d", len(addrs), cases)
			}
			// A case may move to a new connection only when net/http gave
			// up the old one (it closes a connection whose request write it
			// did not hear finish within 50 ms, which a loaded machine can
			// take): never two open connections for one case.
			mu.Lock()
			defer mu.Unlock()
			for c, a := range addrs {
				open := 0
				for addr := range a {
					if !closed[addr] {
						open++
					}
				}
				if open > 1 || calls[c] != len(judgmenttest.CheckQuestions()) {
					t.Errorf("case %s: %d calls on %d connections (%d of them closed during the run), want 4 on one", c, calls[c], len(a), len(a)-open)
				}
			}
			if n := conns.Load(); n > int64(conc+4) {
				t.Errorf("%d connections opened at concurrency %d, want at most %d", n, conc, conc+4)
			}
		})
	}
}
