// Command checksheets writes one contact sheet per register row of the
// synthetic check slice for one seed. No model call.
//
//	go run ./examples/checksheets -seed 1 -out sheets
//
// writes sheets/seed1_row00.png … sheets/seed1_row19.png, each a grid of the
// seven variants of one register row with the expected labels under each
// render, and prints one path per line.
//
// Flags (-flag and --flag both work; `checksheets -h` lists them):
//
//	-seed N   generator seed (default 0): ASCII digits, outer spaces allowed,
//	          blank means 0, read as examples/checkmatch reads -seed
//	-rows N   register rows, 1 to 20 (default 20), read as examples/checkmatch
//	          reads -rows (Python's int() of ASCII text)
//	-out DIR  output directory, required; created when missing
//
// The command reads no environment variable. Drawing shows its progress
// on stderr when it is a terminal.
//
// Exit status: 0 when every sheet is written (and for -h), 2 on a usage
// error (nothing is written), 1 when writing fails. `go run` reports a
// status of 2 as "exit status 2" and exits 1 itself. Each sheet is written to
// a temporary file in DIR and renamed into place, so no partial sheet is
// ever left under a sheet's name.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

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

// help is the -h text; its flags are the command's flags.
var help = cli.Help{
	Usage: usageLine,
	About: description,
	Flags: []cli.Flag{
		{Name: "seed", Arg: "N", Default: "0", Usage: "generator seed: ASCII digits, blank means 0"},
		{Name: "rows", Arg: "N", Default: strconv.Itoa(checkmatch.RowCount), Usage: "register rows, 1 to 20"},
		{Name: "out", Arg: "DIR", Usage: "output directory (required; created when missing)"},
	},
	Notes: []string{"Writes DIR/seed<N>_row00.png … one sheet per row, and prints one path per line.",
		"Exit status: 0 on success; 2 on a usage error (nothing written); 1 when writing fails.\nUnder \"go run\" a status of 2 prints \"exit status 2\" and go run itself exits 1."},
}

// run parses args, writes the sheets and prints their paths to stdout.
func run(stdout, stderr io.Writer, args []string) error {
	env, _, ok, err := cli.Parse(help, args, stdout, func(string) (string, bool) { return "", false }, nil, false)
	if err != nil || !ok {
		return err
	}
	seed, err := cli.ParseSeed(env.Flag("seed"), "-seed")
	if err != nil {
		return cli.Usage(err)
	}
	rows, err := cli.ParseRows(env.Flag("rows"), "-rows")
	if err != nil {
		return cli.Usage(err)
	}
	out := env.Flag("out")
	if out == "" {
		return cli.Usagef("-out is required: the directory to write the sheets to")
	}

	cases, err := checkmatch.Cases(seed, rows)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	// Draw the sheets in parallel, then write them in row order.
	sheets := make([][]byte, rows)
	p := cli.NewProgress(stderr, "drawing", rows, "sheets")
	p.Start()
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for row := range rows {
		g.Go(func() error {
			var buf bytes.Buffer
			if err := checkmatch.WriteContactSheet(&buf, cases[row*checkmatch.VariantsPerRow:(row+1)*checkmatch.VariantsPerRow], checkmatch.SheetOptions{}); err != nil {
				return err
			}
			sheets[row] = buf.Bytes()
			p.Add(false)
			return nil
		})
	}
	err = g.Wait()
	p.Stop()
	if err != nil {
		return err
	}
	for row, sheet := range sheets {
		path := filepath.Join(out, fmt.Sprintf("seed%d_row%02d.png", seed, row))
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
