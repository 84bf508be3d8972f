package calibration_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/typevet/typevet-go/calibration"
)

// A Noul map in typevet's layout; a caller pins the SHA-256 of its bytes.
const noulMap = `{
  "evaluation": {"after": {"accuracy": 0.89, "brier": 0.07, "ece": 0.07},
    "before": {"accuracy": 0.81, "brier": 0.17, "ece": 0.2}, "n_evaluation": 90, "rule_met": true},
  "fitted_on": {"backend": "llama_cpp", "model": "fake-judgment", "n_calibration": 68,
    "receipt": "receipts/example.json", "receipt_sha256": "0000000000000000000000000000000000000000000000000000000000000000",
    "task_id": "fraud-message"},
  "method": "platt",
  "parameters": {"intercept": -1.0, "slope": 2.0},
  "producer": {"typevet_evals": "0.6.0"},
  "schema": "typevet.calibration_map/1"
}
`

func Example() {
	sum := sha256.Sum256([]byte(noulMap))
	m, err := calibration.Read([]byte(noulMap), hex.EncodeToString(sum[:]))
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := m.Apply(0.6)
	fmt.Printf("%s map for %s: 0.6 -> %.4f\n", m.Method, m.FittedOn.TaskID, p)

	_, err = calibration.Read([]byte(noulMap), "0000000000000000000000000000000000000000000000000000000000000000")
	fmt.Println(err)
	// Output:
	// platt map for fraud-message: 0.6 -> 0.4529
	// calibration map file digest does not match the supplied sha256
}

func ExampleFitSeries() {
	s := calibration.Series{Name: "q"}
	for i := range 200 {
		p := float64(i%10)/10 + 0.05
		s.IDs = append(s.IDs, fmt.Sprint("row", i))
		s.P = append(s.P, p)
		s.Truth = append(s.Truth, i%7 < 3) // about 0.43 true whatever p says
	}
	f, err := calibration.FitSeries(s, calibration.Isotonic, calibration.FitOptions{
		TaskID: "demo", Model: "m", Backend: "vllm", Receipt: "series.jsonl",
		ReceiptSHA256: "0000000000000000000000000000000000000000000000000000000000000000",
		Producer:      "typevet-go", Resamples: -1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("ECE %.3f -> %.3f, rule met: %v\n", f.Before.ECE, f.After.ECE, f.RuleMet)
	// Output:
	// ECE 0.292 -> 0.085, rule met: true
}
