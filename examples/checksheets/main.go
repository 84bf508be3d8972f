// Command checksheets writes one contact sheet per register row of the
// synthetic check slice for one seed. No model call.
//
//	go run ./examples/checksheets -seed 1 -out sheets
//
// writes sheets/seed1_row00.png … sheets/seed1_row19.png, each a grid of the
// seven variants of one register row with the expected labels under each
// render, and prints one path per line.
//
// Flags (-flag and --flag both work):
//
//	-seed N   generator seed (default 0): ASCII digits, outer spaces allowed,
//	          blank means 0, as TYPEVET_CHECK_MATCH_SEED
//	-rows N   register rows, 1 to 20 (default 20); a decimal integer, outer
//	          spaces allowed (typevet's int() also takes "1_0" and non-ASCII
//	          digits; this command does not)
//	-out DIR  output directory, required; created when missing
//
// Exit status: 0 when every sheet is written (and for -h), 2 on a usage
// error (nothing is written), 1 when writing fails. Each sheet is written to
// a temporary file in DIR and renamed into place, so no partial sheet is
// ever left under a sheet's name.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/examples/internal/cli"
)

const (
	prog        = "checksheets"
	usageLine   = "usage: checksheets [-seed N] [-rows N] -out DIR"
	description = "Write one contact sheet per register row of the synthetic check slice for one seed. No model call."
)

func main() {
	os.Exit(exitCode(run(os.Stdout, os.Stderr, os.Args[1:]), os.Stderr))
}

// exitCode prints run's error and maps it to the exit status
// ([cli.ExitCode]).
func exitCode(err error, stderr io.Writer) int {
	return cli.ExitCode(err, stderr, prog, usageLine)
}

// newFlagSet defines the command's flags; errors are printed once, by
// exitCode, so the set itself prints nothing.
func newFlagSet() (fs *flag.FlagSet, seed, rows, out *string) {
	fs = flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	seed = fs.String("seed", "0", "generator seed `N`: ASCII digits, blank means 0")
	rows = fs.String("rows", strconv.Itoa(checkmatch.RowCount), "register rows `N`, 1 to 20")
	out = fs.String("out", "", "output directory `DIR` (required; created when missing)")
	return fs, seed, rows, out
}

// run parses args, writes the sheets and prints their paths to stdout.
func run(stdout, stderr io.Writer, args []string) error {
	fs, seedText, rowsText, out := newFlagSet()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "%s\n\n%s\n\n", usageLine, description)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil
		}
		return cli.Usage(err)
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	seed, err := checkmatch.ParseSeed(*seedText, "-seed")
	if err != nil {
		return &cli.UsageError{Msg: "argument -seed: " + err.Error()}
	}
	rows, err := strconv.Atoi(strings.TrimSpace(*rowsText))
	if err != nil {
		return cli.Usagef("argument -rows: invalid int value: %q", *rowsText)
	}
	if rows < 1 || rows > checkmatch.RowCount {
		return cli.Usagef("-rows must be 1 to %d: %d", checkmatch.RowCount, rows)
	}
	if *out == "" {
		return &cli.UsageError{Msg: "the following arguments are required: -out"}
	}

	cases, err := checkmatch.Cases(seed, rows)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	// Draw the sheets in parallel, then write them in row order.
	sheets := make([][]byte, rows)
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for row := range rows {
		g.Go(func() error {
			var buf bytes.Buffer
			if err := checkmatch.WriteContactSheet(&buf, cases[row*checkmatch.VariantsPerRow:(row+1)*checkmatch.VariantsPerRow], checkmatch.SheetOptions{}); err != nil {
				return err
			}
			sheets[row] = buf.Bytes()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for row, sheet := range sheets {
		path := filepath.Join(*out, fmt.Sprintf("seed%d_row%02d.png", seed, row))
		if err := writeFileAtomic(path, sheet); err != nil {
			return err
		}
		fmt.Fprintln(stdout, path)
	}
	return nil
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it to path, so path never holds a partial file.
func writeFileAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
