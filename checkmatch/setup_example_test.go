package checkmatch_test

import (
	"context"
	"fmt"
	"os"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment/fake"
	"github.com/typevet/typevet-go/receipt"
)

// ExampleRunContext is what a user's own eval tool does to get a receipt
// from a run, as examples/checkmatch does: snapshot before the first call,
// describe the run in a RunContext, then let it build the receipt's
// identity, pins and server_args.
func ExampleRunContext() {
	slice, err := checkmatch.BuildSlice(checkmatch.DefaultSeed, 1, nil)
	if err != nil {
		panic(err)
	}
	clean := ""                                                // `git status --porcelain` printed nothing
	snap, err := checkmatch.TakeSnapshot(os.TempDir(), &clean) // the repository root; here none
	if err != nil {
		panic(err)
	}
	rc := checkmatch.RunContext{Backend: "fake", Model: "fake-model", ServedTemplate: "fake", Snapshot: snap}
	run, err := checkmatch.Run(context.Background(), fake.New(nil), rc.Model, slice.Requests, checkmatch.RunOptions{Concurrency: 2})
	if err != nil {
		panic(err)
	}
	r, err := checkmatch.BuildReceipt(run, rc.ReceiptParts(slice, run))
	if err != nil {
		panic(err)
	}
	id := r.Identity
	fmt.Println(r.Pins.Concurrency, r.Pins.Renderer != nil, r.Pins.Server == nil, r.ServerArgs == nil)
	fmt.Println(id.BaselineCommit, id.Runtime.ServerBuild, id.ArmCallCounts[0].Name, id.ArmCallCounts[0].Value)
	fmt.Println(id.IdentityDigest == receipt.IdentityDigest(id))
	// Output:
	// 2 true true false
	// unknown unknown judgments 7
	// true
}
