package view

import (
	"fmt"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/stats"
)

// This file is the viewer's use of package checkmatch/stats: every interval
// and test on the pages is computed there.

// intervals are one receipt's statistics, or the error that prevented them.
type intervals struct {
	doc   stats.Intervals
	err   error
	level float64
}

// receiptIntervals computes the intervals document of r.
func receiptIntervals(r checkmatch.Receipt, opts stats.Options) intervals {
	doc, err := stats.ReceiptIntervals(r, opts)
	return intervals{doc: doc, err: err, level: doc.Level}
}

// proportionText writes a Wilson interval: "95% Wilson [87.4%, 96.1%]";
// "" when the share has no cases.
func proportionText(p stats.Proportion, level float64) string {
	if p.Low == nil || p.High == nil {
		return ""
	}
	return fmt.Sprintf("%s Wilson [%s, %s]", levelText(level), pct(*p.Low), pct(*p.High))
}

// estimateText writes a bootstrap interval: "95% bootstrap [0.012, 0.034]".
func estimateText(e stats.Estimate, level float64, resamples int) string {
	if e.Low == nil || e.High == nil {
		return ""
	}
	s := fmt.Sprintf("%s bootstrap [%.3f, %.3f]", levelText(level), *e.Low, *e.High)
	if e.Defined < resamples {
		s += fmt.Sprintf(" (%d of %d resamples defined)", e.Defined, resamples)
	}
	return s
}

// wilsonText is the Wilson interval of k of n, for a share the intervals
// document does not hold (Noul–Choice agreement).
func wilsonText(k, n int, level float64) string {
	p, err := stats.NewProportion(k, n, level)
	if err != nil {
		return ""
	}
	return proportionText(p, level)
}

func levelText(level float64) string {
	return fmt.Sprintf("%g%%", 100*level)
}

// noul returns the named Noul's intervals, if the document has them.
func (iv intervals) noul(name string) (stats.NoulIntervals, bool) {
	for _, e := range iv.doc.Nouls {
		if e.Name == name {
			return e.Value, true
		}
	}
	return stats.NoulIntervals{}, false
}

// variant returns the named variant's shares, if the document has them.
func (iv intervals) variant(name string) (stats.Rates, bool) {
	for _, e := range iv.doc.ByVariant {
		if e.Name == name {
			return e.Value, true
		}
	}
	return stats.Rates{}, false
}

// note says how the page's intervals were made, or why there are none.
func (iv intervals) note() string {
	if iv.err != nil {
		return "No intervals: " + iv.err.Error() + "."
	}
	b := iv.doc.Bootstrap
	if iv.doc.Cluster == stats.ClusterRegisterRow {
		return fmt.Sprintf("Intervals take register rows as independent and the seven cases of a row as possibly correlated. Shares: %s Wilson score intervals at the Korn–Graubard effective sample size. ROC-AUC and ECE: percentile bootstrap over %d resamples drawing whole rows (seed %d, %d rows); package checkmatch/stats.", levelText(iv.level), b.Resamples, b.Seed, b.Units)
	}
	return fmt.Sprintf("Intervals take every case as independent. Shares: %s Wilson score intervals. ROC-AUC and ECE: percentile bootstrap over %d resamples drawing single cases (seed %d); package checkmatch/stats.", levelText(iv.level), b.Resamples, b.Seed)
}
