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
// Flags (a flag wins over its variable; `throughput -h` lists them with
// their defaults):
//
//	-levels LIST          concurrency levels 1 to 4096, comma-separated, no repeats (default 1,4,16,32)
//	-rows N               TYPEVET_CHECK_MATCH_ROWS      register rows, 1 to 20 (default 20)
//	-seed N               TYPEVET_CHECK_MATCH_SEED      generator seed (default 0)
//	-receipt-prefix PATH  receipts go to PATH_c<level>.json; each must be a new file (required)
//	-backend NAME         TYPEVET_BACKEND               llama_cpp (default), vllm, fake or reader
//	-base-url URL         TYPEVET_LLAMA__BASE_URL or TYPEVET_VLLM__BASE_URL
//	-model ID             TYPEVET_LLAMA__MULTIMODAL_MODEL or TYPEVET_VLLM__MODEL
//	-timeout SECONDS      TYPEVET_LLAMA__TIMEOUT or TYPEVET_VLLM__TIMEOUT (default 300)
//	-revision REV         TYPEVET_VLLM_MODEL_REVISION   served weights revision (required on vLLM)
//	-server-args TEXT     TYPEVET_VLLM_SERVER_ARGS      the flags you started the server with (recorded verbatim)
//
// The backend session reads the rest of typevet's variables (API keys and
// headers; see examples/checkmatch); TYPEVET_GIT_STATUS_PORCELAIN
// fingerprints the working tree (unset: the command asks git). The server
// is contacted before the slice is rendered; rendering and the sweep show
// their progress on stderr when it is a terminal. Before any
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
// 10 s); a second Ctrl-C quits at once and writes nothing more. `go run`
// reports a status of 2 as "exit status 2" and exits 1 itself.
package main

import (
	"context"
	"errors"
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
	usageLine = "usage: throughput -receipt-prefix PATH [-levels 1,4,16,32] [-rows N] [-seed N] [-backend NAME] [-base-url URL] [-model ID] [-timeout SECONDS] [-revision REV] [-server-args TEXT]"
)

// help is the -h text; its flags are the command's flags.
var help = cli.Help{
	Usage: usageLine,
	About: "Run the throughput sweep (typevet #335): judge the check slice once per concurrency level and write one check-match receipt per level.",
	Flags: append([]cli.Flag{
		{Name: "levels", Arg: "LIST", Default: "1,4,16,32", Usage: "concurrency levels 1 to 4096, comma-separated, no repeats"},
		{Name: "receipt-prefix", Arg: "PATH", Usage: "receipts go to PATH_c<level>.json; each must be a new file (required)"},
		{Name: "rows", Arg: "N", Vars: []string{envRows}, Default: "20", Usage: "register rows, 1 to 20"},
		{Name: "seed", Arg: "N", Vars: []string{envSeed}, Default: "0", Usage: "generator seed"},
	}, cli.BackendFlags(cli.AllBackends, false)...),
	Vars:  cli.BackendVars(cli.AllBackends),
	Notes: []string{cli.BackendNote(cli.AllBackends), cli.ExitNote},
}

// The environment variables this command reads itself.
const (
	envRows      = cli.RowsEnv
	envSeed      = cli.SeedEnv
	envBackend   = cli.EnvBackend
	envRevision  = cli.EnvRevision
	envPorcelain = cli.EnvPorcelain
)

// buildSlice renders the slice; tests reuse renders across runs.
var buildSlice = checkmatch.BuildSliceProgress

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
	porcelain *string // the working tree's porcelain text; nil when unknown
	stated    *string // TYPEVET_VLLM_SERVER_ARGS; nil when unset
	notes     []string
	name      func(string) string
}

// run is the whole command.
func run(stdout, stderr io.Writer, args []string, lookup func(string) (string, bool)) error {
	env, _, ok, err := cli.Parse(help, args, stdout, lookup, nil, false)
	if err != nil || !ok {
		return err
	}
	cfg, err := configure(env, env.Flag("levels"), env.Flag("receipt-prefix"))
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
func configure(env *cli.Env, levels, prefix string) (config, error) {
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
		if err := receipt.CheckWritable(p); err != nil {
			return cfg, cli.Usagef("-receipt-prefix: no receipt can be written at %s: %v", p, errors.Unwrap(err))
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
	if raw, ok := env.Lookup(envRows); ok {
		if cfg.rows, err = cli.ParseRows(raw, env.Name(envRows)); err != nil {
			return cfg, cli.Usage(err)
		}
	}
	raw, _ := env.Lookup(envSeed)
	if cfg.seed, err = cli.ParseSeed(raw, env.Name(envSeed)); err != nil {
		return cfg, cli.Usage(err)
	}
	// The backend, the vLLM revision, the porcelain text and the stated
	// server arguments, each refused by variable when it holds a key.
	srv, err := cli.ReadServing(env)
	cfg.settings, cfg.revision, cfg.porcelain, cfg.stated = srv.Settings, srv.Revision, srv.Porcelain, srv.Stated
	cfg.notes, cfg.name = srv.Notes, env.Name
	return cfg, env.Err(err)
}

// execute runs the sweep, writes one receipt per level and the table.
func execute(ctx context.Context, stdout, stderr io.Writer, cfg config) error {
	for _, n := range cfg.notes {
		fmt.Fprintln(stderr, n)
	}
	// One snapshot before any scoring call serves every level.
	snap, err := checkmatch.TakeSnapshot(cli.RepoRoot(), cfg.porcelain)
	if err != nil {
		return err
	}
	// A key that is a word of every receipt ("vllm" on vLLM) is refused
	// before any request, on the slice's case ids and words (its checks not
	// yet rendered).
	planned, err := checkmatch.PlannedSlice(cfg.seed, cfg.rows)
	if err != nil {
		return err
	}
	pre := checkmatch.RunContext{Backend: serving.Backend(cfg.settings.Backend.String()), Model: cli.SettingsModel(cfg.settings),
		ModelRevision: cfg.revision, StatedServerArgs: cfg.stated, Snapshot: snap}
	preview, err := checkmatch.PreviewReceipt(pre, planned, cfg.levels[len(cfg.levels)-1])
	if err != nil {
		return err
	}
	if err := cli.CheckFixedText(cfg.settings, preview); err != nil {
		return err
	}
	// Contact the server before rendering, so a missing server fails at
	// once.
	sess, err := cli.OpenSession(ctx, cfg.settings, "-model")
	if err != nil {
		return cli.Explain(err, "", cfg.settings, cfg.name)
	}
	defer sess.Close()
	rc, err := cli.NewRunContext(ctx, sess, snap, cfg.revision, cfg.stated)
	if err != nil {
		return cli.Explain(err, "", cfg.settings, cfg.name)
	}
	build := buildSlice // read once: the render goroutine may outlive an interrupted run
	slice, err := cli.Interruptible(ctx, func() (checkmatch.Slice, error) {
		return cli.RenderSlice(stderr, build, cfg.seed, cfg.rows)
	})
	if err != nil {
		return err
	}
	if preview, err = checkmatch.PreviewReceipt(rc, slice, cfg.levels[len(cfg.levels)-1]); err != nil {
		return err
	}
	if err := cli.CheckServerText(cfg.settings, rc.ServerEntry, preview); err != nil {
		return err
	}

	opts := checkmatch.SweepOptions{Levels: cfg.levels, CallerStated: cfg.stated, Metrics: cli.MetricsReader(sess)}
	if sess.Backend == backend.VLLM {
		opts.KVCacheUsage = func(ctx context.Context) serving.Value {
			return serving.ReadKVCacheUsage(ctx, sess.HTTPClient, sess.BaseURL)
		}
	}
	fmt.Fprintf(stderr, "%s: %d cases at levels %v\n", prog, len(slice.Requests), cfg.levels)
	p := cli.NewProgress(stderr, "sweep", len(slice.Requests)*len(cfg.levels), "judgments")
	p.Start()
	res, err := checkmatch.Sweep(ctx, p.Wrap(sess.Port), rc.Model, slice.Requests, opts)
	p.Stop()
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
		return cli.Explain(fmt.Errorf("level %d stopped at case %s (index %d, %s); its receipt holds the %d cases before it and no later level ran",
			last.Concurrency, s.CaseID, s.Index, s.ErrorClass, len(last.Run.Outcomes)), s.Message, cfg.settings, cfg.name)
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
