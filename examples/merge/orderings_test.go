package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/checkmatch/orderings"
	"github.com/typevet/typevet-go/examples/internal/cmdtest"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/fake"
	"github.com/typevet/typevet-go/receipt"
)

// studySlice is the one-row seed-1 slice, rendered once.
var studySlice = sync.OnceValues(func() (checkmatch.Slice, error) { return checkmatch.BuildSlice(orderings.Seed, 1, nil) })

// study is one option-order experiment as examples/orderings runs it
// offline: the slice, its orderings, the single-order receipt and the
// run context.
type study struct {
	slice  checkmatch.Slice
	orders [][]int
	single orderings.SingleOrderFile
	cases  receipt.Ordered[checkmatch.CaseRecord]
	rc     checkmatch.RunContext
	port   judgment.Port
}

// newStudy writes the single-order receipt (the fake's, model renamed to
// singleModel) in dir and returns the study against it, judged by a fake
// whose answers depend on the case and the ordering.
func newStudy(t *testing.T, dir, singleModel string) study {
	t.Helper()
	sl, err := studySlice()
	require.NoError(t, err)
	res, err := checkmatch.Run(context.Background(), fake.New(nil), "fake-model", sl.Requests, checkmatch.RunOptions{})
	require.NoError(t, err)
	rec, err := checkmatch.BuildReceipt(res, checkmatch.ReceiptParts{Backend: "fake", Model: singleModel, Pins: sl.Pins()})
	require.NoError(t, err)
	path := filepath.Join(dir, "check_match_seed1.json")
	sum, err := receipt.Write(path, rec, judgment.Secrets{})
	require.NoError(t, err)
	cases, err := orderings.SingleOrderCases(rec, sl.Requests, orderings.Seed)
	require.NoError(t, err)
	orders, err := orderings.BalancedOrders(len(checkmatch.VerdictLabels))
	require.NoError(t, err)
	porcelain := ""
	snap, err := orderings.TakeSnapshot("", &porcelain)
	require.NoError(t, err)
	return study{slice: sl, orders: orders, single: orderings.SingleOrderFile{Path: path, SHA256: sum}, cases: cases,
		rc: checkmatch.RunContext{Backend: "fake", Model: "fake-model", ServedTemplate: "fake", Snapshot: snap}, port: positional{}}
}

// positional is a fake judge with an order effect: the first option shown
// gets more weight, by case.
type positional struct{}

func (positional) Judge(_ context.Context, req judgment.Request) (judgment.Response, error) {
	c := req.Questions[0].Question.(judgment.Choice)
	w := 0.3 + float64(len(req.Media[0].Data)%7)/100
	probs := make(judgment.Probabilities, len(c.Criteria))
	for k, cr := range c.Criteria {
		probs[k] = judgment.Probability{Label: cr.Label, P: (1 - w) / float64(len(c.Criteria)-1)}
		if k == 0 {
			probs[k].P = w
		}
	}
	return judgment.Response{Model: req.Model, Answers: []judgment.NamedAnswer{{Name: checkmatch.QuestionVerdict, Answer: judgment.ChoiceAnswer{Choice: c.Criteria[0].Label, Confidence: w, Probabilities: probs}}}}, nil
}

// whole writes the receipt of the study run in one process.
func (s study) whole(t *testing.T, path string) {
	t.Helper()
	run, err := orderings.Run(context.Background(), s.port, "fake-model", s.slice.Requests, s.orders, s.cases, checkmatch.RunOptions{})
	require.NoError(t, err)
	rec, err := orderings.BuildReceipt(run, orderings.NewReceiptParts(s.rc, s.slice, s.orders, s.single, run))
	require.NoError(t, err)
	_, err = receipt.Write(path, rec, judgment.Secrets{})
	require.NoError(t, err)
}

// shards runs the study's shards only (all when none) of n, as
// examples/orderings -shard i/n does, and returns their record paths.
func (s study) shards(t *testing.T, dir string, n int, only ...int) []string {
	t.Helper()
	if only == nil {
		for i := range n {
			only = append(only, i)
		}
	}
	var paths []string
	for _, i := range only {
		sh := checkmatch.Shard{Index: i, Count: n}
		path := filepath.Join(dir, "orderings-shard"+strconv.Itoa(i)+".json")
		h, err := orderings.JournalHeader(s.rc, s.slice, s.orders, s.single, sh)
		require.NoError(t, err)
		j, err := checkmatch.CreateJournal(journal.Path(path), h)
		require.NoError(t, err)
		run, err := orderings.Run(context.Background(), s.port, "fake-model", s.slice.Requests, s.orders, s.cases,
			checkmatch.RunOptions{Journal: j, Shard: sh})
		require.NoError(t, err)
		require.NoError(t, j.Close())
		rec, err := orderings.NewShardRecord(s.rc, s.slice, s.orders, s.single, sh, h, journal.Path(path), run)
		require.NoError(t, err)
		_, err = receipt.Write(path, rec, judgment.Secrets{})
		require.NoError(t, err)
		paths = append(paths, path)
	}
	return paths
}

// comparableStudy returns the option-order receipt at path with what a
// merge may change (finished_utc, run_id, wall time) blanked.
func comparableStudy(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	r, err := orderings.ReadReceipt(bytes.NewReader(b))
	require.NoError(t, err)
	r.Pins.FinishedUTC, r.Identity.RunID, r.WallSeconds = "", "", 0
	out, err := receipt.Marshal(r)
	require.NoError(t, err)
	return string(out)
}

// TestOrderingsShardsMerge: 3 option-order shards merged by the command
// give the whole study's receipt but for finished_utc, run_id and wall
// time.
func TestOrderingsShardsMerge(t *testing.T) {
	dir := t.TempDir()
	s := newStudy(t, dir, "fake-model")
	whole := filepath.Join(dir, "whole.json")
	s.whole(t, whole)
	paths := s.shards(t, dir, 3)
	merged := filepath.Join(dir, "merged.json")
	stdout, err := mergeCmd(t, append(paths, "-receipt", merged)...)
	require.NoError(t, err)
	assert.Contains(t, stdout, "merged 3 shards, 7 cases")
	assert.Equal(t, comparableStudy(t, whole), comparableStudy(t, merged))
	rec := readStudy(t, merged)
	require.NotNil(t, rec.Statistics)
	assert.Positive(t, rec.Statistics.PositionSpread, "the fake has an order effect")
	assert.Equal(t, 42, rec.Requests)
}

func readStudy(t *testing.T, path string) orderings.Receipt {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := orderings.ReadReceipt(f)
	require.NoError(t, err)
	return r
}

// TestOrderingsMergeRefusals: shards of a study with another single-order
// receipt, a check-match shard among option-order shards, a missing shard,
// the same shard twice and a case in two shards are each refused, and
// nothing is written.
func TestOrderingsMergeRefusals(t *testing.T) {
	dir := t.TempDir()
	s := newStudy(t, filepath.Join(dir), "fake-model")
	paths := s.shards(t, dir, 2)
	otherDir := filepath.Join(dir, "other")
	require.NoError(t, os.Mkdir(otherDir, 0o755))
	other := newStudy(t, otherDir, "another-model").shards(t, otherDir, 2, 1)
	check := fakeShards(t, filepath.Join(dir), 1, 2, 1)

	twoDir := filepath.Join(dir, "two")
	require.NoError(t, os.Mkdir(twoDir, 0o755))
	two := s.shards(t, twoDir, 2)
	// Shard 0's journal also holds a case of shard 1 (its record's digest
	// updated, as a hand edit would).
	c1, err := journal.ReadFile(two[1] + journal.Suffix)
	require.NoError(t, err)
	require.NotEmpty(t, c1.Entries, "shard 1 holds a case")
	b0 := cmdtest.AppendEntries(t, two[0]+journal.Suffix, c1.Entries[0])
	rb, err := os.ReadFile(two[0])
	require.NoError(t, err)
	var rec checkmatch.ShardRecord
	require.NoError(t, json.Unmarshal(rb, &rec))
	rec.JournalSHA256 = sha256Hex(b0)
	rb, err = receipt.Marshal(rec)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(two[0], rb, 0o644))

	for _, tt := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"another single-order receipt", []string{paths[0], other[0]}, "is a shard of another experiment: single_order_receipt_sha256 differs"},
		{"a check-match shard", []string{paths[0], check[0]}, "is a shard of another experiment: kind differs (first shard orderings, this shard check_match)"},
		{"an option-order shard after a check-match shard", []string{check[0], paths[1]}, "kind differs (first shard check_match, this shard orderings)"},
		{"a missing shard", paths[:1], "shard 1/2 is missing"},
		{"the same shard twice", []string{paths[0], paths[1], paths[0]}, "shard 0/2 is given twice"},
		{"a case in two shards", two, "is in two shards"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged.json")
			_, err := mergeCmd(t, append(tt.paths, "-receipt", out)...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NoFileExists(t, out)
		})
	}
}
