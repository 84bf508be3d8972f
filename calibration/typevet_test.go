package calibration

import (
	"encoding/json"
	"testing"

	"github.com/typevet/typevet-go/internal/pymath"
)

// TestTypevetPostHocReceipt runs the fitters on the receipt typevet's own
// #343 study read for its checks/check_match_vllm row and compares every
// figure that row records (rounded to 12 decimals, as typevet's
// render_receipt rounds them) with typevet's committed numbers.
func TestTypevetPostHocReceipt(t *testing.T) {
	if testing.Short() {
		t.Skip("3,000 bootstrap resamples")
	}
	var row struct {
		Before  map[string]float64 `json:"before"`
		Methods map[string]struct {
			After     map[string]float64 `json:"after"`
			ECEChange float64            `json:"ece_change"`
			Interval  map[string]float64 `json:"ece_change_interval"`
			Params    map[string]float64 `json:"params"`
			RuleMet   bool               `json:"rule_met"`
		} `json:"methods"`
		NCalibration int `json:"n_calibration"`
	}
	if err := json.Unmarshal(readFixture(t, "post_hoc_check_match_vllm.json"), &row); err != nil {
		t.Fatal(err)
	}
	series, _, err := ReadSeries(readFixture(t, "check_match_vllm_receipt.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	r12 := func(x float64) float64 { return pymath.Round(x, 12) }
	eq := func(what string, got, want float64) {
		t.Helper()
		if r12(got) != want {
			t.Errorf("%s = %v (rounded %v), typevet %v", what, got, r12(got), want)
		}
	}
	metrics := func(what string, m Metrics, want map[string]float64) {
		t.Helper()
		eq(what+" ece", m.ECE, want["ece"])
		eq(what+" brier", m.Brier, want["brier"])
		eq(what+" accuracy", m.Accuracy, want["accuracy"])
	}
	for _, method := range Methods {
		want := row.Methods[string(method)]
		f, err := FitSeries(series[0], method, FitOptions{
			TaskID: "check_match", Model: "m", Backend: "vllm", Receipt: "r",
			ReceiptSHA256: "415c042a917dc869258034a3601411b868f08531a5da209f18bb747087155a72", Producer: "test",
		})
		if err != nil {
			t.Fatal(err)
		}
		if f.Map.FittedOn.NCalibration != row.NCalibration {
			t.Errorf("n_calibration %d, typevet %d", f.Map.FittedOn.NCalibration, row.NCalibration)
		}
		metrics("before", f.Before, row.Before)
		metrics(string(method)+" after", f.After, want.After)
		eq(string(method)+" ece_change", f.ECEChange, want.ECEChange)
		eq(string(method)+" interval low", f.Interval.Low, want.Interval["low"])
		eq(string(method)+" interval high", f.Interval.High, want.Interval["high"])
		if f.RuleMet != want.RuleMet {
			t.Errorf("%s rule_met %v, typevet %v", method, f.RuleMet, want.RuleMet)
		}
		p := f.Map.Parameters
		switch method {
		case Temperature:
			eq("temperature", p.Temperature, want.Params["temperature"])
		case Platt:
			eq("slope", p.Slope, want.Params["slope"])
			eq("intercept", p.Intercept, want.Params["intercept"])
		default:
			steps := map[float64]bool{}
			for _, v := range p.Values {
				steps[v] = true
			}
			if float64(len(p.Knots)) != want.Params["knots"] || float64(len(steps)) != want.Params["steps"] {
				t.Errorf("isotonic %d knots %d steps, typevet %v", len(p.Knots), len(steps), want.Params)
			}
		}
	}
}
