// Command compare compares two check-match runs of one slice case by case:
// the exact and mid-p McNemar tests on verdict correctness (case pairs taken
// as independent) and an exact sign-flip test over register rows (rows
// taken as independent, the pairs of a row as possibly correlated), paired
// bootstrap intervals
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
// Two receipts of different slices (another pins.slice_sha256, seed or
// row count) cannot be paired: compare refuses them with exit status 2,
// naming the pins that differ. Other pins that differ while the slice
// digest is the same (the renderer's module_version of a "+dirty" build)
// are notes in identity_differences, not refusals. The bootstrap draws
// whole register rows unless -cluster case says otherwise.
//
// Flags:
//
//	-out FILE          write the document to FILE (must not exist) instead of stdout
//	-cluster NAME      register_row (default) or case: what the bootstrap takes as independent
//	-resamples N       bootstrap resamples, 1 to 1000000 (default 10000)
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
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/typevet/typevet-go/checkmatch/stats"
	"github.com/typevet/typevet-go/examples/internal/cli"
)

const (
	prog      = "compare"
	usageLine = "usage: compare [-out FILE] [-cluster register_row|case] [-resamples N] [-seed N] [-table=false] A.json B.json"
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

// discordantShown is how many discordant cases the table lists; the
// document's "discordant" list has them all.
const discordantShown = 10

// writeTable writes the tests, the differences, the flips and the first
// discordant cases, each section saying what it takes as independent.
// Numbers use the formats every table shares (package
// examples/internal/cli): shares, scores and p-values with 4 decimals,
// n/a for null.
func writeTable(w io.Writer, c stats.Comparison, pathA, pathB string) error {
	fmt.Fprintf(w, "A %s (%s/%s)\nB %s (%s/%s)\n", pathA, c.A.Backend, c.A.Model, pathB, c.B.Backend, c.B.Model)
	fmt.Fprintf(w, "slice: the same pins.slice_sha256 (%s)", shortDigest(c.A.SliceSHA256))
	fmt.Fprintf(w, "; %d pairs", c.Pairs)
	if n := len(c.UnpairedA) + len(c.UnpairedB); n > 0 {
		fmt.Fprintf(w, " (%d cases of A and %d of B unpaired, left out)", len(c.UnpairedA), len(c.UnpairedB))
	}
	fmt.Fprintln(w)
	if len(c.IdentityDifferences) == 0 {
		fmt.Fprintln(w, "notes: the runs differ in no recorded field but run_id")
	} else {
		fmt.Fprintf(w, "notes: these differ between the runs (names only): %s\n", strings.Join(c.IdentityDifferences, ", "))
	}
	m, rt := c.McNemar, c.RowTest
	fmt.Fprintf(w, "tests on verdict correctness: b=%d (A right, B wrong), c=%d (A wrong, B right)\n", m.B, m.C)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "test\tp\tassumes")
	fmt.Fprintf(tw, "exact McNemar\t%s\t%s\n", cli.PValue(m.PValue), m.Assumption)
	fmt.Fprintf(tw, "mid-p McNemar\t%s\t%s\n", cli.PValue(m.MidPValue), m.Assumption)
	fmt.Fprintf(tw, "register-row sign-flip\t%s\t%s (net %+d over %d rows, %d discordant)\n", cli.PValue(rt.PValue), rt.Assumption, rt.NetChange, rt.Rows, rt.DiscordantRows)
	if err := tw.Flush(); err != nil {
		return err
	}
	bt := c.Bootstrap
	fmt.Fprintf(w, "B − A with %s%% paired percentile intervals (%d resamples, seed %d, %s)\n",
		strconv.FormatFloat(bt.Level*100, 'g', -1, 64), bt.Resamples, bt.Seed, drawText(bt))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tA\tB\tB − A")
	row := func(name string, d stats.Difference) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, cli.Share(d.A), cli.Share(d.B), difference(d))
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
	n := len(c.Discordant)
	if n <= discordantShown {
		fmt.Fprintf(w, "discordant cases: %d\n", n)
	} else {
		fmt.Fprintf(w, "discordant cases: %d; the first %d below, all of them in the document's \"discordant\" list (stdout, or -out)\n", n, discordantShown)
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, d := range c.Discordant[:min(n, discordantShown)] {
		dir := "wrong→right"
		if d.ACorrect {
			dir = "right→wrong"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s → %s\n", d.CaseID, dir, d.AVerdict, d.BVerdict)
	}
	return tw.Flush()
}

// difference formats a paired difference: "+0.0214 [-0.0071, +0.0500]",
// n/a when undefined.
func difference(d stats.Difference) string {
	if d.Difference == nil {
		return cli.NA
	}
	s := cli.Signed(*d.Difference, 4)
	if d.Low == nil || d.High == nil {
		return s
	}
	return fmt.Sprintf("%s [%s, %s]", s, cli.Signed(*d.Low, 4), cli.Signed(*d.High, 4))
}

// drawText says what one bootstrap draw takes, and so what the intervals
// take as independent.
func drawText(b stats.Bootstrap) string {
	if b.Cluster == stats.ClusterRegisterRow {
		return fmt.Sprintf("clustered by register_row: each draw takes a whole row's pairs, %d rows", b.Units)
	}
	return fmt.Sprintf("clustered by case: each draw takes one pair, %d pairs", b.Units)
}

func shortDigest(s string) string {
	if len(s) > 12 {
		return s[:12] + "…"
	}
	return s
}
