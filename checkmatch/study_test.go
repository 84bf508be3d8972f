package checkmatch

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch/internal/lines"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/judgment"
)

// TestSnapshotStudy: a study's snapshot keeps the baseline and tree, digests
// only its own questions and code names, shares a check-match run's
// digest for a name both record, and refuses a name this build does not
// digest.
func TestSnapshotStudy(t *testing.T) {
	snap, err := TakeSnapshot(t.TempDir(), ptrTo(""))
	require.NoError(t, err)
	var verdict []judgment.NamedQuestion
	for _, q := range Questions() {
		if q.Name == QuestionVerdict {
			verdict = append(verdict, q)
		}
	}
	require.Len(t, verdict, 1)
	st, err := snap.Study(verdict, "words", "cases", "orderings")
	require.NoError(t, err)
	assert.Equal(t, snap.BaselineCommit, st.BaselineCommit)
	assert.Equal(t, snap.WorkingTree, st.WorkingTree)
	var names []string
	for _, d := range st.CodePathDigests {
		names = append(names, d.Name)
		assert.Len(t, d.Value, 64)
	}
	assert.Equal(t, []string{"cases", "orderings", "words"}, names, "sorted by name")
	for _, name := range []string{"cases", "words"} {
		want, _ := snap.CodePathDigests.Get(name)
		got, _ := st.CodePathDigests.Get(name)
		assert.Equal(t, want, got, name)
	}
	assert.Len(t, st.PromptDigests, 1)
	assert.Len(t, snap.CodePathDigests, 8, "s itself is unchanged")

	_, err = snap.Study(verdict, "cases", "sheet")
	assert.ErrorContains(t, err, `code digest "sheet": not a name this build digests`)
	_, err = snap.Study(verdict, "cases", "cases")
	assert.ErrorContains(t, err, "listed twice")
}

// TestStudyJournal: a study's journal keeps its lines as written for the
// study (Journal.Line), counts them as finished, names its kind, and is
// refused by Run; a line that is not of the slice is refused on resume.
func TestStudyJournal(t *testing.T) {
	reqs := numberedRequests(t, 3)
	h := journal.Header{Kind: "study"}
	path := filepath.Join(t.TempDir(), "s"+journal.Suffix)
	j, err := CreateJournal(path, h)
	require.NoError(t, err)
	assert.Equal(t, "study", j.Kind())
	line := func(i, part int) map[string]any {
		return map[string]any{"index": i, "case_id": reqs[i].CaseID(), "part": part, "finished_seconds": 1.5,
			"render_sha256": reqs[i].ImageDigest(), "answer": fmt.Sprint("a", i)}
	}
	require.NoError(t, j.Record(line(2, j.Part())))
	require.NoError(t, j.Record(line(0, j.Part())))
	// A line of another part, or without a case, is refused unwritten.
	assert.ErrorContains(t, j.Record(line(1, j.Part()+1)), "part 2 is not the journal's part 1")
	noCase := line(1, j.Part())
	delete(noCase, "case_id")
	assert.ErrorContains(t, j.Record(noCase), "must name a case of the slice")
	assert.Equal(t, 2, j.Added())
	require.NoError(t, j.Close())

	j, err = ResumeJournal(path, h, reqs)
	require.NoError(t, err)
	defer j.Close()
	assert.Equal(t, 2, j.Finished())
	assert.Equal(t, 2, j.Part())
	assert.InDelta(t, 1.5, j.PriorWallSeconds(), 0)
	raw, ok := j.Line(2)
	require.True(t, ok)
	raw[0] = 'X' // the caller's copy
	raw, _ = j.Line(2)
	var back map[string]any
	require.NoError(t, json.Unmarshal(raw, &back))
	assert.Equal(t, "a2", back["answer"])
	_, ok = j.Line(1)
	assert.False(t, ok)
	_, err = Run(context.Background(), judgment.Port(nil), "m", reqs, RunOptions{Journal: j})
	assert.ErrorContains(t, err, "the journal is of a study run, not of a check_match run")

	var nilJournal *Journal
	_, ok = nilJournal.Line(0)
	assert.False(t, ok)
	assert.Equal(t, "", nilJournal.Kind())

	bad := filepath.Join(t.TempDir(), "b"+journal.Suffix)
	j2, err := CreateJournal(bad, h)
	require.NoError(t, err)
	wrong := line(1, 1)
	wrong["render_sha256"] = "00"
	require.NoError(t, j2.Record(wrong))
	require.NoError(t, j2.Close())
	_, err = ResumeJournal(bad, h, reqs)
	var le *lines.Error
	require.ErrorAs(t, err, &le)
	assert.Equal(t, 1, le.Line)
	assert.ErrorContains(t, err, "render digest is not the slice's")
}

// TestRetryPolicyJudge: Judge retries a 503 up to Retries times and never a
// 400, counting attempts; a nil clock counts from the call.
func TestRetryPolicyJudge(t *testing.T) {
	for _, tt := range []struct {
		name      string
		retries   int
		fails     []error
		wantCalls int
		wantErr   bool
	}{
		{"first try", 0, nil, 1, false},
		{"503 retried", 1, []error{&judgment.BackendHTTPError{StatusCode: 503, Msg: "HTTP 503"}}, 2, false},
		{"503 without retries", 0, []error{&judgment.BackendHTTPError{StatusCode: 503, Msg: "HTTP 503"}}, 1, true},
		{"400 never retried", 3, []error{&judgment.BackendHTTPError{StatusCode: 400, Msg: "HTTP 400"}}, 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			port := judgment.PortFunc(func(ctx context.Context, req judgment.Request) (judgment.Response, error) {
				calls++
				if calls <= len(tt.fails) {
					return judgment.Response{}, tt.fails[calls-1]
				}
				return judgment.Response{}, nil
			})
			p := RetryPolicy{Retries: tt.retries, BaseDelay: time.Millisecond}
			require.NoError(t, p.Check())
			_, attempts, latency, end, err := p.Judge(context.Background(), port, judgment.Request{}, nil)
			assert.Equal(t, tt.wantCalls, calls)
			assert.Equal(t, tt.wantCalls, attempts)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.GreaterOrEqual(t, end, latency)
			assert.GreaterOrEqual(t, latency, 0.0)
		})
	}
	assert.Error(t, RetryPolicy{BaseDelay: -1}.Check())
}
