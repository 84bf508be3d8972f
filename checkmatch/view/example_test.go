package view_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/view"
	"github.com/typevet/typevet-go/judgment/fake"
)

// Example judges one register row offline with the fake backend (which
// answers every check "consistent") and builds the site of its receipt:
// every check is re-rendered and its SHA-256 matches the receipt's, so
// every image is shown.
func Example() {
	slice, err := checkmatch.BuildSlice(checkmatch.DefaultSeed, 1, nil)
	if err != nil {
		panic(err)
	}
	port := fake.New(fake.Distributions{"verdict": {Weights: map[string]float64{"consistent": 1}}})
	run, err := checkmatch.Run(context.Background(), port, "fake-model", slice.Requests, checkmatch.RunOptions{})
	if err != nil {
		panic(err)
	}
	r, err := checkmatch.BuildReceipt(run, checkmatch.ReceiptParts{Backend: "fake", Model: "fake-model", Pins: slice.Pins()})
	if err != nil {
		panic(err)
	}
	site, err := view.Build([]view.Input{{Name: "run.json", Receipt: r}}, view.Options{})
	if err != nil {
		panic(err)
	}
	rep := site.Receipts[0]
	fmt.Printf("%s: %d cases, %d wrong, %d images shown\n", rep.Page, rep.Cases, rep.Wrong, rep.Reproduced)
	for _, f := range site.Files {
		if !strings.HasPrefix(f.Path, "img/") {
			fmt.Println(f.Path)
		}
	}
	// Output:
	// index.html: 7 cases, 5 wrong, 7 images shown
	// index.html
	// style.css
	// view.js
}
