// Command repeats summarises repeated check-match runs of one slice with
// typevet's pre-registered repeat-run statistics (#357): which runs share
// the majority's code, how far accuracy, false-clear rate and each Noul's
// ECE move between them, a 10,000-resample accuracy interval over the pooled
// cases, verdict agreement, the largest probability change and whether the
// runs are stable. No model call.
//
//	go run ./examples/repeats receipts/check_match_repeat*.json
//
// Arguments are receipt paths (ours or typevet's); each run is named by its
// file's stem. The summary is written as JSON to stdout (the keys and order
// of typevet's repeat_summary, then "warnings") and as a readable table to
// stderr. A run of another slice than the majority's (another seed, row
// count or renderer: pins.slice_sha256 and the other slice pins) is
// excluded with reason "another slice", and a run whose code digests
// differ from the majority's with reason "code digests differ"; the table
// and JSON name the differing pins or digests, never their values. Fewer
// than two included runs are never called stable. Every warning is in the
// JSON's "warnings" list as well as on stderr, so -table=false keeps them.
//
// Flags (`repeats -h` lists them):
//
//	-table=false   leave out the table on stderr
//
// With a single included run there is nothing to compare: the table says
// so instead of calling the run stable (the JSON keeps typevet's keys).
//
// Exit status: 0 when the summary is written, 2 on a usage error (no
// paths), 1 when a receipt cannot be read or the receipts do not fit
// together (different case ids). `go run` reports a status of 2 as
// "exit status 2" and exits 1 itself.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/typevet/typevet-go/checkmatch/repeats"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/receipt"
)

const (
	prog      = "repeats"
	usageLine = "usage: repeats [-table=false] RECEIPT.json ..."
)

func main() {
	os.Exit(exitCode(run(os.Stdout, os.Stderr, os.Args[1:]), os.Stderr))
}

// exitCode prints run's error and maps it to the exit status
// ([cli.ExitCode]).
func exitCode(err error, stderr io.Writer) int {
	return cli.ExitCode(err, stderr, prog, usageLine)
}

// help is the -h text; its flags are the command's flags.
var help = cli.Help{
	Usage: usageLine,
	About: "Summarise repeated check-match runs of one slice (typevet #357): JSON on stdout, a readable table on stderr. No model call.",
	Flags: []cli.Flag{{Name: "table", Bool: true, Default: "true", Usage: "write a readable table to stderr; -table=false leaves it out"}},
	Notes: []string{"Name two or more receipts of the same slice (ours or typevet's); each run is named by its file's stem.",
		"Exit status: 0 on success; 2 on a usage error (no receipt named); 1 when a receipt cannot be\nread or the receipts do not fit together. Under \"go run\" a status of 2 prints\n\"exit status 2\" and go run itself exits 1."},
}

// run reads the receipts named by args and writes the summary.
func run(stdout, stderr io.Writer, args []string) error {
	env, paths, ok, err := cli.Parse(help, args, stdout, func(string) (string, bool) { return "", false }, nil, true)
	if err != nil || !ok {
		return err
	}
	table := env.Flag("table") == "true"
	if len(paths) == 0 {
		return &cli.UsageError{Msg: "name at least one receipt"}
	}
	runs, err := repeats.ReadRuns(paths)
	if err != nil {
		return err
	}
	rep, err := repeats.Summary(runs)
	if err != nil {
		return err
	}
	b, err := receipt.Marshal(rep)
	if err != nil {
		return err
	}
	if _, err := stdout.Write(b); err != nil {
		return err
	}
	if table {
		return writeTable(stderr, rep)
	}
	return nil
}

// writeTable writes the per-run rows and the study's verdict.
func writeTable(w io.Writer, rep repeats.Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	eceNames := make([]string, 0, 2)
	if len(rep.Runs) > 0 {
		for _, e := range rep.Runs[0].ECE {
			eceNames = append(eceNames, "ece "+e.Name)
		}
	}
	fmt.Fprintf(tw, "run\tcommit\tincluded\taccuracy\tfalse_clear\t%s\twall_s\tagreement\tmax_abs_diff\n", strings.Join(eceNames, "\t"))
	for _, r := range rep.Runs {
		eces := make([]string, len(r.ECE))
		for i, e := range r.ECE {
			eces[i] = num(e.Value)
		}
		commit := r.Commit
		if len(commit) > 12 {
			commit = commit[:12]
		}
		fmt.Fprintf(tw, "%s\t%s\t%t\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Run, commit, r.Included,
			num(r.Accuracy), num(r.FalseClearRate), strings.Join(eces, "\t"),
			cli.Fixed(r.WallSeconds, 3), num(r.Agreement), num(r.MaxAbsDifference))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, warning := range rep.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	for _, x := range rep.Excluded {
		names := x.DifferingDigests
		if x.Reason == repeats.ExcludedSlice {
			names = x.DifferingPins
		}
		fmt.Fprintf(w, "excluded %s: %s: %s\n", x.Run, x.Reason, strings.Join(names, ", "))
	}
	st := rep.Statistics
	fmt.Fprintf(w, "included runs: %d (%s)\n", len(rep.Included), strings.Join(rep.Included, ", "))
	fmt.Fprintf(w, "accuracy: mean %s sd %s range %s\n", fixed(st.Accuracy.Mean), num(st.Accuracy.SD), fixed(st.Accuracy.Range))
	fmt.Fprintf(w, "false_clear_rate: mean %s sd %s range %s\n", fixed(st.FalseClearRate.Mean), num(st.FalseClearRate.SD), fixed(st.FalseClearRate.Range))
	for _, e := range st.ECE {
		fmt.Fprintf(w, "ece %s: mean %s sd %s range %s\n", e.Name, fixed(e.Value.Mean), num(e.Value.SD), fixed(e.Value.Range))
	}
	ai := rep.AccuracyInterval
	fmt.Fprintf(w, "pooled accuracy %g%% interval: [%s, %s] over %d rows (%d resamples, seed %d)\n",
		ai.Level*100, fixed(ai.Low), fixed(ai.High), ai.Rows, ai.Resamples, ai.Seed)
	fmt.Fprintf(w, "verdict agreement %s, max probability difference %s\n", fixed(rep.Agreement), fixed(rep.MaxAbsDifference))
	if len(rep.Included) < 2 {
		_, err := fmt.Fprintf(w, "stability not judged: %d included run; it takes two or more runs of the slice (sd is n/a)\n", len(rep.Included))
		return err
	}
	verdict := "not stable"
	if rep.Stable {
		verdict = "stable"
	}
	_, err := fmt.Fprintf(w, "%s (rule: at least two included runs, the accuracy range and every ECE range below %g)\n", verdict, repeats.StabilityRangeLimit)
	return err
}

// fixed formats a share or score with 4 decimals, as every table does
// ([cli.Fixed]).
func fixed(v float64) string { return cli.Fixed(v, 4) }

// num formats a nullable share or score, "n/a" for nil ([cli.Share]).
func num(v *float64) string { return cli.Share(v) }
