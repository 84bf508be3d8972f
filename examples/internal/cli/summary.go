package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/orderings"
	"github.com/typevet/typevet-go/checkmatch/stats"
	"github.com/typevet/typevet-go/internal/pyjson"
)

// SummaryLine writes "key value\n" to w, value as one line of JSON with
// its numbers written the way the receipt writes them: Python's float
// text (1.0, 0.0, 1e-07), not encoding/json's 1, 0, 1e-7. So a summary
// value can be compared with the receipt's text by eye. A NaN or infinite
// float is an error, as it is in a receipt.
func SummaryLine(w io.Writer, key string, value any) error {
	b, err := pyjson.Marshal(value, pyjson.Options{EnsureASCII: true, RejectNonFinite: true})
	if err != nil {
		return fmt.Errorf("summary %s: %w", key, err)
	}
	_, err = fmt.Fprintf(w, "%s %s\n", key, b)
	return err
}

// ConfidenceLine ends every check-match summary.
const ConfidenceLine = "Noul values are model confidence; generated checks are not real checks."

// RunTable writes the terminal summary of a check-match receipt written
// to path with SHA-256 sum: one short row per headline number (cases
// judged, accuracy, false-clear and cannot-tell rates with their 95%
// Wilson intervals ([stats.HeadlineRates]), each Noul's ROC-AUC
// and ECE, the worst variant, the wrong cases, wall time and judgments/s,
// where the run stopped) and the receipt's path and digest.
func RunTable(w io.Writer, path, sum string, r checkmatch.Receipt) error {
	m := r.Metrics
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, a ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, a...)...) }
	planned := r.Pins.RegisterRows * checkmatch.VariantsPerRow
	row("cases judged", "%d of %d (%s, %s)", m.Cases, planned, r.Backend, r.Model)
	// The headline shares with their 95% Wilson intervals; a receipt whose
	// records the statistics cannot read prints the shares alone.
	rates, err := stats.HeadlineRates(r.Cases, stats.DefaultLevel)
	ci := func(p stats.Proportion) string {
		if err != nil || p.Low == nil || p.High == nil {
			return ""
		}
		return fmt.Sprintf("  95%% CI [%s, %s]", rate4(p.Low), rate4(p.High))
	}
	row("accuracy", "%s%s", rate4(m.Accuracy), ci(rates.Accuracy))
	row("false-clear rate", "%s of %d mismatch and unsigned cases%s", rate4(m.FalseClearRate), m.FalseClearCases, ci(rates.FalseClearRate))
	row("cannot-tell rate", "%s%s", rate4(m.CannotTellRate), ci(rates.CannotTellRate))
	for _, n := range []struct {
		name string
		s    checkmatch.NoulSummary
	}{{"payee_matches", m.Nouls.PayeeMatches}, {"amounts_match", m.Nouls.AmountsMatch}} {
		row(n.name, "ROC-AUC %s  ECE %s", rate4(n.s.ROCAUC), rate4(n.s.ECE))
	}
	if len(m.AccuracyByVariant) > 0 {
		worst, best := m.AccuracyByVariant[0], m.AccuracyByVariant[0].Value
		for _, e := range m.AccuracyByVariant[1:] {
			if e.Value < worst.Value {
				worst = e
			}
			best = max(best, e.Value)
		}
		if worst.Value == best {
			row("worst variant", "none: every variant at accuracy %s", rate4(&best))
		} else {
			row("worst variant", "%s (accuracy %s)", worst.Name, rate4(&worst.Value))
		}
	}
	wrong := 0
	for _, c := range r.Cases {
		if !c.Correct {
			wrong++
		}
	}
	row("wrong cases", "%d", wrong)
	jps := NA
	if r.Throughput != nil {
		jps = SigOrNA(r.Throughput.JudgmentsPerSecond, 3)
	}
	row("wall time", "%.3f s (%s judgments/s)", r.WallSeconds, jps)
	if s := r.Stopped; s != nil {
		row("stopped", "at case %s (index %d, %s)", s.CaseID, s.Index, s.ErrorClass)
	}
	row("receipt", "%s", path)
	row("sha256", "%s", sum)
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, ConfidenceLine)
	return err
}

// OrderingsTable writes the terminal summary of an option-order receipt
// written to path with SHA-256 sum, as [RunTable] does for a check-match
// receipt: the cases and requests, the study's statistics (position
// spread against its limit, argmax stability, averaged and single-order
// accuracy, ordering-0 agreement), where the study stopped, and the
// receipt's path and digest.
func OrderingsTable(w io.Writer, path, sum string, r orderings.Receipt) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, a ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, a...)...) }
	row("cases scored", "%d (%d verdict requests; %s, %s)", len(r.Cases), r.Requests, r.Backend, r.Model)
	if st := r.Statistics; st != nil {
		row("position spread", "%s (limit %s)", rate4(&st.PositionSpread), rate4(&st.SpreadLimit))
		row("argmax stability", "%s", rate4(&st.ArgmaxStability))
		row("averaged accuracy", "%s (single order %s)", rate4(&st.AveragedAccuracy), rate4(&st.SingleOrderAccuracy))
		row("ordering 0 agreement", "%s (max |difference| %s)", rate4(&st.Ordering0Agreement), rate4(&st.Ordering0MaxAbsDifference))
	}
	row("wall time", "%.3f s", r.WallSeconds)
	if s := r.Stopped; s != nil {
		row("stopped", "at case %s (index %d, %s)", s.CaseID, s.Index, s.ErrorClass)
	}
	row("receipt", "%s", path)
	row("sha256", "%s", sum)
	return tw.Flush()
}

// rate4 formats a nullable rate with 4 decimals, "n/a" for nil ([Share]).
func rate4(v *float64) string { return Share(v) }

// RenderSlice builds the slice of seed and rows with build (pass
// [checkmatch.BuildSlice]), showing the renders' progress on
// stderr when it is a terminal.
func RenderSlice(stderr io.Writer, build func(seed uint64, rows int, rendered func()) (checkmatch.Slice, error), seed uint64, rows int) (checkmatch.Slice, error) {
	p := NewProgress(stderr, "rendering", rows*checkmatch.VariantsPerRow, "checks")
	p.Start()
	s, err := build(seed, rows, func() { p.Add(false) })
	p.Stop()
	return s, err
}
