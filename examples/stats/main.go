// Command stats puts error bars on one check-match receipt: Wilson 95%
// intervals for accuracy, false-clear rate and cannot-tell rate (overall,
// per variant, per accepted class), percentile bootstrap intervals for each
// Noul's ROC-AUC and ECE (typevet's SHA-256 resampling, seed 0, 10,000
// resamples), and each Noul's Brier score and log loss. No model call; the
// receipt is not changed, and one that breaks the receipt's rules (a
// negative probability, an unknown verdict) is refused.
//
// By default the intervals take register rows as independent, not cases:
// the seven variants of a row share its payee, amount and date, so the
// bootstrap draws whole rows and the Wilson intervals are taken at the
// Korn–Graubard effective sample size. -cluster case takes every case as
// independent (typevet's repeat-run study's draws). The table says which
// assumption each section makes.
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
//	-cluster NAME      register_row (default) or case: what the intervals take as independent
//	-resamples N       bootstrap resamples, 1 to 1000000 (default 10000)
//	-seed N            resampling seed (default 0)
//	-table=false       leave out the table on stderr
//
// Exit status: 0 when the document is written, 2 on a usage error (not one
// receipt path, a bad flag or -resamples out of range, refused before any
// work; an -out file that exists), 1 when the receipt cannot be read,
// breaks the receipt's rules or has no cases.
package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"text/tabwriter"

	"github.com/typevet/typevet-go/checkmatch/stats"
	"github.com/typevet/typevet-go/examples/internal/cli"
)

const (
	prog      = "stats"
	usageLine = "usage: stats [-out FILE] [-cluster register_row|case] [-resamples N] [-seed N] [-table=false] RECEIPT.json"
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

// writeTable writes the shares per group and the Noul scores, each
// section saying what it takes as independent. Numbers use the formats
// every table shares (package examples/internal/cli): shares and scores
// with 4 decimals, effective sizes in 3 significant digits, n/a for null.
func writeTable(w io.Writer, doc stats.Intervals) error {
	rc := doc.Receipt
	fmt.Fprintf(w, "%s/%s %s: %d cases, %d register rows\n", rc.Backend, rc.Model, shortDigest(rc.SHA256), rc.Cases, rc.RegisterRows)
	level := strconv.FormatFloat(doc.Level*100, 'g', -1, 64) + "%"
	clustered := doc.Cluster == stats.ClusterRegisterRow
	if clustered {
		fmt.Fprintf(w, "shares: %s Wilson intervals at the Korn–Graubard effective n over register rows\n", level)
		fmt.Fprintln(w, "  assumes: register rows independent; the seven variants of a row may be correlated (n_eff < n when they are)")
	} else {
		fmt.Fprintf(w, "shares: %s Wilson intervals at n cases\n", level)
		fmt.Fprintln(w, "  assumes: every case independent (-cluster case); the seven variants of a row share payee, amount and date")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "group\taccuracy\tfalse_clear_rate\tcannot_tell_rate")
	row := func(name string, r stats.Rates) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, share(r.Accuracy, clustered), share(r.FalseClearRate, clustered), share(r.CannotTellRate, clustered))
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
	fmt.Fprintf(w, "nouls: roc_auc and ece with %s percentile bootstrap intervals (%d resamples, seed %d, %s)\n", level, b.Resamples, b.Seed, drawText(b))
	fmt.Fprintln(w, "  brier and log_loss: point estimates over every case, no interval")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "noul\troc_auc\tece\tbrier\tlog_loss")
	for _, e := range doc.Nouls {
		n := e.Value
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Name, estimate(n.ROCAUC), estimate(n.ECE), cli.Share(n.Brier), cli.Share(n.LogLoss))
	}
	return tw.Flush()
}

// share formats a share with its interval and counts:
// "0.9286 [0.8735, 0.9607] (130/140)", with ", n_eff 96.2" when the
// interval was taken at an effective size below n.
func share(p stats.Proportion, clustered bool) string {
	if p.Estimate == nil || p.Low == nil || p.High == nil {
		return fmt.Sprintf("%s (%d/%d)", cli.NA, p.K, p.N)
	}
	s := fmt.Sprintf("%s [%s, %s] (%d/%d", cli.Share(p.Estimate), cli.Share(p.Low), cli.Share(p.High), p.K, p.N)
	if clustered && p.EffectiveN < float64(p.N) {
		s += ", n_eff " + cli.Sig(p.EffectiveN, 3)
	}
	return s + ")"
}

// estimate formats a bootstrap estimate: "0.9950 [0.9861, 1.0000]", n/a
// when undefined.
func estimate(e stats.Estimate) string {
	if e.Estimate == nil {
		return cli.NA
	}
	if e.Low == nil || e.High == nil {
		return cli.Share(e.Estimate) + " [n/a]"
	}
	return fmt.Sprintf("%s [%s, %s]", cli.Share(e.Estimate), cli.Share(e.Low), cli.Share(e.High))
}

// drawText says what one bootstrap draw takes.
func drawText(b stats.Bootstrap) string {
	if b.Cluster == stats.ClusterRegisterRow {
		return fmt.Sprintf("clustered by register_row: each draw takes a whole row, %d rows", b.Units)
	}
	return fmt.Sprintf("clustered by case: each draw takes one case, %d cases", b.Units)
}

func shortDigest(s string) string {
	if len(s) > 12 {
		return "sha256 " + s[:12]
	}
	return "sha256 " + s
}
