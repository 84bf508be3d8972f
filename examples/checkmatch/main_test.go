package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/internal/pyjson"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/reader"
	"github.com/typevet/typevet-go/receipt"
)

// The tests run the command many times over the same one-row slice; they
// render it once (renders are slow under the race detector).
func init() {
	type key struct {
		seed uint64
		rows int
	}
	var mu sync.Mutex
	slices := map[key]checkmatch.Slice{}
	buildSlice = func(seed uint64, rows int, _ func()) (checkmatch.Slice, error) {
		mu.Lock()
		defer mu.Unlock()
		if s, ok := slices[key{seed, rows}]; ok {
			return s, nil
		}
		s, err := checkmatch.BuildSlice(seed, rows, nil)
		if err == nil {
			slices[key{seed, rows}] = s
		}
		return s, err
	}
}

// envOf returns a lookup over m.
func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// result is one command run.
type result struct {
	err            error
	code           int
	stdout, stderr string
}

func runCmd(t *testing.T, args []string, env map[string]string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(&stdout, &stderr, args, envOf(env))
	code := exitCode(err, &stderr)
	return result{err: err, code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// readBack reads a written receipt and checks that Recompute reproduces
// its metrics: bit for bit except mean_latency_seconds (rounded latencies,
// within 5e-4 s).
func readBack(t *testing.T, path string) checkmatch.Receipt {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := checkmatch.ReadReceipt(f)
	require.NoError(t, err)
	m, err := r.Recompute()
	require.NoError(t, err)
	if r.Metrics.MeanLatencySeconds != nil {
		require.NotNil(t, m.MeanLatencySeconds)
		assert.InDelta(t, *r.Metrics.MeanLatencySeconds, *m.MeanLatencySeconds, 5e-4)
	}
	got, want := m, r.Metrics
	got.MeanLatencySeconds, want.MeanLatencySeconds = nil, nil
	gb, err := json.Marshal(got)
	require.NoError(t, err)
	wb, err := json.Marshal(want)
	require.NoError(t, err)
	assert.Equal(t, string(wb), string(gb), "Recompute reproduces the recorded metrics")
	return r
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	taken := filepath.Join(dir, "taken.json")
	require.NoError(t, os.WriteFile(taken, []byte("{}"), 0o644))
	fresh := filepath.Join(dir, "new.json")
	tests := []struct {
		name   string
		args   []string
		env    map[string]string
		want   string
		reason string
	}{
		{name: "no receipt", env: map[string]string{}, want: "-receipt or TYPEVET_CHECK_MATCH_RECEIPT not set"},
		{name: "blank receipt", env: map[string]string{envReceipt: "  "}, want: "TYPEVET_CHECK_MATCH_RECEIPT not set"},
		{name: "receipt exists", env: map[string]string{envReceipt: taken, envRows: "99"},
			want:   "TYPEVET_CHECK_MATCH_RECEIPT must name a new file: " + taken + " exists",
			reason: "the path is checked before the rows"},
		{name: "rows 0", env: map[string]string{envReceipt: fresh, envRows: "0"}, want: "TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: 0"},
		{name: "rows 21", env: map[string]string{envReceipt: fresh, envRows: " 21 "}, want: "TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: 21"},
		{name: "rows text", env: map[string]string{envReceipt: fresh, envRows: "two"},
			want: "TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: not a whole number", reason: "the raw text is not echoed"},
		{name: "rows blank", env: map[string]string{envReceipt: fresh, envRows: ""},
			want: "TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: not a whole number", reason: "typevet crashes on int(\"\"); we refuse it"},
		{name: "seed", env: map[string]string{envReceipt: fresh, envSeed: "1_0", envConcurrency: "0"},
			want: "TYPEVET_CHECK_MATCH_SEED must be a non-negative integer: '1_0'", reason: "the seed is checked before the concurrency"},
		{name: "concurrency 0", env: map[string]string{envReceipt: fresh, envConcurrency: "0", envBackend: "nope"},
			want: "TYPEVET_IMAGE_CONCURRENCY must be a whole number of at least 1", reason: "before the backend"},
		{name: "backend", env: map[string]string{envReceipt: fresh, envBackend: "nope"}, want: "TYPEVET_BACKEND"},
		{name: "vllm revision", env: map[string]string{envReceipt: fresh, envBackend: "vllm",
			"TYPEVET_VLLM__BASE_URL": "http://127.0.0.1:1", envVLLMModel: "m", envRevision: " "},
			want: "TYPEVET_VLLM_MODEL_REVISION must name the served weights revision"},
		{name: "bad flag", args: []string{"-nope"}, env: map[string]string{}, want: "flag provided but not defined: -nope"},
		{name: "extra argument", args: []string{"x"}, env: map[string]string{envReceipt: fresh}, want: "unexpected arguments: x"},
		{name: "flag wins", args: []string{"-rows", "30"}, env: map[string]string{envReceipt: fresh, envRows: "1"},
			want: "-rows must be 1 to 20: 30"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCmd(t, tt.args, tt.env)
			require.Error(t, r.err)
			var ue *cli.UsageError
			require.ErrorAs(t, r.err, &ue)
			assert.Contains(t, r.err.Error(), tt.want)
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.stderr, usageLine)
			assert.Empty(t, r.stdout)
			assert.NoFileExists(t, fresh)
		})
	}
}

// servers starts a fake llama-server or vLLM server and returns the
// environment that points the command at it.
func llamaEnv(t *testing.T) (*judgmenttest.Server, map[string]string) {
	srv := judgmenttest.NewLlamaCPP(&judgmenttest.Model{NVocab: 64})
	t.Cleanup(srv.Close)
	return srv, map[string]string{
		envBackend:                "llama_cpp",
		"TYPEVET_LLAMA__BASE_URL": srv.URL,
		envLlamaModel:             judgmenttest.DefaultModelID,
	}
}

func vllmEnv(t *testing.T, srv *judgmenttest.Server) map[string]string {
	if srv == nil {
		srv = judgmenttest.NewVLLM(nil)
	}
	t.Cleanup(srv.Close)
	return map[string]string{
		envBackend:               "vllm",
		"TYPEVET_VLLM__BASE_URL": srv.URL,
		envVLLMModel:             judgmenttest.DefaultModelID,
		envRevision:              "rev-1",
		envServerArgs:            "--max-num-seqs 64",
	}
}

// TestEndToEnd runs the command for one row against both fake servers at
// concurrency 1 and 4 and with the offline fake.
func TestEndToEnd(t *testing.T) {
	tests := []struct {
		name        string
		env         func(t *testing.T) map[string]string
		concurrency string
		backend     string
	}{
		{name: "llama.cpp c1", env: func(t *testing.T) map[string]string { _, e := llamaEnv(t); return e }, concurrency: "1", backend: "llama_cpp"},
		{name: "llama.cpp c4", env: func(t *testing.T) map[string]string { _, e := llamaEnv(t); return e }, concurrency: "4", backend: "llama_cpp"},
		{name: "vllm c1", env: func(t *testing.T) map[string]string { return vllmEnv(t, nil) }, concurrency: "1", backend: "vllm"},
		{name: "vllm c4", env: func(t *testing.T) map[string]string { return vllmEnv(t, nil) }, concurrency: "4", backend: "vllm"},
		{name: "fake", env: func(*testing.T) map[string]string { return map[string]string{envBackend: "fake"} }, concurrency: "1", backend: "fake"},
		{name: "reader", env: func(*testing.T) map[string]string { return map[string]string{envBackend: "reader"} }, concurrency: "1", backend: "reader"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := tt.env(t)
			path := filepath.Join(t.TempDir(), "receipts", "check.json")
			env[envReceipt] = path
			env[envRows] = "1"
			env[envConcurrency] = tt.concurrency
			env[envPorcelain] = ""
			r := runCmd(t, []string{"-json"}, env)
			require.NoError(t, r.err, r.stderr)
			assert.Equal(t, 0, r.code)
			assert.NotContains(t, r.stderr, "judging:", "progress is quiet when stderr is not a terminal")
			assert.NotContains(t, r.stderr, "rendering:", "progress is quiet when stderr is not a terminal")
			assert.Contains(t, r.stderr, "(from TYPEVET_GIT_STATUS_PORCELAIN): the receipt records dirty false")

			rec := readBack(t, path)
			assert.Equal(t, tt.backend, string(rec.Backend))
			assert.Nil(t, rec.Stopped)
			assert.Len(t, rec.Cases, 7)
			assert.Equal(t, 1, rec.Pins.RegisterRows)
			assert.Equal(t, "synthetic checks (#315 generator)", rec.Pins.Dataset)
			n := map[string]int{"1": 1, "4": 4}[tt.concurrency]
			assert.Equal(t, n, rec.Pins.Concurrency)
			assert.Equal(t, n, rec.Throughput.Concurrency)
			assert.Equal(t, 7, rec.Throughput.Images)
			require.NotNil(t, rec.Pins.Renderer)
			snap := checkmatch.Snapshot{BaselineCommit: rec.Identity.BaselineCommit, WorkingTree: rec.Identity.WorkingTree}
			assert.Equal(t, snap.RendererPin(), *rec.Pins.Renderer)
			assert.Equal(t, rec.Identity.BaselineCommit, rec.Pins.Renderer.ModuleVersion, "a clean tree pins its commit")
			s, err := buildSlice(0, 1, nil)
			require.NoError(t, err)
			assert.Equal(t, s.SHA256, rec.Pins.SliceSHA256)

			id := rec.Identity
			assert.Len(t, id.RunID, 32)
			assert.Equal(t, receipt.IdentityDigest(id), id.IdentityDigest)
			now, err := checkmatch.TakeSnapshot("", nil)
			require.NoError(t, err)
			assert.Equal(t, now.PromptDigests, id.PromptDigests)
			assert.Equal(t, now.CodePathDigests, id.CodePathDigests)
			assert.Equal(t, receipt.Counts{{Name: "judgments", Value: 7}}, id.ArmCallCounts)
			assert.False(t, id.WorkingTree.Dirty, "empty porcelain text is a clean tree")
			switch tt.backend {
			case "vllm":
				assert.Equal(t, "rev-1", rec.Pins.ModelRevision)
				require.NotNil(t, rec.Pins.Server)
				assert.Equal(t, "vllm_chat", id.Runtime.ServedTemplate)
				require.NotNil(t, rec.Throughput.Server)
				require.NotNil(t, rec.ServerArgs)
				require.NotNil(t, rec.ServerArgs.CallerStated)
				assert.Equal(t, "--max-num-seqs 64", *rec.ServerArgs.CallerStated)
				assert.Equal(t, 28.0, rec.Throughput.Server.Counters.RequestSuccess.Number, "4 scoring requests per case")
			case "llama_cpp":
				assert.Empty(t, rec.Pins.ModelRevision)
				require.NotNil(t, rec.Pins.Server)
				assert.Nil(t, rec.Throughput.Server)
				require.NotNil(t, rec.ServerArgs, "image runs write server_args on every backend")
				assert.Nil(t, rec.ServerArgs.CacheConfig, "llama.cpp has no /metrics")
				assert.Equal(t, rec.Pins.Server.BuildInfo, id.Runtime.ServerBuild)
			case "fake":
				assert.Equal(t, "fake-model", rec.Model)
				assert.Nil(t, rec.Pins.Server)
				assert.Equal(t, receipt.Unknown, id.Runtime.ServerBuild)
			case "reader":
				assert.Equal(t, "reader", rec.Model)
				require.NotNil(t, rec.Pins.Server)
				pin := reader.Options{}.Pin()
				assert.Equal(t, reader.Version, rec.Pins.Server.BuildInfo, "build_info is the reader's version")
				assert.Empty(t, rec.Pins.Server.Served)
				assert.Nil(t, rec.Pins.Server.LlamaCPP)
				want, err := json.Marshal(pin)
				require.NoError(t, err)
				assert.JSONEq(t, string(want), string(rec.Pins.Server.BackendPin), "backend_pin is the reader's pin object")
				var back reader.Pin
				require.NoError(t, json.Unmarshal(rec.Pins.Server.BackendPin, &back))
				assert.Equal(t, pin, back)
				assert.Equal(t, reader.Version, id.Runtime.ServerBuild)
				raw, err := os.ReadFile(path)
				require.NoError(t, err)
				assert.Contains(t, string(raw), "\"build_info\": \""+reader.Version+"\",\n      \"backend_pin\": {\n", "the pin is an object after build_info")
				assert.Equal(t, 1.0, *rec.Metrics.Accuracy, "the reader judges every sharp check of row 0 right")
			}

			b, err := os.ReadFile(path)
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
			require.Len(t, lines, 9, r.stdout)
			assert.Equal(t, "receipt "+path+" sha256 "+sha256Hex(b), lines[0])
			for i, key := range []string{"accuracy ", "false_clear_rate ", "accuracy_by_variant ", "wall_seconds ", "stopped null", "throughput {"} {
				assert.True(t, strings.HasPrefix(lines[i+1], key), "line %d %q", i+1, lines[i+1])
			}
			assert.True(t, strings.HasPrefix(lines[7], "intervals 95% Wilson: accuracy "), lines[7])
			right := 0
			for _, c := range rec.Cases {
				if c.Correct {
					right++
				}
			}
			assert.Contains(t, lines[7], " ("+strconv.Itoa(right)+"/"+strconv.Itoa(len(rec.Cases))+"); false_clear_rate ", "k/n of the accuracy")
			assert.Equal(t, confidenceLine, lines[8])
			// The summary writes numbers as the receipt does (1.0, not 1).
			require.NotNil(t, rec.Metrics.Accuracy)
			assert.Equal(t, "accuracy "+pyjson.FormatFloat(*rec.Metrics.Accuracy), lines[1])
			assert.Equal(t, "wall_seconds "+pyjson.FormatFloat(rec.WallSeconds), lines[4])
			assert.Contains(t, string(b), `"wall_seconds": `+pyjson.FormatFloat(rec.WallSeconds)+",\n")
			if tt.backend == "reader" {
				assert.Equal(t, "accuracy 1.0", lines[1], "a whole number keeps its .0")
			}
		})
	}
}

// TestStoppedRun: a backend failure at case 3 still writes the receipt with
// the three earlier cases, and the command exits 1.
func TestStoppedRun(t *testing.T) {
	srv := judgmenttest.NewVLLM(nil)
	srv.Inject(judgmenttest.Fault{Path: "/v1/chat/completions", Nth: 3*4 + 1, Status: 503, Body: `{"error": "overloaded"}`})
	env := vllmEnv(t, srv)
	path := filepath.Join(t.TempDir(), "check.json")
	env[envReceipt], env[envRows] = path, "1"
	r := runCmd(t, []string{"-json"}, env)
	require.Error(t, r.err)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "run stopped at case r00:both_amounts_changed (index 3, BackendHttpError)")
	rec := readBack(t, path)
	require.NotNil(t, rec.Stopped)
	assert.Equal(t, 3, rec.Stopped.Index)
	assert.Equal(t, "BackendHttpError", rec.Stopped.ErrorClass)
	assert.Contains(t, rec.Stopped.Message, "503")
	assert.Len(t, rec.Cases, 3)
	assert.Equal(t, 3, rec.Throughput.Judgments)
	assert.Contains(t, r.stdout, `stopped {"index": 3, "case_id": "r00:both_amounts_changed",`)
}

// TestSecondRunRefused: a second run to the same path refuses before any
// request reaches the server.
func TestSecondRunRefused(t *testing.T) {
	srv := judgmenttest.NewVLLM(nil)
	env := vllmEnv(t, srv)
	path := filepath.Join(t.TempDir(), "check.json")
	env[envReceipt], env[envRows] = path, "1"
	first := runCmd(t, nil, env)
	require.NoError(t, first.err)
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	requests := srv.Count("")

	second := runCmd(t, nil, env)
	require.Error(t, second.err)
	assert.Equal(t, 2, second.code)
	assert.Contains(t, second.err.Error(), "TYPEVET_CHECK_MATCH_RECEIPT must name a new file: "+path+" exists")
	assert.Equal(t, requests, srv.Count(""), "no request after the refusal")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after)
}

// TestEchoedAuthHeader: a server error that echoes the Authorization
// header, key included, still gives a receipt with every earlier outcome;
// the key is nowhere on disk or in the output and the stopped message is
// withheld and says so.
func TestEchoedAuthHeader(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	srv := judgmenttest.NewUnstartedVLLM(nil)
	srv.APIKey = key
	srv.Start()
	srv.Inject(judgmenttest.Fault{Path: "/v1/chat/completions", Nth: 2*4 + 2, Status: 502,
		Body: `{"error": "bad gateway", "request_headers": {"Authorization": "Bearer ` + key + `"}}`})
	env := vllmEnv(t, srv)
	dir := t.TempDir()
	path := filepath.Join(dir, "check.json")
	env[envReceipt], env[envRows] = path, "1"
	env["TYPEVET_VLLM__API_KEY"] = key
	r := runCmd(t, nil, env)
	require.Error(t, r.err)
	assert.Equal(t, 1, r.code)

	rec := readBack(t, path)
	assert.Len(t, rec.Cases, 2)
	require.NotNil(t, rec.Stopped)
	assert.Equal(t, 2, rec.Stopped.Index)
	assert.Equal(t, "BackendHttpError", rec.Stopped.ErrorClass)
	assert.Equal(t, "message withheld: the error text held a key or an auth header", rec.Stopped.Message)
	assert.Contains(t, rec.Stopped.Message, "withheld")

	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, files, 2, "the receipt and the stopped run's journal")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	jb, err := os.ReadFile(path + ".journal.jsonl")
	require.NoError(t, err)
	for what, text := range map[string]string{"receipt": string(b), "journal": string(jb), "stdout": r.stdout, "stderr": r.stderr} {
		assert.NotContains(t, text, key, what)
		assert.NotContains(t, strings.ToLower(text), "bearer "+strings.ToLower(key[:6]), what)
	}
	assert.NoError(t, receipt.CheckKeyFree(b, judgment.Secrets{Keys: []string{key}}))
}

// TestInputsNotKeyFree: a caller-supplied text the receipt records that
// holds the API key, a header value, "authorization" or "bearer " is refused
// before any request, as a usage error naming the variable, never the value
// (typevet would run every case and then refuse to write the receipt).
func TestInputsNotKeyFree(t *testing.T) {
	const key = "sk-test-0123456789"
	tests := []struct {
		name string
		edit map[string]string
		want string
	}{
		{name: "key in server args", edit: map[string]string{envServerArgs: "--api-key " + key + " --max-num-seqs 4"}, want: envServerArgs},
		{name: "header value in porcelain", edit: map[string]string{
			"TYPEVET_VLLM__HEADERS": `{"X-Team": "team-secret-42"}`, envPorcelain: "?? team-secret-42.txt\n"}, want: envPorcelain},
		{name: "authorization in porcelain", edit: map[string]string{envPorcelain: " M auth/Authorization.go\n"}, want: envPorcelain},
		{name: "key in revision", edit: map[string]string{envRevision: key}, want: envRevision},
		{name: "bearer in model", edit: map[string]string{envVLLMModel: "bearer model"}, want: envVLLMModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := judgmenttest.NewUnstartedVLLM(nil)
			srv.APIKey = key
			srv.Start()
			env := vllmEnv(t, srv)
			path := filepath.Join(t.TempDir(), "check.json")
			env[envReceipt], env[envRows] = path, "1"
			env["TYPEVET_VLLM__API_KEY"] = key
			for k, v := range tt.edit {
				env[k] = v
			}
			r := runCmd(t, nil, env)
			var ue *cli.UsageError
			require.ErrorAs(t, r.err, &ue)
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.err.Error(), tt.want+" holds a key or an auth header")
			assert.Empty(t, srv.Requests(), "refused before any network call")
			assert.NoFileExists(t, path)
			for _, text := range []string{r.stderr, r.stdout} {
				assert.NotContains(t, text, key)
				assert.NotContains(t, text, "team-secret-42")
			}
		})
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestCancelledRun: Ctrl-C during a run (here ctx cancelled while the
// server thinks about a scoring request of a later case) stops the run like
// a backend failure: the receipt is written with the earlier cases and
// says what happened.
func TestCancelledRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int64
	srv := judgmenttest.NewVLLM(&judgmenttest.Model{Delay: func(string) time.Duration {
		// The fake consults Delay more than once per scoring request;
		// any call past the first case's requests will do.
		if calls.Add(1) == 17 {
			cancel()
			return time.Minute
		}
		return 0
	}})
	env := vllmEnv(t, srv)
	path := filepath.Join(t.TempDir(), "check.json")
	env[envReceipt], env[envRows] = path, "1"
	cfg, err := configure(cli.NewEnv(nil, nil, envOf(env), cli.LiveDefaults))
	require.NoError(t, err)
	var stdout, stderr bytes.Buffer
	err = execute(ctx, &stdout, &stderr, cfg)
	require.Error(t, err)
	rec := readBack(t, path)
	require.NotNil(t, rec.Stopped)
	assert.Positive(t, rec.Stopped.Index)
	assert.Less(t, rec.Stopped.Index, 7)
	assert.Len(t, rec.Cases, rec.Stopped.Index, "every case before the stop is kept")
	assert.Contains(t, err.Error(), "run stopped at case "+rec.Stopped.CaseID)
	assert.Equal(t, "Canceled", rec.Stopped.ErrorClass, "Ctrl-C mid-call is not a network failure")
	assert.Contains(t, rec.Stopped.Message, "context canceled")
}

// TestNoServerBeforeRender: with no server the run fails before it
// renders a single check, and says which URL setting to fix and that
// -backend reader runs offline.
func TestNoServerBeforeRender(t *testing.T) {
	orig := buildSlice
	defer func() { buildSlice = orig }()
	var renders atomic.Int64
	buildSlice = func(seed uint64, rows int, rendered func()) (checkmatch.Slice, error) {
		renders.Add(1)
		return orig(seed, rows, rendered)
	}
	path := filepath.Join(t.TempDir(), "check.json")
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"llama.cpp", []string{"-base-url", "http://127.0.0.1:1"}, map[string]string{}, "point -base-url at it"},
		{"vllm", nil, map[string]string{envBackend: "vllm", "TYPEVET_VLLM__BASE_URL": "http://127.0.0.1:1", envVLLMModel: "m", envRevision: "r"},
			"point TYPEVET_VLLM__BASE_URL at it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.env[envReceipt] = path
			r := runCmd(t, tt.args, tt.env)
			assert.Equal(t, 1, r.code)
			assert.Contains(t, r.stderr, tt.want)
			assert.Contains(t, r.stderr, "-backend reader judges offline with no server")
			assert.Zero(t, renders.Load(), "nothing is rendered before the server answers")
			assert.NoFileExists(t, path)
		})
	}
}

// A single-model llama-server ignores the request's model: a mistyped
// TYPEVET_LLAMA__MULTIMODAL_MODEL is refused before the first scoring
// request, exit 2, nothing written, the message naming the variable, the
// flag and the model the server serves.
func TestUnservedModelRefused(t *testing.T) {
	for _, viaFlag := range []bool{false, true} {
		srv, env := llamaEnv(t)
		path := filepath.Join(t.TempDir(), "r.json")
		args := []string{"-receipt", path, "-rows", "1"}
		if viaFlag {
			args = append(args, "-model", "gemma-4-typo")
		} else {
			env[envLlamaModel] = "gemma-4-typo"
		}
		r := runCmd(t, args, env)
		assert.Equal(t, 2, r.code, r.stderr)
		assert.Contains(t, r.stderr, `TYPEVET_LLAMA__MULTIMODAL_MODEL (or -model) names model "gemma-4-typo", which the llama.cpp server does not serve (it serves "`+judgmenttest.DefaultModelID+`")`)
		assert.Zero(t, srv.Count("/completion")+srv.Count("/tokenize"), "no scoring request")
		assert.NoFileExists(t, path)
	}
}
