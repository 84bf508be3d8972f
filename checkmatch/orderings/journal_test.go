package orderings

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/internal/lines"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

// studyJournal returns the header of a study of sl's first n cases.
func studyJournal(t testing.TB, sl checkmatch.Slice, orders [][]int, sha string, s checkmatch.Shard) journal.Header {
	t.Helper()
	c := checkmatch.RunContext{Backend: serving.LlamaCPP, Model: "m", ServedTemplate: "native_gemma4_turn",
		Snapshot: checkmatch.Snapshot{BaselineCommit: "unknown", WorkingTree: receipt.WorkingTree{Dirty: true},
			PromptDigests: promptDigests(), CodePathDigests: receipt.Digests{{Name: "orderings", Value: "ab"}}}}
	h, err := JournalHeader(c, sl, orders, SingleOrderFile{Path: "/x/check_match_seed1.json", SHA256: sha}, s)
	require.NoError(t, err)
	return h
}

// TestOrderingsResumeEqualsUninterrupted: a study stopped at case 1
// ordering 2, resumed from its journal, gives the cases and request count
// of a study that never stopped, and the journaled case is not scored
// again; a retry rides over a 503.
func TestOrderingsResumeEqualsUninterrupted(t *testing.T) {
	sl := studySlice(t, 1)
	sl.Requests = sl.Requests[:3]
	orders, err := BalancedOrders(6)
	require.NoError(t, err)
	byPos := []float64{0.45, 0.15, 0.1, 0.1, 0.1, 0.1}
	whole, err := Run(context.Background(), &positionPort{byPos: byPos}, "m", sl.Requests, orders, singleFor(sl.Requests), checkmatch.RunOptions{})
	require.NoError(t, err)

	h := studyJournal(t, sl, orders, "aa", checkmatch.Shard{})
	assert.Equal(t, JournalKind, h.Kind)
	path := filepath.Join(t.TempDir(), "o.json"+journal.Suffix)
	j, err := checkmatch.CreateJournal(path, h)
	require.NoError(t, err)
	first := &positionPort{byPos: byPos, fail: map[int]error{8: &judgment.BackendHTTPError{StatusCode: 500, Msg: "HTTP 500: boom"}}}
	part1, err := Run(context.Background(), first, "m", sl.Requests, orders, singleFor(sl.Requests), checkmatch.RunOptions{Journal: j})
	require.NoError(t, err)
	require.NoError(t, j.Close())
	require.NotNil(t, part1.Stopped)
	assert.Equal(t, 1, part1.Stopped.Index)
	assert.Len(t, part1.Cases, 1)

	c, err := journal.ReadFile(path)
	require.NoError(t, err)
	require.Len(t, c.Entries, 1)
	var line map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(c.Entries[0], &line))
	var keys []string
	for k := range line {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"index", "case_id", "attempts", "part", "finished_seconds", "render_sha256", "single_order", "orderings"}, keys)
	assert.JSONEq(t, "6", string(line["attempts"]))

	// Another single-order receipt, or a check-match run, is another experiment.
	_, err = checkmatch.ResumeJournal(path, studyJournal(t, sl, orders, "bb", checkmatch.Shard{}), sl.Requests)
	var me *journal.MismatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "single_order_receipt_sha256", me.Pin)
	cc := checkmatch.RunContext{Backend: serving.LlamaCPP, Model: "m", ServedTemplate: "native_gemma4_turn",
		Snapshot: checkmatch.Snapshot{BaselineCommit: "unknown", WorkingTree: receipt.WorkingTree{Dirty: true},
			PromptDigests: receipt.PromptDigests(checkmatch.Questions()), CodePathDigests: receipt.Digests{{Name: "checkmatch/runner.go", Value: "ab"}}}}
	ch, err := checkmatch.ShardJournalHeader(cc, sl, 1, checkmatch.Shard{})
	require.NoError(t, err)
	_, err = checkmatch.ResumeJournal(path, ch, sl.Requests)
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "kind", me.Pin)

	j, err = checkmatch.ResumeJournal(path, h, sl.Requests)
	require.NoError(t, err)
	assert.Equal(t, 1, j.Finished())
	_, err = checkmatch.Run(context.Background(), first, "m", sl.Requests, checkmatch.RunOptions{Journal: j})
	assert.ErrorContains(t, err, "the journal is of a orderings run, not of a check_match run")
	second := &positionPort{byPos: byPos, fail: map[int]error{0: &judgment.BackendHTTPError{StatusCode: 503, Msg: "HTTP 503: busy"}}}
	part2, err := Run(context.Background(), second, "m", sl.Requests, orders, singleFor(sl.Requests),
		checkmatch.RunOptions{Journal: j, Retry: checkmatch.RetryPolicy{Retries: 1, BaseDelay: time.Millisecond}})
	require.NoError(t, err)
	require.NoError(t, j.Close())
	assert.Nil(t, part2.Stopped)
	assert.Equal(t, whole.Cases, part2.Cases)
	assert.Equal(t, whole.Requests, part2.Requests)
	assert.Len(t, second.requests, 13, "cases 1 and 2, one retry; case 0 came from the journal")
	assert.GreaterOrEqual(t, part2.WallSeconds, j.PriorWallSeconds())
}

// TestOrderingsJournalRefusesBadLines: a line whose orderings do not fit
// the study is refused naming the case, before the first call.
func TestOrderingsJournalRefusesBadLines(t *testing.T) {
	sl := studySlice(t, 1)
	sl.Requests = sl.Requests[:2]
	orders, err := BalancedOrders(6)
	require.NoError(t, err)
	h := studyJournal(t, sl, orders, "aa", checkmatch.Shard{Index: 0, Count: 1})
	path := filepath.Join(t.TempDir(), "o.json"+journal.Suffix)
	j, err := checkmatch.CreateJournal(path, h)
	require.NoError(t, err)
	_, err = Run(context.Background(), &positionPort{byPos: []float64{0.5, 0.1, 0.1, 0.1, 0.1, 0.1}}, "m", sl.Requests, orders, singleFor(sl.Requests),
		checkmatch.RunOptions{Journal: j, Shard: checkmatch.Shard{Index: 0, Count: 1}})
	require.NoError(t, err)
	require.NoError(t, j.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var l orderingsLine
	c, err := journal.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(c.Entries[1], &l))
	l.Orderings = l.Orderings[:5]
	extra, err := json.Marshal(l)
	require.NoError(t, err)
	// The bad line replaces the case's own (a case journaled twice keeps
	// its first line).
	head := bytes.SplitAfter(b, []byte("\n"))[:2]
	// Written through the journal's writer, so the line's chain holds and
	// only the study's own check can refuse it.
	require.NoError(t, os.WriteFile(path, bytes.Join(head, nil), 0o644))
	jc, err := journal.ReadFile(path)
	require.NoError(t, err)
	w, err := journal.Resume(path, jc)
	require.NoError(t, err)
	require.NoError(t, w.Add(json.RawMessage(extra)))
	require.NoError(t, w.Close())
	j, err = checkmatch.ResumeJournal(path, h, sl.Requests)
	require.NoError(t, err, "the line's index, case id and render fit the slice")
	defer j.Close()
	port := &positionPort{byPos: []float64{0.5, 0.1, 0.1, 0.1, 0.1, 0.1}}
	_, err = Run(context.Background(), port, "m", sl.Requests, orders, singleFor(sl.Requests),
		checkmatch.RunOptions{Journal: j, Shard: checkmatch.Shard{Index: 0, Count: 1}})
	require.ErrorContains(t, err, "journal line of case "+l.CaseID+" (index 1): ")
	assert.Contains(t, err.Error(), "5")
	assert.Empty(t, port.requests, "refused before the first call")
}

// FuzzOrderingsJournalLine feeds one line of outside input to the
// option-order journal reader: it never panics, and a line it accepts
// rebuilds a case record of the slice.
func FuzzOrderingsJournalLine(f *testing.F) {
	sl := studySlice(f, 1)
	orders, err := BalancedOrders(6)
	if err != nil {
		f.Fatal(err)
	}
	run, err := Run(context.Background(), &positionPort{byPos: []float64{0.5, 0.1, 0.1, 0.1, 0.1, 0.1}}, "m", sl.Requests[:1], orders, singleFor(sl.Requests), checkmatch.RunOptions{})
	if err != nil {
		f.Fatal(err)
	}
	probs := make([]judgment.Probabilities, len(orders))
	for o := range probs {
		probs[o] = run.Cases[0].Orderings[o].Probabilities
	}
	good, err := json.Marshal(newOrderingsLine(0, run.Cases[0], probs, 6, 1, 0.5))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"index": 0, "case_id": "r00:clean", "orderings": [{"consistent": 1e400}]}`))
	f.Add([]byte(`{"index": -1}`))
	check := orderingsLineCheck(orders)
	ids := make([]string, len(sl.Requests))
	for i, r := range sl.Requests {
		ids[i] = r.CaseID()
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !json.Valid(line) {
			return
		}
		found, _, _, err := lines.Decode([]json.RawMessage{line}, ids, nil, orderingsLineMeta,
			func(l orderingsLine, i int) error { return check(l, sl.Requests[i].Case) })
		if err != nil {
			return
		}
		for i, l := range found {
			if _, err := l.record(sl.Requests[i].Case, checkmatch.VerdictLabels[:], orders); err != nil {
				t.Fatalf("accepted line does not rebuild: %v", err)
			}
		}
	})
}

// BenchmarkOrderingsJournal is a study of 7 cases × 6 orderings against an
// in-process port, with its journal (every case appended and synced) and
// without, side by side: the difference per case is the journal's cost.
func BenchmarkOrderingsJournal(b *testing.B) {
	sl := studySlice(b, 1)
	orders, err := BalancedOrders(6)
	if err != nil {
		b.Fatal(err)
	}
	single := singleFor(sl.Requests)
	h := studyJournal(b, sl, orders, "aa", checkmatch.Shard{})
	for _, journaled := range []bool{false, true} {
		name := "no journal"
		if journaled {
			name = "journal"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			dir := b.TempDir()
			for n := 0; b.Loop(); n++ {
				var opts checkmatch.RunOptions
				if journaled {
					j, err := checkmatch.CreateJournal(filepath.Join(dir, fmt.Sprint(n)+journal.Suffix), h)
					if err != nil {
						b.Fatal(err)
					}
					opts.Journal = j
				}
				if _, err := Run(context.Background(), &positionPort{byPos: []float64{0.5, 0.1, 0.1, 0.1, 0.1, 0.1}}, "m", sl.Requests, orders, single, opts); err != nil {
					b.Fatal(err)
				}
				if opts.Journal != nil {
					opts.Journal.Close()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(sl.Requests))/1e6, "ms/case")
		})
	}
}

// TestShardRecordBytes: a study's shard record, its pins kept as raw JSON
// in checkmatch.ShardRecord.OrderingsPins, writes the bytes the record
// wrote when checkmatch held the pins as a typed block, and reads back to
// the same pins.
func TestShardRecordBytes(t *testing.T) {
	sl := studySlice(t, 1)
	orders, err := BalancedOrders(6)
	require.NoError(t, err)
	s := checkmatch.Shard{Index: 0, Count: 2}
	c := checkmatch.RunContext{Backend: serving.LlamaCPP, Model: "m", ServedTemplate: "native_gemma4_turn",
		Now: func() time.Time { return time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC) },
		Snapshot: checkmatch.Snapshot{BaselineCommit: "unknown", WorkingTree: receipt.WorkingTree{Dirty: true},
			PromptDigests: promptDigests(), CodePathDigests: receipt.Digests{{Name: "orderings", Value: "ab"}}}}
	single := SingleOrderFile{Path: "/x/check_match_seed1.json", SHA256: "aa"}
	h, err := JournalHeader(c, sl, orders, single, s)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "o.json"+journal.Suffix)
	j, err := checkmatch.CreateJournal(path, h)
	require.NoError(t, err)
	run, err := Run(context.Background(), &positionPort{byPos: []float64{0.5, 0.1, 0.1, 0.1, 0.1, 0.1}}, "m", sl.Requests, orders, singleFor(sl.Requests),
		checkmatch.RunOptions{Journal: j, Shard: s})
	require.NoError(t, err)
	require.NoError(t, j.Close())
	rec, err := NewShardRecord(c, sl, orders, single, s, h, path, run)
	require.NoError(t, err)
	got, err := receipt.Marshal(rec)
	require.NoError(t, err)

	// The record as a typed block: the same fields, OrderingsPins a *Pins.
	pins := NewReceiptParts(c, sl, orders, single, Result{Requests: len(sl.Requests) * len(orders)}).Pins
	typed := struct {
		Schema          string                    `json:"schema"`
		Version         int                       `json:"version"`
		Shard           checkmatch.Shard          `json:"shard"`
		Identity        journal.Header            `json:"identity"`
		Journal         string                    `json:"journal"`
		JournalSHA256   string                    `json:"journal_sha256"`
		Cases           int                       `json:"cases"`
		WallSeconds     float64                   `json:"wall_seconds"`
		Backend         serving.Backend           `json:"backend"`
		Model           string                    `json:"model"`
		Pins            *checkmatch.Pins          `json:"pins,omitempty"`
		OrderingsPins   *Pins                     `json:"orderings_pins,omitempty"`
		ReceiptIdentity receipt.Identity          `json:"receipt_identity"`
		ServerArgs      *serving.ServerArgsBlock  `json:"server_args"`
		Readings        []checkmatch.ShardReading `json:"readings"`
	}{rec.Schema, rec.Version, rec.Shard, rec.Identity, rec.Journal, rec.JournalSHA256, rec.Cases, rec.WallSeconds,
		rec.Backend, rec.Model, nil, &pins, rec.ReceiptIdentity, nil, rec.Readings}
	want, err := receipt.Marshal(typed)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	assert.Contains(t, string(got), `"schema": "typevet-go.shard"`)

	var back Pins
	require.NoError(t, json.Unmarshal(rec.OrderingsPins, &back))
	assert.Equal(t, pins, back)
}
