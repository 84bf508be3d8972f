package checkmatch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch/internal/lines"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

// journalContext is a fixed run context for journal headers.
func journalContext(model string) RunContext {
	return RunContext{
		Backend: serving.LlamaCPP, Model: model, ServedTemplate: "native_gemma4_turn",
		Snapshot: Snapshot{BaselineCommit: "unknown", WorkingTree: receipt.WorkingTree{Dirty: true},
			PromptDigests: receipt.PromptDigests(Questions()), CodePathDigests: receipt.Digests{{Name: "checkmatch/runner.go", Value: "ab"}}},
	}
}

// numberedReplay answers every numbered request by its case index, so a
// resumed run gets the same answer for a case as an uninterrupted one.
func numberedReplay(fail func(i, call int) error) *replayPort {
	var mu sync.Mutex
	seen := map[int]int{}
	return &replayPort{reply: func(_ int, req judgment.Request) (judgment.Response, error) {
		i := caseIndex(req)
		mu.Lock()
		seen[i]++
		call := seen[i]
		mu.Unlock()
		if fail != nil {
			if err := fail(i, call); err != nil {
				return judgment.Response{}, err
			}
		}
		a := runRight[i%len(runRight)]
		a.payee = 0.1 + float64(i)/97 // distinct, full-precision values per case
		return a.response(req.Model), nil
	}}
}

func countCalls(p *replayPort) map[int]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[int]int{}
	for _, r := range p.reqs {
		out[caseIndex(r)]++
	}
	return out
}

// TestRunResumeEqualsUninterrupted: a run stopped at case 5 (a backend
// failure), resumed from its journal, gives the outcomes of a run that
// never stopped, and no finished case is judged twice.
func TestRunResumeEqualsUninterrupted(t *testing.T) {
	reqs := numberedRequests(t, 12)
	slice := Slice{Seed: 0, Rows: 2, Requests: reqs}
	whole, err := Run(context.Background(), numberedReplay(nil), "m", reqs, RunOptions{})
	require.NoError(t, err)

	for _, conc := range []int{1, 3} {
		t.Run(fmt.Sprint("concurrency ", conc), func(t *testing.T) {
			h, err := journalHeader(journalContext("m"), slice, conc)
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), "r.json"+journal.Suffix)
			j, err := CreateJournal(path, h)
			require.NoError(t, err)
			first := numberedReplay(func(i, _ int) error {
				if i == 5 {
					return &judgment.BackendHTTPError{StatusCode: 500, Msg: "vLLM HTTP 500: boom"}
				}
				return nil
			})
			part1, err := Run(context.Background(), first, "m", reqs, RunOptions{Journal: j, Concurrency: conc})
			require.NoError(t, err)
			require.NoError(t, j.Close())
			require.NotNil(t, part1.Stopped)
			assert.Equal(t, 5, part1.Stopped.Index)
			assert.Len(t, part1.Outcomes, 5)

			j, err = ResumeJournal(path, h, reqs)
			require.NoError(t, err)
			assert.Equal(t, 2, j.Part())
			journaled := j.Finished()
			assert.GreaterOrEqual(t, journaled, 5, "every finished case is journaled, also those after the failure")
			second := numberedReplay(nil)
			part2, err := Run(context.Background(), second, "m", reqs, RunOptions{Journal: j, Concurrency: conc})
			require.NoError(t, err)
			require.NoError(t, j.Close())
			assert.Nil(t, part2.Stopped)
			assert.Equal(t, journaled, part2.Resumed)
			require.Len(t, part2.Outcomes, len(reqs))
			for i := range reqs {
				want, got := whole.Outcomes[i], part2.Outcomes[i]
				want.Latency, got.Latency = 0, 0
				assert.Equal(t, want, got, "case %d", i)
			}
			calls1, calls2 := countCalls(first), countCalls(second)
			for i := range reqs {
				if calls1[i] > 0 && i != 5 {
					assert.Zero(t, calls2[i], "case %d finished in part 1 and was judged again", i)
				}
				if calls1[i]+calls2[i] == 0 {
					t.Errorf("case %d never judged", i)
				}
			}
		})
	}
}

func TestResumeJournalRefusesAnotherExperiment(t *testing.T) {
	reqs := numberedRequests(t, 7)
	slice := Slice{Seed: 0, Rows: 1, Requests: reqs, SHA256: "s"}
	h, err := journalHeader(journalContext("m"), slice, 1)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "j")
	j, err := CreateJournal(path, h)
	require.NoError(t, err)
	j.Close()

	seed := slice
	seed.Seed = 1
	prompt := journalContext("m")
	prompt.Snapshot.PromptDigests = receipt.Digests{{Name: QuestionVerdict, Value: "changed"}}
	tests := []struct {
		name, pin string
		c         RunContext
		s         Slice
		conc      int
	}{
		{"seed", "generator_seed", journalContext("m"), seed, 1},
		{"model", "model", journalContext("other"), slice, 1},
		{"prompt digest", "prompt_digests.payee_matches", prompt, slice, 1},
		{"concurrency", "concurrency", journalContext("m"), slice, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now, err := journalHeader(tt.c, tt.s, tt.conc)
			require.NoError(t, err)
			_, err = ResumeJournal(path, now, reqs)
			var me *journal.MismatchError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, tt.pin, me.Pin)
		})
	}
}

func TestResumeJournalRefusesForeignCase(t *testing.T) {
	reqs := numberedRequests(t, 7)
	h, err := journalHeader(journalContext("m"), Slice{Requests: reqs}, 1)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "j")
	j, err := CreateJournal(path, h)
	require.NoError(t, err)
	o, err := newOutcome(reqs[1], runRight[1].response("m"), 1)
	require.NoError(t, err)
	require.NoError(t, j.Record(newJournalCase(2, o, 1, 1, 1))) // case 1's answer filed as case 2
	j.Close()
	_, err = ResumeJournal(path, h, reqs)
	var ce *lines.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 1, ce.Line)
}

// TestResumeWallIsSumOfParts: each part counts to its last finished case.
func TestResumeWallIsSumOfParts(t *testing.T) {
	reqs := numberedRequests(t, 4)
	h, err := journalHeader(journalContext("m"), Slice{Requests: reqs}, 1)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "j")
	j, err := CreateJournal(path, h)
	require.NoError(t, err)
	for i, fin := range []float64{3, 7} {
		o, err := newOutcome(reqs[i], runRight[i].response("m"), 2)
		require.NoError(t, err)
		require.NoError(t, j.Record(newJournalCase(i, o, 1, 1, fin)))
	}
	j.Close()
	j, err = ResumeJournal(path, h, reqs)
	require.NoError(t, err)
	assert.Equal(t, 7.0, j.PriorWallSeconds())
	run, err := Run(context.Background(), numberedReplay(nil), "m", reqs, RunOptions{Journal: j, Clock: scriptClock(0, 0, 1, 1, 2, 5)})
	require.NoError(t, err)
	assert.Equal(t, 7.0+5, run.WallSeconds)
	assert.Equal(t, 2, run.Resumed)
	assert.Equal(t, 2, run.Calls)
	assert.Equal(t, []float64{2, 2, 1, 1}, []float64{run.Outcomes[0].Latency, run.Outcomes[1].Latency, run.Outcomes[2].Latency, run.Outcomes[3].Latency})
}

func TestRetry(t *testing.T) {
	unavailable := &judgment.BackendHTTPError{StatusCode: 503, Msg: "vLLM HTTP 503"}
	badRequest := &judgment.BackendHTTPError{StatusCode: 400, Msg: "vLLM HTTP 400"}
	reset := &judgment.TransportError{Msg: "connection reset"}
	fast := RetryPolicy{Retries: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}
	tests := []struct {
		name      string
		policy    RetryPolicy
		fail      func(i, call int) error
		wantStop  string // error class, "" for none
		wantCalls int
	}{
		{"default never retries", RetryPolicy{}, func(i, c int) error { return ifFirst(i, c, unavailable) }, "BackendHttpError", 1},
		{"503 retried", fast, func(i, c int) error { return ifFirst(i, c, unavailable) }, "", 2},
		{"reset retried", fast, func(i, c int) error { return ifFirst(i, c, reset) }, "", 2},
		{"400 never", fast, func(i, c int) error { return ifFirst(i, c, badRequest) }, "BackendHttpError", 1},
		{"gives up after Retries", fast, func(i, _ int) error {
			if i == 0 {
				return unavailable
			}
			return nil
		}, "BackendHttpError", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs := numberedRequests(t, 2)
			port := numberedReplay(tt.fail)
			run, err := Run(context.Background(), port, "m", reqs, RunOptions{Retry: tt.policy})
			require.NoError(t, err)
			if tt.wantStop == "" {
				assert.Nil(t, run.Stopped)
			} else {
				require.NotNil(t, run.Stopped)
				assert.Equal(t, tt.wantStop, run.Stopped.ErrorClass)
				assert.Equal(t, 0, run.Stopped.Index)
			}
			assert.Equal(t, tt.wantCalls, countCalls(port)[0])
		})
	}
}

func ifFirst(i, call int, err error) error {
	if i == 0 && call == 1 {
		return err
	}
	return nil
}

func TestRetryAttemptsJournaled(t *testing.T) {
	reqs := numberedRequests(t, 2)
	h, err := journalHeader(journalContext("m"), Slice{Requests: reqs}, 1)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "j")
	j, err := CreateJournal(path, h)
	require.NoError(t, err)
	port := numberedReplay(func(i, c int) error { return ifFirst(i, c, &judgment.TransportError{Msg: "reset"}) })
	_, err = Run(context.Background(), port, "m", reqs, RunOptions{Journal: j, Retry: RetryPolicy{Retries: 1, BaseDelay: time.Millisecond}})
	require.NoError(t, err)
	j.Close()
	c, err := journal.ReadFile(path)
	require.NoError(t, err)
	require.Len(t, c.Entries, 2)
	assert.Contains(t, string(c.Entries[0]), `"attempts":2`)
	assert.Contains(t, string(c.Entries[1]), `"attempts":1`)
}

// TestRunCancelledMidCall: a Ctrl-C that lands mid-call is recorded as
// Canceled, not as the TransportError the port wraps it in.
func TestRunCancelledMidCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port := &replayPort{reply: func(i int, req judgment.Request) (judgment.Response, error) {
		if i == 1 {
			cancel()
			return judgment.Response{}, &judgment.TransportError{Msg: "llama.cpp request failed: context canceled", Err: context.Canceled}
		}
		return runRight[i].response(req.Model), nil
	}}
	run, err := Run(ctx, port, "m", fixtureRequests(t), RunOptions{Retry: RetryPolicy{Retries: 3}})
	require.NoError(t, err)
	require.NotNil(t, run.Stopped)
	assert.Equal(t, "Canceled", run.Stopped.ErrorClass)
	assert.Equal(t, 1, run.Stopped.Index)
	assert.Equal(t, 2, run.Calls, "a cancelled call is not retried")
}

// TestJournalKeepsCasesAfterTheFailure: at concurrency 4 a failure at case
// 1 drops the later finished cases from the receipt, not from the journal.
func TestJournalKeepsCasesAfterTheFailure(t *testing.T) {
	reqs := numberedRequests(t, 4)
	h, err := journalHeader(journalContext("m"), Slice{Requests: reqs}, 4)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "j")
	j, err := CreateJournal(path, h)
	require.NoError(t, err)
	failed := make(chan struct{})
	port := &replayPort{reply: func(_ int, req judgment.Request) (judgment.Response, error) {
		if caseIndex(req) == 1 {
			defer close(failed)
			return judgment.Response{}, &judgment.TransportError{Msg: "stalled"}
		}
		<-failed
		return runRight[0].response(req.Model), nil
	}}
	run, err := Run(context.Background(), port, "m", reqs, RunOptions{Journal: j, Concurrency: 4})
	require.NoError(t, err)
	j.Close()
	assert.Len(t, run.Outcomes, 1)
	assert.Equal(t, 2, run.Discarded)
	c, err := journal.ReadFile(path)
	require.NoError(t, err)
	assert.Len(t, c.Entries, 3)
	_, err = os.Stat(path)
	require.NoError(t, err)
}
