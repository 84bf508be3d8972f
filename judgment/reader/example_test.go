package reader_test

import (
	"context"
	"fmt"
	"log"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment/reader"
)

// The reader judges a rendered check against its register row, and the
// payee_changed check of the same row against the same row.
func Example() {
	cases, err := checkmatch.Cases(0, 1)
	if err != nil {
		log.Fatal(err)
	}
	port := reader.New(reader.Options{})
	for _, c := range cases[:2] { // r00:clean, r00:payee_changed
		png, err := checkmatch.Render(c)
		if err != nil {
			log.Fatal(err)
		}
		resp, err := port.Judge(context.Background(), checkmatch.BuildRequest(c, png).Judgment("reader"))
		if err != nil {
			log.Fatal(err)
		}
		payee, _ := resp.Noul(checkmatch.QuestionPayeeMatches)
		verdict, _ := resp.Choice(checkmatch.QuestionVerdict)
		legibility, _ := resp.Score(checkmatch.QuestionLegibility)
		fmt.Printf("%s: payee_matches %.3f, verdict %s %.2f, legibility %d\n",
			c.ID(), payee.Noul, verdict.Choice, verdict.Confidence, legibility.Level())
	}
	// Output:
	// r00:clean: payee_matches 0.993, verdict consistent 0.98, legibility 4
	// r00:payee_changed: payee_matches 0.000, verdict payee_mismatch 0.98, legibility 4
}

// Read shows what the reader sees on a check.
func ExampleRead() {
	cases, err := checkmatch.Cases(0, 1)
	if err != nil {
		log.Fatal(err)
	}
	img, err := checkmatch.RenderImage(cases[0])
	if err != nil {
		log.Fatal(err)
	}
	r := reader.Read(img)
	fmt.Println(r.Payee.Text)
	fmt.Println(r.Numeric.Text)
	fmt.Println(r.Words.Text)
	fmt.Println(r.Date.Text)
	fmt.Println(r.PenMass > reader.DefaultConstants.SignatureMass)
	// Output:
	// Lanternfield Electric
	// $ 1,188.15
	// One thousand one hundred eighty-eight and 15/100 DOLLARS
	// April 21, 2025
	// true
}

// ParseWords inverts the words line.
func ExampleParseWords() {
	cents, err := reader.ParseWords("One thousand one hundred eighty-eight and 15/100 DOLLARS")
	fmt.Println(cents, err)
	// Output:
	// 118815 <nil>
}
