package stats

import (
	"fmt"
	"math"
	"slices"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/internal/pymath"
)

// LogLossEpsilon clips confidences to [ε, 1 − ε] in [LogLoss], so that a
// confident wrong answer (a confidence of exactly 0 or 1 on the wrong side)
// costs −ln ε ≈ 34.5 instead of +Inf.
const LogLossEpsilon = 1e-15

// Brier returns the Brier score of confidences against the truth: the mean
// of (p − y)² with y 1 for true and 0 for false (Python's sum of the
// squares over their number, as typevet sums). 0 is perfect, 0.25 is a
// constant 0.5. The lengths must be equal and at least 1, and every
// confidence in [0, 1].
func Brier(confidences []float64, truth []bool) (float64, error) {
	if err := checkScores(confidences, truth); err != nil {
		return 0, err
	}
	terms := make([]float64, len(confidences))
	for i, p := range confidences {
		d := p - indicator(truth[i])
		terms[i] = d * d
	}
	return pymath.Sum(terms) / float64(len(terms)), nil
}

// LogLoss returns the mean negative log-likelihood (natural log) of the
// truth under the confidences: the mean of −ln p for true cases and
// −ln(1 − p) for false ones, p clipped to [[LogLossEpsilon], 1 −
// LogLossEpsilon]. ln 2 ≈ 0.693 is a constant 0.5. The inputs are checked
// as [Brier]'s.
func LogLoss(confidences []float64, truth []bool) (float64, error) {
	if err := checkScores(confidences, truth); err != nil {
		return 0, err
	}
	terms := make([]float64, len(confidences))
	for i, p := range confidences {
		p = min(max(p, LogLossEpsilon), 1-LogLossEpsilon)
		if truth[i] {
			terms[i] = -math.Log(p)
		} else {
			terms[i] = -math.Log1p(-p)
		}
	}
	return pymath.Sum(terms) / float64(len(terms)), nil
}

func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func checkScores(confidences []float64, truth []bool) error {
	if len(confidences) != len(truth) {
		return &checkmatch.LengthError{A: len(confidences), B: len(truth)}
	}
	if len(confidences) == 0 {
		return fmt.Errorf("a score needs at least one case")
	}
	for _, p := range confidences {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("confidence %g is not in [0, 1]", p)
		}
	}
	return nil
}

// nouls lists the two Nouls of a check-match receipt, in typevet's order,
// with the record fields they score.
var nouls = []struct {
	name  string
	conf  func(*checkmatch.CaseRecord) float64
	truth func(*checkmatch.CaseRecord) bool
}{
	{checkmatch.QuestionPayeeMatches, func(r *checkmatch.CaseRecord) float64 { return r.PayeeConfidence }, func(r *checkmatch.CaseRecord) bool { return r.PayeeTruth }},
	{checkmatch.QuestionAmountsMatch, func(r *checkmatch.CaseRecord) float64 { return r.AmountsConfidence }, func(r *checkmatch.CaseRecord) bool { return r.AmountsTruth }},
}

// facts are what the proportions need of one record.
type facts struct {
	correct, countsFalseClear, falseClear, cannotTell bool
	variant, class, row                               string
}

// recordFacts derives the facts of each record: correct as recorded (the
// receipt's own metrics use it), counted for false clear when its variant
// counts and "consistent" is not accepted (as
// checkmatch.MetricsBlock.FalseClearRate counts). An unknown variant is an
// error naming the case.
func recordFacts(records []checkmatch.CaseRecord) ([]facts, error) {
	out := make([]facts, len(records))
	for i := range records {
		r := &records[i]
		v, err := checkmatch.ParseVariant(string(r.Variant))
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", r.CaseID, err)
		}
		row, err := RegisterRow(r.CaseID)
		if err != nil {
			return nil, err
		}
		counts := checkmatch.ExpectedLabels(v).CountsForFalseClear && !slices.Contains(r.ExpectedVerdicts, checkmatch.VerdictConsistent)
		out[i] = facts{
			correct:          r.Correct,
			countsFalseClear: counts,
			falseClear:       counts && r.Verdict == checkmatch.VerdictConsistent,
			cannotTell:       r.Verdict == checkmatch.VerdictCannotTell,
			variant:          string(v),
			row:              row,
			class:            checkmatch.ClassKey(checkmatch.Expected{Verdicts: r.ExpectedVerdicts}),
		}
	}
	return out, nil
}

// shares are the three headline counts over some positions.
type shares struct{ n, right, counted, cleared, cannotTell int }

func countShares(fs []facts, idx []int) shares {
	var s shares
	for _, i := range idx {
		f := &fs[i]
		s.n++
		if f.correct {
			s.right++
		}
		if f.countsFalseClear {
			s.counted++
			if f.falseClear {
				s.cleared++
			}
		}
		if f.cannotTell {
			s.cannotTell++
		}
	}
	return s
}

func (s shares) accuracy() *float64   { return ratio(s.right, s.n) }
func (s shares) falseClear() *float64 { return ratio(s.cleared, s.counted) }

func ratio(k, n int) *float64 {
	if n == 0 {
		return nil
	}
	r := float64(k) / float64(n)
	return &r
}

// noulScorer computes one Noul's ROC-AUC and ECE over positions into its
// records (which repeat as a resample drew them), equal bit for bit to
// checkmatch.SummarizeNoul over the drawn confidences in draw order, but
// without sorting or allocating per resample: each worker keeps one.
//
// ROC-AUC: the cases are grouped once by equal confidence, ascending. A
// group drawn m times, t of them true, starting after `start` drawn
// values, holds average rank start + (m+1)/2, so twice the true rank sum
// is Σ t·(2·start + m + 1), an exact integer. SummarizeNoul's rank sum is
// a sum of half-integers, exact too, so U and the AUC are the same float.
//
// ECE: the drawn confidences are collected per bin in draw order and
// summed with the same Python sum (internal/pymath) SummarizeNoul uses.
type noulScorer struct {
	conf   []float64
	truth  []bool
	groups [][]int // case positions of equal confidence, ascending
	counts []int   // draws per case position in this resample
	bins   [checkmatch.ReliabilityBins][]float64
	trues  [checkmatch.ReliabilityBins]int
	terms  []float64
}

// newNoulScorer prepares the scorer of Noul n over records.
func newNoulScorer(records []checkmatch.CaseRecord, n int) *noulScorer {
	conf, truth := noulValues(records, n)
	order := all(len(conf))
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case conf[a] < conf[b]:
			return -1
		case conf[a] > conf[b]:
			return 1
		}
		return 0
	})
	var groups [][]int
	for k, i := range order {
		if k == 0 || conf[i] != conf[order[k-1]] {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], i)
	}
	return &noulScorer{conf: conf, truth: truth, groups: groups, counts: make([]int, len(conf))}
}

// score returns the ROC-AUC (nil without positives or negatives) and the
// ECE (nil without draws) over the drawn positions idx.
func (s *noulScorer) score(idx []int) (auc, ece *float64) {
	if len(idx) == 0 {
		return nil, nil
	}
	clear(s.counts)
	for b := range s.bins {
		s.bins[b] = s.bins[b][:0]
		s.trues[b] = 0
	}
	for _, i := range idx {
		s.counts[i]++
		p := s.conf[i]
		b := min(int(float64(p*10)), checkmatch.ReliabilityBins-1) // as checkmatch bins
		s.bins[b] = append(s.bins[b], p)
		if s.truth[i] {
			s.trues[b]++
		}
	}
	start, pos, twice := 0, 0, 0
	for _, g := range s.groups {
		m, t := 0, 0
		for _, i := range g {
			m += s.counts[i]
			if s.truth[i] {
				t += s.counts[i]
			}
		}
		twice += t * (2*start + m + 1)
		pos += t
		start += m
	}
	if neg := len(idx) - pos; pos > 0 && neg > 0 {
		u := float64(twice)/2 - float64(pos*(pos+1))/2
		a := u / float64(pos*neg)
		auc = &a
	}
	s.terms = s.terms[:0]
	for b, members := range s.bins {
		if len(members) == 0 {
			continue
		}
		mean := pymath.Sum(members) / float64(len(members))
		frac := float64(s.trues[b]) / float64(len(members))
		s.terms = append(s.terms, float64(float64(len(members))*math.Abs(mean-frac)))
	}
	e := pymath.Sum(s.terms) / float64(len(idx))
	return auc, &e
}

// scorers returns one scorer per Noul over records.
func scorers(records []checkmatch.CaseRecord) []*noulScorer {
	out := make([]*noulScorer, len(nouls))
	for n := range nouls {
		out[n] = newNoulScorer(records, n)
	}
	return out
}

// checkConfidences refuses a record whose Noul confidence is outside
// [0, 1], naming the case and field.
func checkConfidences(records []checkmatch.CaseRecord) error {
	for i := range records {
		for _, n := range nouls {
			if p := n.conf(&records[i]); !(p >= 0 && p <= 1) {
				return fmt.Errorf("case %s: %s confidence %g is not in [0, 1]", records[i].CaseID, n.name, p)
			}
		}
	}
	return nil
}
