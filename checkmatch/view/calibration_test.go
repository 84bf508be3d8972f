package view_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/calibration"
	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/view"
)

// calibratedInput reads a calibrated reader run (6 rows; payee_matches
// through a temperature map, amounts_match through a Platt map) and the
// calibration records it wrote beside its receipt.
func calibratedInput(t *testing.T) view.Input {
	t.Helper()
	raw, err := os.ReadFile("testdata/calibrated_reader.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := checkmatch.ReadReceipt(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	side, err := os.ReadFile("testdata/calibrated_reader.json.calibration.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := calibration.ReadSidecar(side)
	if err != nil {
		t.Fatal(err)
	}
	return view.Input{Name: "calibrated_reader.json", Receipt: r, Calibration: s}
}

// TestCalibratedReliability draws each mapped Noul's reliability diagram
// raw, then calibrated; the ECEs are those of the raw records and of the
// receipt (examples/stats prints the same: 0.076 → 0.071, 0.075 → 0.000).
func TestCalibratedReliability(t *testing.T) {
	if raceEnabled {
		t.Skip("renders 42 checks: too slow under the race detector")
	}
	in := calibratedInput(t)
	html := page(t, build(t, fast, in), "index.html")
	order := []string{
		"Reliability of <code>payee_matches raw</code>, ECE 0.076",
		"Reliability of <code>payee_matches calibrated</code>, ECE 0.071",
		"Reliability of <code>amounts_match raw</code>, ECE 0.075",
		"Reliability of <code>amounts_match calibrated</code>, ECE 0.000",
	}
	at := -1
	for _, want := range order {
		i := strings.Index(html, want)
		if i < 0 {
			t.Fatalf("the page lacks %q", want)
		}
		if i < at {
			t.Errorf("%q is out of order", want)
		}
		at = i
	}
	if n := strings.Count(html, "<title id=\"rel-"); n != 4 {
		t.Errorf("%d reliability diagrams, want 4", n)
	}

	// Without records: one diagram per Noul, as before.
	in.Calibration = nil
	plain := page(t, build(t, fast, in), "index.html")
	if strings.Contains(plain, " raw</code>") || strings.Count(plain, "<title id=\"rel-") != 2 {
		t.Error("a receipt without records shows raw diagrams")
	}
}

// TestCalibratedRecordsOfAnotherRun refuses records that are not the
// receipt's.
func TestCalibratedRecordsOfAnotherRun(t *testing.T) {
	in := calibratedInput(t)
	in.Calibration.Model = "other"
	_, err := view.Build([]view.Input{in}, fast)
	if err == nil || !strings.Contains(err.Error(), `model "other"`) {
		t.Fatalf("err = %v, want a refusal naming the records' model", err)
	}
}
