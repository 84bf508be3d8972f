package vllm_test

import (
	"context"
	"fmt"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/vllm"
)

// Judge one Choice question against a fake vLLM server. The scripted model
// puts 0.1, 0.6 and 0.1 on controls "0", "1" and "2"; the softmax over
// the three candidates gives 0.75 to the second label. vLLM returns only
// the requested ids, so the off-option mass is unknown, and a configured
// request-id header lands in the response.
func ExampleOpen() {
	srv := judgmenttest.NewVLLM(&judgmenttest.Model{
		Logprobs: judgmenttest.Script{Text: map[string]map[string]float64{
			"relation": judgmenttest.Probs(0.1, 0.6, 0.1),
		}}.Logprobs,
	})
	defer srv.Close()

	ctx := context.Background()
	sess, err := vllm.Open(ctx, vllm.Settings{BaseURL: srv.URL, Model: judgmenttest.DefaultModelID,
		RequestIDHeader: "X-Request-Id"}, vllm.OpenOptions{})
	if err != nil {
		panic(err)
	}
	defer sess.Close()

	resp, err := sess.Judge(ctx, judgment.Request{
		State: "Amount in figures: 120.00; in words: one hundred and two",
		Questions: []judgment.NamedQuestion{{Name: "relation", Question: judgment.Choice{
			Instructions: "How do the two amounts relate?",
			Criteria:     []judgment.Criterion{{Label: "consistent"}, {Label: "inconsistent"}, {Label: "unreadable"}},
		}}},
		Model: judgmenttest.DefaultModelID,
	})
	if err != nil {
		panic(err)
	}
	a, _ := resp.Choice("relation")
	fmt.Printf("%s %.2f\n", a.Choice, a.Confidence)
	fmt.Println("off-option mass known:", resp.OffOption[0].OffOption.Mass != nil)
	fmt.Println("request id length:", len(resp.RequestIDs[0].ID))
	// Output:
	// inconsistent 0.75
	// off-option mass known: false
	// request id length: 32
}
