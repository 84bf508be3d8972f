package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/evalrun"
	"github.com/typevet/typevet-go/examples/internal/cmdtest"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// The tests of issue 25: a run's identity is what decides its answers,
// not the git working tree; -resume takes every setting from its journal;
// a journal changed after it was written is refused before any request.

// TestShardsOneAfterAnotherInAFreshClone: examples/README's shard
// commands run one after another in a clean checkout and then merged.
// Shard 0 creates shards/, so the later shards see an untracked
// directory; that is a note, not a refusal ("merge: … renderer differs"
// before).
func TestShardsOneAfterAnotherInAFreshClone(t *testing.T) {
	t.Parallel() // waits on child processes
	bin := commandsDir(t)
	repo := gitRepo(t)
	line := "for i in 0 1 2; do checkmatch -backend fake -rows 1 -shard $i/3 -receipt shards/s$i.json || exit; done && " +
		"merge shards/s0.json shards/s1.json shards/s2.json -receipt merged.json"
	runRow(t, bin, cmdRow{name: "shards in order", dir: repo, line: line,
		want: []string{"merged 3 shards, 7 cases", "merge: note: shards/s1.json: working_tree differs", "renderer.module_version differs"},
		not:  []string{"refused", "renderer differs ("},
		check: func(t *testing.T, dir, _ string) {
			m := receiptJSON(t, filepath.Join(dir, "merged.json"))
			assert.Equal(t, false, dig(m, "identity", "working_tree", "dirty"), "the first shard's clean tree")
		}})
}

// startBuilt starts the built checkmatch in dir with env and args.
func startBuilt(t *testing.T, bin, dir string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "checkmatch"), args...)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	return cmd, &out
}

// TestKilledRunResumesFromItsJournalAlone: a run started with -seed 3
// -rows 2 -concurrency 4 -model … -base-url … in a git checkout, its
// receipt outside receipts/ (so its own journal dirties the tree), is
// killed with SIGKILL; a new directory appears; `checkmatch -receipt P
// -resume`, with no other flag and no TYPEVET_ variable, finishes it
// (a warning names the working tree) and its receipt equals an
// uninterrupted run's but for the run id, times and throughput.
func TestKilledRunResumesFromItsJournalAlone(t *testing.T) {
	t.Parallel() // waits on child processes
	bin := commandsDir(t)
	repo := gitRepo(t)
	slow := &judgmenttest.Model{NVocab: 64, Delay: func(string) time.Duration { return 30 * time.Millisecond }}
	srv := judgmenttest.NewLlamaCPP(slow)
	t.Cleanup(srv.Close)
	settings := []string{"-seed", "3", "-rows", "2", "-concurrency", "4", "-model", judgmenttest.DefaultModelID, "-base-url", srv.URL, "-timeout", "60"}
	path := filepath.Join("out", "check.json")
	jpath := filepath.Join(repo, path) + journal.Suffix

	child, out := startBuilt(t, bin, repo, userEnv(bin), append(settings, "-receipt", path)...)
	cmdtest.WaitJournaled(t, child, out, jpath, 5)
	require.NoError(t, child.Process.Signal(syscall.SIGKILL))
	_ = child.Wait()
	require.NoFileExists(t, filepath.Join(repo, path), "killed before the receipt")
	require.Less(t, len(cmdtest.JournaledIDs(jpath)), 14, "killed before the end")
	require.NoError(t, os.Mkdir(filepath.Join(repo, "newdir"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "newdir", "x"), nil, 0o644))

	// A flag given with another value is refused, naming it and both values.
	r := exec.Command(filepath.Join(bin, "checkmatch"), "-receipt", path, "-resume", "-concurrency", "2")
	r.Dir, r.Env = repo, userEnv(bin)
	b, err := r.CombinedOutput()
	require.Error(t, err)
	assert.Equal(t, 2, r.ProcessState.ExitCode())
	assert.Contains(t, string(b), `-resume: -concurrency "2" differs from the journaled run's "4" (journal `+path+journal.Suffix+")")

	resume := exec.Command(filepath.Join(bin, "checkmatch"), "-receipt", path, "-resume")
	resume.Dir, resume.Env = repo, userEnv(bin)
	b, err = resume.CombinedOutput()
	require.NoError(t, err, "%s", b)
	assert.Contains(t, string(b), "warning: working_tree differs")
	assert.Contains(t, string(b), "warning: renderer.module_version differs")
	assert.NoFileExists(t, jpath, "the journal is removed once the receipt is read back")
	leftovers, _ := filepath.Glob(filepath.Join(repo, "out", ".*tmp-*"))
	assert.Empty(t, leftovers, "no temporary file is left")

	// The uninterrupted run, in the same tree (out/ and newdir/ untracked,
	// as during the resume), against the same server.
	whole := filepath.Join("out", "whole.json")
	w := exec.Command(filepath.Join(bin, "checkmatch"), append(settings, "-receipt", whole)...)
	w.Dir, w.Env = repo, userEnv(bin)
	b, err = w.CombinedOutput()
	require.NoError(t, err, "%s", b)

	got := comparable(t, readBack(t, filepath.Join(repo, path)))
	want := comparable(t, readBack(t, filepath.Join(repo, whole)))
	assert.Equal(t, want, got)
	assert.Contains(t, got, `"concurrency":4`)
	assert.Contains(t, got, `"generator_seed":3`)
}

// comparable returns r as JSON without what differs between two runs of
// one experiment: the run id, times and throughput.
func comparable(t *testing.T, r checkmatch.Receipt) string {
	t.Helper()
	r.Identity.RunID, r.Pins.FinishedUTC, r.WallSeconds, r.Throughput = "", "", 0, nil
	r.Metrics.MeanLatencySeconds = nil
	for i := range r.Cases {
		r.Cases[i].LatencySeconds = 0
	}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	return string(b)
}

// readerShard runs the offline reader as shard 0/1 (which keeps its
// journal) into dir and returns the journal's bytes split into lines.
func readerShard(t *testing.T, dir, name string, seed string) [][]byte {
	t.Helper()
	path := filepath.Join(dir, name)
	r := runCmd(t, []string{"-backend", "reader", "-rows", "1", "-seed", seed, "-shard", "0/1", "-receipt", path}, map[string]string{envPorcelain: ""})
	require.NoError(t, r.err, r.stderr)
	b, err := os.ReadFile(path + journal.Suffix)
	require.NoError(t, err)
	return bytes.SplitAfter(b, []byte("\n"))
}

// TestResumeRefusesChangedJournal: each way a journal can change after it
// was written is refused before any request, naming the journal, the line
// and what to do; nothing is written.
func TestResumeRefusesChangedJournal(t *testing.T) {
	dir := t.TempDir()
	mine := readerShard(t, dir, "a.json", "0")
	other := readerShard(t, dir, "other.json", "1")
	c, err := journal.ReadFile(filepath.Join(dir, "a.json") + journal.Suffix)
	require.NoError(t, err)
	edit := func(i int, pattern, repl string) json.RawMessage {
		re := regexp.MustCompile(pattern)
		require.Regexp(t, re, string(c.Entries[i]))
		return json.RawMessage(re.ReplaceAllString(string(c.Entries[i]), repl))
	}
	flip := bytes.Clone(mine[2])
	flip[len(flip)/2] ^= 0x04
	for _, tt := range []struct {
		name  string
		lines [][]byte          // the journal's lines, written as they are
		add   []json.RawMessage // then entries added through the writer (a valid chain)
		want  string            // what the refusal says
	}{
		{name: "a single byte flipped", lines: [][]byte{mine[0], mine[1], flip}, want: "line 3: its chain digest does not match"},
		{name: "a line of another run", lines: [][]byte{mine[0], mine[1], other[2]}, want: "line 3: its chain digest does not match"},
		{name: "a key renamed", lines: [][]byte{mine[0]}, add: []json.RawMessage{edit(0, `"legibility_level"`, `"legibility_leve!"`)}, want: "line 2: not a case line"},
		{name: "a key miscased", lines: [][]byte{mine[0]}, add: []json.RawMessage{edit(0, `"latency"`, `"Latency"`)}, want: "line 2: not a case line"},
		{name: "a key missing", lines: [][]byte{mine[0]}, add: []json.RawMessage{edit(0, `,"input_tokens":null`, ``)}, want: "line 2: not a case line"},
		{name: "a confidence of 1.7", lines: [][]byte{mine[0]}, add: []json.RawMessage{edit(0, `"payee_confidence":[^,]+`, `"payee_confidence":1.7`)}, want: "line 2: payee_confidence 1.7 is not a probability"},
		{name: "a negative probability", lines: [][]byte{mine[0]}, add: []json.RawMessage{edit(0, `"cannot_tell":[^}]+`, `"cannot_tell":-0.5`)}, want: "line 2: verdict_probabilities holds -0.5, not a probability"},
		{name: "unnormalised probabilities", lines: [][]byte{mine[0]}, add: []json.RawMessage{edit(0, `"consistent":0\.[0-9]+`, `"consistent":0.5`)}, want: "line 2: verdict_probabilities sum to"},
		{name: "a verdict not the argmax", lines: [][]byte{mine[0]}, add: []json.RawMessage{edit(0, `"verdict":"consistent"`, `"verdict":"unsigned"`)}, want: `line 2: verdict "unsigned" is not the most probable label ("consistent")`},
		{name: "a label not of the set", lines: [][]byte{mine[0]}, add: []json.RawMessage{edit(0, `"unsigned"`, `"unsigne!"`)}, want: "line 2: verdict_probabilities labels"},
		{name: "a legibility level out of range", lines: [][]byte{mine[0]}, add: []json.RawMessage{edit(0, `"legibility_level":4`, `"legibility_level":9`)}, want: "line 2: legibility_level 9 is not the most probable level (4)"},
		{name: "a time of 1e20 seconds", lines: [][]byte{mine[0]}, add: []json.RawMessage{edit(0, `"finished_seconds":[^,]+`, `"finished_seconds":100000000000000000000`)}, want: "line 2: finished_seconds 1e+20 is not a time"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "b.json")
			require.NoError(t, os.WriteFile(path+journal.Suffix, bytes.Join(tt.lines, nil), 0o644))
			if len(tt.add) > 0 {
				cmdtest.AppendEntries(t, path+journal.Suffix, tt.add...)
			}
			r := runCmd(t, []string{"-receipt", path, "-resume"}, map[string]string{envPorcelain: ""})
			require.Error(t, r.err)
			msg := r.err.Error()
			assert.Contains(t, msg, "journal "+path+journal.Suffix+" ")
			assert.Contains(t, msg, tt.want)
			assert.Contains(t, msg, "start the run over", "says what to do")
			assert.NoFileExists(t, path)
		})
	}
}

// TestResumeRefusesIssueReproducer is issue 25's offline reproducer on a
// version 1 journal (no chain, as written before): the shard pin dropped
// and three keys or labels changed by one byte. Strict decoding refuses
// it; before, the resume exited 0 with another receipt.
func TestResumeRefusesIssueReproducer(t *testing.T) {
	dir := t.TempDir()
	mine := readerShard(t, dir, "a.json", "0")
	c, err := journal.ReadFile(filepath.Join(dir, "a.json") + journal.Suffix)
	require.NoError(t, err)
	h := c.Header
	h.Version = 1
	h.Pins = h.Pins[:len(h.Pins)-1] // the shard pin
	hb, err := json.Marshal(h)
	require.NoError(t, err)
	require.Contains(t, string(mine[0]), `{"name":"shard","value":"0/1"}`)
	lines := []string{string(hb),
		strings.Replace(string(c.Entries[0]), `"legibility_level"`, `"legibility_leve!"`, 1),
		strings.Replace(string(c.Entries[1]), `"verdict_probabilities"`, `"verdict_probabilitie!"`, 1),
		strings.Replace(string(c.Entries[2]), `"unsigned"`, `"unsigne!"`, 1)}
	for n := 1; n <= 3; n++ {
		path := filepath.Join(t.TempDir(), "b.json")
		text := strings.Join(append(append([]string{}, lines[0]), lines[n]), "\n") + "\n"
		require.NoError(t, os.WriteFile(path+journal.Suffix, []byte(text), 0o644))
		r := runCmd(t, []string{"-backend", "reader", "-rows", "1", "-receipt", path, "-resume"}, map[string]string{envPorcelain: ""})
		require.Error(t, r.err, "line %d", n+1)
		assert.Contains(t, r.err.Error(), "journal "+path+journal.Suffix+" line 2: ")
		assert.NoFileExists(t, path)
	}
	// The version 1 journal unchanged resumes (today's journals stay readable).
	path := filepath.Join(t.TempDir(), "v1.json")
	text := string(hb) + "\n" + string(c.Entries[0]) + "\n"
	require.NoError(t, os.WriteFile(path+journal.Suffix, []byte(text), 0o644))
	r := runCmd(t, []string{"-backend", "reader", "-rows", "1", "-receipt", path, "-resume"}, map[string]string{envPorcelain: ""})
	require.NoError(t, r.err, r.stderr)
	assert.Len(t, readBack(t, path).Cases, 7)
}

// TestResumeLeavesForeignStoppedReceipt: a stopped receipt of another run
// at the path (the "move the journal beside NEW" hint can reach one) is
// not replaced: -resume is refused naming the pin that differs.
func TestResumeLeavesForeignStoppedReceipt(t *testing.T) {
	dir := t.TempDir()
	stopped := func(seed, name string) string {
		srv := judgmenttest.NewVLLM(nil)
		srv.Inject(judgmenttest.Fault{Path: "/v1/chat/completions", Nth: 2*4 + 1, Status: 503, Body: `{"error": "overloaded"}`})
		env := vllmEnv(t, srv)
		path := filepath.Join(dir, name)
		env[envReceipt], env[envRows], env[envSeed], env[envPorcelain] = path, "1", seed, ""
		r := runCmd(t, nil, env)
		require.Error(t, r.err)
		require.NotNil(t, readBack(t, path).Stopped)
		return path
	}
	mine := stopped("0", "mine.json")
	foreign := stopped("1", "foreign.json")
	// The foreign receipt sits where the journal now is.
	require.NoError(t, os.Rename(mine+journal.Suffix, foreign+journal.Suffix+".tmp"))
	require.NoError(t, os.Remove(foreign+journal.Suffix))
	require.NoError(t, os.Rename(foreign+journal.Suffix+".tmp", foreign+journal.Suffix))
	before, err := os.ReadFile(foreign)
	require.NoError(t, err)
	r := runCmd(t, []string{"-receipt", foreign, "-resume"}, map[string]string{envPorcelain: ""})
	require.Error(t, r.err)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.err.Error(), foreign+" is not the receipt of the run journaled at "+foreign+journal.Suffix+": the receipt is of another run: generator_seed differs (journal 0, receipt 1)")
	assert.Contains(t, r.err.Error(), "-receipt=NEW and -resume", "the hint names the flag the user gave")
	after, err := os.ReadFile(foreign)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the foreign receipt is left as it is")
}

// TestRetriedRunKeepsItsAttempts: a complete run that retried writes its
// attempts and retry policy beside the receipt (PATH.attempts.json, its
// own schema): the journal, removed once the receipt is written, no
// longer takes the only record of them with it.
func TestRetriedRunKeepsItsAttempts(t *testing.T) {
	srv := judgmenttest.NewVLLM(nil)
	srv.Inject(judgmenttest.Fault{Path: "/v1/chat/completions", Nth: 3*4 + 1, Status: 503, Body: `{"error": "overloaded"}`})
	env := vllmEnv(t, srv)
	path := filepath.Join(t.TempDir(), "retried.json")
	env[envReceipt], env[envRows] = path, "1"
	r := runCmd(t, []string{"-retries", "2", "-retry-budget", "60"}, env)
	require.NoError(t, r.err, r.stderr)
	assert.NoFileExists(t, path+journal.Suffix)
	b, err := os.ReadFile(path + evalrun.AttemptsSuffix)
	require.NoError(t, err)
	var a evalrun.Attempts
	require.NoError(t, json.Unmarshal(b, &a))
	assert.Equal(t, evalrun.AttemptsSchema, a.Schema)
	assert.Equal(t, evalrun.AttemptsPolicy{Retries: 2, BudgetSeconds: 60}, a.Retry)
	assert.Equal(t, 7, a.Cases)
	assert.Equal(t, 8, a.Calls)
	assert.Equal(t, []evalrun.CaseAttempts{{CaseID: "r00:both_amounts_changed", Attempts: 2}}, a.Retried)
}
