package livellama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/orderings"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/llamacpp"
)

// BinEnv names the llama-server binary the live test starts.
const BinEnv = "TYPEVET_LLAMA_SERVER_BIN"

const (
	alias      = "gemma-4-tinyrand-mm"
	modelFile  = "tiny-gemma4vocab.gguf"
	mmprojFile = "mmproj-tiny-gemma4vocab.gguf"
	// slots is -np: the orderings study's one request beside the sweep's
	// two at its second level.
	slots = "3"
	// concurrency is TYPEVET_IMAGE_CONCURRENCY: two judgments in flight
	// on two cores.
	concurrency = "2"
)

// binary returns the llama-server binary and its models directory, or
// skips (fails under TYPEVET_REQUIRE_LIVE) when the variable is unset.
func binary(t *testing.T) (bin, models string) {
	t.Helper()
	bin = strings.TrimSpace(os.Getenv(BinEnv))
	if bin == "" {
		msg := BinEnv + " not set: set it to a llama-server binary (e.g. ../shared/tools/llama-server/bin/llama-server, as .ci/run does) to run the live test"
		if cli.RequireLive(os.LookupEnv) {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if raceEnabled {
		t.Skip("the live test runs in the non-race pass only: under -race the real server's work would only repeat")
	}
	bin, err := filepath.Abs(bin)
	require.NoError(t, err)
	models = filepath.Join(filepath.Dir(bin), "..", "models")
	for _, f := range []string{bin, filepath.Join(models, modelFile), filepath.Join(models, mmprojFile)} {
		_, err := os.Stat(f)
		require.NoError(t, err, "%s names %s; the models must sit in ../models beside it", BinEnv, bin)
	}
	return bin, models
}

// server is one llama-server process.
type server struct {
	cmd  *exec.Cmd
	done chan error
	log  string
	real string // the server's own URL
}

// front is a counting proxy before a server: each client of the test gets
// its own, so its requests are counted apart.
type front struct {
	url string

	mu     sync.Mutex
	counts map[string]int // "METHOD /path STATUS" -> requests
}

// start starts bin with args on a free loopback port, waits for /health
// and registers its stop by process id.
func start(t *testing.T, bin string, args ...string) *server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	s := &server{log: filepath.Join(t.TempDir(), "llama-server.log"), real: "http://127.0.0.1:" + port, done: make(chan error, 1)}
	logf, err := os.Create(s.log)
	require.NoError(t, err)
	args = append(args, "--host", "127.0.0.1", "--port", port, "-c", "16384", "-np", slots, "-t", "2")
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	require.NoError(t, s.cmd.Start())
	go func() { s.done <- s.cmd.Wait(); logf.Close() }()
	t.Cleanup(func() { s.stop(t) })

	deadline := time.Now().Add(90 * time.Second)
	for {
		resp, err := http.Get(s.real + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		select {
		case err := <-s.done:
			t.Fatalf("llama-server exited before /health answered: %v\n%s", err, tail(s.log))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("llama-server /health not 200 after 90 s\n%s", tail(s.log))
		}
	}
}

// front starts a counting proxy before s.
func (s *server) front(t *testing.T) *front {
	t.Helper()
	target, _ := url.Parse(s.real)
	proxy := httputil.NewSingleHostReverseProxy(target)
	f := &front{counts: map[string]int{}}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusWriter{ResponseWriter: w, status: 200}
		proxy.ServeHTTP(rec, r)
		f.mu.Lock()
		f.counts[fmt.Sprintf("%s %s %d", r.Method, r.URL.Path, rec.status)]++
		f.mu.Unlock()
	})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go hs.Serve(l)
	t.Cleanup(func() { hs.Close() })
	f.url = "http://" + l.Addr().String()
	return f
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }

// stop ends the server by its process id: SIGTERM (a router stops its
// model instances on it), then SIGKILL after 20 s.
func (s *server) stop(t *testing.T) {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		t.Errorf("llama-server (pid %d) ignored SIGTERM for 20 s and was killed", s.cmd.Process.Pid)
	}
}

// take returns the request counts since the last take and clears them.
func (f *front) take() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.counts
	f.counts = map[string]int{}
	return c
}

func formatCounts(c map[string]int) string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %d; ", k, c[k])
	}
	return strings.TrimSuffix(b.String(), "; ")
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// build compiles the three commands into a temporary directory.
func build(t *testing.T) (root, bin string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	require.NoError(t, err)
	bin = t.TempDir()
	cmd := exec.Command("go", "build", "-o", bin, "./examples/checkmatch", "./examples/orderings", "./examples/throughput")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return root, bin
}

// command runs one built command in the repository root with the
// environment cleared of TYPEVET_* and set to env; -1 when it could not
// run. It may run on another goroutine.
func command(t *testing.T, root, bin, name string, env map[string]string, args ...string) (code int, stdout, stderr string) {
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Dir = root
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TYPEVET_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Errorf("%s: %v", name, err)
		code = -1
	}
	return code, out.String(), errb.String()
}

// readCheckMatch reads a check-match receipt back, checks that Recompute
// reproduces its metrics, and returns it with its raw pins.server.
func readCheckMatch(t *testing.T, path string) (checkmatch.Receipt, string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	r, err := checkmatch.ReadReceipt(bytes.NewReader(raw))
	require.NoError(t, err)
	m, err := r.Recompute()
	require.NoError(t, err)
	if r.Metrics.MeanLatencySeconds != nil {
		require.NotNil(t, m.MeanLatencySeconds)
		assert.InDelta(t, *r.Metrics.MeanLatencySeconds, *m.MeanLatencySeconds, 5e-4)
	}
	got, want := m, r.Metrics
	got.MeanLatencySeconds, want.MeanLatencySeconds = nil, nil
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	assert.Equal(t, string(wb), string(gb), "%s: Recompute reproduces the recorded metrics", path)
	return r, pinsServer(t, raw)
}

func pinsServer(t *testing.T, raw []byte) string {
	t.Helper()
	var v struct {
		Pins struct {
			Server json.RawMessage `json:"server"`
		} `json:"pins"`
	}
	require.NoError(t, json.Unmarshal(raw, &v))
	var b bytes.Buffer
	json.Compact(&b, v.Pins.Server)
	return b.String()
}

// TestRealLlamaServer runs the commands end to end against a real
// single-model llama-server: the refusal of a model it does not serve
// (it ignores the request's model), the seven-case check-match slice, then
// side by side a one-row orderings study on it (one request at a time) and
// a two-level throughput sweep, so both of the server's slots stay busy.
func TestRealLlamaServer(t *testing.T) {
	llama, models := binary(t)
	began := time.Now()
	root, bin := build(t)
	srv := start(t, llama, "-m", filepath.Join(models, modelFile), "--mmproj", filepath.Join(models, mmprojFile), "--alias", alias)
	t.Logf("build and server start: %.1f s", time.Since(began).Seconds())
	dir := t.TempDir()
	envFor := func(f *front, model string) map[string]string {
		return map[string]string{
			"TYPEVET_BACKEND":                 "llama_cpp",
			"TYPEVET_LLAMA__BASE_URL":         f.url,
			"TYPEVET_LLAMA__MULTIMODAL_MODEL": model,
			"TYPEVET_IMAGE_CONCURRENCY":       concurrency,
		}
	}
	// run runs one command through its own counting proxy f and logs its
	// wall time and the requests the server answered, which it returns. It
	// may run on another goroutine.
	run := func(f *front, name string, model string, args ...string) (code int, stdout, stderr string, counts map[string]int) {
		at := time.Now()
		code, stdout, stderr = command(t, root, bin, name, envFor(f, model), args...)
		counts = f.take()
		t.Logf("%s %s: exit %d, %.1f s; requests: %s", name, strings.Join(args, " "), code, time.Since(at).Seconds(), formatCounts(counts))
		return code, stdout, stderr, counts
	}

	typo := filepath.Join(dir, "typo.json")
	code, _, stderr, c := run(srv.front(t), "checkmatch", "gemma-4-tinyrand-typo", "-receipt", typo, "-rows", "1")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, `names model "gemma-4-tinyrand-typo", which the llama.cpp server does not serve (it serves "`+alias+`")`)
	assert.NoFileExists(t, typo)
	assert.Zero(t, c["POST /completion 200"]+c["POST /tokenize 200"], "no scoring request before the refusal")

	single := filepath.Join(dir, "check_match_seed1.json")
	code, stdout, stderr, c := run(srv.front(t), "checkmatch", alias, "-receipt", single, "-rows", "1", "-seed", strconv.Itoa(orderings.Seed))
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	r, pins := readCheckMatch(t, single)
	require.Nil(t, r.Stopped)
	require.Len(t, r.Cases, 7)
	assert.Equal(t, 7*4, c["POST /completion 200"], "four questions a case")
	t.Logf("checkmatch pins.server: %s", pins)
	assert.Contains(t, pins, `"model_alias":"`+alias+`"`)

	// The orderings study sends one request at a time; the sweep beside
	// it keeps the second slot busy. Each is checked once both ended.
	type result struct {
		code           int
		stdout, stderr string
	}
	var ord, sweep result
	ordPath := filepath.Join(dir, "orderings.json")
	prefix := filepath.Join(dir, "sweep")
	ordFront, sweepFront := srv.front(t), srv.front(t)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		ord.code, ord.stdout, ord.stderr, _ = run(ordFront, "orderings", alias, "-receipt", ordPath, "-rows", "1", "-single", single)
	}()
	go func() {
		defer wg.Done()
		sweep.code, sweep.stdout, sweep.stderr, _ = run(sweepFront, "throughput", alias, "-levels", "1,2", "-rows", "1", "-receipt-prefix", prefix)
	}()
	wg.Wait()

	require.Equal(t, 0, ord.code, "orderings stdout:\n%s\nstderr:\n%s", ord.stdout, ord.stderr)
	raw, err := os.ReadFile(ordPath)
	require.NoError(t, err)
	or, err := orderings.ReadReceipt(bytes.NewReader(raw))
	require.NoError(t, err)
	require.Nil(t, or.Stopped)
	require.NotEmpty(t, or.Cases)
	st, err := orderings.Statistics(or.Cases)
	require.NoError(t, err)
	require.NotNil(t, or.Statistics)
	assert.Equal(t, st, *or.Statistics, "the orderings statistics recompute from the cases")
	t.Logf("orderings pins.server: %s", pinsServer(t, raw))

	require.Equal(t, 0, sweep.code, "throughput stdout:\n%s\nstderr:\n%s", sweep.stdout, sweep.stderr)
	for _, level := range []string{"1", "2"} {
		r, pins := readCheckMatch(t, prefix+"_c"+level+".json")
		require.Nil(t, r.Stopped)
		require.Len(t, r.Cases, 7)
		require.NotNil(t, r.Throughput)
		t.Logf("throughput c%s pins.server: %s", level, pins)
	}
	t.Logf("single-model live test: %.1f s", time.Since(began).Seconds())
}

// TestRealLlamaRouter runs a session against a real llama-server router
// with two models (directories of symbolic links to the same files) under
// --models-max 1: a swap to the other model mid-run reloads the first with
// a new media marker, the next media request gets HTTP 400 "Failed to
// tokenize prompt", and the one re-probe of /props plus one resend
// recovers.
func TestRealLlamaRouter(t *testing.T) {
	llama, models := binary(t)
	began := time.Now()
	dir := t.TempDir()
	for _, name := range []string{"tiny-a", "tiny-b"} {
		sub := filepath.Join(dir, name)
		require.NoError(t, os.Mkdir(sub, 0o755))
		require.NoError(t, os.Symlink(filepath.Join(models, modelFile), filepath.Join(sub, name+".gguf")))
		require.NoError(t, os.Symlink(filepath.Join(models, mmprojFile), filepath.Join(sub, "mmproj-"+name+".gguf")))
	}
	srv := start(t, llama, "--models-dir", dir, "--models-max", "1").front(t)
	ctx := context.Background()
	sess, err := llamacpp.Open(ctx, llamacpp.Settings{BaseURL: srv.url, Timeout: 5 * time.Minute}, llamacpp.OpenOptions{Model: "tiny-a"})
	require.NoError(t, err)
	defer sess.Close()
	_, err = llamacpp.Open(ctx, llamacpp.Settings{BaseURL: srv.url}, llamacpp.OpenOptions{Model: "tiny-typo"})
	var ue *llamacpp.UnservedModelError
	require.ErrorAs(t, err, &ue, "a router refuses an unknown model on /props; Open says what it serves")
	assert.Equal(t, []string{"tiny-a", "tiny-b"}, ue.Served)

	req := judgmenttest.CheckRequest(judgmenttest.CheckPNG())
	req.Model = "tiny-a"
	req.Questions = req.Questions[:1]
	judge := func() judgment.Response {
		t.Helper()
		resp, err := sess.Judge(ctx, req)
		require.NoError(t, err)
		return resp
	}
	judge()
	before := srv.take()
	assert.Equal(t, 1, before["POST /completion 200"], formatCounts(before))

	// The swap: another client asks for tiny-b, which unloads tiny-a.
	r, err := http.Get(srv.url + "/props?model=tiny-b")
	require.NoError(t, err)
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	require.Equal(t, 200, r.StatusCode)

	judge()
	after := srv.take()
	t.Logf("router: %.1f s; requests before the swap: %s; after: %s", time.Since(began).Seconds(), formatCounts(before), formatCounts(after))
	assert.Equal(t, 1, after["POST /completion 400"], "the stale marker's 400 (typevet #322)")
	assert.Equal(t, 1, after["POST /completion 200"], "one resend recovers")
	assert.Equal(t, 2, after["GET /props 200"], "the swap's /props and the one re-probe")
}
