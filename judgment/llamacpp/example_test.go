package llamacpp_test

import (
	"context"
	"fmt"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/llamacpp"
)

// Judge one question against a fake llama-server whose scripted model puts
// 0.16 on control "0" (False) and 0.04 on control "1" (True): the softmax
// over the two candidates gives P(true) = 0.2. With NVocab equal to the
// server's vocabulary the whole distribution comes back, so the mass
// outside the two controls (0.8) is reported too.
func ExampleOpen() {
	srv := judgmenttest.NewLlamaCPP(&judgmenttest.Model{
		NVocab: 64,
		Logprobs: judgmenttest.Script{Text: map[string]map[string]float64{
			"amounts_match": judgmenttest.Probs(0.16, 0.04),
		}}.Logprobs,
	})
	defer srv.Close()

	ctx := context.Background()
	sess, err := llamacpp.Open(ctx, llamacpp.Settings{BaseURL: srv.URL},
		llamacpp.OpenOptions{Model: judgmenttest.DefaultModelID, NVocab: 64})
	if err != nil {
		panic(err)
	}
	defer sess.Close()

	resp, err := sess.Judge(ctx, judgment.Request{
		State: "Amount in figures: 120.00; in words: one hundred twenty",
		Questions: []judgment.NamedQuestion{{Name: "amounts_match",
			Question: judgment.Noul{Instructions: "Do the two amounts agree?"}}},
		Model: judgmenttest.DefaultModelID,
	})
	if err != nil {
		panic(err)
	}
	a, _ := resp.Noul("amounts_match")
	fmt.Printf("served template %s\n", sess.ServedTemplate())
	fmt.Printf("P(true) = %.2f, off-option mass = %.2f\n", a.Noul, *resp.OffOption[0].OffOption.Mass)
	// Output:
	// served template native_gemma4_turn
	// P(true) = 0.20, off-option mass = 0.80
}
