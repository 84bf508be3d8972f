package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/checkmatch/orderings"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/examples/internal/cmdtest"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/receipt"
)

// TestMain runs the command itself when the test binary is started as its
// child ([cmdtest.StartChild]), and otherwise the tests.
func TestMain(m *testing.M) {
	cmdtest.RunChild(func(args []string) int { return exitCode(run(os.Stdout, os.Stderr, args, os.LookupEnv), os.Stderr) })
	os.Exit(m.Run())
}

// sameStudy returns the receipt at path as JSON with what an interrupted,
// resumed or merged study may change (finished_utc, run_id, wall time)
// blanked.
func sameStudy(t *testing.T, path string) string {
	t.Helper()
	r := readBack(t, path)
	r.Pins.FinishedUTC, r.Identity.RunID, r.WallSeconds = "", "", 0
	b, err := receipt.Marshal(r)
	require.NoError(t, err)
	return string(b)
}

// TestKilledStudyResumes is the crash test: a study killed with SIGKILL
// after two cases is refused a resume with another pin, then resumed as a
// child that SIGTERM stops (a stopped receipt), then resumed to the end.
// The receipt equals an uninterrupted study's but for finished_utc, run_id
// and wall time, and the server saw each finished case's scoring requests
// exactly once.
func TestKilledStudyResumes(t *testing.T) {
	slow := &judgmenttest.Model{NVocab: 64, Delay: func(string) time.Duration { return 15 * time.Millisecond }}
	srv := judgmenttest.NewLlamaCPP(slow)
	t.Cleanup(srv.Close)
	_, env := llamaEnv(t)
	env["TYPEVET_LLAMA__BASE_URL"] = srv.URL
	single := writeSingle(t, 1, nil)
	env[envSingle] = single
	path := filepath.Join(t.TempDir(), "orderings.json")
	env[envReceipt] = path
	jpath := path + journal.Suffix

	child, out := cmdtest.StartChild(t, env)
	cmdtest.WaitJournaled(t, child, out, jpath, 2)
	require.NoError(t, child.Process.Signal(syscall.SIGKILL))
	_ = child.Wait()
	assert.NoFileExists(t, path, "killed: no receipt")
	part1 := cmdtest.JournaledIDs(jpath)
	require.Less(t, len(part1), 7, "killed before the end")
	slice, err := buildSlice(1, 1, nil)
	require.NoError(t, err)
	before := cmdtest.ScoringCalls(srv, "/completion", slice)

	// A resume takes its settings from the journal: another backend or
	// single-order receipt path set is refused naming the variable.
	other := writeSingle(t, 1, func(r *checkmatch.Receipt) { r.Model = "another-model" })
	require.Equal(t, filepath.Base(single), filepath.Base(other))
	for pin, edit := range map[string][2]string{"backend": {envBackend, "fake"}, "single_order_receipt_sha256": {envSingle, other}} {
		e := maps.Clone(env)
		e[edit[0]] = edit[1]
		r := runCmd(t, []string{"-resume"}, e)
		require.Error(t, r.err, pin)
		assert.Equal(t, 2, r.code, pin)
		assert.Contains(t, r.err.Error(), "-resume: "+edit[0]+` "`+edit[1]+`" differs from the journaled run's`, pin)
	}
	assert.Equal(t, before, cmdtest.ScoringCalls(srv, "/completion", slice), "a refused resume scores nothing")

	// Part 2: a child resumed, stopped by SIGTERM after one more case.
	child, out = cmdtest.StartChild(t, env, "-resume")
	cmdtest.WaitJournaled(t, child, out, jpath, len(part1)+1)
	require.NoError(t, child.Process.Signal(syscall.SIGTERM))
	err = child.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, out.String())
	assert.Equal(t, 1, ee.ExitCode(), out.String())
	assert.Contains(t, out.String(), "resuming: ")
	stopped := readBack(t, path)
	require.NotNil(t, stopped.Stopped, "SIGTERM stops like Ctrl-C and writes the receipt of what ran")
	assert.Equal(t, "Canceled", stopped.Stopped.ErrorClass)
	done := cmdtest.JournaledIDs(jpath)
	require.Less(t, len(done), 7, "stopped before the end")
	assert.Len(t, stopped.Cases, len(done))
	mid := cmdtest.ScoringCalls(srv, "/completion", slice)

	// Part 3: finish; the stopped receipt is replaced.
	r := runCmd(t, []string{"-resume"}, env)
	require.NoError(t, r.err, r.stderr)
	assert.NoFileExists(t, jpath, "the journal is removed once the receipt is written and read back")
	got := readBack(t, path)
	assert.Nil(t, got.Stopped)
	require.Len(t, got.Cases, 7)
	assert.Equal(t, 42, got.Requests)

	after := cmdtest.ScoringCalls(srv, "/completion", slice)
	for _, req := range slice.Requests {
		id := req.CaseID()
		switch {
		case slices.Contains(part1, id):
			assert.Equal(t, 6, after[id], "case %s finished in part 1: its 6 scoring requests were sent exactly once", id)
		case slices.Contains(done, id):
			assert.Equal(t, 6, mid[id]-before[id], "case %s finished in part 2", id)
			assert.Equal(t, mid[id], after[id], "case %s was not scored again", id)
		default:
			assert.Equal(t, 6, after[id]-mid[id], "case %s: scored by the last resume", id)
		}
	}

	// The uninterrupted study, on a fresh server.
	srv2, env2 := llamaEnv(t)
	whole := filepath.Join(t.TempDir(), "whole.json")
	env2[envReceipt], env2[envSingle] = whole, single
	r2 := runCmd(t, nil, env2)
	require.NoError(t, r2.err, r2.stderr)
	assert.Equal(t, 42, srv2.Count("/completion"))
	assert.Equal(t, sameStudy(t, whole), sameStudy(t, path), "the resumed receipt is the uninterrupted one's")
	assert.Greater(t, got.WallSeconds, 0.0)
}

// TestShardsMergeLikeOneStudy runs the study whole and as 3 shards against
// one llama.cpp server and merges the shards: the receipt equals the whole
// study's but for finished_utc, run_id and wall time.
func TestShardsMergeLikeOneStudy(t *testing.T) {
	dir := t.TempDir()
	srv, env := llamaEnv(t)
	env[envSingle] = writeSingle(t, 1, nil)
	whole := filepath.Join(dir, "whole.json")
	env[envReceipt] = whole
	r := runCmd(t, nil, env)
	require.NoError(t, r.err, r.stderr)

	var shards []checkmatch.ShardFile
	cases := 0
	for i, s := range []string{"0/3", "1/3", "2/3"} {
		p := filepath.Join(dir, "shard"+string(rune('0'+i))+".json")
		env[envReceipt] = p
		r := runCmd(t, []string{"-shard", s}, env)
		require.NoError(t, r.err, r.stderr)
		assert.Contains(t, r.stdout, "shard "+s+" record "+p)
		sf, err := checkmatch.ReadShard(p)
		require.NoError(t, err)
		assert.Equal(t, orderings.JournalKind, sf.Record.Identity.Kind)
		cases += sf.Record.Cases
		shards = append(shards, sf)
		// A finished shard is not resumed: its record holds the path.
		if i == 0 {
			r := runCmd(t, []string{"-resume"}, env)
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.stderr, "holds a finished receipt", "a finished shard's record is not resumed")
			r = runCmd(t, []string{"-shard", "1/3", "-resume"}, env)
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.stderr, `-shard "1/3" differs from the journaled run's "0/3"`, "a resume takes the shard from the journal")
		}
	}
	assert.Equal(t, 7, cases, "every case in exactly one shard")
	assert.Equal(t, 2*42, srv.Count("/completion"), "the shards scored every case once")
	rec, err := orderings.MergeReceipt(shards)
	require.NoError(t, err)
	merged := filepath.Join(dir, "merged.json")
	_, err = receipt.Write(merged, rec, judgment.Secrets{})
	require.NoError(t, err)
	assert.Equal(t, sameStudy(t, whole), sameStudy(t, merged))
}

// stoppedStudy runs a study that a 503 on call 9 stops after its first
// case, with the llama.cpp fake srv and the settings env; the stopped
// receipt is at path, its journal beside it.
func stoppedStudy(t *testing.T) (*judgmenttest.Server, map[string]string, string, result) {
	t.Helper()
	srv, env := llamaEnv(t)
	srv.Inject(judgmenttest.Fault{Path: "/completion", Nth: 9, Status: 503, Body: `{"error": {"message": "loading model"}}`})
	path := filepath.Join(t.TempDir(), "orderings.json")
	env[envReceipt], env[envSingle] = path, writeSingle(t, 1, nil)
	r := runCmd(t, nil, env)
	require.Error(t, r.err)
	return srv, env, path, r
}

// TestStoppedStudyRetriesAndResumes: a 503 on call 9 stops the study
// (the journal stays, the message says -resume); -resume, past a torn
// last line, finishes it; a -retries run rides over the same 503.
func TestStoppedStudyRetriesAndResumes(t *testing.T) {
	srv, env, path, r := stoppedStudy(t)
	assert.Contains(t, r.err.Error(), "the journal "+path+journal.Suffix+" keeps every finished case: rerun with -resume")
	require.NotNil(t, readBack(t, path).Stopped)
	assert.Equal(t, []string{"r00:clean"}, cmdtest.JournaledIDs(path+journal.Suffix))

	r = runCmd(t, nil, env)
	assert.Equal(t, 2, r.code, "the path is taken: a new study does not start over the journal")
	// A process killed mid-write leaves a torn last line: ignored and reported.
	f, err := os.OpenFile(path+journal.Suffix, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"index": 1, "case_id": "r00:pay`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	r = runCmd(t, []string{"-resume"}, env)
	require.NoError(t, r.err, r.stderr)
	assert.Contains(t, r.stderr, "the journal's last line (32 bytes) was torn by the stopped process and is ignored")
	assert.Contains(t, r.stderr, "resuming: 1 of 7 cases are in the journal, 6 to score")
	rec := readBack(t, path)
	assert.Nil(t, rec.Stopped)
	assert.Len(t, rec.Cases, 7)
	assert.Equal(t, 42, rec.Requests)
	assert.Equal(t, 9+36, srv.Count("/completion"), "case r00:clean was not scored again")
	assert.NoFileExists(t, path+journal.Suffix)

	srv2, env2 := llamaEnv(t)
	srv2.Inject(judgmenttest.Fault{Path: "/completion", Nth: 9, Status: 503, Body: `{"error": {"message": "loading model"}}`})
	path2 := filepath.Join(t.TempDir(), "retried.json")
	env2[envReceipt], env2[envSingle] = path2, env[envSingle]
	r = runCmd(t, []string{"-retries", "1"}, env2)
	require.NoError(t, r.err, r.stderr)
	assert.Nil(t, readBack(t, path2).Stopped)
	assert.Equal(t, 43, srv2.Count("/completion"), "one retry")
	assert.Equal(t, sameStudy(t, path), sameStudy(t, path2))
}

// TestPathTakenDuringStudy: the receipt path is taken while the study
// runs; the journal stays, the message says how to finish, and following
// it finishes the study without scoring a case again.
func TestPathTakenDuringStudy(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "orderings.json")
	var calls atomic.Int64
	srv := judgmenttest.NewLlamaCPP(&judgmenttest.Model{NVocab: 64, Delay: func(string) time.Duration {
		if calls.Add(1) == 3 {
			os.WriteFile(path, []byte("someone else's file"), 0o644)
		}
		return 0
	}})
	t.Cleanup(srv.Close)
	_, env := llamaEnv(t)
	env["TYPEVET_LLAMA__BASE_URL"], env[envReceipt], env[envSingle] = srv.URL, path, writeSingle(t, 1, nil)
	r := runCmd(t, nil, env)
	require.Error(t, r.err)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.err.Error(), "the journal "+path+journal.Suffix+" keeps every finished case: move it to NEW"+journal.Suffix)
	require.Len(t, cmdtest.JournaledIDs(path+journal.Suffix), 7)

	fresh := filepath.Join(dir, "fresh.json")
	require.NoError(t, os.Rename(path+journal.Suffix, fresh+journal.Suffix))
	scoring := srv.Count("/completion")
	env[envReceipt] = fresh
	r = runCmd(t, []string{"-resume"}, env)
	require.NoError(t, r.err, r.stderr)
	assert.Equal(t, scoring, srv.Count("/completion"), "every case came from the journal")
	assert.Len(t, readBack(t, fresh).Cases, 7)
	assert.NoFileExists(t, fresh+journal.Suffix)
}

// TestInterruptedBeforeFirstCase: a study cancelled while rendering, or
// before its first case, writes nothing: no receipt, no journal.
func TestInterruptedBeforeFirstCase(t *testing.T) {
	single := writeSingle(t, 1, nil)
	t.Run("before the first case", func(t *testing.T) {
		srv, env := llamaEnv(t)
		path := filepath.Join(t.TempDir(), "orderings.json")
		env[envReceipt], env[envSingle] = path, single
		cfg, err := configure(cli.NewEnv(nil, nil, envOf(env), cli.LiveDefaults))
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err = execute(ctx, &bytes.Buffer{}, &bytes.Buffer{}, cfg)
		assert.ErrorIs(t, err, cli.ErrInterrupted)
		assert.Zero(t, srv.Count("/completion"))
		assert.NoFileExists(t, path)
		assert.NoFileExists(t, path+journal.Suffix)
	})
	t.Run("while rendering", func(t *testing.T) {
		saved := buildSlice
		release := make(chan struct{})
		buildSlice = func(seed uint64, rows int, rendered func()) (checkmatch.Slice, error) {
			<-release
			return saved(seed, rows, rendered)
		}
		t.Cleanup(func() { close(release); buildSlice = saved })
		path := filepath.Join(t.TempDir(), "orderings.json")
		cfg, err := configure(cli.NewEnv(nil, nil, envOf(map[string]string{envBackend: "fake", envReceipt: path, envRows: "1", envSingle: single}), cli.LiveDefaults))
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		err = execute(ctx, &bytes.Buffer{}, &bytes.Buffer{}, cfg)
		assert.ErrorIs(t, err, cli.ErrInterrupted)
		assert.Less(t, time.Since(start), 550*time.Millisecond)
		assert.NoFileExists(t, path)
		assert.NoFileExists(t, path+journal.Suffix)
	})
}

// TestKeyInReceiptTextRefusedUpFront: an API key that is a word of every
// option-order receipt is refused before any request, exit 2, naming the
// variable and never the value.
func TestKeyInReceiptTextRefusedUpFront(t *testing.T) {
	for _, key := range []string{"llama_cpp", "argmax_stable", "cannot_tell"} {
		t.Run(key, func(t *testing.T) {
			srv, env := llamaEnv(t)
			path := filepath.Join(t.TempDir(), "orderings.json")
			env[envReceipt], env[envSingle] = path, writeSingle(t, 1, nil)
			env["TYPEVET_LLAMA__API_KEY"] = key
			r := runCmd(t, nil, env)
			require.Error(t, r.err)
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.err.Error(), "TYPEVET_LLAMA__API_KEY occurs in the receipt's own text")
			assert.NotContains(t, strings.ReplaceAll(r.stderr, "TYPEVET_LLAMA__API_KEY", ""), "="+key)
			assert.Empty(t, srv.Requests(), "refused before any request")
			assert.NoFileExists(t, path)
			assert.NoFileExists(t, path+journal.Suffix)
		})
	}
}

// TestResumeRefusesBadJournalLine: a journal line that fits the slice but
// whose answers do not rebuild its case (five orderings of six) is refused
// as a failed resume, before any scoring call; the journal and the stopped
// receipt stay.
func TestResumeRefusesBadJournalLine(t *testing.T) {
	srv, env, path, r := stoppedStudy(t)
	jpath := path + journal.Suffix
	c, err := journal.ReadFile(jpath)
	require.NoError(t, err)
	require.Len(t, c.Entries, 1)
	var line map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(c.Entries[0], &line))
	var probs []json.RawMessage
	require.NoError(t, json.Unmarshal(line["orderings"], &probs))
	line["orderings"], err = json.Marshal(probs[:5])
	require.NoError(t, err)
	b, err := os.ReadFile(jpath)
	require.NoError(t, err)
	bad, err := json.Marshal(line)
	require.NoError(t, err)
	head := b[:bytes.IndexByte(b, '\n')+1]
	require.NoError(t, os.WriteFile(jpath, head, 0o644))
	cmdtest.AppendEntries(t, jpath, bad) // the chain holds: the study's check refuses it

	calls := srv.Count("/completion")
	r = runCmd(t, []string{"-resume"}, env)
	require.Error(t, r.err)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.err.Error(), "-resume: read the journal "+jpath+": journal line of case r00:clean (index 0): ")
	assert.Equal(t, calls, srv.Count("/completion"), "nothing scored")
	assert.FileExists(t, jpath)
	require.NotNil(t, readBack(t, path).Stopped)
}
