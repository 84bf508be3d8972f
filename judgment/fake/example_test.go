package fake_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/fake"
)

// The fake answers named questions from its distributions and every other
// question uniformly.
func Example() {
	d, err := fake.ParseDistributions(strings.NewReader(`{
		"payee_matches": 0.2,
		"verdict": {"consistent": 1, "payee_mismatch": 3}
	}`))
	if err != nil {
		log.Fatal(err)
	}
	port := fake.New(d)
	resp, err := port.Judge(context.Background(), judgment.Request{
		Model: "fake",
		State: "check number 1001; payee Lanternfield Electric",
		Questions: []judgment.NamedQuestion{
			{Name: "payee_matches", Question: judgment.Noul{Instructions: "Is the payee the register payee?"}},
			{Name: "verdict", Question: judgment.Choice{Criteria: []judgment.Criterion{
				{Label: "consistent"}, {Label: "payee_mismatch"}, {Label: "unsigned"},
			}}},
			{Name: "legibility", Question: judgment.Score{Criteria: []string{"none", "some", "all"}}},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	payee, _ := resp.Noul("payee_matches")
	verdict, _ := resp.Choice("verdict")
	leg, _ := resp.Score("legibility")
	fmt.Printf("payee_matches %.2f\n", payee.Noul)
	fmt.Printf("verdict %s %.2f\n", verdict.Choice, verdict.Confidence)
	fmt.Printf("legibility %.2f\n", leg.Score)
	// Output:
	// payee_matches 0.20
	// verdict payee_mismatch 0.75
	// legibility 1.00
}
