package stats

import (
	"fmt"

	"github.com/typevet/typevet-go/calibration"
	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/receipt"
)

// Calibration scores a calibrated run's mapped Noul questions twice: on
// the raw confidences the judge returned (kept in the run's calibration
// records, [calibration.Sidecar]) and on the calibrated confidences the
// receipt holds, both against the receipt's truth columns.
type Calibration struct {
	// Records names the calibration records document.
	Records RecordsSource `json:"records"`
	// Questions holds one entry per mapped Noul question, payee_matches
	// then amounts_match, for those the run mapped.
	Questions receipt.Ordered[CalibratedQuestion] `json:"questions"`
	// Unscored lists the mapped questions the receipt has no gold label
	// for (legibility, a Score question), in the records' order; their
	// raw and calibrated values are in the records only.
	Unscored []string `json:"unscored"`
}

// RecordsSource names a calibration records document.
type RecordsSource struct {
	// Path is the file as it was read ("" when not from a file).
	Path string `json:"path"`
	// SHA256 is the lower-case hex SHA-256 of its bytes ("" when not
	// from a file).
	SHA256 string `json:"sha256"`
}

// CalibratedQuestion is one mapped Noul question's scores before and
// after its map.
type CalibratedQuestion struct {
	// Method is the map's method ("temperature", "platt", "isotonic").
	Method string `json:"method"`
	// MapSHA256 is the SHA-256 of the map file the run applied.
	MapSHA256 string `json:"map_sha256"`
	// N is the number of scored cases.
	N int `json:"n"`
	// Raw scores the judge's raw confidences.
	Raw CalibrationScores `json:"raw"`
	// Calibrated scores the calibrated confidences (the receipt's).
	Calibrated CalibrationScores `json:"calibrated"`
}

// CalibrationScores are the calibration figures of one probability
// column against its truth column.
type CalibrationScores struct {
	// ECE is typevet's 10-bin expected calibration error
	// ([calibration.ECE]), the receipt's ece; biased upward on few cases.
	ECE float64 `json:"ece"`
	// DebiasedECE is the debiased L2 calibration error over the same bins
	// ([calibration.DebiasedECE]), near 0 for a calibrated judge whatever
	// the case count; not one of typevet's figures.
	DebiasedECE float64 `json:"debiased_ece"`
	// Brier is the mean squared error ([calibration.Brier]).
	Brier float64 `json:"brier"`
	// Accuracy is the share of cases read right at 0.5.
	Accuracy float64 `json:"accuracy"`
}

// calibratedNouls are the receipt's Noul columns a map can calibrate.
var calibratedNouls = []struct {
	question string
	conf     func(*checkmatch.CaseRecord) float64
	truth    func(*checkmatch.CaseRecord) bool
}{
	{"payee_matches", func(c *checkmatch.CaseRecord) float64 { return c.PayeeConfidence }, func(c *checkmatch.CaseRecord) bool { return c.PayeeTruth }},
	{"amounts_match", func(c *checkmatch.CaseRecord) float64 { return c.AmountsConfidence }, func(c *checkmatch.CaseRecord) bool { return c.AmountsTruth }},
}

// ReceiptCalibration pairs a calibrated run's receipt with its
// calibration records and scores each mapped Noul question raw and
// calibrated. The records must be this receipt's: the same backend and
// model, a record for every case of the receipt and none for another
// case, and each record's calibrated value equal to the receipt's
// confidence; anything else is an error naming the case and question, so
// records of another run are never scored against this receipt's truth.
func ReceiptCalibration(r checkmatch.Receipt, s *calibration.Sidecar) (Calibration, error) {
	if s.Backend != string(r.Backend) || s.Model != r.Model {
		return Calibration{}, fmt.Errorf("calibration records: they are of backend %q model %q, the receipt's run is backend %q model %q",
			s.Backend, s.Model, r.Backend, r.Model)
	}
	cases := s.Cases()
	byID := make(map[string][]calibration.Record, len(cases))
	for _, c := range cases {
		if _, dup := byID[c.CaseID]; dup {
			return Calibration{}, fmt.Errorf("calibration records: case %q appears twice", c.CaseID)
		}
		byID[c.CaseID] = c.Records
	}
	if len(r.Cases) == 0 {
		return Calibration{}, fmt.Errorf("calibration records: the receipt has no cases")
	}
	if len(byID) != len(r.Cases) {
		return Calibration{}, fmt.Errorf("calibration records: %d cases, the receipt has %d; they are not this receipt's records", len(byID), len(r.Cases))
	}
	out := Calibration{Questions: receipt.Ordered[CalibratedQuestion]{}, Unscored: []string{}}
	for _, m := range s.Maps {
		if !isCalibratedNoul(m.Question) {
			out.Unscored = append(out.Unscored, m.Question)
		}
	}
	for _, q := range calibratedNouls {
		var mapped *calibration.SidecarMap
		for i := range s.Maps {
			if s.Maps[i].Question == q.question {
				mapped = &s.Maps[i]
			}
		}
		if mapped == nil {
			continue
		}
		n := len(r.Cases)
		raw, cal, truth := make([]float64, n), make([]float64, n), make([]bool, n)
		for i := range r.Cases {
			c := &r.Cases[i]
			recs, ok := byID[c.CaseID]
			if !ok {
				return Calibration{}, fmt.Errorf("calibration records: no record for case %q; they are not this receipt's records", c.CaseID)
			}
			rec, ok := findRecord(recs, q.question)
			if !ok {
				return Calibration{}, fmt.Errorf("calibration records: case %q has no %s record", c.CaseID, q.question)
			}
			if rec.Calibrated != q.conf(c) {
				return Calibration{}, fmt.Errorf("calibration records: case %q %s: calibrated value %v, the receipt's confidence %v; they are not this receipt's records",
					c.CaseID, q.question, rec.Calibrated, q.conf(c))
			}
			if rec.MapSHA256 != mapped.SHA256 {
				return Calibration{}, fmt.Errorf("calibration records: case %q %s: map sha256 %s, the records name %s", c.CaseID, q.question, rec.MapSHA256, mapped.SHA256)
			}
			raw[i], cal[i], truth[i] = rec.Raw, rec.Calibrated, q.truth(c)
		}
		out.Questions = append(out.Questions, receipt.Entry[CalibratedQuestion]{Name: q.question, Value: CalibratedQuestion{
			Method: string(mapped.Method), MapSHA256: mapped.SHA256, N: n,
			Raw: scores(raw, truth), Calibrated: scores(cal, truth),
		}})
	}
	return out, nil
}

func isCalibratedNoul(question string) bool {
	for _, q := range calibratedNouls {
		if q.question == question {
			return true
		}
	}
	return false
}

func findRecord(recs []calibration.Record, question string) (calibration.Record, bool) {
	for _, r := range recs {
		if r.Question == question {
			return r, true
		}
	}
	return calibration.Record{}, false
}

func scores(ps []float64, truth []bool) CalibrationScores {
	m := calibration.Measure(ps, truth)
	return CalibrationScores{ECE: m.ECE, DebiasedECE: calibration.DebiasedECE(ps, truth), Brier: m.Brier, Accuracy: m.Accuracy}
}
