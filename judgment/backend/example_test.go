package backend_test

import (
	"context"
	"fmt"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// Build settings from an environment (an example passes os.LookupEnv),
// open the selected backend and judge one question. Here the environment
// selects vLLM at a fake server.
func ExampleOpen() {
	srv := judgmenttest.NewVLLM(&judgmenttest.Model{
		Logprobs: judgmenttest.Script{Text: map[string]map[string]float64{
			"signed": judgmenttest.Probs(0.1, 0.3),
		}}.Logprobs,
	})
	defer srv.Close()
	environ := map[string]string{
		"TYPEVET_BACKEND":        "vllm",
		"TYPEVET_VLLM__BASE_URL": srv.URL,
		"TYPEVET_VLLM__MODEL":    judgmenttest.DefaultModelID,
		"TYPEVET_VLLM__API_KEY":  "", // empty: no key
	}
	s, err := backend.SettingsFromEnv(func(k string) (string, bool) { v, ok := environ[k]; return v, ok })
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	sess, err := backend.Open(ctx, s, "")
	if err != nil {
		panic(err)
	}
	defer sess.Close()
	resp, err := sess.Port.Judge(ctx, judgment.Request{
		State:     "Signature line: (signed)",
		Questions: []judgment.NamedQuestion{{Name: "signed", Question: judgment.Noul{Instructions: "Is the check signed?"}}},
		Model:     sess.Model,
	})
	if err != nil {
		panic(err)
	}
	a, _ := resp.Noul("signed")
	fmt.Println(sess.Backend, sess.ServedTemplate)
	fmt.Printf("P(true) = %.2f\n", a.Noul)
	// Output:
	// vllm vllm_chat
	// P(true) = 0.75
}

// A bad value is reported by variable name only.
func ExampleSettingsFromEnv() {
	_, err := backend.SettingsFromEnv(func(k string) (string, bool) {
		if k == "TYPEVET_LLAMA__TIMEOUT" {
			return "sk-oops-pasted-a-key", true
		}
		return "", false
	})
	fmt.Println(err)
	// Output: TYPEVET_LLAMA__TIMEOUT must be a finite number of seconds greater than 0
}
