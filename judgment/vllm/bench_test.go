package vllm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/judgment"
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

// BenchmarkSliceVLLM runs a whole check slice (140 judgments, 560
// chat-completion calls) per iteration at concurrency 16 and 256 against
// the canned server in a child process, behind "/slow": 50 ms per
// scoring call, 16 slots, as a GPU server queues them
// (judgmenttest.BenchSlice reports new-conns/op, judgments/s,
// cpu-ns/judgment and server-cpu-ns/judgment). Three clients:
//   - Floor sends the same request bytes (recorded from a session) and
//     reads the answers, on a pool sized to the concurrency, and does
//     nothing else: the least a client can cost;
//   - DefaultPool is a session on a clone of http.DefaultTransport (2 idle
//     connections per host), the pool sessions had before issue 18;
//   - SharedPool is a session on the floor's pool (one transport, idle
//     pool sized to the concurrency): Session against it is the cost of
//     the lanes;
//   - Session is a session on its own pool (backendhttp.Lanes: one lane
//     per judgment in flight, each judgment's calls on one connection,
//     bodies sent through pooled buffers).
//
// Runs a minute apart on a shared machine differ by tens of percent;
// BenchmarkSliceVLLMPair puts two of these clients side by side.
func BenchmarkSliceVLLM(b *testing.B) {
	url, serverCPU := judgmenttest.StartChild(b)
	bodies := recordChatBodies(b)
	for _, conc := range []int{16, 256} {
		b.Run(fmt.Sprintf("c%d/Floor", conc), func(b *testing.B) {
			judgmenttest.BenchSlice(b, url, serverCPU, conc, floorClient(url, bodies, conc, false))
		})
		for _, pool := range []string{"DefaultPool", "SharedPool", "Session"} {
			b.Run(fmt.Sprintf("c%d/%s", conc, pool), func(b *testing.B) {
				judgmenttest.BenchSlice(b, url, serverCPU, conc, sessionClient(b, url, pool, conc))
			})
		}
	}
}

// BenchmarkSliceVLLMPair runs two clients' slices of BenchmarkSliceVLLM in
// turn in each iteration (judgmenttest.BenchSlicePair), so both meet the
// same machine; cpu-ratio is the median of the second one's CPU over the
// first one's:
//   - Floor-Session/c16 and /c256: the session over the floor, the number
//     issue 18's "within 10% of the floor" is about;
//   - PooledFloor-Session/c16: the session over a floor on the session's
//     own transport (backendhttp.NewTransport, which sends bodies through
//     pooled buffers), so what the session does beyond sending the bytes;
//   - Floor-Floor/c16: the floor over itself, the harness's own noise
//     (about 1).
//
// Run it with -benchtime 10x (each iteration is two slices, about 4 s):
//
//	go test -run NONE -bench 'SliceVLLMPair/Floor-Session/c16' -benchtime 10x ./judgment/vllm/
func BenchmarkSliceVLLMPair(b *testing.B) {
	url, serverCPU := judgmenttest.StartChild(b)
	bodies := recordChatBodies(b)
	for _, conc := range []int{16, 256} {
		b.Run(fmt.Sprintf("Floor-Session/c%d", conc), func(b *testing.B) {
			judgmenttest.BenchSlicePair(b, url, serverCPU, conc, floorClient(url, bodies, conc, false), sessionClient(b, url, "Session", conc))
		})
	}
	b.Run("PooledFloor-Session/c16", func(b *testing.B) {
		judgmenttest.BenchSlicePair(b, url, serverCPU, 16, floorClient(url, bodies, 16, true), sessionClient(b, url, "Session", 16))
	})
	b.Run("Floor-Floor/c16", func(b *testing.B) {
		judgmenttest.BenchSlicePair(b, url, serverCPU, 16, floorClient(url, bodies, 16, false), floorClient(url, bodies, 16, false))
	})
}

// floorClient returns the clients of the floor: each judgment sends the
// recorded bodies on a pool sized to the concurrency and reads the
// answers. The pool is a clone of http.DefaultTransport, or with pooled
// the transport of a session's own pool (backendhttp.NewTransport).
func floorClient(url string, bodies [][]byte, conc int, pooled bool) func() judgmenttest.SliceClient {
	return func() judgmenttest.SliceClient {
		var tr *http.Transport
		if pooled {
			tr = backendhttp.NewTransport()
		} else {
			tr = http.DefaultTransport.(*http.Transport).Clone()
			tr.MaxIdleConnsPerHost = conc
		}
		hc := &http.Client{Transport: tr}
		return judgmenttest.SliceClient{Judge: func(ctx context.Context, _ judgment.Request) error {
			for _, body := range bodies {
				r, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/slow/v1/chat/completions", bytes.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json")
				resp, err := hc.Do(r)
				if err != nil {
					return err
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			return nil
		}, Close: tr.CloseIdleConnections}
	}
}

// sessionClient returns the clients of a session on pool: "Session" its
// own, "SharedPool" one transport with an idle pool sized to the
// concurrency, "DefaultPool" a clone of http.DefaultTransport.
func sessionClient(b *testing.B, url, pool string, conc int) func() judgmenttest.SliceClient {
	return func() judgmenttest.SliceClient {
		var opts vllm.OpenOptions
		var tr *http.Transport
		if pool != "Session" {
			tr = http.DefaultTransport.(*http.Transport).Clone()
			if pool == "SharedPool" {
				tr.MaxIdleConnsPerHost = conc
			}
			opts.HTTPClient = &http.Client{Transport: tr}
		}
		sess, err := vllm.Open(context.Background(), vllm.Settings{BaseURL: url + "/slow", Model: judgmenttest.DefaultModelID}, opts)
		if err != nil {
			b.Fatal(err)
		}
		return judgmenttest.SliceClient{
			Judge: func(ctx context.Context, req judgment.Request) error {
				_, err := sess.Judge(ctx, req)
				return err
			},
			Close: func() {
				sess.Close()
				if tr != nil {
					tr.CloseIdleConnections()
				}
			},
		}
	}
}

// BenchmarkJudgeVLLMOverhead is the client side of BenchmarkSliceVLLM
// without a network: one check judgment at a time over a round tripper
// that drains each request body and answers with the canned server's
// bytes (cannedTransport), so the number is the client's own CPU, with
// little of the noise of sockets and a second process. Floor sends the
// recorded bodies as the floor of BenchmarkSliceVLLM does and reads the
// answers; Session is a session, SessionAuth one with an API key and a
// user agent (headers the client adds itself, so no request is cloned).
// Their difference is what a session costs beyond sending the bytes
// (issue 18).
func BenchmarkJudgeVLLMOverhead(b *testing.B) {
	hc := &http.Client{Transport: cannedTransport{}}
	req := judgmenttest.CheckRequest(judgmenttest.CheckPNG())
	ctx := context.Background()
	b.Run("Floor", func(b *testing.B) {
		bodies := recordChatBodies(b)
		b.ReportAllocs()
		for b.Loop() {
			for _, body := range bodies {
				r, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://vllm.invalid/v1/chat/completions", bytes.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json")
				resp, err := hc.Do(r)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
	})
	for _, s := range []struct {
		name string
		auth judgment.Auth
	}{{"Session", judgment.Auth{}}, {"SessionAuth", judgment.Auth{APIKey: "k", UserAgent: "ua"}}} {
		b.Run(s.name, func(b *testing.B) {
			sess, err := vllm.Open(ctx, vllm.Settings{BaseURL: "http://vllm.invalid", Model: judgmenttest.DefaultModelID, Auth: s.auth}, vllm.OpenOptions{HTTPClient: hc})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sess.Judge(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// cannedTransport answers like cannedVLLMHandler without a network: it
// reads each request body to its end, closes it, and answers from a
// recorder.
type cannedTransport struct{}

var cannedHandler = cannedVLLMHandler()

func (cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	w := httptest.NewRecorder()
	// Read through Read alone, as net/http sends a body (through an
	// io.LimitedReader), so a bytes.Reader's WriteTo cannot skip the copy.
	r.Body = struct{ io.ReadCloser }{r.Body}
	cannedHandler.ServeHTTP(w, r)
	r.Body.Close()
	resp := w.Result()
	resp.ContentLength = int64(w.Body.Len())
	return resp, nil
}

// recordChatBodies returns the chat-completion bodies a session sends for
// one check judgment, in order.
func recordChatBodies(tb testing.TB) [][]byte {
	var mu sync.Mutex
	var bodies [][]byte
	canned := cannedVLLMHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" {
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			bodies = append(bodies, body)
			mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		canned.ServeHTTP(w, r)
	}))
	defer srv.Close()
	sess, err := vllm.Open(context.Background(), vllm.Settings{BaseURL: srv.URL, Model: judgmenttest.DefaultModelID}, vllm.OpenOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	defer sess.Close()
	if _, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(judgmenttest.CheckPNG())); err != nil {
		tb.Fatal(err)
	}
	return bodies
}

// slowSlots and slowCall make the canned server's "/slow" paths behave
// like a loaded GPU server: each scoring call holds one of 16 slots for
// 50 ms.
var (
	slowSlots = make(chan struct{}, 16)
	slowCall  = 50 * time.Millisecond
)

// cannedVLLMHandler answers /tokenize and /v1/chat/completions with fixed
// bodies listing every control token; under "/slow" a chat completion
// first waits for a slot (slowSlots).
func cannedVLLMHandler() http.Handler {
	vocab := judgmenttest.DefaultVocab()
	chat := vllm.CannedChatBody()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		path, slow := strings.CutPrefix(r.URL.Path, "/slow")
		if slow && path == "/v1/chat/completions" {
			io.Copy(io.Discard, r.Body)
			slowSlots <- struct{}{}
			time.Sleep(slowCall)
			<-slowSlots
		}
		switch path {
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
