package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/stats"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
)

// ReadReceiptFile reads the check-match receipt at path and returns it
// with the lower-case hex SHA-256 of the file's bytes. Errors name the
// path.
func ReadReceiptFile(path string) (checkmatch.Receipt, string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return checkmatch.Receipt{}, "", err
	}
	r, err := checkmatch.ReadReceipt(bytes.NewReader(raw))
	if err != nil {
		return checkmatch.Receipt{}, "", fmt.Errorf("%s: %w", path, err)
	}
	sum := sha256.Sum256(raw)
	return r, hex.EncodeToString(sum[:]), nil
}

// StatsFlags are the flags examples/stats and examples/compare share: the
// bootstrap options and where the document goes.
type StatsFlags struct {
	resamples *int
	seed      *int
	cluster   *string
	// Out is the -out path; "" means stdout.
	Out *string
	// Table is -table: write the readable table to stderr.
	Table *bool
}

// NewStatsFlags defines -resamples, -seed, -cluster, -out and -table on
// fs.
func NewStatsFlags(fs *flag.FlagSet) StatsFlags {
	return StatsFlags{
		resamples: fs.Int("resamples", stats.DefaultResamples, fmt.Sprintf("bootstrap resamples, 1 to %d", stats.MaxResamples)),
		seed:      fs.Int("seed", stats.DefaultSeed, "resampling seed (typevet's SHA-256 draws)"),
		cluster:   fs.String("cluster", string(stats.ClusterRegisterRow), "what the intervals take as independent: register_row (bootstrap draws whole rows, Wilson at the effective n) or case"),
		Out:       fs.String("out", "", "write the JSON document to this new file instead of stdout"),
		Table:     fs.Bool("table", true, "write a readable table to stderr"),
	}
}

// ParseStats parses the command line of a statistics command (stats,
// compare): the flags of [NewStatsFlags], then exactly want receipt paths
// (what says which in the refusal: "exactly one receipt"). With -h it
// prints the usage line, about and the flags to stdout and returns help
// true. The options and -out are checked before any work; every refusal
// is a *UsageError. Each extra function defines a command's own flags on
// the same flag set.
func ParseStats(prog, usage, about string, args []string, stdout io.Writer, want int, what string, extra ...func(*flag.FlagSet)) (sf StatsFlags, opts stats.Options, paths []string, help bool, err error) {
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	sf = NewStatsFlags(fs)
	for _, define := range extra {
		define(fs)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "%s\n\n%s\n\n", usage, about)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return sf, opts, nil, true, nil
		}
		return sf, opts, nil, false, Usage(err)
	}
	if fs.NArg() != want {
		return sf, opts, nil, false, Usagef("name %s, got %d arguments", what, fs.NArg())
	}
	if opts, err = sf.Options(); err != nil {
		return sf, opts, nil, false, err
	}
	if err := sf.CheckOut(); err != nil {
		return sf, opts, nil, false, err
	}
	return sf, opts, fs.Args(), false, nil
}

// Options returns the bootstrap options, refusing bad values by flag name
// (a *UsageError).
func (f StatsFlags) Options() (stats.Options, error) {
	if *f.resamples < 1 || *f.resamples > stats.MaxResamples {
		return stats.Options{}, Usagef("-resamples must be 1 to %d, got %d", stats.MaxResamples, *f.resamples)
	}
	if *f.seed < 0 {
		return stats.Options{}, Usagef("-seed must be at least 0, got %d", *f.seed)
	}
	c := stats.Cluster(*f.cluster)
	if c != stats.ClusterCase && c != stats.ClusterRegisterRow {
		return stats.Options{}, Usagef("-cluster must be %q or %q, got %q", stats.ClusterCase, stats.ClusterRegisterRow, *f.cluster)
	}
	return stats.Options{Resamples: *f.resamples, Seed: *f.seed, Cluster: c}, nil
}

// CheckOut refuses an -out path that exists, before any work (a
// *UsageError naming -out).
func (f StatsFlags) CheckOut() error {
	if *f.Out == "" {
		return nil
	}
	if err := receipt.CheckNew(*f.Out); err != nil {
		return Usagef("-out: %v", err)
	}
	return nil
}

// Write writes doc to -out (a new file, as receipts are written) or to
// stdout, and names the file and its SHA-256 on stderr.
func (f StatsFlags) Write(stdout, stderr io.Writer, prog string, doc any) error {
	if *f.Out == "" {
		b, err := stats.Marshal(doc)
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	}
	sum, err := receipt.Write(*f.Out, doc, judgment.Secrets{})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s: wrote %s sha256 %s\n", prog, *f.Out, sum)
	return nil
}
