// Command view writes a static web site of check-match receipts, ours or
// typevet's, that opens from the file system in any browser (no server, no
// network):
//
//	go run ./examples/view receipts/check_match_reader.json -out site
//
// then open site/index.html. One receipt gives one page: the run's summary,
// the headline metrics, a reliability diagram per Noul, accuracy and
// legibility by variant, the verdict × variant table and every case with its
// check image (a click opens it at full resolution), the register row it was
// judged against, its verdict distribution as labelled numbers and, on
// demand, the four questions as sent; filterable by variant, right or wrong,
// false clear and cannot_tell. A receipt of more than 500 cases gets its
// case table on further pages linked from the first, so a large receipt
// still opens quickly. A receipt that breaks the receipt's rules (a
// negative probability, metrics that are not its cases') is refused. Each check is re-rendered from the receipt's seed and case id
// and shown only when its SHA-256 equals the receipt's render_sha256; the
// others (all of a typevet receipt's, which Pillow drew) are marked "render
// not reproducible here". Several receipts give one page each, an index, and
// a side-by-side page for every two receipts of the same slice, discordant
// cases first.
//
// Flags (before or after the receipts; -flag and --flag both work):
//
//	-out DIR       site directory, required: new, empty, or a site this
//	               command wrote before (which is then replaced whole)
//	-full-images   show each image as the judged PNG byte for byte
//	               (about 85 KB a check) instead of a lossless half-scale
//	               view (about 35 KB) that links to the judged PNG
//
// A calibrated run's calibration records (RECEIPT.calibration.json, written
// by examples/checkmatch -calibration) are read when they are beside the
// receipt: its page then draws each mapped question's reliability diagram
// raw and calibrated. Records that are not the receipt's are refused.
//
// Exit status: 0 when the site is written (and for -h), 2 on a usage error
// (nothing is written), 1 when a receipt cannot be read or the site cannot
// be written. The site is built in a temporary directory beside DIR and
// renamed into place, so DIR never holds half a site.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"github.com/typevet/typevet-go/calibration"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/view"
	"github.com/typevet/typevet-go/examples/internal/cli"
)

const (
	prog        = "view"
	usageLine   = "usage: view RECEIPT... -out DIR [-full-images]"
	description = "Write a static web site of check-match receipts: summary, pictures, every case with its re-rendered check image, and side-by-side pages for receipts of one slice."

	// marker names the file that marks a directory as a site this command
	// wrote, so a later run may replace it.
	marker = ".typevet-view"
)

func main() {
	os.Exit(cli.ExitCode(run(os.Stdout, os.Args[1:]), os.Stderr, prog, usageLine))
}

// parse reads flags and receipt paths in any order.
func parse(stdout io.Writer, args []string) (paths []string, out string, full bool, help bool, err error) {
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&out, "out", "", "site directory `DIR` (required): new, empty, or a site this command wrote")
	fs.BoolVar(&full, "full-images", false, "write the judged PNGs byte for byte instead of half-scale views")
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(stdout, "%s\n\n%s\n\n", usageLine, description)
				fs.SetOutput(stdout)
				fs.PrintDefaults()
				return nil, "", false, true, nil
			}
			return nil, "", false, false, cli.Usage(err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			paths = append(paths, args[1:]...)
			break
		}
		paths = append(paths, args[0])
		args = args[1:]
	}
	switch {
	case out == "":
		return nil, "", false, false, cli.Usagef("the following arguments are required: -out")
	case len(paths) == 0:
		return nil, "", false, false, cli.Usagef("name at least one receipt file")
	}
	return paths, out, full, false, nil
}

func run(stdout io.Writer, args []string) error {
	paths, out, full, help, err := parse(stdout, args)
	if err != nil || help {
		return err
	}
	if err := checkOut(out); err != nil {
		return err
	}
	inputs := make([]view.Input, len(paths))
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("receipt %s: %w", p, err)
		}
		r, err := checkmatch.ReadReceipt(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("receipt %s: %w", p, err)
		}
		if r.Cases == nil {
			return fmt.Errorf("receipt %s has no cases (a receipt head): name a whole receipt", p)
		}
		sum := sha256.Sum256(data)
		inputs[i] = view.Input{Name: filepath.Base(p), SHA256: hex.EncodeToString(sum[:]), Receipt: r}
		if inputs[i].Calibration, err = readRecords(p + ".calibration.json"); err != nil {
			return err
		}
	}
	site, err := view.Build(inputs, view.Options{FullImages: full})
	if err != nil {
		return err
	}
	if err := place(site, out); err != nil {
		return err
	}
	fmt.Fprintln(stdout, filepath.Join(out, "index.html"))
	for i, r := range site.Receipts {
		fmt.Fprintf(stdout, "receipt %d %s: %d cases, %d wrong; images %d reproduced, %d not reproducible (%s)\n",
			i+1, r.Name, r.Cases, r.Wrong, r.Reproduced, r.NotReproducible, filepath.Join(out, filepath.FromSlash(r.Page)))
		if r.Reason != "" {
			fmt.Fprintf(stdout, "  not reproducible: %s\n", r.Reason)
		}
	}
	for _, c := range site.Comparisons {
		fmt.Fprintln(stdout, "side by side", filepath.Join(out, c))
	}
	fmt.Fprintf(stdout, "site %s: %d files, %.1f MB\n", out, len(site.Files), float64(site.Size())/1e6)
	return nil
}

// checkOut refuses an -out that names a file, or a non-empty directory
// this command did not write.
func checkOut(out string) error {
	st, err := os.Stat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return cli.Usagef("-out %s: %v", out, err)
	case !st.IsDir():
		return cli.Usagef("-out %s is a file: name a new or empty directory", out)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return cli.Usagef("-out %s: %v", out, err)
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(out, marker)); err != nil {
		return cli.Usagef("-out %s is a directory with files this command did not write: name a new or empty directory", out)
	}
	return nil
}

// place writes the site into a temporary directory beside out and renames
// it to out; a previous site at out is replaced only once the new one is
// whole.
func place(site *view.Site, out string) (err error) {
	parent := filepath.Dir(filepath.Clean(out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := site.WriteDir(tmp); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, marker), []byte("a site written by typevet-go examples/view; the next run may replace this directory\n"), 0o644); err != nil {
		return err
	}
	if err := checkOut(out); err != nil { // again: it may have changed meanwhile
		return err
	}
	old := ""
	if _, err := os.Stat(out); err == nil {
		old = tmp + ".old"
		if err := os.Rename(out, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, out); err != nil {
		if old != "" {
			os.Rename(old, out)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// readRecords reads the calibration records at path; nil when there is
// no such file.
func readRecords(path string) (*calibration.Sidecar, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("calibration records %s: %w", path, err)
	}
	s, err := calibration.ReadSidecar(data)
	if err != nil {
		return nil, fmt.Errorf("calibration records %s: %w", path, err)
	}
	return s, nil
}
