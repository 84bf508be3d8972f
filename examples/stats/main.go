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
//	-calibration-records PATH
//	                   a calibrated run's calibration records; by default
//	                   RECEIPT.calibration.json when it is beside the
//	                   receipt, "none" to leave them out
//
// For a calibrated run (examples/checkmatch -calibration) the receipt holds
// the calibrated confidences and the records document beside it the raw
// ones: the document then gains a "calibration" key and the table a
// section with each mapped question's ECE, debiased ECE, Brier score and
// accuracy, raw and calibrated side by side. Records that are not the
// receipt's are refused.
//
// Exit status: 0 when the document is written, 2 on a usage error (not one
// receipt path, a bad flag or -resamples out of range, refused before any
// work; an -out file that exists), 1 when the receipt cannot be read,
// breaks the receipt's rules or has no cases.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"text/tabwriter"

	"github.com/typevet/typevet-go/calibration"
	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/stats"
	"github.com/typevet/typevet-go/examples/internal/cli"
)

const (
	prog      = "stats"
	usageLine = "usage: stats [-out FILE] [-cluster register_row|case] [-resamples N] [-seed N] [-table=false] [-calibration-records PATH|none] RECEIPT.json"
)

func main() {
	os.Exit(cli.ExitCode(run(os.Stdout, os.Stderr, os.Args[1:]), os.Stderr, prog, usageLine))
}

// run reads the receipt named by args and writes its intervals.
func run(stdout, stderr io.Writer, args []string) error {
	var records *string
	sf, opts, paths, help, err := cli.ParseStats(prog, usageLine, "Intervals for one check-match receipt. No model call.", args, stdout, 1, "exactly one receipt",
		func(fs *flag.FlagSet) {
			records = fs.String("calibration-records", "", "a calibrated run's calibration records (default: RECEIPT.calibration.json when it exists; none: leave them out)")
		})
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
	found := ""
	if doc.Calibration, found, err = readRecords(r, paths[0], *records); err != nil {
		return err
	}
	if err := sf.Write(stdout, stderr, prog, doc); err != nil {
		return err
	}
	if *sf.Table {
		if err := writeTable(stderr, doc); err != nil {
			return err
		}
		return writeCalibration(stderr, doc.Calibration, found)
	}
	return nil
}

// readRecords reads the calibration records of flag (a path, "none", or
// "" for RECEIPT.calibration.json when it exists) and scores them against
// the receipt; found says how the file was chosen.
func readRecords(r checkmatch.Receipt, receiptPath, flagValue string) (*stats.Calibration, string, error) {
	path, found := flagValue, "named by -calibration-records"
	switch flagValue {
	case "none":
		return nil, "", nil
	case "":
		path, found = receiptPath+".calibration.json", "found beside the receipt; -calibration-records none leaves it out"
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, "", nil
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("-calibration-records: %w", err)
	}
	s, err := calibration.ReadSidecar(raw)
	if err != nil {
		return nil, "", fmt.Errorf("-calibration-records %s: %w", path, err)
	}
	c, err := stats.ReceiptCalibration(r, s)
	if err != nil {
		return nil, "", fmt.Errorf("-calibration-records %s: %w", path, err)
	}
	sum := sha256.Sum256(raw)
	c.Records = stats.RecordsSource{Path: path, SHA256: hex.EncodeToString(sum[:])}
	return &c, found, nil
}

// writeCalibration writes each mapped question's figures raw and
// calibrated side by side; nothing for an uncalibrated run.
func writeCalibration(w io.Writer, c *stats.Calibration, found string) error {
	if c == nil {
		return nil
	}
	fmt.Fprintf(w, "calibration: records %s %s (%s)\n", c.Records.Path, shortDigest(c.Records.SHA256), found)
	fmt.Fprintln(w, "  raw: the judge's confidences (the records); calibrated: after the map (the receipt's, which nouls above score)")
	fmt.Fprintln(w, "  ece: typevet's 10-bin ECE, biased upward on few cases; debiased: the debiased L2 estimate (Kumar et al. 2019), near 0 when calibrated")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "question\tmap\tn\tece raw\tcalibrated\tdebiased raw\tcalibrated\tbrier raw\tcalibrated\taccuracy raw\tcalibrated")
	for _, e := range c.Questions {
		q := e.Value
		fmt.Fprintf(tw, "%s\t%s %s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, q.Method, shortDigest(q.MapSHA256), q.N,
			cli.Share(&q.Raw.ECE), cli.Share(&q.Calibrated.ECE), cli.Share(&q.Raw.DebiasedECE), cli.Share(&q.Calibrated.DebiasedECE),
			cli.Share(&q.Raw.Brier), cli.Share(&q.Calibrated.Brier), cli.Share(&q.Raw.Accuracy), cli.Share(&q.Calibrated.Accuracy))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, q := range c.Unscored {
		fmt.Fprintf(w, "  %s: calibrated, but the receipt has no gold level for it; its values are in the records only\n", q)
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
