// Command compare compares two check-match runs of one slice case by case:
// the exact McNemar test on verdict correctness, paired bootstrap intervals
// for the differences (B − A) in accuracy, false-clear rate and each Noul's
// ECE and ROC-AUC, the flips per variant and the discordant cases. It names
// every identity field that differs between the runs (backend, model,
// revision, server build, wording and code digests), so that a confound is
// in plain sight. No model call; the receipts are not changed.
//
//	go run ./examples/compare receipts/a.json receipts/b.json > comparison.json
//
// The comparison document (schema "typevet-go/check-match-comparison",
// version 1; its fields are documented on checkmatch/stats.Comparison) goes
// to stdout, or to a new file with -out; a readable table goes to stderr.
// Cases pair by case id and render digest.
//
// Two receipts of different slices (pins.slice_sha256, seed, rows, or
// renderer pin) cannot be paired: compare refuses them with exit status 2,
// naming the pins that differ.
//
// Flags:
//
//	-out FILE          write the document to FILE (must not exist) instead of stdout
//	-cluster NAME      case (default) or register_row: draw whole register rows in the bootstrap
//	-resamples N       bootstrap resamples (default 10000)
//	-seed N            resampling seed (default 0)
//	-table=false       leave out the table on stderr
//
// Exit status: 0 when the document is written, 2 on a usage error (not two
// receipt paths, a bad flag, an -out file that exists, receipts of
// different slices), 1 when a receipt cannot be read or no case pairs.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/typevet/typevet-go/checkmatch/stats"
	"github.com/typevet/typevet-go/examples/internal/cli"
)

const (
	prog      = "compare"
	usageLine = "usage: compare [-out FILE] [-cluster case|register_row] [-resamples N] [-seed N] [-table=false] A.json B.json"
)

func main() {
	os.Exit(cli.ExitCode(run(os.Stdout, os.Stderr, os.Args[1:]), os.Stderr, prog, usageLine))
}

// run reads the two receipts named by args and writes their comparison.
func run(stdout, stderr io.Writer, args []string) error {
	sf, opts, paths, help, err := cli.ParseStats(prog, usageLine, "Compare two check-match runs of one slice, case by case. No model call.", args, stdout, 2, "two receipts, A and B")
	if err != nil || help {
		return err
	}
	a, sumA, err := cli.ReadReceiptFile(paths[0])
	if err != nil {
		return err
	}
	b, sumB, err := cli.ReadReceiptFile(paths[1])
	if err != nil {
		return err
	}
	cmp, err := stats.Compare(a, b, opts)
	var se *stats.SliceError
	if errors.As(err, &se) {
		return cli.Usagef("%s and %s: %v", paths[0], paths[1], err)
	}
	if err != nil {
		return err
	}
	cmp.A.SHA256, cmp.B.SHA256 = sumA, sumB
	if err := sf.Write(stdout, stderr, prog, cmp); err != nil {
		return err
	}
	if *sf.Table {
		return writeTable(stderr, cmp, paths[0], paths[1])
	}
	return nil
}

// writeTable writes the test, the differences, the flips and the
// discordant cases.
func writeTable(w io.Writer, c stats.Comparison, pathA, pathB string) error {
	fmt.Fprintf(w, "A %s (%s/%s)\nB %s (%s/%s)\n", pathA, c.A.Backend, c.A.Model, pathB, c.B.Backend, c.B.Model)
	if len(c.IdentityDifferences) == 0 {
		fmt.Fprintln(w, "identity: the runs differ in no recorded field but run_id")
	} else {
		fmt.Fprintf(w, "identity differs: %s\n", strings.Join(c.IdentityDifferences, ", "))
	}
	fmt.Fprintf(w, "%d pairs", c.Pairs)
	if n := len(c.UnpairedA) + len(c.UnpairedB); n > 0 {
		fmt.Fprintf(w, " (%d cases of A and %d of B unpaired, left out)", len(c.UnpairedA), len(c.UnpairedB))
	}
	m := c.McNemar
	fmt.Fprintf(w, "; exact McNemar on correctness: b=%d (A right, B wrong) c=%d (A wrong, B right) p=%.4f\n", m.B, m.C, m.PValue)
	bt := c.Bootstrap
	fmt.Fprintf(w, "B − A with %g%% paired percentile intervals (%d resamples, seed %d, %d %s units):\n", bt.Level*100, bt.Resamples, bt.Seed, bt.Units, bt.Cluster)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tA\tB\tB − A")
	row := func(name string, d stats.Difference) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, num(d.A), num(d.B), stats.FormatDifference(d))
	}
	row("accuracy", c.Differences.Accuracy)
	row("false_clear_rate", c.Differences.FalseClearRate)
	for _, e := range c.Differences.Nouls {
		row("ece "+e.Name, e.Value.ECE)
		row("roc_auc "+e.Name, e.Value.ROCAUC)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tpairs\tright→wrong\twrong→right")
	for _, e := range c.FlipsByVariant {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\n", e.Name, e.Value.Pairs, e.Value.RightToWrong, e.Value.WrongToRight)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "discordant cases: %d\n", len(c.Discordant))
	for _, d := range c.Discordant {
		dir := "wrong→right"
		if d.ACorrect {
			dir = "right→wrong"
		}
		fmt.Fprintf(w, "  %s %s: %s → %s\n", d.CaseID, dir, d.AVerdict, d.BVerdict)
	}
	return nil
}

func num(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%.4f", *v)
}
