// Command stats puts error bars on one check-match receipt: Wilson 95%
// intervals for accuracy, false-clear rate and cannot-tell rate (overall,
// per variant, per accepted class), percentile bootstrap intervals for each
// Noul's ROC-AUC and ECE (typevet's SHA-256 resampling, seed 0, 10,000
// resamples), and each Noul's Brier score and log loss. No model call; the
// receipt is not changed.
//
//	go run ./examples/stats receipts/check_match_vllm.json > intervals.json
//
// The intervals document (schema "typevet-go/check-match-intervals",
// version 1; its fields are documented on checkmatch/stats.Intervals) goes
// to stdout, or to a new file with -out; a readable table goes to stderr.
//
// Flags:
//
//	-out FILE          write the document to FILE (must not exist) instead of stdout
//	-cluster NAME      case (default) or register_row: draw whole register rows in the bootstrap
//	-resamples N       bootstrap resamples (default 10000)
//	-seed N            resampling seed (default 0)
//	-table=false       leave out the table on stderr
//
// Exit status: 0 when the document is written, 2 on a usage error (not one
// receipt path, a bad flag, an -out file that exists), 1 when the receipt
// cannot be read or has no cases.
package main

import (
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/typevet/typevet-go/checkmatch/stats"
	"github.com/typevet/typevet-go/examples/internal/cli"
)

const (
	prog      = "stats"
	usageLine = "usage: stats [-out FILE] [-cluster case|register_row] [-resamples N] [-seed N] [-table=false] RECEIPT.json"
)

func main() {
	os.Exit(cli.ExitCode(run(os.Stdout, os.Stderr, os.Args[1:]), os.Stderr, prog, usageLine))
}

// run reads the receipt named by args and writes its intervals.
func run(stdout, stderr io.Writer, args []string) error {
	sf, opts, paths, help, err := cli.ParseStats(prog, usageLine, "Intervals for one check-match receipt. No model call.", args, stdout, 1, "exactly one receipt")
	if err != nil || help {
		return err
	}
	r, sum, err := cli.ReadReceiptFile(paths[0])
	if err != nil {
		return err
	}
	doc, err := stats.ReceiptIntervals(r, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", paths[0], err)
	}
	doc.Receipt.SHA256 = sum
	if err := sf.Write(stdout, stderr, prog, doc); err != nil {
		return err
	}
	if *sf.Table {
		return writeTable(stderr, doc)
	}
	return nil
}

// writeTable writes the shares per group and the Noul scores.
func writeTable(w io.Writer, doc stats.Intervals) error {
	fmt.Fprintf(w, "%s/%s %s: %d cases, %g%% Wilson intervals\n", doc.Receipt.Backend, doc.Receipt.Model, shortDigest(doc.Receipt.SHA256), doc.Receipt.Cases, doc.Level*100)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "group\taccuracy\tfalse_clear_rate\tcannot_tell_rate")
	row := func(name string, r stats.Rates) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, stats.FormatHeadline("", r.Accuracy),
			stats.FormatHeadline("", r.FalseClearRate), stats.FormatHeadline("", r.CannotTellRate))
	}
	row("overall", doc.Overall)
	for _, e := range doc.ByVariant {
		row(e.Name, e.Value)
	}
	for _, e := range doc.ByClass {
		row("class "+e.Name, e.Value)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b := doc.Bootstrap
	fmt.Fprintf(w, "bootstrap: %s, %d resamples, seed %d, %d %s units\n", b.Method, b.Resamples, b.Seed, b.Units, b.Cluster)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "noul\troc_auc\tece\tbrier\tlog_loss")
	for _, e := range doc.Nouls {
		n := e.Value
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Name, stats.FormatEstimate(n.ROCAUC), stats.FormatEstimate(n.ECE), num(n.Brier), num(n.LogLoss))
	}
	return tw.Flush()
}

func shortDigest(s string) string {
	if len(s) > 12 {
		return "sha256 " + s[:12]
	}
	return "sha256 " + s
}

func num(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%.4g", *v)
}
