package stats_test

import (
	"fmt"
	"os"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/stats"
)

// The blurred variant of typevet's published vLLM run: 11 of 20 right.
func ExampleWilson() {
	low, high, _ := stats.Wilson(11, 20, 0.95)
	fmt.Printf("[%.4f, %.4f]\n", low, high)
	// Output: [0.3421, 0.7418]
}

func ExampleMcNemarExact() {
	p, _ := stats.McNemarExact(3, 11)
	fmt.Printf("%.4f\n", p)
	// Output: 0.0574
}

// Intervals for typevet's committed 140-case vLLM receipt.
func ExampleReceiptIntervals() {
	f, err := os.Open("testdata/check_match_vllm_receipt.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	r, err := checkmatch.ReadReceipt(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	doc, err := stats.ReceiptIntervals(r, stats.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(stats.FormatRates(doc.Overall, doc.Level))
	low, _ := doc.ByVariant.Get("low_legibility")
	fmt.Println(stats.FormatHeadline("low_legibility accuracy", low.Accuracy))
	payee, _ := doc.Nouls.Get("payee_matches")
	fmt.Println("payee_matches roc_auc", stats.FormatEstimate(payee.ROCAUC))
	// Output:
	// 95% Wilson: accuracy 0.9286 [0.8735, 0.9607] (130/140); false_clear_rate 0.0000 [0.0000, 0.0370] (0/100); cannot_tell_rate 0.0000 [0.0000, 0.0267] (0/140)
	// low_legibility accuracy 0.5500 [0.3421, 0.7418] (11/20)
	// payee_matches roc_auc 1.0000 [1.0000, 1.0000]
}
