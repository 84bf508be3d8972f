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

// The exact test is conservative; the mid-p value holds its level closely.
func ExampleMcNemarMidP() {
	exact, _ := stats.McNemarExact(3, 11)
	mid, _ := stats.McNemarMidP(3, 11)
	fmt.Printf("exact %.4f, mid-p %.4f\n", exact, mid)
	// Output: exact 0.0574, mid-p 0.0352
}

// Two runs compared over four register rows: B gained 3 right answers in
// the first row, 2 in the second, lost 1 in the third and tied in the
// fourth. Of the 2³ sign patterns of the three rows that changed, those
// giving a net change of at least 4 in either direction count.
func ExampleSignFlipTest() {
	fmt.Println(stats.SignFlipTest([]int{3, 2, -1, 0}))
	// Output: 0.5
}

// Seven cases of one register row all wrong and seven of another all
// right: the rows, not the cases, are the independent draws, so the 14
// cases weigh as about one (n / deff, deff = 13).
func ExampleEffectiveN() {
	var y []bool
	var rows []string
	for i := range 14 {
		y = append(y, i < 7)
		rows = append(rows, fmt.Sprintf("r%02d", i/7))
	}
	n, _ := stats.EffectiveN(y, rows)
	fmt.Printf("%.3f of %d\n", n, len(y))
	// Output: 1.077 of 14
}
