package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/checkmatch/sweep"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/examples/internal/cmdtest"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// TestMain runs the command when the test binary is started as its child
// ([cmdtest.StartChild]).
func TestMain(m *testing.M) {
	cmdtest.RunChild(func(args []string) int { return exitCode(run(os.Stdout, os.Stderr, args, os.LookupEnv), os.Stderr) })
	os.Exit(m.Run())
}

// journaledIDs returns the case ids of the journal at path.
func journaledIDs(t *testing.T, path string) map[string]bool {
	t.Helper()
	ids := cmdtest.JournaledIDs(path)
	require.NotEmpty(t, ids, "no journal at %s", path)
	out := map[string]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// withoutLatency returns the cases with latency zeroed.
func withoutLatency(cases []checkmatch.CaseRecord) []checkmatch.CaseRecord {
	out := make([]checkmatch.CaseRecord, len(cases))
	for i, c := range cases {
		c.LatencySeconds = 0
		out[i] = c
	}
	return out
}

// metricsBut returns m without its latency figure.
func metricsBut(m checkmatch.MetricsBlock) checkmatch.MetricsBlock {
	m.MeanLatencySeconds = nil
	return m
}

func readSummary(t *testing.T, path string) sweep.Summary {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var sum sweep.Summary
	require.NoError(t, json.Unmarshal(raw, &sum))
	return sum
}

func fileSHA(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// slowVLLM is a fake vLLM server whose every answer takes d.
func slowVLLM(d time.Duration) *judgmenttest.Server {
	return judgmenttest.NewVLLM(&judgmenttest.Model{Delay: func(string) time.Duration { return d }})
}

// TestKilledSweepResumes is the crash test: a sweep killed with SIGKILL in
// its second level is finished by -resume. The finished level is not run
// again (its receipt keeps its bytes), the second level judges only what
// its journal lacks (the server saw each journaled case once), every
// receipt's cases equal an uninterrupted sweep's but for latency, the
// summary is written and the journals are removed.
func TestKilledSweepResumes(t *testing.T) {
	slice, err := buildSlice(0, 1, nil)
	require.NoError(t, err)
	ref := vllmEnv(t, judgmenttest.NewVLLM(nil))
	refPrefix := filepath.Join(t.TempDir(), "ref")
	r := runCmd(t, []string{"-levels", "1,2", "-receipt-prefix", refPrefix}, ref)
	require.NoError(t, r.err, r.stderr)

	srv := slowVLLM(15 * time.Millisecond)
	env := vllmEnv(t, srv)
	prefix := filepath.Join(t.TempDir(), "tp")
	child, out := cmdtest.StartChild(t, env, "-levels", "1,2", "-receipt-prefix", prefix)
	j2 := prefix + "_c2.json" + journal.Suffix
	cmdtest.WaitJournaled(t, child, out, j2, 2)
	require.NoError(t, child.Process.Signal(syscall.SIGKILL))
	_ = child.Wait()
	require.FileExists(t, prefix+"_c1.json", "level 1 finished before the kill")
	require.FileExists(t, prefix+"_c1.json"+journal.Suffix, "journals stay until the summary")
	assert.NoFileExists(t, prefix+"_c2.json")
	assert.NoFileExists(t, prefix+"_summary.json")
	level1 := fileSHA(t, prefix+"_c1.json")
	done := journaledIDs(t, j2)
	require.Less(t, len(done), 7, "killed before level 2's end")
	before := cmdtest.ScoringCalls(srv, "/v1/chat/completions", slice)

	r = runCmd(t, []string{"-levels", "1,2", "-receipt-prefix", prefix, "-resume"}, env)
	require.NoError(t, r.err, r.stderr)
	assert.Contains(t, r.stderr, "level 1: the receipt "+prefix+"_c1.json is complete; not run again")
	assert.Contains(t, r.stderr, fmt.Sprintf("level 2: resuming: %d of 7 cases are in the journal", len(done)))
	assert.Equal(t, level1, fileSHA(t, prefix+"_c1.json"), "the finished level is not rewritten")
	after := cmdtest.ScoringCalls(srv, "/v1/chat/completions", slice)
	for _, req := range slice.Requests {
		id := req.CaseID()
		if done[id] {
			assert.Equal(t, before[id], after[id], "case %s was journaled: not judged again", id)
			assert.Equal(t, 8, after[id], "case %s: four questions at each of two levels, each once", id)
		} else {
			assert.Equal(t, before[id]+4, after[id], "case %s is judged once more at level 2", id)
		}
	}
	for _, l := range []int{1, 2} {
		got, want := readReceipt(t, fmt.Sprintf("%s_c%d.json", prefix, l)), readReceipt(t, fmt.Sprintf("%s_c%d.json", refPrefix, l))
		assert.Nil(t, got.Stopped)
		assert.Equal(t, withoutLatency(want.Cases), withoutLatency(got.Cases), "level %d", l)
		assert.Equal(t, metricsBut(want.Metrics), metricsBut(got.Metrics), "level %d", l)
		assert.Equal(t, want.Identity.IdentityDigest, got.Identity.IdentityDigest, "level %d", l)
		assert.NoFileExists(t, fmt.Sprintf("%s_c%d.json%s", prefix, l, journal.Suffix))
	}
	sum := readSummary(t, prefix+"_summary.json")
	require.Len(t, sum.Levels, 2)
	assert.Equal(t, level1, sum.Levels[0].ReceiptSHA256)
	assert.Nil(t, sum.Levels[0].KVCacheUsage, "read in flight by the killed part")
	assert.Equal(t, 7, sum.Levels[1].Answers.Cases)
}

// TestTerminatedSweepResumes: SIGTERM (what timeout, systemd, docker and
// Kubernetes send) stops a sweep like Ctrl-C: the level's stopped receipt
// and the summary are written, the journal stays; -resume judges the rest,
// replaces both and removes the journals.
func TestTerminatedSweepResumes(t *testing.T) {
	srv := slowVLLM(15 * time.Millisecond)
	env := vllmEnv(t, srv)
	prefix := filepath.Join(t.TempDir(), "tp")
	child, out := cmdtest.StartChild(t, env, "-levels", "1,2", "-receipt-prefix", prefix)
	cmdtest.WaitJournaled(t, child, out, prefix+"_c1.json"+journal.Suffix, 2)
	require.NoError(t, child.Process.Signal(syscall.SIGTERM))
	err := child.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, out.String())
	assert.Equal(t, 1, ee.ExitCode(), out.String())
	assert.Contains(t, out.String(), "rerun with -resume")
	stopped := readReceipt(t, prefix+"_c1.json")
	require.NotNil(t, stopped.Stopped)
	assert.Equal(t, "Canceled", stopped.Stopped.ErrorClass)
	require.FileExists(t, prefix+"_summary.json")
	require.FileExists(t, prefix+"_c1.json"+journal.Suffix)
	assert.NoFileExists(t, prefix+"_c2.json", "no later level ran")

	r := runCmd(t, []string{"-levels", "1,2", "-receipt-prefix", prefix, "-resume"}, env)
	require.NoError(t, r.err, r.stderr)
	for _, l := range []int{1, 2} {
		rec := readReceipt(t, fmt.Sprintf("%s_c%d.json", prefix, l))
		assert.Nil(t, rec.Stopped)
		assert.Len(t, rec.Cases, 7)
		assert.NoFileExists(t, fmt.Sprintf("%s_c%d.json%s", prefix, l, journal.Suffix))
	}
	sum := readSummary(t, prefix+"_summary.json")
	require.Len(t, sum.Levels, 2)
	assert.False(t, sum.Levels[0].Stopped, "the summary is replaced")
}

// TestSweepResumeRefusesChangedPin: a stopped sweep resumed with a changed
// pin is refused before any request, naming the pin; resumed as it was,
// it judges only what the stopped level's journal lacks.
func TestSweepResumeRefusesChangedPin(t *testing.T) {
	srv := judgmenttest.NewVLLM(nil)
	// Level 1 takes 28 scoring calls; the failure hits level 2.
	// The first call of level 2 (level 1 makes 28): at concurrency 2 the
	// first two calls are two cases' first questions, so the retried
	// judgment sends exactly one call more. (A later call could be a
	// case's fourth question, and the retry would send the case's four.)
	srv.Inject(judgmenttest.Fault{Path: "/v1/chat/completions", Nth: 28 + 1, Status: 503, Body: `{"error": "overloaded"}`})
	env := vllmEnv(t, srv)
	prefix := filepath.Join(t.TempDir(), "tp")
	args := []string{"-levels", "1,2", "-receipt-prefix", prefix}
	r := runCmd(t, args, env)
	require.Error(t, r.err)
	require.NotNil(t, readReceipt(t, prefix+"_c2.json").Stopped)
	r = runCmd(t, args, env)
	assert.Equal(t, 2, r.code, "a new sweep does not start over the journals")
	assert.Contains(t, r.stderr, "add -resume")

	calls := srv.Count("/v1/chat/completions")
	for pin, edit := range map[string][2]string{"generator_seed": {envSeed, "1"}, "model_revision": {envRevision, "rev-2"}} {
		e := map[string]string{}
		for k, v := range env {
			e[k] = v
		}
		e[edit[0]] = edit[1]
		r := runCmd(t, append(args, "-resume"), e)
		assert.Equal(t, 2, r.code, r.stderr)
		assert.Contains(t, r.stderr, "-resume refused: the journal is of another experiment: "+pin+" differs")
	}
	// The stopped level's own journal refuses too (no finished level checked first).
	e := map[string]string{envSeed: "1"}
	for k, v := range env {
		if k != envSeed {
			e[k] = v
		}
	}
	r = runCmd(t, []string{"-levels", "2", "-receipt-prefix", prefix, "-resume"}, e)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "-resume refused: the journal is of another experiment: generator_seed differs")
	assert.NotContains(t, r.stderr, "level journals")
	assert.Equal(t, calls, srv.Count("/v1/chat/completions"), "refused before any scoring call")

	// A process killed mid-write leaves a torn last line: ignored, reported.
	journaled := len(cmdtest.JournaledIDs(prefix + "_c2.json" + journal.Suffix))
	f, err := os.OpenFile(prefix+"_c2.json"+journal.Suffix, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"index": 6, "case_id": "r00:low_legi`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	r = runCmd(t, append(args, "-resume"), env)
	require.NoError(t, r.err, r.stderr)
	assert.Contains(t, r.stderr, "level 2: the journal's last line (37 bytes) was torn by the stopped process and is ignored")
	assert.Equal(t, calls+4*(7-journaled), srv.Count("/v1/chat/completions"), "only the cases level 2's journal lacks")
	rec := readReceipt(t, prefix+"_c2.json")
	assert.Nil(t, rec.Stopped)
	assert.Len(t, rec.Cases, 7)

	r = runCmd(t, append(args, "-resume"), env)
	assert.Equal(t, 2, r.code, "nothing left to resume")
}

// TestShardedSweepMerges: a sweep run as three shards, each level's shard
// records merged (examples/merge's checkmatch.MergeReceipt), gives every
// level the receipt of a single-process sweep: its cases (but latency),
// metrics, identity digest, pins (but finished_utc) and server_args.
func TestShardedSweepMerges(t *testing.T) {
	dir := t.TempDir()
	base := map[string]string{envBackend: "fake", envRows: "2", envPorcelain: ""}
	levels := "1,3"
	r := runCmd(t, []string{"-levels", levels, "-receipt-prefix", filepath.Join(dir, "all")}, base)
	require.NoError(t, r.err, r.stderr)
	for i := range 3 {
		r := runCmd(t, []string{"-levels", levels, "-receipt-prefix", filepath.Join(dir, fmt.Sprintf("s%d", i)), "-shard", fmt.Sprintf("%d/3", i)}, base)
		require.NoError(t, r.err, r.stderr)
		assert.Contains(t, r.stdout, fmt.Sprintf("shard %d/3 level 3 record ", i))
		assert.NoFileExists(t, filepath.Join(dir, fmt.Sprintf("s%d_summary.json", i)), "a shard writes no summary")
	}
	for _, l := range []int{1, 3} {
		var shards []checkmatch.ShardFile
		for i := range 3 {
			sf, err := checkmatch.ReadShard(filepath.Join(dir, fmt.Sprintf("s%d_c%d.json", i, l)))
			require.NoError(t, err)
			shards = append(shards, sf)
		}
		got, err := checkmatch.MergeReceipt(shards)
		require.NoError(t, err)
		want := readReceipt(t, filepath.Join(dir, fmt.Sprintf("all_c%d.json", l)))
		assert.Len(t, got.Cases, 14)
		assert.Equal(t, withoutLatency(want.Cases), withoutLatency(got.Cases), "level %d", l)
		assert.Equal(t, metricsBut(want.Metrics), metricsBut(got.Metrics), "level %d", l)
		assert.Equal(t, want.Identity.IdentityDigest, got.Identity.IdentityDigest, "level %d", l)
		assert.Equal(t, want.ServerArgs, got.ServerArgs, "level %d", l)
		got.Pins.FinishedUTC = want.Pins.FinishedUTC
		assert.Equal(t, want.Pins, got.Pins, "level %d", l)
	}
	// Shards of two levels are two experiments (concurrency differs).
	a, err := checkmatch.ReadShard(filepath.Join(dir, "s0_c1.json"))
	require.NoError(t, err)
	b, err := checkmatch.ReadShard(filepath.Join(dir, "s1_c3.json"))
	require.NoError(t, err)
	_, err = checkmatch.MergeReceipt([]checkmatch.ShardFile{a, b})
	assert.ErrorContains(t, err, "concurrency differs")
}

// TestSweepPathTakenKeepsJournal: a level's receipt path taken during the
// sweep leaves every journal and says how to finish; following it
// finishes the sweep without a scoring call.
func TestSweepPathTakenKeepsJournal(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "tp")
	var calls atomic.Int64
	srv := judgmenttest.NewVLLM(&judgmenttest.Model{Delay: func(string) time.Duration {
		if calls.Add(1) == 29 { // level 2's first call
			os.WriteFile(prefix+"_c2.json", []byte("someone else's file"), 0o644)
		}
		return 0
	}})
	env := vllmEnv(t, srv)
	r := runCmd(t, []string{"-levels", "1,2", "-receipt-prefix", prefix}, env)
	require.Error(t, r.err)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.err.Error(), "the journal "+prefix+"_c2.json"+journal.Suffix+" keeps every finished case: move every file "+prefix+"_c<level>.json")
	require.Len(t, cmdtest.JournaledIDs(prefix+"_c2.json"+journal.Suffix), 7)

	fresh := filepath.Join(dir, "fresh")
	for _, name := range []string{"_c1.json", "_c1.json" + journal.Suffix, "_c2.json" + journal.Suffix} {
		require.NoError(t, os.Rename(prefix+name, fresh+name))
	}
	scoring := srv.Count("/v1/chat/completions")
	r = runCmd(t, []string{"-levels", "1,2", "-receipt-prefix", fresh, "-resume"}, env)
	require.NoError(t, r.err, r.stderr)
	assert.Equal(t, scoring, srv.Count("/v1/chat/completions"), "every case came from the journals")
	assert.Len(t, readReceipt(t, fresh+"_c2.json").Cases, 7)
	assert.FileExists(t, fresh+"_summary.json")
	assert.NoFileExists(t, fresh+"_c2.json"+journal.Suffix)
}

// TestSweepInterruptedBeforeFirstCase: a sweep stopped before its first
// case writes nothing: no receipt, no summary, no journal.
func TestSweepInterruptedBeforeFirstCase(t *testing.T) {
	srv := judgmenttest.NewVLLM(nil)
	env := vllmEnv(t, srv)
	dir := t.TempDir()
	prefix := filepath.Join(dir, "tp")
	e, _, ok, err := cli.Parse(help, []string{"-levels", "1,2", "-receipt-prefix", prefix}, io.Discard,
		func(k string) (string, bool) { v, ok := env[k]; return v, ok }, nil, false)
	require.NoError(t, err)
	require.True(t, ok)
	cfg, err := configure(e, e.Flag("levels"), e.Flag("receipt-prefix"))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	err = execute(ctx, &stdout, &stderr, cfg)
	assert.ErrorIs(t, err, cli.ErrInterrupted)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing written")
	assert.Zero(t, srv.Count("/v1/chat/completions"))
}

// TestSweepInterruptDuringRendering: a stop signal while the slice renders
// is honoured at once, and nothing is written.
func TestSweepInterruptDuringRendering(t *testing.T) {
	saved := buildSlice
	release := make(chan struct{})
	buildSlice = func(seed uint64, rows int, rendered func()) (checkmatch.Slice, error) {
		<-release
		return saved(seed, rows, rendered)
	}
	t.Cleanup(func() { close(release); buildSlice = saved })
	dir := t.TempDir()
	e, _, _, err := cli.Parse(help, []string{"-levels", "1,2", "-receipt-prefix", filepath.Join(dir, "tp"), "-backend", "fake", "-rows", "1"},
		io.Discard, func(string) (string, bool) { return "", false }, nil, false)
	require.NoError(t, err)
	cfg, err := configure(e, e.Flag("levels"), e.Flag("receipt-prefix"))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	var stdout, stderr bytes.Buffer
	err = execute(ctx, &stdout, &stderr, cfg)
	assert.ErrorIs(t, err, cli.ErrInterrupted)
	assert.Less(t, time.Since(start), 600*time.Millisecond)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing written")
}

// TestSweepRetries: -retries rides over a 503 that would stop the sweep.
func TestSweepRetries(t *testing.T) {
	srv := judgmenttest.NewVLLM(nil)
	// The first call of level 2 (level 1 makes 28): at concurrency 2 the
	// first two calls are two cases' first questions, so the retried
	// judgment sends exactly one call more. (A later call could be a
	// case's fourth question, and the retry would send the case's four.)
	srv.Inject(judgmenttest.Fault{Path: "/v1/chat/completions", Nth: 28 + 1, Status: 503, Body: `{"error": "overloaded"}`})
	env := vllmEnv(t, srv)
	prefix := filepath.Join(t.TempDir(), "tp")
	r := runCmd(t, []string{"-levels", "1,2", "-receipt-prefix", prefix, "-retries", "1"}, env)
	require.NoError(t, r.err, r.stderr)
	assert.Nil(t, readReceipt(t, prefix+"_c2.json").Stopped)
	assert.Equal(t, 2*28+1, srv.Count("/v1/chat/completions"), "one retry")

	r = runCmd(t, []string{"-levels", "1", "-receipt-prefix", filepath.Join(t.TempDir(), "x"), "-retries", "-1"}, env)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "-retries must be a whole number")
}
