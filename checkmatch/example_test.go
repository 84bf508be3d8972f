package checkmatch_test

import (
	"fmt"

	"github.com/typevet/typevet-go/checkmatch"
)

func ExampleCases() {
	cases, err := checkmatch.Cases(0, checkmatch.RowCount)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(cases))
	c := cases[0]
	fmt.Println(c.ID())
	fmt.Println(c.Row.Text())
	fmt.Println(c.Face.RoutingNumber)
	low := cases[6]
	fmt.Println(low.ID(), low.Face.BlurRadius, low.Expected.Verdicts)
	// Output:
	// 140
	// r00:clean
	// check number 1001; date 2025-04-21; payee Lanternfield Electric; amount $1,188.15
	// 069490182
	// r00:low_legibility 4.04 [cannot_tell consistent]
}

func ExampleExpectedLabels() {
	for _, v := range checkmatch.Variants() {
		e := checkmatch.ExpectedLabels(v)
		fmt.Println(v, e.Verdicts, e.PayeeTruth, e.AmountsTruth, e.CountsForFalseClear)
	}
	// Output:
	// clean [consistent] true true true
	// payee_changed [payee_mismatch] false true true
	// written_amount_changed [amount_mismatch] true false true
	// both_amounts_changed [amount_mismatch] true false true
	// wrong_date [date_mismatch] true true true
	// unsigned [unsigned] true true true
	// low_legibility [cannot_tell consistent] true true false
}
