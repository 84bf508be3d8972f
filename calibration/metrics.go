package calibration

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"slices"
	"strconv"

	"github.com/typevet/typevet-go/internal/pymath"
)

// The pre-registered rule of typevet's #343 study and its bootstrap.
const (
	MinECEDrop         = 0.03 // ECE must drop by at least this much
	MaxAccuracyDrop    = 0.01 // accuracy may drop by at most this much
	Tolerance          = 1e-9 // float slack at the rule's boundaries
	BootstrapResamples = 1000 // resamples of the ECE-change interval
	IntervalLevel      = 0.95 // level of the percentile interval
	eceBins            = 10
)

// ECE is typevet's expected_calibration_error with 10 equal-width bins:
// the count-weighted gap between each bin's mean probability and its share
// of true labels (1.0 goes to the last bin); 0 for no rows. Sums are
// Python 3.12's.
func ECE(ps []float64, labels []bool) float64 {
	if len(ps) == 0 {
		return 0
	}
	var bins [eceBins][]float64
	var trues [eceBins]int
	for i, p := range ps {
		b := min(int(p*eceBins), eceBins-1)
		bins[b] = append(bins[b], p)
		if labels[i] {
			trues[b]++
		}
	}
	gaps := make([]float64, 0, eceBins)
	for b, items := range bins {
		if len(items) == 0 {
			continue
		}
		n := float64(len(items))
		mean := pymath.Sum(items) / n
		fraction := float64(trues[b]) / n
		gaps = append(gaps, float64(n*math.Abs(mean-fraction)))
	}
	return pymath.Sum(gaps) / float64(len(ps))
}

// Brier is the mean squared error of the probabilities against the labels:
// Python 3.12's sum of (p - y) ** 2, each square as CPython computes it
// (glibc's pow, not always the correctly rounded (p - y)·(p - y)).
func Brier(ps []float64, labels []bool) float64 {
	sq := make([]float64, len(ps))
	for i, p := range ps {
		d := p
		if labels[i] {
			d = p - 1
		} else {
			d = p - 0
		}
		sq[i] = pymath.Square(d)
	}
	return pymath.Sum(sq) / float64(len(ps))
}

// Accuracy is the share of rows whose reading at 0.5 (p >= 0.5 reads
// true) matches the label.
func Accuracy(ps []float64, labels []bool) float64 {
	right := 0
	for i, p := range ps {
		if (p >= 0.5) == labels[i] {
			right++
		}
	}
	return float64(right) / float64(len(ps))
}

// Measure returns the ECE, Brier score and accuracy of rows.
func Measure(ps []float64, labels []bool) Metrics {
	return Metrics{ECE: ECE(ps, labels), Brier: Brier(ps, labels), Accuracy: Accuracy(ps, labels)}
}

// RuleMet applies the pre-registered rule: ECE drops by at least
// MinECEDrop, the Brier score drops, and accuracy drops by at most
// MaxAccuracyDrop (each boundary with Tolerance of slack).
func RuleMet(before, after Metrics) bool {
	return before.ECE-after.ECE >= MinECEDrop-Tolerance &&
		after.Brier < before.Brier &&
		before.Accuracy-after.Accuracy <= MaxAccuracyDrop+Tolerance
}

// resampleIndices is typevet's resample_indices: position i of resample b
// is the first 8 bytes of sha256("seed:b:i"), big-endian, modulo n.
func resampleIndices(n, seed, resample int) []int {
	out := make([]int, n)
	prefix := strconv.Itoa(seed) + ":" + strconv.Itoa(resample) + ":"
	for i := range out {
		sum := sha256.Sum256([]byte(prefix + strconv.Itoa(i)))
		out[i] = int(binary.BigEndian.Uint64(sum[:8]) % uint64(n))
	}
	return out
}

// Interval is a two-sided percentile interval.
type Interval struct {
	// Low and High are its ends.
	Low, High float64
}

// percentileInterval is typevet's percentile_interval: the sorted values
// at ranks floor(round((1-level)/2·B, 9)) and ceil(round((1+level)/2·B, 9)) - 1.
func percentileInterval(values []float64, level float64) Interval {
	ordered := slices.Clone(values)
	slices.Sort(ordered)
	n := float64(len(ordered))
	lo := int(math.Floor(pymath.Round(float64((1-level)/2*n), 9)))
	hi := int(math.Ceil(pymath.Round(float64((1+level)/2*n), 9))) - 1
	return Interval{ordered[lo], ordered[min(hi, len(ordered)-1)]}
}

// BootstrapECEChange is typevet's bootstrap_ece_change: the 95%
// percentile interval of ECE after minus ECE before over resamples of the
// evaluation rows (seed 0, sha256 resampling, no random generator). It is
// an interval around the binned ECE's change, a biased estimate: it says
// how much that estimate moves under resampling, not where the true
// calibration error lies ([DebiasedECE] is the estimate to read beside it).
func BootstrapECEChange(ps []float64, labels []bool, c Calibrator, resamples int) Interval {
	after := make([]float64, len(ps))
	for i, p := range ps {
		after[i] = c.Apply(p)
	}
	changes := make([]float64, resamples)
	a, b, g := make([]float64, len(ps)), make([]float64, len(ps)), make([]bool, len(ps))
	for r := range resamples {
		for j, i := range resampleIndices(len(ps), 0, r) {
			a[j], b[j], g[j] = after[i], ps[i], labels[i]
		}
		changes[r] = ECE(a, g) - ECE(b, g)
	}
	return percentileInterval(changes, IntervalLevel)
}
