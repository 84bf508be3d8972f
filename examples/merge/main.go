// Command merge puts the shards of one check-match run, or of one
// option-order study, back into one receipt. Each shard is a run of
// examples/checkmatch or examples/orderings with -shard I/N; it leaves a
// shard record (schema typevet-go.shard) at its -receipt path and its
// journal beside it. A sharded throughput sweep (examples/throughput
// -shard I/N) leaves one such record per level, PREFIX_c<level>.json:
// merge one level's records at a time (shards of two levels differ in
// their concurrency pin and are refused). merge reads every record and
// journal, refuses a set that is not one whole experiment, and writes the
// receipt a single process would have written, of the shards' kind:
//
//	go run ./examples/merge shards/s0.json shards/s1.json shards/s2.json -receipt receipts/check_match.json
//
// Refused (exit 1, nothing written): a shard of another experiment (the
// message names the first differing pin: generator_seed, model,
// code_path_digests.<path>, single_order_receipt_sha256, …; "kind" for a
// check-match shard among option-order shards), a missing shard, the same
// shard twice, a case in two shards, a case no journal holds (resume that
// shard), a journal changed since its shard finished.
//
// A check-match receipt is byte-identical to a single-process run's but
// for pins.finished_utc (the latest shard's), identity.run_id (new),
// wall_seconds (the longest shard's), the throughput block (all judgments
// over that wall time; latency figures over every case) and its server
// block (summed /metrics changes; see checkmatch.MergeReceipt and
// serving.MergeRunDelta). An option-order receipt is byte-identical to a
// single-process study's but for pins.finished_utc, identity.run_id and
// wall_seconds, as above (orderings.MergeReceipt).
//
// Flags, before or after the shard paths:
//
//	-receipt PATH   the receipt to write; must name a new file (required)
//
// Exit status: 0 when the receipt is written; 2 on a usage error; 1
// otherwise.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/orderings"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
)

const (
	prog      = "merge"
	usageLine = "usage: merge SHARD.json ... -receipt PATH"
)

func main() {
	os.Exit(cli.ExitCode(run(os.Stdout, os.Stderr, os.Args[1:]), os.Stderr, prog, usageLine))
}

// run parses flags and shard paths in any order, merges and writes.
func run(stdout, stderr io.Writer, args []string) error {
	fset := flag.NewFlagSet(prog, flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	out := fset.String("receipt", "", "the receipt to write (a new file)")
	var paths []string
	for {
		if err := fset.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(stdout, "%s\n\nMerge the shard records of one check-match run or option-order study into one receipt.\n\n", usageLine)
				fset.SetOutput(stdout)
				fset.PrintDefaults()
				return nil
			}
			return cli.Usage(err)
		}
		if fset.NArg() == 0 {
			break
		}
		paths = append(paths, fset.Arg(0))
		args = fset.Args()[1:]
	}
	if len(paths) == 0 {
		return cli.Usagef("name the shard records to merge")
	}
	path, err := cli.NewReceiptPath(func(string) (string, bool) { return *out, *out != "" }, "-receipt")
	if err != nil {
		return err
	}
	shards := make([]checkmatch.ShardFile, len(paths))
	for i, p := range paths {
		if shards[i], err = checkmatch.ReadShard(p); err != nil {
			return err
		}
	}
	// A git baseline or working tree that differs between shards is a
	// note, not a refusal: it does not decide the answers.
	for _, sf := range shards[1:] {
		for _, n := range sf.Notes(shards[0]) {
			fmt.Fprintf(stderr, "merge: note: %s; the receipt records the first shard's\n", n)
		}
	}
	var rec any
	var cases int
	if shards[0].Record.Identity.Kind == orderings.JournalKind {
		r, err := orderings.MergeReceipt(shards)
		if err != nil {
			return err
		}
		rec, cases = r, len(r.Cases)
	} else {
		r, err := checkmatch.MergeReceipt(shards)
		if err != nil {
			return err
		}
		rec, cases = r, len(r.Cases)
	}
	sum, err := receipt.Write(path, rec, judgment.Secrets{})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "receipt %s sha256 %s\nmerged %d shards, %d cases\n", path, sum, len(shards), cases)
	return err
}
