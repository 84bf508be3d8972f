package repeats

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/internal/resample"
)

// repeatLevel is the level of the pooled accuracy interval, drawn
// 10,000 times under seed 0.
const repeatLevel = 0.95

// AccuracyInterval is the pooled accuracy interval of a repeat study:
// its fields, in order, are the block's keys.
type AccuracyInterval struct {
	// Low and High bound the 95% percentile interval of the resampled
	// accuracy.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Level is 0.95.
	Level float64 `json:"level"`
	// Resamples is 10,000.
	Resamples int `json:"resamples"`
	// Seed is seed 0.
	Seed int `json:"seed"`
	// Rows is the number of pooled case rows.
	Rows int `json:"rows"`
}

// pooledAccuracyInterval resamples the pooled case rows of the receipts:
// one row per case of every receipt (receipt order, then case
// order), 1 when the case is correct, else 0. Each of 10,000
// resamples draws the rows at resample_indices(rows, 0, b) and
// takes their share; the interval is typevet's percentile_interval of the shares at
// repeatLevel (ranks 250 and 9,749).
//
// For 5 receipts of 140 cases that is 7 million SHA-256 draws. They are
// made once, spread over GOMAXPROCS goroutines, without allocation per
// draw; the result does not depend on the schedule. The share is the count
// of correct rows over the row count, which is what math.fsum of the 0/1
// rows divided by n gives in Python. No rows is an error.
func pooledAccuracyInterval(receipts []checkmatch.Receipt) (AccuracyInterval, error) {
	var rows []bool
	for _, r := range receipts {
		for _, c := range r.Cases {
			rows = append(rows, c.Correct)
		}
	}
	if len(rows) == 0 {
		return AccuracyInterval{}, errors.New("pooled accuracy interval needs at least one case")
	}
	n := len(rows)
	shares := make([]float64, resample.Resamples)
	resample.ForEach(n, resample.Seed, resample.Resamples, func() func(int, []int) {
		return func(b int, idx []int) {
			k := 0
			for _, i := range idx {
				if rows[i] {
					k++
				}
			}
			shares[b] = float64(k) / float64(n)
		}
	})
	lo, hi, err := resample.PercentileInterval(shares, repeatLevel)
	if err != nil {
		return AccuracyInterval{}, err
	}
	return AccuracyInterval{Low: lo, High: hi, Level: repeatLevel, Resamples: resample.Resamples, Seed: resample.Seed, Rows: n}, nil
}

// caseTables returns, per receipt, case id → record, and the first
// receipt's case ids in order. Every receipt must have the same set of
// case ids.
func caseTables(receipts []checkmatch.Receipt) ([]map[string]*checkmatch.CaseRecord, []string, error) {
	if len(receipts) == 0 {
		return nil, nil, errors.New("need at least one receipt")
	}
	tables := make([]map[string]*checkmatch.CaseRecord, len(receipts))
	for i, r := range receipts {
		t := make(map[string]*checkmatch.CaseRecord, len(r.Cases))
		for j := range r.Cases {
			t[r.Cases[j].CaseID] = &r.Cases[j]
		}
		tables[i] = t
	}
	var ids []string
	for _, c := range receipts[0].Cases {
		ids = append(ids, c.CaseID)
	}
	for _, t := range tables[1:] {
		if len(t) != len(tables[0]) {
			return nil, nil, errors.New("case ids differ between the receipts")
		}
		for id := range tables[0] {
			if t[id] == nil {
				return nil, nil, errors.New("case ids differ between the receipts")
			}
		}
	}
	return tables, ids, nil
}

// caseAgreement returns the share of cases whose verdict is the same in
// every receipt. The receipts must hold the same set of case
// ids ("case ids differ between the receipts") and at least one case.
func caseAgreement(receipts []checkmatch.Receipt) (float64, error) {
	tables, ids, err := caseTables(receipts)
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, errors.New("agreement needs at least one case")
	}
	same := 0
	for _, id := range ids {
		v := tables[0][id].Verdict
		all := true
		for _, t := range tables[1:] {
			if t[id].Verdict != v {
				all = false
				break
			}
		}
		if all {
			same++
		}
	}
	return float64(same) / float64(len(ids)), nil
}

// MaxProbabilityDifference returns the largest change of any recorded
// probability between the receipts: for each case and each of
// payee_confidence, amounts_confidence, every verdict_probabilities label
// and every legibility_probabilities level (names from the first receipt),
// the maximum minus the minimum over the receipts; 0.0 when there is
// nothing to compare. 0.0 means the runs are bit-equal in every
// probability. A label or level of the first receipt missing from another
// is an error naming the case; as in typevet's max_probability_difference,
// levels a sparse legibility_probabilities of the first receipt does not
// record (NaN, see [checkmatch.ByLevel]) are not compared, and another receipt's extra
// labels and levels are ignored.
func MaxProbabilityDifference(receipts []checkmatch.Receipt) (float64, error) {
	tables, ids, err := caseTables(receipts)
	if err != nil {
		return 0, err
	}
	worst := 0.0
	values := make([]float64, len(receipts))
	spread := func() float64 { return slices.Max(values) - slices.Min(values) }
	for _, id := range ids {
		first := tables[0][id]
		for i, t := range tables {
			values[i] = t[id].PayeeConfidence
		}
		worst = max(worst, spread())
		for i, t := range tables {
			values[i] = t[id].AmountsConfidence
		}
		worst = max(worst, spread())
		for _, p := range first.VerdictProbabilities {
			for i, t := range tables {
				v, ok := t[id].VerdictProbabilities.Get(p.Label)
				if !ok {
					return 0, fmt.Errorf("case %s: run %d has no verdict probability %q", id, i, p.Label)
				}
				values[i] = v
			}
			worst = max(worst, spread())
		}
		for level, p := range first.LegibilityProbabilities {
			if math.IsNaN(p) {
				continue // a level a sparse first receipt did not record
			}
			for i, t := range tables {
				lp := t[id].LegibilityProbabilities
				if level >= len(lp) || math.IsNaN(lp[level]) {
					return 0, fmt.Errorf("case %s: run %d has no legibility probability %d", id, i, level)
				}
				values[i] = lp[level]
			}
			worst = max(worst, spread())
		}
	}
	return worst, nil
}
