package checkmatch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/receipt"
)

// ExampleNewRunContext composes a whole run the way a user's own eval
// tool does (and examples/checkmatch does): open a backend session (here
// the offline reader; llama.cpp or vLLM the same way, from
// backend.SettingsFromEnv), snapshot before the first call, build the run
// context from the open session, judge the slice, build the receipt and
// write it. On vLLM, MetricsReader gives the run its /metrics reads (nil
// elsewhere, as here).
func ExampleNewRunContext() {
	ctx := context.Background()
	settings := backend.Settings{Backend: backend.Reader}
	sess, err := backend.Open(ctx, settings, "")
	if err != nil {
		panic(err)
	}
	defer sess.Close()
	clean := ""                                                // `git status --porcelain` printed nothing
	snap, err := checkmatch.TakeSnapshot(os.TempDir(), &clean) // the repository root; here none
	if err != nil {
		panic(err)
	}
	rc, err := checkmatch.NewRunContext(ctx, sess, snap, "", nil)
	if err != nil {
		panic(err)
	}
	slice, err := checkmatch.BuildSlice(checkmatch.DefaultSeed, 1, nil)
	if err != nil {
		panic(err)
	}
	run, err := checkmatch.Run(ctx, sess.Port, rc.Model, slice.Requests,
		checkmatch.RunOptions{Concurrency: 2, Metrics: checkmatch.MetricsReader(sess)})
	if err != nil {
		panic(err)
	}
	rec, err := checkmatch.BuildReceipt(run, rc.ReceiptParts(slice, run))
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "receipts")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if _, err := receipt.Write(filepath.Join(dir, "check_match_reader.json"), rec, sess.Secrets()); err != nil {
		panic(err)
	}
	fmt.Println(rec.Backend, rec.Model, len(rec.Cases), rec.Stopped == nil)
	fmt.Println(rec.Pins.Server.BuildInfo == rc.ServerEntry.BuildInfo, rec.Throughput.Server == nil)
	// Output:
	// reader reader 7 true
	// true true
}
