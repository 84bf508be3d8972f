package cmdtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// JournaledIDs returns the case ids of the journal at path's entries, in
// journal order; nil when there is no readable journal yet.
func JournaledIDs(path string) []string {
	c, err := journal.ReadFile(path)
	if err != nil {
		return nil
	}
	ids := make([]string, 0, len(c.Entries))
	for _, e := range c.Entries {
		var l struct {
			CaseID string `json:"case_id"`
		}
		if json.Unmarshal(e, &l) == nil {
			ids = append(ids, l.CaseID)
		}
	}
	return ids
}

// WaitJournaled waits (up to a minute) until the journal at path holds n
// entries; otherwise it kills child and fails with its output.
func WaitJournaled(t testing.TB, child *exec.Cmd, out *bytes.Buffer, path string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for len(JournaledIDs(path)) < n {
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatalf("the child journaled no %d cases in %s in time:\n%s", n, path, out)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// ScoringCalls counts, per case of slice, the requests to the scoring path
// (/completion for llama.cpp, /v1/chat/completions for vLLM) srv saw,
// found by the base64 of the case's image in the body.
func ScoringCalls(srv *judgmenttest.Server, path string, slice checkmatch.Slice) map[string]int {
	images := make([][]byte, len(slice.Requests))
	for i, req := range slice.Requests {
		images[i] = []byte(base64.StdEncoding.EncodeToString(req.Media[0].Data))
	}
	out := map[string]int{}
	for _, r := range srv.Requests() {
		if r.Path != path {
			continue
		}
		for i, req := range slice.Requests {
			if bytes.Contains(r.Body, images[i]) {
				out[req.CaseID()]++
			}
		}
	}
	return out
}

// AppendEntries appends entries to the journal at path through the
// journal's own writer, so a version 2 journal's chain holds (as an edit
// by someone who knows the format would make it), and returns the
// journal's bytes after. Tests use it to reach the checks behind the
// chain: a line that fits the chain but not the run.
func AppendEntries(t testing.TB, path string, entries ...json.RawMessage) []byte {
	t.Helper()
	c, err := journal.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := journal.Resume(path, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := w.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
