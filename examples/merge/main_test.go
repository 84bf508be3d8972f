package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/examples/internal/cmdtest"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/receipt"
)

// checkmatchExe is the built examples/checkmatch command (TestMain;
// [cmdtest.Build] keeps it between test runs).
var checkmatchExe string

// shardCache holds each fake shard fakeShards ran, made once per test
// binary and copied into each test's directory (TestMain removes it).
var shardCache struct {
	sync.Mutex
	dir  string
	made map[string]bool
}

func TestMain(m *testing.M) {
	dir, err := cmdtest.Build("checkmatch")
	if err != nil {
		panic("build examples/checkmatch: " + err.Error())
	}
	checkmatchExe = cmdtest.Exe(dir, "checkmatch")
	if shardCache.dir, err = os.MkdirTemp("", "typevet-merge-shards-"); err != nil {
		panic(err)
	}
	shardCache.made = map[string]bool{}
	code := m.Run()
	os.RemoveAll(shardCache.dir)
	os.Exit(code)
}

// vllmEnv is the environment of a vLLM run of rows rows against baseURL.
func vllmEnv(baseURL string, rows int) map[string]string {
	return map[string]string{
		"TYPEVET_BACKEND":              "vllm",
		"TYPEVET_VLLM__BASE_URL":       baseURL,
		"TYPEVET_VLLM__MODEL":          judgmenttest.DefaultModelID,
		"TYPEVET_VLLM_MODEL_REVISION":  "rev-1",
		"TYPEVET_VLLM_SERVER_ARGS":     "--max-num-seqs 64",
		"TYPEVET_CHECK_MATCH_ROWS":     strconv.Itoa(rows),
		"TYPEVET_IMAGE_CONCURRENCY":    "4",
		"TYPEVET_GIT_STATUS_PORCELAIN": "",
	}
}

// checkmatchCmd returns the built checkmatch command with env and args.
func checkmatchCmd(env map[string]string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.Command(checkmatchExe, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd, &out
}

// runShards runs n shards of one experiment side by side as child
// processes and returns their record paths.
func runShards(t *testing.T, dir string, n int, env map[string]string) []string {
	t.Helper()
	paths := make([]string, n)
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	for i := range n {
		paths[i] = filepath.Join(dir, "shard"+strconv.Itoa(i)+".json")
		cmds[i], outs[i] = checkmatchCmd(env, "-receipt", paths[i], "-shard", strconv.Itoa(i)+"/"+strconv.Itoa(n))
		require.NoError(t, cmds[i].Start())
	}
	for i, c := range cmds {
		require.NoError(t, c.Wait(), "shard %d: %s", i, outs[i])
	}
	return paths
}

// comparable returns the receipt at path with what a merge may change
// (finished_utc, run_id, wall time, latencies, throughput) blanked.
func comparable(t *testing.T, path string) (string, checkmatch.Receipt) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := checkmatch.ReadReceipt(f)
	require.NoError(t, err)
	orig := r
	r.Pins.FinishedUTC, r.Identity.RunID, r.WallSeconds, r.Throughput = "", "", 0, nil
	r.Metrics.MeanLatencySeconds = nil
	r.Cases = append([]checkmatch.CaseRecord(nil), r.Cases...)
	for i := range r.Cases {
		r.Cases[i].LatencySeconds = 0
	}
	b, err := receipt.Marshal(r)
	require.NoError(t, err)
	return string(b), orig
}

func mergeCmd(t *testing.T, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	err := run(&out, &errOut, args)
	return out.String() + errOut.String(), err
}

// TestShardsMergeLikeOneRun runs a whole run and the same run as 3 shards
// against one fake vLLM server, merges the shards, and compares.
func TestShardsMergeLikeOneRun(t *testing.T) {
	t.Parallel() // waits on child processes
	srv := judgmenttest.NewVLLM(nil)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	env := vllmEnv(srv.URL, 2)
	single := filepath.Join(dir, "single.json")
	cmd, out := checkmatchCmd(env, "-receipt", single)
	require.NoError(t, cmd.Run(), out.String())
	before := srv.Counters()

	paths := runShards(t, dir, 3, env)
	after := srv.Counters()
	merged := filepath.Join(dir, "merged.json")
	stdout, err := mergeCmd(t, append(paths, "-receipt", merged)...)
	require.NoError(t, err)
	assert.Contains(t, stdout, "merged 3 shards, 14 cases")

	want, _ := comparable(t, single)
	got, rec := comparable(t, merged)
	assert.Equal(t, want, got)
	require.NotNil(t, rec.Throughput)
	assert.Equal(t, 14, rec.Throughput.Judgments)
	srvBlock := rec.Throughput.Server
	require.NotNil(t, srvBlock)
	assert.Equal(t, float64(after.Requests-before.Requests), srvBlock.Counters.RequestSuccess.Number)
	assert.Equal(t, float64(after.PromptTokens-before.PromptTokens), srvBlock.Counters.PromptTokens.Number)
	assert.Equal(t, float64(len(after.E2ESeconds)-len(before.E2ESeconds)), srvBlock.E2E.Count)
	for _, p := range paths {
		_, err := os.Stat(p + ".journal.jsonl")
		assert.NoError(t, err, "a shard keeps its journal")
	}
}

// fakeShards puts the n shards (or those in only) of a one-row
// offline-fake run of seed in dir and returns their record paths. Each
// shard is run once per test binary, one after another, and its record
// and journal copied, so a test may edit its copies.
func fakeShards(t *testing.T, dir string, seed, n int, only ...int) []string {
	t.Helper()
	env := map[string]string{"TYPEVET_BACKEND": "fake", "TYPEVET_CHECK_MATCH_ROWS": "1",
		"TYPEVET_CHECK_MATCH_SEED": strconv.Itoa(seed), "TYPEVET_GIT_STATUS_PORCELAIN": ""}
	if only == nil {
		for i := range n {
			only = append(only, i)
		}
	}
	var paths []string
	shardCache.Lock()
	defer shardCache.Unlock()
	for _, i := range only {
		name := "seed" + strconv.Itoa(seed) + "-shard" + strconv.Itoa(i) + "of" + strconv.Itoa(n) + ".json"
		made := filepath.Join(shardCache.dir, name)
		if !shardCache.made[name] {
			cmd, out := checkmatchCmd(env, "-receipt", made, "-shard", strconv.Itoa(i)+"/"+strconv.Itoa(n))
			require.NoError(t, cmd.Run(), out.String())
			require.Contains(t, out.String(), "shard "+strconv.Itoa(i)+"/"+strconv.Itoa(n)+" record "+made+" sha256 ")
			shardCache.made[name] = true
		}
		p := filepath.Join(dir, name)
		for _, f := range []string{"", ".journal.jsonl"} {
			b, err := os.ReadFile(made + f)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p+f, b, 0o644))
		}
		paths = append(paths, p)
	}
	return paths
}

func TestMergeRefusesAnotherSeed(t *testing.T) {
	t.Parallel() // waits on child processes
	dir := t.TempDir()
	paths := append(fakeShards(t, dir, 0, 2, 0), fakeShards(t, dir, 1, 2, 1)...)
	out := filepath.Join(dir, "merged.json")
	_, err := mergeCmd(t, append(paths, "-receipt", out)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is a shard of another experiment: generator_seed differs (first shard 0, this shard 1)")
	assert.NoFileExists(t, out)
}

func TestMergeRefusesMissingShard(t *testing.T) {
	t.Parallel() // waits on child processes
	dir := t.TempDir()
	paths := fakeShards(t, dir, 0, 3, 0, 2)
	out := filepath.Join(dir, "merged.json")
	_, err := mergeCmd(t, append(paths, "-receipt", out)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "shard 1/3 is missing")
	assert.NoFileExists(t, out)
}

func TestMergeRefusesSameShardTwice(t *testing.T) {
	t.Parallel() // waits on child processes
	dir := t.TempDir()
	paths := fakeShards(t, dir, 0, 2)
	out := filepath.Join(dir, "merged.json")
	_, err := mergeCmd(t, paths[0], paths[1], paths[0], "-receipt", out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "shard 0/2 is given twice")
	assert.NoFileExists(t, out)
}

// TestMergeRefusesCaseInTwoShards appends a line of shard 1's journal to
// shard 0's (and updates the record's digest, as a hand edit would), so
// one case is in both.
func TestMergeRefusesCaseInTwoShards(t *testing.T) {
	t.Parallel() // waits on child processes
	dir := t.TempDir()
	paths := fakeShards(t, dir, 0, 2)
	c1, err := journal.ReadFile(paths[1] + ".journal.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, c1.Entries, "shard 1 holds a case")
	j0 := cmdtest.AppendEntries(t, paths[0]+".journal.jsonl", c1.Entries[0])
	rec0, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	var r checkmatch.ShardRecord
	require.NoError(t, json.Unmarshal(rec0, &r))
	r.JournalSHA256 = sha256Hex(j0)
	b, err := receipt.Marshal(r)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(paths[0], b, 0o644))

	out := filepath.Join(dir, "merged.json")
	_, err = mergeCmd(t, append(paths, "-receipt", out)...)
	require.Error(t, err)
	assert.Regexp(t, `case \S+ is in two shards`, err.Error())
	assert.NoFileExists(t, out)
}

func TestMergeRefusesChangedJournal(t *testing.T) {
	t.Parallel() // waits on child processes
	dir := t.TempDir()
	paths := fakeShards(t, dir, 0, 2)
	j := paths[0] + ".journal.jsonl"
	b, err := os.ReadFile(j)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(j, append(b, '\n'), 0o644))
	_, err = mergeCmd(t, append(paths, "-receipt", filepath.Join(dir, "m.json"))...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not the one the shard finished with")
}

func TestMergeUsage(t *testing.T) {
	_, err := mergeCmd(t, "-receipt", filepath.Join(t.TempDir(), "m.json"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "name the shard records")
	_, err = mergeCmd(t, "a.json")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-receipt not set")
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// roundRobin is a small round-robin HTTP proxy on loopback in front of
// backends, as nginx or HAProxy would be.
func roundRobin(t *testing.T, backends ...*judgmenttest.Server) *httptest.Server {
	var next atomic.Int64
	proxies := make([]*httputil.ReverseProxy, len(backends))
	for i, b := range backends {
		u, err := url.Parse(b.URL)
		require.NoError(t, err)
		proxies[i] = httputil.NewSingleHostReverseProxy(u)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxies[int(next.Add(1)-1)%len(proxies)].ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func totals(servers ...*judgmenttest.Server) (requests, prompt, e2e int) {
	for _, s := range servers {
		c := s.Counters()
		requests += c.Requests
		prompt += c.PromptTokens
		e2e += len(c.E2ESeconds)
	}
	return
}

// TestShardsBehindRoundRobin is the scale-out shape of docs/scale-out.md:
// two vLLM replicas behind a round-robin proxy, a whole run and 3 shards
// (child processes of the built command, side by side) through the proxy,
// each replica's /metrics read directly. The merged receipt's cases and
// metrics equal the whole run's; its summed /metrics changes equal what
// the two replicas counted during the shards.
func TestShardsBehindRoundRobin(t *testing.T) {
	t.Parallel() // waits on child processes
	a, b := judgmenttest.NewVLLM(nil), judgmenttest.NewVLLM(nil)
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	front := roundRobin(t, a, b)
	dir := t.TempDir()
	env := vllmEnv(front.URL, 2)
	env["TYPEVET_VLLM__METRICS_URLS"] = a.URL + "/metrics, " + b.URL + "/metrics"

	single := filepath.Join(dir, "single.json")
	cmd, out := checkmatchCmd(env, "-receipt", single)
	require.NoError(t, cmd.Run(), out.String())
	_, one := comparable(t, single)
	r0, _, _ := totals(a, b)
	require.NotNil(t, one.Throughput.Server)
	assert.Equal(t, float64(r0), one.Throughput.Server.Counters.RequestSuccess.Number, "the whole run: summed over both replicas")
	assert.Positive(t, a.Counters().Requests)
	assert.Positive(t, b.Counters().Requests)

	r1, p1, e1 := totals(a, b)
	paths := runShards(t, dir, 3, env)
	r2, p2, e2 := totals(a, b)
	merged := filepath.Join(dir, "merged.json")
	_, err := mergeCmd(t, append(paths, "-receipt", merged)...)
	require.NoError(t, err)
	want, _ := comparable(t, single)
	got, rec := comparable(t, merged)
	assert.Equal(t, want, got)
	s := rec.Throughput.Server
	require.NotNil(t, s)
	assert.Equal(t, float64(r2-r1), s.Counters.RequestSuccess.Number)
	assert.Equal(t, float64(p2-p1), s.Counters.PromptTokens.Number)
	assert.Equal(t, float64(e2-e1), s.E2E.Count)
}

// TestReplicaOfAnotherBuildRefused: a replica whose /version differs from
// the front's is refused before the first scoring call.
func TestReplicaOfAnotherBuildRefused(t *testing.T) {
	t.Parallel() // waits on child processes
	a := judgmenttest.NewVLLM(nil)
	b := judgmenttest.NewUnstartedVLLM(nil)
	b.Version = "0.31.0"
	b.Start()
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	env := vllmEnv(a.URL, 1)
	env["TYPEVET_VLLM__METRICS_URLS"] = a.URL + "/metrics," + b.URL + "/metrics"
	cmd, out := checkmatchCmd(env, "-receipt", filepath.Join(t.TempDir(), "r.json"))
	require.Error(t, cmd.Run())
	assert.Contains(t, out.String(), "TYPEVET_VLLM__METRICS_URLS item 2 reports another server than the base URL (its server build differs)")
	assert.Zero(t, a.Counters().Requests+b.Counters().Requests, "no scoring call")
}
