package main

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/examples/internal/cmdtest"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// TestMain runs the command itself when the test binary is started as its
// child ([cmdtest.StartChild]), and otherwise the tests. The commands
// commands_test.go built stay for the next run ([cmdtest.Build]).
func TestMain(m *testing.M) {
	cmdtest.RunChild(func(args []string) int { return exitCode(run(os.Stdout, os.Stderr, args, os.LookupEnv), os.Stderr) })
	os.Exit(m.Run())
}

// TestKilledRunResumes is the crash test: a run killed with SIGKILL after
// some cases finished is finished by -resume. The receipt's cases equal an
// uninterrupted run's in every field but latency, and the server saw each
// case the killed run finished exactly once.
func TestKilledRunResumes(t *testing.T) {
	t.Parallel() // waits on child processes
	slow := &judgmenttest.Model{NVocab: 64, Delay: func(string) time.Duration { return 40 * time.Millisecond }}
	srv := judgmenttest.NewLlamaCPP(slow)
	t.Cleanup(srv.Close)
	env := map[string]string{envBackend: "llama_cpp", "TYPEVET_LLAMA__BASE_URL": srv.URL, envLlamaModel: judgmenttest.DefaultModelID,
		envRows: "1", envPorcelain: ""}
	path := filepath.Join(t.TempDir(), "check.json")
	env[envReceipt] = path
	jpath := path + journal.Suffix

	child, out := cmdtest.StartChild(t, env)
	cmdtest.WaitJournaled(t, child, out, jpath, 3)
	require.NoError(t, child.Process.Signal(syscall.SIGKILL))
	_ = child.Wait()
	assert.NoFileExists(t, path, "killed: no receipt")
	ids := cmdtest.JournaledIDs(jpath)
	journaled := len(ids)
	require.Less(t, journaled, 7, "killed before the end")
	done := map[string]bool{}
	for _, id := range ids {
		done[id] = true
	}
	slice, err := buildSlice(0, 1, nil)
	require.NoError(t, err)
	before := cmdtest.ScoringCalls(srv, "/completion", slice)

	// A resume takes its settings from the journal: another seed or
	// concurrency, by variable or flag, is refused naming it and both
	// values.
	for name, edit := range map[string][2]string{"generator_seed": {envSeed, "1"}, "concurrency": {envConcurrency, "2"}} {
		e := maps.Clone(env)
		e[edit[0]] = edit[1]
		r := runCmd(t, []string{"-resume"}, e)
		require.Error(t, r.err)
		assert.Equal(t, 2, r.code, name)
		assert.Contains(t, r.err.Error(), "-resume: "+edit[0]+` "`+edit[1]+`" differs from the journaled run's`)
	}
	r := runCmd(t, []string{"-resume", "-seed", "1"}, env)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.err.Error(), `-resume: -seed "1" differs from the journaled run's "0" (journal `+jpath+")")
	assert.Equal(t, before, cmdtest.ScoringCalls(srv, "/completion", slice), "a refused resume judges nothing")

	r = runCmd(t, []string{"-resume"}, env)
	require.NoError(t, r.err, r.stderr)
	assert.Contains(t, r.stderr, "resuming: ")
	assert.NoFileExists(t, jpath, "the journal is removed once the receipt is written and read back")
	got := readBack(t, path)
	assert.Nil(t, got.Stopped)
	require.Len(t, got.Cases, 7)

	after := cmdtest.ScoringCalls(srv, "/completion", slice)
	perCase := before[slice.Requests[0].CaseID()] // 4 questions, one /completion each
	require.Positive(t, perCase)
	for _, req := range slice.Requests {
		id := req.CaseID()
		if done[id] {
			assert.Equal(t, perCase, after[id], "case %s finished before the kill: its scoring requests were sent exactly once", id)
		} else {
			assert.Equal(t, perCase, after[id]-before[id], "case %s: judged by the resume", id)
		}
	}

	// The uninterrupted run, on a fresh server.
	_, env2 := llamaEnv(t)
	whole := filepath.Join(t.TempDir(), "whole.json")
	env2[envReceipt], env2[envRows], env2[envPorcelain] = whole, "1", ""
	r2 := runCmd(t, nil, env2)
	require.NoError(t, r2.err, r2.stderr)
	want := readBack(t, whole)
	for i := range want.Cases {
		w, g := want.Cases[i], got.Cases[i]
		w.LatencySeconds, g.LatencySeconds = 0, 0
		assert.Equal(t, w, g, "case %d", i)
	}
	wm, gm := want.Metrics, got.Metrics
	wm.MeanLatencySeconds, gm.MeanLatencySeconds = nil, nil
	assert.Equal(t, wm, gm, "metrics over every case")
	assert.Equal(t, want.Pins.SliceSHA256, got.Pins.SliceSHA256)
	assert.Equal(t, want.Identity.IdentityDigest, got.Identity.IdentityDigest, "the same experiment identity")
	assert.Equal(t, 7, got.Throughput.Judgments)
	assert.Positive(t, got.WallSeconds)
}

// TestKeyCollisionRefusedUpFront: TYPEVET_VLLM__API_KEY=vllm is a word of
// every vLLM receipt; the run is refused before any request, exit 2,
// naming the variable and never the value.
func TestKeyCollisionRefusedUpFront(t *testing.T) {
	for _, key := range []string{"vllm", "verdict", "cannot_tell", "payee_confidence"} {
		t.Run(key, func(t *testing.T) {
			srv := judgmenttest.NewUnstartedVLLM(nil)
			srv.APIKey = key
			srv.Start()
			env := vllmEnv(t, srv)
			path := filepath.Join(t.TempDir(), "check.json")
			env[envReceipt], env[envRows] = path, "1"
			env["TYPEVET_VLLM__API_KEY"] = key
			r := runCmd(t, nil, env)
			require.Error(t, r.err)
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.err.Error(), "TYPEVET_VLLM__API_KEY occurs in the receipt's own text")
			assert.NotContains(t, strings.ReplaceAll(r.stderr, "TYPEVET_VLLM__API_KEY", ""), "="+key)
			assert.Empty(t, srv.Requests(), "refused before any request")
			assert.NoFileExists(t, path)
			assert.NoFileExists(t, path+journal.Suffix)
		})
	}
}

// TestServerFieldHoldsAuthWord: a /props build_info holding "Bearer " is
// refused before the first scoring call, not after the run.
func TestServerFieldHoldsAuthWord(t *testing.T) {
	srv := judgmenttest.NewUnstartedLlamaCPP(&judgmenttest.Model{NVocab: 64})
	srv.BuildInfo = "b1 (proxy: Authorization: Bearer x)"
	srv.Start()
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "check.json")
	env := map[string]string{envBackend: "llama_cpp", "TYPEVET_LLAMA__BASE_URL": srv.URL, envLlamaModel: judgmenttest.DefaultModelID,
		envRows: "1", envReceipt: path}
	r := runCmd(t, nil, env)
	require.Error(t, r.err)
	assert.Contains(t, r.err.Error(), "pins.server")
	assert.Zero(t, srv.Count("/completion"), "no scoring call")
	assert.NoFileExists(t, path)
	assert.NoFileExists(t, path+journal.Suffix)
}

// TestVLLMModelNotServed: a model /v1/models does not list is refused
// before the first scoring call.
func TestVLLMModelNotServed(t *testing.T) {
	srv := judgmenttest.NewVLLM(nil)
	env := vllmEnv(t, srv)
	path := filepath.Join(t.TempDir(), "check.json")
	env[envReceipt], env[envRows], env[envVLLMModel] = path, "1", "gemma-typo"
	r := runCmd(t, nil, env)
	require.Error(t, r.err)
	assert.Contains(t, r.err.Error(), envVLLMModel+" names a model the server does not serve")
	assert.Zero(t, srv.Count("/v1/chat/completions"))
	assert.NoFileExists(t, path)
}

// TestReceiptPathNotWritable: a parent that is a file and a read-only
// directory are refused before any request.
func TestReceiptPathNotWritable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	ro := filepath.Join(dir, "ro")
	require.NoError(t, os.Mkdir(ro, 0o555))
	paths := map[string]string{"parent is a file": filepath.Join(file, "check.json")}
	if os.Geteuid() != 0 {
		paths["read-only dir"] = filepath.Join(ro, "check.json")
	}
	for name, path := range paths {
		t.Run(name, func(t *testing.T) {
			srv := judgmenttest.NewVLLM(nil)
			env := vllmEnv(t, srv)
			env[envReceipt], env[envRows] = path, "1"
			r := runCmd(t, nil, env)
			require.Error(t, r.err)
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.err.Error(), envReceipt)
			assert.Empty(t, srv.Requests())
		})
	}
}

// TestInterruptDuringRendering: Ctrl-C while the slice renders is honoured
// within 0.5 s and nothing is written.
func TestInterruptDuringRendering(t *testing.T) {
	saved := buildSlice
	release := make(chan struct{})
	buildSlice = func(seed uint64, rows int, rendered func()) (checkmatch.Slice, error) {
		<-release
		return saved(seed, rows, rendered)
	}
	t.Cleanup(func() { close(release); buildSlice = saved })
	path := filepath.Join(t.TempDir(), "check.json")
	cfg, err := configure(cli.NewEnv(nil, nil, envOf(map[string]string{envBackend: "fake", envReceipt: path, envRows: "1"}), cli.LiveDefaults))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	var stdout, stderr bytes.Buffer
	err = execute(ctx, &stdout, &stderr, cfg)
	assert.ErrorIs(t, err, cli.ErrInterrupted)
	assert.Less(t, time.Since(start), 600*time.Millisecond)
	assert.NoFileExists(t, path)
	assert.NoFileExists(t, path+journal.Suffix)
}

// TestInterruptBeforeFirstCase: a run cancelled before its first case
// writes no receipt (the path stays free) and removes its journal.
func TestInterruptBeforeFirstCase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "check.json")
	srv, env := llamaEnv(t)
	env[envReceipt], env[envRows] = path, "1"
	defer func() { assert.Zero(t, srv.Count("/completion")) }()
	cfg, err := configure(cli.NewEnv(nil, nil, envOf(env), cli.LiveDefaults))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	cancel()
	err = execute(ctx, &stdout, &stderr, cfg)
	assert.ErrorIs(t, err, cli.ErrInterrupted)
	assert.NoFileExists(t, path)
	assert.NoFileExists(t, path+journal.Suffix)
}

// TestPathTakenDuringRun: the receipt path is taken while the run goes;
// the journal stays and the message says how to finish, and following it
// finishes the run without judging a case again.
func TestPathTakenDuringRun(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "check.json")
	var calls atomic.Int64
	srv := judgmenttest.NewLlamaCPP(&judgmenttest.Model{NVocab: 64, Delay: func(string) time.Duration {
		if calls.Add(1) == 3 {
			os.WriteFile(path, []byte("someone else's file"), 0o644)
		}
		return 0
	}})
	t.Cleanup(srv.Close)
	env := map[string]string{envBackend: "llama_cpp", "TYPEVET_LLAMA__BASE_URL": srv.URL, envLlamaModel: judgmenttest.DefaultModelID,
		envRows: "1", envReceipt: path, envPorcelain: ""}
	r := runCmd(t, nil, env)
	require.Error(t, r.err)
	assert.Equal(t, 1, r.code)
	msg := r.err.Error()
	assert.Contains(t, msg, "the journal "+path+journal.Suffix+" keeps every finished case")
	assert.Contains(t, msg, "-resume")
	require.FileExists(t, path+journal.Suffix)
	require.Len(t, cmdtest.JournaledIDs(path+journal.Suffix), 7)

	// Follow the message: move the journal beside a new path and resume.
	fresh := filepath.Join(dir, "fresh.json")
	require.NoError(t, os.Rename(path+journal.Suffix, fresh+journal.Suffix))
	scoring := srv.Count("/completion")
	env[envReceipt] = fresh
	r = runCmd(t, []string{"-resume"}, env)
	require.NoError(t, r.err, r.stderr)
	assert.Equal(t, scoring, srv.Count("/completion"), "every case came from the journal")
	rec := readBack(t, fresh)
	assert.Len(t, rec.Cases, 7)
	assert.NoFileExists(t, fresh+journal.Suffix)
}

// TestStoppedRunResumes: a stopped run (a 503 at case 3) keeps its
// journal; -resume judges the rest and replaces the stopped receipt with
// the complete one; a -retries run rides over the same 503.
func TestStoppedRunResumes(t *testing.T) {
	srv := judgmenttest.NewVLLM(nil)
	srv.Inject(judgmenttest.Fault{Path: "/v1/chat/completions", Nth: 3*4 + 1, Status: 503, Body: `{"error": "overloaded"}`})
	env := vllmEnv(t, srv)
	path := filepath.Join(t.TempDir(), "check.json")
	env[envReceipt], env[envRows] = path, "1"
	r := runCmd(t, nil, env)
	require.Error(t, r.err)
	assert.Contains(t, r.err.Error(), "rerun with -resume")
	require.FileExists(t, path+journal.Suffix)
	assert.NotNil(t, readBack(t, path).Stopped)

	// Without -resume the path is taken; a new run must not start over the journal.
	r = runCmd(t, nil, env)
	assert.Equal(t, 2, r.code)

	r = runCmd(t, []string{"-resume"}, env)
	require.NoError(t, r.err, r.stderr)
	rec := readBack(t, path)
	assert.Nil(t, rec.Stopped)
	assert.Len(t, rec.Cases, 7)
	assert.NoFileExists(t, path+journal.Suffix)

	r = runCmd(t, []string{"-resume"}, env)
	assert.Equal(t, 2, r.code, "nothing left to resume")

	srv2 := judgmenttest.NewVLLM(nil)
	srv2.Inject(judgmenttest.Fault{Path: "/v1/chat/completions", Nth: 3*4 + 1, Status: 503, Body: `{"error": "overloaded"}`})
	env2 := vllmEnv(t, srv2)
	path2 := filepath.Join(t.TempDir(), "retried.json")
	env2[envReceipt], env2[envRows] = path2, "1"
	r = runCmd(t, []string{"-retries", "2"}, env2)
	require.NoError(t, r.err, r.stderr)
	assert.Nil(t, readBack(t, path2).Stopped)
}
