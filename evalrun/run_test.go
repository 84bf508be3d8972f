package evalrun

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/fake"
)

func testItems(n int) []Item {
	q := []judgment.NamedQuestion{{Name: "ok", Question: judgment.Noul{Instructions: "ok?"}}}
	var items []Item
	for i := range n {
		items = append(items, Item{ID: "item-" + string(rune('a'+i)), Request: judgment.Request{Model: "m", State: "s", Questions: q}})
	}
	return items
}

func testHeader(t *testing.T, model string) Header {
	p, err := NewPin("model", model)
	require.NoError(t, err)
	return Header{Kind: "test", Pins: []Pin{p}}
}

// failAt fails the judgment of the item whose state is "fail".
type failAt struct{ judgment.Port }

func (f failAt) Judge(ctx context.Context, req judgment.Request) (judgment.Response, error) {
	if req.State == "fail" {
		return judgment.Response{}, &judgment.BackendHTTPError{StatusCode: 500, Msg: "boom"}
	}
	return f.Port.Judge(ctx, req)
}

// TestRunResumeEqualsUninterrupted: a run stopped at a failure and
// resumed gives the outcomes an uninterrupted run gives, the journal's
// with their latencies, and a wall time summed over the parts.
func TestRunResumeEqualsUninterrupted(t *testing.T) {
	items := testItems(5)
	port := fake.New(nil)
	whole, err := Run(context.Background(), port, items, Options{Concurrency: 3})
	require.NoError(t, err)
	require.Nil(t, whole.Stopped)

	path := filepath.Join(t.TempDir(), "r.json"+JournalSuffix)
	j, err := CreateRunJournal(path, testHeader(t, "m"))
	require.NoError(t, err)
	broken := append([]Item(nil), items...)
	broken[3].Request.State = "fail"
	part1, err := Run(context.Background(), failAt{port}, broken, Options{Journal: j, Concurrency: 2})
	require.NoError(t, err)
	require.NoError(t, j.Close())
	require.NotNil(t, part1.Stopped)
	assert.Equal(t, "item-d", part1.Stopped.ID)
	assert.Len(t, part1.Outcomes, 3)

	j, err = ResumeRunJournal(path, testHeader(t, "m"), items, Advisory{})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, j.Finished(), 3)
	part2, err := Run(context.Background(), port, items, Options{Journal: j})
	require.NoError(t, err)
	require.NoError(t, j.Close())
	require.Nil(t, part2.Stopped)
	require.Len(t, part2.Outcomes, 5)
	for i, o := range part2.Outcomes {
		assert.Equal(t, whole.Outcomes[i].Response, o.Response, "item %d", i)
	}
	assert.Equal(t, part1.Outcomes[0].LatencySeconds, part2.Outcomes[0].LatencySeconds, "a journaled latency is kept")
	assert.Len(t, part2.PartSeconds, 2)
	assert.InDelta(t, part2.PartSeconds[0]+part2.PartSeconds[1], part2.WallSeconds, 1e-12)

	// Another model is another experiment; a changed line is refused.
	_, err = ResumeRunJournal(path, testHeader(t, "other"), items, Advisory{})
	var me *MismatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "model", me.Pin)
	_, err = ResumeRunJournal(path, testHeader(t, "m"), testItems(4), Advisory{})
	assert.Error(t, err, "the journal holds an item the run does not have")
}

// TestResumeRunJournalRefusesLines: a line with a valid chain that is not
// one Run wrote for these items is refused naming the journal and line.
func TestResumeRunJournalRefusesLines(t *testing.T) {
	items := testItems(2)
	resp, err := fake.New(nil).Judge(context.Background(), items[0].Request)
	require.NoError(t, err)
	good, err := json.Marshal(runLine{Index: 0, ID: "item-a", Part: 1, FinishedSeconds: 1, Latency: 1, Response: resp})
	require.NoError(t, err)
	for name, line := range map[string]string{
		"another item":  strings.Replace(string(good), `"item-a"`, `"item-z"`, 1),
		"a renamed key": strings.Replace(string(good), `"latency"`, `"latenc!"`, 1),
		"a huge time":   strings.Replace(string(good), `"latency":1`, `"latency":100000000000000000000`, 1),
		"part 0":        strings.Replace(string(good), `"part":1`, `"part":0`, 1),
	} {
		path := filepath.Join(t.TempDir(), "j"+JournalSuffix)
		w, err := CreateJournal(path, testHeader(t, "m"))
		require.NoError(t, err)
		require.NoError(t, w.Add(json.RawMessage(line)))
		require.NoError(t, w.Close())
		_, err = ResumeRunJournal(path, testHeader(t, "m"), items, Advisory{})
		var je *JournalError
		require.True(t, errors.As(err, &je), "%s: %v", name, err)
		assert.Equal(t, 2, je.Line, name)
		assert.Contains(t, err.Error(), path, name)
	}
}

// TestRunShard: the shards of a run judge every item exactly once.
func TestRunShard(t *testing.T) {
	items := testItems(8)
	seen := map[string]int{}
	for s := range 3 {
		res, err := Run(context.Background(), fake.New(nil), items, Options{Shard: Shard{Index: s, Count: 3}})
		require.NoError(t, err)
		for _, o := range res.Outcomes {
			seen[o.ID]++
			assert.Equal(t, s, ShardOf(o.ID, 3))
		}
	}
	assert.Len(t, seen, 8)
	for id, n := range seen {
		assert.Equal(t, 1, n, id)
	}
}

// TestOpenFilesLeavesForeignReceipt: a resume never replaces a receipt of
// another run, and a finished receipt of the run removes the leftover
// journal.
func TestOpenFilesLeavesForeignReceipt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	w, err := CreateJournal(JournalPath(path), testHeader(t, "m"))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	require.NoError(t, os.WriteFile(path, []byte(`{"model":"other"}`), 0o644))
	foreign := func([]byte, Header) (bool, error) { return false, errors.New("model differs") }
	_, err = OpenFiles(path, true, foreign)
	assert.ErrorContains(t, err, "is not a receipt of the run journaled at")
	assert.FileExists(t, path)
	mine := func([]byte, Header) (bool, error) { return false, nil }
	_, err = OpenFiles(path, true, mine)
	assert.ErrorIs(t, err, ErrComplete)
	assert.NoFileExists(t, JournalPath(path))
}
