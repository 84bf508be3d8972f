package view

import (
	"github.com/typevet/typevet-go/calibration"
	"github.com/typevet/typevet-go/checkmatch"
)

// calibratedReliability returns the reliability diagrams of a calibrated
// run: each mapped Noul's diagram on the raw confidences of its records,
// then on the receipt's calibrated ones; an unmapped Noul keeps its one
// diagram. The records were checked against the receipt by Build.
func calibratedReliability(r checkmatch.Receipt, s *calibration.Sidecar, charts []reliabilityChart) []reliabilityChart {
	raw := r
	raw.Cases = append([]checkmatch.CaseRecord(nil), r.Cases...)
	byID := make(map[string][]calibration.Record, len(raw.Cases))
	for _, c := range s.Cases() {
		byID[c.CaseID] = c.Records
	}
	mapped := map[string]bool{}
	for i := range raw.Cases {
		c := &raw.Cases[i]
		for _, rec := range byID[c.CaseID] {
			switch rec.Question {
			case "payee_matches":
				c.PayeeConfidence, mapped[rec.Question] = rec.Raw, true
			case "amounts_match":
				c.AmountsConfidence, mapped[rec.Question] = rec.Raw, true
			}
		}
	}
	m, err := raw.Recompute()
	if err != nil {
		return charts
	}
	rawCharts := map[string]reliabilityChart{
		"payee_matches": reliability("payee_matches-raw", "raw P(payee matches)", m.Nouls.PayeeMatches),
		"amounts_match": reliability("amounts_match-raw", "raw P(amounts match)", m.Nouls.AmountsMatch),
	}
	var out []reliabilityChart
	for _, ch := range charts {
		if mapped[ch.Name] {
			rc := rawCharts[ch.Name]
			rc.Name = ch.Name + " raw"
			ch.Name += " calibrated"
			ch.Axis = "calibrated " + ch.Axis
			out = append(out, rc)
		}
		out = append(out, ch)
	}
	return out
}
