// Command throughput runs typevet's throughput sweep (#335) over the check
// slice: the same cases judged once per concurrency level against one
// server. Each level writes a check-match receipt whose throughput block is
// that level's; a summary table goes to stdout.
//
//	TYPEVET_BACKEND=vllm TYPEVET_VLLM__BASE_URL=http://127.0.0.1:8000 \
//	  TYPEVET_VLLM__MODEL=gemma-4-31b-it TYPEVET_VLLM_MODEL_REVISION=abc123 \
//	  go run ./examples/throughput -levels 1,4,16,32 -rows 20 -receipt-prefix receipts/check_match_vllm_throughput
//
// writes receipts/check_match_vllm_throughput_c1.json … _c32.json, the
// sweep's summary document receipts/check_match_vllm_throughput_summary.json
// (schema "typevet-go/throughput-sweep-summary", checkmatch.SweepSummary),
// and prints
//
//	level  judgments/s  images/s  p50_s  p95_s  discarded  kv_cache_usage  max_abs_dp  verdict_flips  d_accuracy
//	1      …
//
// The last three columns say whether the answers moved against the first
// level (the same requests, so they should not): the largest |Δp| of any
// recorded probability, the number of verdicts that changed and the change
// in accuracy. They are in the summary document, never in the receipts.
//
// On vLLM each level reads /metrics before and after its run (the
// receipt's throughput.server block and the level's four-key delta) and
// once while its calls are in flight (kv_cache_usage); the server_args
// block follows the sweep rule: the first level whose before or after
// reading holds vllm:cache_config_info sets it, and that level's and every
// later level's receipt record it. llama.cpp and the offline backends have
// no /metrics: server and kv_cache_usage are null. The offline fake and
// the built-in reader (-backend reader, judgment/reader) run the sweep
// without a server; a reader receipt's pins.server holds the reader's pin,
// as examples/checkmatch writes it.
//
// Flags (a flag wins over its variable):
//
//	-levels LIST          concurrency levels 1 to 4096, comma-separated, no repeats (default 1,4,16,32)
//	-rows N               TYPEVET_CHECK_MATCH_ROWS      register rows, 1 to 20 (default 20)
//	-seed N               TYPEVET_CHECK_MATCH_SEED      generator seed (default 0)
//	-receipt-prefix PATH  receipts go to PATH_c<level>.json; each must be a new file (required)
//	-backend NAME         TYPEVET_BACKEND               llama_cpp (default), vllm, fake or reader
//	-revision REV         TYPEVET_VLLM_MODEL_REVISION   served weights revision (required on vLLM)
//
// The backend session reads the rest of typevet's variables (see
// examples/checkmatch); TYPEVET_VLLM_SERVER_ARGS is recorded verbatim and
// TYPEVET_GIT_STATUS_PORCELAIN fingerprints the working tree. Before any
// network call, every such recorded text (and the model name and vLLM
// revision) must be free of the API key, the extra header values,
// "authorization" and "bearer "; otherwise the sweep is refused by the
// variable's name, since its receipts could not be written.
//
// Exit status: 0 when every level judged every case; 2 on a usage error
// (nothing sent, nothing written), which includes a model the llama.cpp
// server does not serve (refused before the first scoring request); 1
// otherwise. A level stopped by a
// backend failure still writes its receipt and ends the sweep. So does
// Ctrl-C (the level's after-run /metrics read still happens, for at most
// 10 s); a second Ctrl-C quits at once and writes nothing more.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

const (
	prog      = "throughput"
	usageLine = "usage: throughput -receipt-prefix PATH [-levels 1,4,16,32] [-rows N] [-seed N] [-backend NAME] [-revision REV]"
)

// The environment variables this command reads itself.
const (
	envRows      = checkmatch.RowsEnv
	envSeed      = checkmatch.SeedEnv
	envBackend   = cli.EnvBackend
	envRevision  = cli.EnvRevision
	envPorcelain = cli.EnvPorcelain
)

// buildSlice renders the slice; tests reuse renders across runs.
var buildSlice = checkmatch.BuildSlice

func main() {
	os.Exit(exitCode(run(os.Stdout, os.Stderr, os.Args[1:], os.LookupEnv), os.Stderr))
}

// exitCode prints run's error and maps it to the exit status
// ([cli.ExitCode]).
func exitCode(err error, stderr io.Writer) int {
	return cli.ExitCode(err, stderr, prog, usageLine)
}

// config is everything checked before the first network call.
type config struct {
	levels    []int
	paths     []string // one receipt path per level
	summary   string   // the sweep's summary document: PREFIX_summary.json
	rows      int
	seed      uint64
	settings  backend.Settings
	revision  string
	porcelain *string // TYPEVET_GIT_STATUS_PORCELAIN; nil when unset
	stated    *string // TYPEVET_VLLM_SERVER_ARGS; nil when unset
}

// run is the whole command.
func run(stdout, stderr io.Writer, args []string, lookup func(string) (string, bool)) error {
	fset := flag.NewFlagSet(prog, flag.ContinueOnError)
	vars := map[string][]string{}
	for name, env := range map[string]string{"rows": envRows, "seed": envSeed, "backend": envBackend, "revision": envRevision} {
		fset.String(name, "", "overrides "+env)
		vars[name] = []string{env}
	}
	levels := fset.String("levels", "1,4,16,32", "concurrency levels `LIST`, comma-separated")
	prefix := fset.String("receipt-prefix", "", "receipts go to `PATH`_c<level>.json (required)")
	set, help, err := cli.ParseFlags(fset, args, vars, stdout, usageLine,
		"Judge the check slice at several concurrency levels and write one receipt per level.")
	if err != nil || help {
		return err
	}
	env := cli.Overlay(set, lookup, nil)
	cfg, err := configure(env, *levels, *prefix)
	if err != nil {
		return err
	}
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	return execute(ctx, stdout, stderr, cfg)
}

// maxLevel is the highest concurrency level -levels accepts.
const maxLevel = 4096

// parseLevels parses "1,4,16,32": whole numbers from 1 to [maxLevel]
// (spaces around each allowed), no repeats, in the order given.
func parseLevels(text string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.Split(text, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > maxLevel {
			return nil, cli.Usagef("-levels must list whole numbers from 1 to %d, comma-separated", maxLevel)
		}
		if seen[n] {
			return nil, cli.Usagef("-levels lists %d twice", n)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

// configure validates every setting before any network call.
func configure(env func(string) (string, bool), levels, prefix string) (config, error) {
	var cfg config
	var err error
	if cfg.levels, err = parseLevels(levels); err != nil {
		return cfg, err
	}
	prefix = strings.TrimSpace(prefix)
	if prefix == "" {
		return cfg, cli.Usagef("-receipt-prefix is required")
	}
	for _, l := range cfg.levels {
		p := fmt.Sprintf("%s_c%d.json", prefix, l)
		if err := receipt.CheckNew(p); err != nil {
			var ae *receipt.AlreadyExistsError
			if errors.As(err, &ae) {
				return cfg, cli.Usagef("-receipt-prefix must name new files: %s exists", p)
			}
			return cfg, cli.Usagef("-receipt-prefix: %v", err)
		}
		cfg.paths = append(cfg.paths, p)
	}
	cfg.summary = prefix + "_summary.json"
	if err := receipt.CheckNew(cfg.summary); err != nil {
		var ae *receipt.AlreadyExistsError
		if errors.As(err, &ae) {
			return cfg, cli.Usagef("-receipt-prefix must name new files: %s exists", cfg.summary)
		}
		return cfg, cli.Usagef("-receipt-prefix: %v", err)
	}

	cfg.rows = checkmatch.RowCount
	if raw, ok := env(envRows); ok {
		if cfg.rows, err = checkmatch.ParseRows(raw, envRows); err != nil {
			return cfg, cli.Usage(err)
		}
	}
	raw, _ := env(envSeed)
	if cfg.seed, err = checkmatch.ParseSeed(raw, envSeed); err != nil {
		return cfg, cli.Usage(err)
	}
	// The backend, the vLLM revision, the porcelain text and the stated
	// server arguments, each refused by variable when it holds a key.
	srv, err := cli.ReadServing(env)
	cfg.settings, cfg.revision, cfg.porcelain, cfg.stated = srv.Settings, srv.Revision, srv.Porcelain, srv.Stated
	return cfg, err
}

// execute runs the sweep, writes one receipt per level and the table.
func execute(ctx context.Context, stdout, stderr io.Writer, cfg config) error {
	slice, err := buildSlice(cfg.seed, cfg.rows)
	if err != nil {
		return err
	}
	// One snapshot before any scoring call serves every level.
	snap, err := checkmatch.TakeSnapshot(cli.RepoRoot(), cfg.porcelain)
	if err != nil {
		return err
	}
	sess, err := cli.OpenSession(ctx, cfg.settings, "")
	if err != nil {
		return err
	}
	defer sess.Close()
	rc, err := cli.NewRunContext(ctx, sess, snap, cfg.revision, cfg.stated)
	if err != nil {
		return err
	}

	opts := checkmatch.SweepOptions{Levels: cfg.levels, CallerStated: cfg.stated, Metrics: cli.MetricsReader(sess)}
	if sess.Backend == backend.VLLM {
		opts.KVCacheUsage = func(ctx context.Context) serving.Value {
			return serving.ReadKVCacheUsage(ctx, sess.HTTPClient, sess.BaseURL)
		}
	}
	fmt.Fprintf(stderr, "%s: %d cases at levels %v\n", prog, len(slice.Requests), cfg.levels)
	res, err := checkmatch.Sweep(ctx, sess.Port, rc.Model, slice.Requests, opts)
	if err != nil {
		return err
	}

	sweep, err := checkmatch.NewSweepSummary(res)
	if err != nil {
		return err
	}
	for i, lv := range res.Levels {
		parts := rc.ReceiptParts(slice, lv.Run)
		// The sweep rule: the first level whose reading holds
		// vllm:cache_config_info sets server_args for it and every later
		// level; before that (and on backends without /metrics) the
		// block holds caller_stated alone.
		b := res.LevelServerArgs[i]
		parts.ServerArgs = &b
		rec, err := checkmatch.BuildReceipt(lv.Run, parts)
		if err != nil {
			return err
		}
		sum, err := receipt.Write(cfg.paths[i], rec, sess.Secrets())
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "receipt %s sha256 %s\n", cfg.paths[i], sum)
		sweep.Levels[i].Receipt, sweep.Levels[i].ReceiptSHA256 = cfg.paths[i], sum
	}
	sum, err := receipt.Write(cfg.summary, sweep, sess.Secrets())
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "summary %s sha256 %s\n", cfg.summary, sum)
	if err := writeTable(stdout, sweep); err != nil {
		return err
	}
	if last := res.Levels[len(res.Levels)-1]; last.Stopped != nil {
		s := last.Stopped
		return fmt.Errorf("level %d stopped at case %s (index %d, %s); its receipt holds the %d cases before it and no later level ran",
			last.Concurrency, s.CaseID, s.Index, s.ErrorClass, len(last.Run.Outcomes))
	}
	return nil
}

// writeTable writes the summary: one row per level, with whether its
// answers moved from the first level's (largest |Δp|, verdict flips,
// accuracy change).
func writeTable(w io.Writer, s checkmatch.SweepSummary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "level\tjudgments/s\timages/s\tp50_s\tp95_s\tdiscarded\tkv_cache_usage\tmax_abs_dp\tverdict_flips\td_accuracy")
	for _, lv := range s.Levels {
		kv := "null"
		if lv.KVCacheUsage != nil {
			kv = lv.KVCacheUsage.String()
		}
		a := lv.Answers
		dAcc := "null"
		if a.AccuracyChange != nil {
			dAcc = strconv.FormatFloat(*a.AccuracyChange, 'f', 4, 64)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%s\n", lv.Concurrency,
			rate(lv.JudgmentsPerSecond), rate(lv.ImagesPerSecond),
			rate(lv.P50Seconds), rate(lv.P95Seconds), lv.Discarded, kv,
			strconv.FormatFloat(a.MaxAbsProbabilityDifference, 'g', 3, 64), a.VerdictFlips, dAcc)
	}
	return tw.Flush()
}

// rate formats a nullable number with 3 decimals.
func rate(v *float64) string {
	if v == nil {
		return "null"
	}
	return strconv.FormatFloat(*v, 'f', 3, 64)
}
