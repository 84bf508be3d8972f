package sweep_test

import (
	"context"
	"fmt"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/sweep"
	"github.com/typevet/typevet-go/judgment/fake"
)

// Run judges the slice at each level; NewSummary compares every level's
// answers with the first's (the offline fake answers alike at any
// concurrency).
func ExampleRun() {
	slice, err := checkmatch.BuildSlice(1, 1, nil)
	if err != nil {
		panic(err)
	}
	res, err := sweep.Run(context.Background(), fake.New(nil), "fake-model", slice.Requests, sweep.Options{Levels: []int{1, 2}})
	if err != nil {
		panic(err)
	}
	sum, err := sweep.NewSummary(res)
	if err != nil {
		panic(err)
	}
	fmt.Println(sum.Schema)
	for _, lv := range sum.Levels {
		fmt.Println(lv.Concurrency, lv.Cases, lv.Answers.VerdictFlips, lv.Answers.MaxAbsProbabilityDifference)
	}
	// Output:
	// typevet-go/throughput-sweep-summary
	// 1 7 0 0
	// 2 7 0 0
}
