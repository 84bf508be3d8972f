package stats

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/calibration"
	"github.com/typevet/typevet-go/checkmatch"
)

// calibratedFixture is a calibrated run of the reader backend (6 rows,
// seed 0) through examples/checkmatch: payee_matches through a
// temperature map and amounts_match through a Platt map, both fitted by
// examples/calibrate on a 20-row reader receipt. The records document
// beside it is the one the run wrote.
const calibratedFixture = "testdata/calibrated_reader.json"

func readCalibrated(t *testing.T) (checkmatch.Receipt, *calibration.Sidecar) {
	t.Helper()
	raw, err := os.ReadFile(calibratedFixture)
	require.NoError(t, err)
	r, err := checkmatch.ReadReceipt(bytes.NewReader(raw))
	require.NoError(t, err)
	side, err := os.ReadFile(calibratedFixture + ".calibration.json")
	require.NoError(t, err)
	s, err := calibration.ReadSidecar(side)
	require.NoError(t, err)
	return r, s
}

// TestReceiptCalibration checks the raw and calibrated figures against
// values computed from the two files by an independent Python script
// (10 bins by min(int(p*10), 9), the Kumar et al. debiased L2 estimate,
// the mean squared error, the share read right at 0.5).
func TestReceiptCalibration(t *testing.T) {
	r, s := readCalibrated(t)
	got, err := ReceiptCalibration(r, s)
	require.NoError(t, err)
	want := []struct {
		name, method string
		raw, cal     CalibrationScores
	}{
		{"payee_matches", "temperature",
			CalibrationScores{ECE: 0.076209179232, DebiasedECE: 0.189066870735, Brier: 0.03574628161, Accuracy: 1},
			CalibrationScores{ECE: 0.071429428571, DebiasedECE: 0.188982236507, Brier: 0.035714285715, Accuracy: 1}},
		{"amounts_match", "platt",
			CalibrationScores{ECE: 0.075253057671, DebiasedECE: 0.18904994692, Brier: 0.035739882431, Accuracy: 1},
			CalibrationScores{ECE: 1e-06, DebiasedECE: 1e-06, Brier: 1e-12, Accuracy: 1}},
	}
	require.Len(t, got.Questions, len(want))
	assert.Equal(t, []string{}, got.Unscored)
	for i, w := range want {
		q := got.Questions[i]
		assert.Equal(t, w.name, q.Name)
		assert.Equal(t, w.method, q.Value.Method)
		assert.Equal(t, len(r.Cases), q.Value.N)
		assert.Equal(t, s.Maps[i].SHA256, q.Value.MapSHA256)
		for _, side := range []struct {
			label     string
			got, want CalibrationScores
		}{{"raw", q.Value.Raw, w.raw}, {"calibrated", q.Value.Calibrated, w.cal}} {
			assert.InDelta(t, side.want.ECE, side.got.ECE, 1e-11, "%s %s ece", w.name, side.label)
			assert.InDelta(t, side.want.DebiasedECE, side.got.DebiasedECE, 1e-11, "%s %s debiased", w.name, side.label)
			assert.InDelta(t, side.want.Brier, side.got.Brier, 1e-11, "%s %s brier", w.name, side.label)
			assert.Equal(t, side.want.Accuracy, side.got.Accuracy, "%s %s accuracy", w.name, side.label)
		}
	}
	// The calibrated column is the receipt's: its ECE is the receipt's.
	for i, n := range []checkmatch.NoulSummary{r.Metrics.Nouls.PayeeMatches, r.Metrics.Nouls.AmountsMatch} {
		if n.ECE != nil {
			assert.InDelta(t, *n.ECE, got.Questions[i].Value.Calibrated.ECE, 1e-15, got.Questions[i].Name)
		}
	}

	// The document carries it under "calibration"; without it the key is
	// absent.
	doc, err := ReceiptIntervals(r, Options{Resamples: 10})
	require.NoError(t, err)
	plain, err := Marshal(doc)
	require.NoError(t, err)
	assert.NotContains(t, string(plain), `"calibration"`)
	doc.Calibration = &got
	withCal, err := Marshal(doc)
	require.NoError(t, err)
	assert.Contains(t, string(withCal), `"calibration": {`)
	back, err := ReadIntervals(bytes.NewReader(withCal))
	require.NoError(t, err)
	require.NotNil(t, back.Calibration)
	assert.Equal(t, got, *back.Calibration)
}

// TestReceiptCalibrationRefusesOtherRecords refuses records that are not
// the receipt's, naming what differs.
func TestReceiptCalibrationRefusesOtherRecords(t *testing.T) {
	tests := []struct {
		name string
		edit func(r *checkmatch.Receipt, s *calibration.Sidecar) *calibration.Sidecar
		want string
	}{
		{"model", func(_ *checkmatch.Receipt, s *calibration.Sidecar) *calibration.Sidecar { s.Model = "other"; return s }, `model "other"`},
		{"backend", func(_ *checkmatch.Receipt, s *calibration.Sidecar) *calibration.Sidecar { s.Backend = "vllm"; return s }, `backend "vllm"`},
		{"fewer cases", func(r *checkmatch.Receipt, s *calibration.Sidecar) *calibration.Sidecar {
			r.Cases = r.Cases[:len(r.Cases)-1]
			return s
		}, "42 cases, the receipt has 41"},
		{"another case", func(r *checkmatch.Receipt, s *calibration.Sidecar) *calibration.Sidecar {
			r.Cases[3].CaseID = "r99:clean"
			return s
		}, `no record for case "r99:clean"`},
		{"raw receipt", func(r *checkmatch.Receipt, s *calibration.Sidecar) *calibration.Sidecar {
			r.Cases[0].AmountsConfidence = 0.5
			return s
		}, `case "r00:clean" amounts_match: calibrated value`},
		{"duplicate case", func(_ *checkmatch.Receipt, s *calibration.Sidecar) *calibration.Sidecar {
			c := s.Cases()
			t := &calibration.Sidecar{TaskID: s.TaskID, Backend: s.Backend, Model: s.Model, Maps: s.Maps}
			for _, x := range append(c, c[0]) {
				t.Add(x.CaseID, x.Records)
			}
			return t
		}, `case "r00:clean" appears twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, s := readCalibrated(t)
			s = tt.edit(&r, s)
			_, err := ReceiptCalibration(r, s)
			require.Error(t, err)
			assert.True(t, strings.Contains(err.Error(), tt.want), "error %q lacks %q", err, tt.want)
		})
	}
}
