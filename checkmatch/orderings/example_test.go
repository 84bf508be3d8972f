package orderings_test

import (
	"fmt"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/orderings"
	"github.com/typevet/typevet-go/judgment"
)

// The study's six orderings of the verdict options: a Williams design, so
// every option sits once in every position.
func ExampleBalancedOrders() {
	orders, _ := orderings.BalancedOrders(len(checkmatch.VerdictLabels))
	for _, o := range orders[:2] {
		labels := make([]string, len(o))
		for i, j := range o {
			labels[i] = checkmatch.VerdictLabels[j]
		}
		fmt.Println(labels)
	}
	// Output:
	// [consistent payee_mismatch amount_mismatch date_mismatch unsigned cannot_tell]
	// [payee_mismatch date_mismatch consistent cannot_tell amount_mismatch unsigned]
}

// Two cases scored under two orderings of two options (typevet's "adopt"
// unit test): the option in first position gains 0.3 on average, and
// averaging over the orderings is more accurate than the single order.
func ExampleStatistics() {
	probs := func(x, y float64) judgment.Probabilities {
		return judgment.Probabilities{{Label: "x", P: x}, {Label: "y", P: y}}
	}
	record := func(id, expected string, first, second judgment.Probabilities) orderings.Case {
		return orderings.Case{
			CaseID:           id,
			ExpectedVerdicts: []string{expected},
			SingleOrder:      orderings.SingleOrder{Verdict: "x", VerdictProbabilities: probs(0.5, 0.5)},
			Orderings: []orderings.Answer{
				{Order: []string{"x", "y"}, Probabilities: first},
				{Order: []string{"y", "x"}, Probabilities: second},
			},
		}
	}
	st, _ := orderings.Statistics([]orderings.Case{
		record("A", "x", probs(0.9, 0.1), probs(0.7, 0.3)),
		record("B", "y", probs(0.6, 0.4), probs(0.2, 0.8)),
	})
	fmt.Println(st.PositionMeans, st.PositionSpread, st.Decision)
	fmt.Println(st.AveragedAccuracy, st.SingleOrderAccuracy, st.SpreadInterval, st.AccuracyDifferenceInterval)
	// Output:
	// [0.65 0.35] 0.30000000000000004 adopt_opt_in
	// 1 0.5 [0.2 0.3999999999999999] [0 1]
}
