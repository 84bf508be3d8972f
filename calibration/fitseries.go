package calibration

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
)

// FitOptions name the run a map is fitted for; they become the map's
// fitted_on and producer.
type FitOptions struct {
	// TaskID is the caller-defined task the map belongs to (required).
	TaskID string
	// Model and Backend are the source receipt's model id and serving
	// backend (required): the wrapper refuses the map for any other.
	Model, Backend string
	// Receipt is the source receipt's path or name, and ReceiptSHA256 the
	// lower-case hex SHA-256 of its bytes (both required).
	Receipt, ReceiptSHA256 string
	// Producer is written as the map's producer.typevet_evals, the version
	// of what fitted it (required).
	Producer string
	// Resamples is the bootstrap's resample count; 0 means
	// BootstrapResamples, a negative count skips the interval.
	Resamples int
}

// Fitted is one method fitted on one series: the map to write and the
// figures of the evaluation half.
type Fitted struct {
	// Series is the series' name.
	Series string
	// Method is the fitted method.
	Method Method
	// Err is why the fit could not be made ([FitAll]); nil otherwise.
	Err error
	// Map is the map document, fitted_on and evaluation filled in.
	Map *Map
	// Before and After are the evaluation-half metrics.
	Before, After Metrics
	// ECEChange is After.ECE - Before.ECE.
	ECEChange float64
	// Interval is the bootstrap interval of ECEChange (zero when skipped).
	Interval Interval
	// RuleMet is the pre-registered rule's outcome.
	RuleMet bool
	// DebiasedBefore and DebiasedAfter are the debiased L2 calibration
	// errors of the evaluation half ([DebiasedECE]); not part of typevet's
	// study or map.
	DebiasedBefore, DebiasedAfter float64
}

// ErrEmptyHalf is returned when one half of the split has no rows.
var ErrEmptyHalf = errors.New("calibration: each half of the split needs at least one row")

// FitSeries fits one method on the calibration half of s and measures the
// evaluation half before and after, as typevet's calibration_map_artifact
// does, and adds the bootstrap interval of the ECE change and the
// debiased calibration errors.
func FitSeries(s Series, method Method, opts FitOptions) (*Fitted, error) {
	for _, f := range []struct{ name, v string }{
		{"TaskID", opts.TaskID}, {"Model", opts.Model}, {"Backend", opts.Backend},
		{"Receipt", opts.Receipt}, {"Producer", opts.Producer},
	} {
		if f.v == "" {
			return nil, errors.New("calibration: FitOptions." + f.name + " is empty")
		}
	}
	digest, err := NormalizeSHA256(opts.ReceiptSHA256)
	if err != nil {
		return nil, errors.New("calibration: FitOptions.ReceiptSHA256 is not a SHA-256 hex digest")
	}
	cp, cy, ep, ey := s.halves()
	if len(cp) == 0 || len(ep) == 0 {
		return nil, ErrEmptyHalf
	}
	c, err := Fit(method, cp, cy)
	if err != nil {
		return nil, err
	}
	after := make([]float64, len(ep))
	for i, p := range ep {
		after[i] = c.Apply(p)
	}
	f := &Fitted{Series: s.Name, Method: method, Before: Measure(ep, ey), After: Measure(after, ey)}
	f.ECEChange = f.After.ECE - f.Before.ECE
	f.RuleMet = RuleMet(f.Before, f.After)
	resamples := opts.Resamples
	if resamples == 0 {
		resamples = BootstrapResamples
	}
	if resamples > 0 {
		f.Interval = BootstrapECEChange(ep, ey, c, resamples)
	}
	f.DebiasedBefore, f.DebiasedAfter = DebiasedECE(ep, ey), DebiasedECE(after, ey)
	rule := f.RuleMet
	f.Map = &Map{
		Method:     method,
		Parameters: c.Parameters,
		FittedOn: FittedOn{
			TaskID: opts.TaskID, Receipt: opts.Receipt, ReceiptSHA256: digest,
			NCalibration: len(cp), Model: opts.Model, Backend: opts.Backend,
		},
		Evaluation: Evaluation{NEvaluation: len(ep), Before: f.Before, After: f.After, RuleMet: &rule},
		Producer:   opts.Producer,
		Levels:     s.Levels,
	}
	return f, nil
}

// DebiasedECE is the debiased estimate of the L2 calibration error over
// the same 10 equal-width bins (Kumar, Liang and Ma, "Verified Uncertainty
// Calibration", 2019): the square root of
//
//	Σ_b (n_b/n) · [ (ȳ_b − p̄_b)² − ȳ_b(1 − ȳ_b)/(n_b − 1) ]
//
// clamped at 0, skipping bins of one row. The binned ECE typevet reports
// (and its bootstrap interval) is biased upward on small halves: a
// perfectly calibrated judge scores about 0.08 on 70 rows. The subtracted
// term removes the label noise each bin's gap carries, so this estimate
// sits near 0 for a calibrated judge. It is not part of typevet's study
// and appears nowhere in a map file.
func DebiasedECE(ps []float64, labels []bool) float64 {
	if len(ps) == 0 {
		return 0
	}
	var sum, cnt, pos [eceBins]float64
	for i, p := range ps {
		b := min(int(p*eceBins), eceBins-1)
		sum[b] += p
		cnt[b]++
		if labels[i] {
			pos[b]++
		}
	}
	total := 0.0
	for b := range eceBins {
		if cnt[b] < 2 {
			continue
		}
		y, p := pos[b]/cnt[b], sum[b]/cnt[b]
		total += cnt[b] / float64(len(ps)) * ((y-p)*(y-p) - y*(1-y)/(cnt[b]-1))
	}
	return math.Sqrt(max(total, 0))
}

// FitAll fits each method on each series of one input ([ReadSeries]) and
// returns the fits in series order, then method order. A fit that cannot
// be made (an empty half, a singular Platt fit) is returned with its Err
// set and no Map, and the others go on. opts.Model and opts.Backend
// default to what a receipt says; a series file has neither, so the
// caller must set them.
func FitAll(data []byte, name string, methods []Method, opts FitOptions) ([]*Fitted, error) {
	series, src, err := ReadSeries(data, name)
	if err != nil {
		return nil, err
	}
	if opts.Model == "" {
		opts.Model = src.Model
	}
	if opts.Backend == "" {
		opts.Backend = src.Backend
	}
	if opts.ReceiptSHA256 == "" {
		sum := sha256.Sum256(data)
		opts.ReceiptSHA256 = hex.EncodeToString(sum[:])
	}
	var out []*Fitted
	for _, s := range series {
		for _, m := range methods {
			f, err := FitSeries(s, m, opts)
			if err != nil {
				var me *MapError
				if !errors.Is(err, ErrEmptyHalf) && !errors.Is(err, ErrSingular) && !errors.As(err, &me) {
					return nil, err // the options are wrong: no fit can be made
				}
				f = &Fitted{Series: s.Name, Method: m, Err: err}
			}
			out = append(out, f)
		}
	}
	return out, nil
}
