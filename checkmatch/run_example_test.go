package checkmatch_test

import (
	"context"
	"fmt"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment/fake"
	"github.com/typevet/typevet-go/serving"
)

func ExampleQuestions() {
	for _, q := range checkmatch.Questions() {
		fmt.Println(q.Name, q.Question.Kind())
	}
	// Output:
	// payee_matches noul
	// amounts_match noul
	// verdict choice
	// legibility score
}

// ExampleRun judges the first register row of the default slice with the
// offline fake backend, which answers every check "consistent".
func ExampleRun() {
	slice, err := checkmatch.BuildSlice(checkmatch.DefaultSeed, 1, nil)
	if err != nil {
		panic(err)
	}
	port := fake.New(fake.Distributions{
		"payee_matches": {True: probability(0.9)},
		"amounts_match": {True: probability(0.8)},
		"verdict":       {Weights: map[string]float64{"consistent": 3, "cannot_tell": 1}},
		"legibility":    {Weights: map[string]float64{"4": 1}},
	})
	seconds := 0.0
	clock := func() float64 { seconds += 0.25; return seconds } // a scripted clock
	run, err := checkmatch.Run(context.Background(), port, "fake-model", slice.Requests, checkmatch.RunOptions{Clock: clock})
	if err != nil {
		panic(err)
	}
	r, err := checkmatch.BuildReceipt(run, checkmatch.ReceiptParts{Backend: "fake", Model: "fake-model", Pins: slice.Pins()})
	if err != nil {
		panic(err)
	}
	for _, c := range r.Cases[:3] {
		fmt.Println(c.CaseID, c.Verdict, c.Correct)
	}
	fmt.Printf("accuracy %.3f, false clear %.1f, wall %.2f s\n", *r.Metrics.Accuracy, *r.Metrics.FalseClearRate, r.WallSeconds)
	fmt.Println(r.Throughput.Judgments, r.Stopped == nil, r.Backend == serving.Backend("fake"))
	// Output:
	// r00:clean consistent true
	// r00:payee_changed consistent false
	// r00:written_amount_changed consistent false
	// accuracy 0.286, false clear 1.0, wall 3.75 s
	// 7 true true
}

func probability(p float64) *float64 { return &p }
