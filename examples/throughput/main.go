// Command throughput runs typevet's throughput sweep (#335) over the check
// slice: the same cases judged once per concurrency level against one
// server. Each level writes a check-match receipt whose throughput block is
// that level's; a summary table goes to stdout.
//
//	TYPEVET_BACKEND=vllm TYPEVET_VLLM__BASE_URL=http://127.0.0.1:8000 \
//	  TYPEVET_VLLM__MODEL=gemma-4-31b-it TYPEVET_VLLM_MODEL_REVISION=abc123 \
//	  go run ./examples/throughput -levels 1,4,16,32 -rows 20 -receipt-prefix receipts/check_match_vllm_throughput
//
// writes receipts/check_match_vllm_throughput_c1.json … _c32.json and
// prints
//
//	level  judgments/s  images/s  p50_s  p95_s  discarded  kv_cache_usage
//	1      …
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
//	-levels LIST          concurrency levels, comma-separated (default 1,4,16,32)
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
// (nothing sent, nothing written); 1 otherwise. A level stopped by a
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
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

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
	envRows      = "TYPEVET_CHECK_MATCH_ROWS"
	envSeed      = checkmatch.SeedEnv
	envBackend   = "TYPEVET_BACKEND"
	envRevision  = "TYPEVET_VLLM_MODEL_REVISION"
	envPorcelain = "TYPEVET_GIT_STATUS_PORCELAIN"
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
	fset.SetOutput(io.Discard)
	flagEnv := map[string]string{"rows": envRows, "seed": envSeed, "backend": envBackend, "revision": envRevision}
	for name, env := range flagEnv {
		fset.String(name, "", "overrides "+env)
	}
	levels := fset.String("levels", "1,4,16,32", "concurrency levels `LIST`, comma-separated")
	prefix := fset.String("receipt-prefix", "", "receipts go to `PATH`_c<level>.json (required)")
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "%s\n\nJudge the check slice at several concurrency levels and write one receipt per level.\n\n", usageLine)
			fset.SetOutput(stdout)
			fset.PrintDefaults()
			return nil
		}
		return cli.Usage(err)
	}
	if fset.NArg() > 0 {
		return cli.Usagef("unexpected arguments: %s", strings.Join(fset.Args(), " "))
	}
	set := map[string]string{}
	fset.Visit(func(f *flag.Flag) {
		if env, ok := flagEnv[f.Name]; ok {
			set[env] = f.Value.String()
		}
	})
	env := func(key string) (string, bool) {
		if v, ok := set[key]; ok {
			return v, true
		}
		return lookup(key)
	}
	cfg, err := configure(env, *levels, *prefix)
	if err != nil {
		return err
	}
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	return execute(ctx, stdout, stderr, cfg)
}

// parseLevels parses "1,4,16,32": whole numbers of at least 1, no repeats.
func parseLevels(text string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.Split(text, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 4096 {
			return nil, cli.Usagef("-levels must list whole numbers from 1 to 4096, comma-separated")
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

	cfg.rows = checkmatch.RowCount
	if raw, ok := env(envRows); ok {
		n, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil || n < 1 || n > checkmatch.RowCount {
			return cfg, cli.Usagef("%s must be 1 to %d", envRows, checkmatch.RowCount)
		}
		cfg.rows = n
	}
	raw, _ := env(envSeed)
	if cfg.seed, err = checkmatch.ParseSeed(raw, envSeed); err != nil {
		return cfg, cli.Usage(err)
	}
	if cfg.settings, err = backend.SettingsFromEnv(env); err != nil {
		return cfg, cli.Usage(err)
	}
	if cfg.settings.Backend == backend.VLLM {
		rev, _ := env(envRevision)
		cfg.revision = strings.TrimSpace(rev)
		if cfg.revision == "" {
			return cfg, cli.Usagef("%s must name the served weights revision", envRevision)
		}
	}
	if text, ok := env(envPorcelain); ok {
		cfg.porcelain = &text
	}
	cfg.stated = serving.StatedServerArgs(env)
	rec := cli.Recorded{Porcelain: cfg.porcelain, Revision: cfg.revision}
	if cfg.settings.Backend == backend.VLLM {
		rec.Stated = cfg.stated // recorded on vLLM only
	}
	return cfg, cli.CheckKeyFree(cfg.settings, rec)
}

// execute runs the sweep, writes one receipt per level and the table.
func execute(ctx context.Context, stdout, stderr io.Writer, cfg config) error {
	baseline := receipt.BaselineCommit(repoRoot())
	slice, err := buildSlice(cfg.seed, cfg.rows)
	if err != nil {
		return err
	}
	prompts := receipt.PromptDigests(checkmatch.Questions())
	code, err := checkmatch.CodeDigests()
	if err != nil {
		return err
	}

	sess, err := backend.Open(ctx, cfg.settings, "")
	if err != nil {
		return fmt.Errorf("open %s session: %w", cfg.settings.Backend, err)
	}
	defer sess.Close()
	model := cli.Model(sess)
	recBackend := serving.Backend(cfg.settings.Backend.String())
	// pins.server: none for the fake, the reader's pin for the reader, the
	// server's own entry otherwise.
	entry, err := cli.ServerEntry(ctx, sess, model)
	if err != nil {
		return err
	}
	serverBuild := receipt.Unknown
	if entry != nil {
		serverBuild = entry.BuildInfo
	}

	opts := checkmatch.SweepOptions{Levels: cfg.levels, CallerStated: cfg.stated}
	if cfg.settings.Backend == backend.VLLM {
		opts.Metrics = func(ctx context.Context) (string, bool) {
			return serving.Read(ctx, sess.HTTPClient, sess.BaseURL)
		}
		opts.KVCacheUsage = func(ctx context.Context) serving.Value {
			return serving.ReadKVCacheUsage(ctx, sess.HTTPClient, sess.BaseURL)
		}
	}
	fmt.Fprintf(stderr, "%s: %d cases at levels %v\n", prog, len(slice.Requests), cfg.levels)
	res, err := checkmatch.Sweep(ctx, sess.Port, model, slice.Requests, opts)
	if err != nil {
		return err
	}

	renderer := checkmatch.RendererPin()
	for i, lv := range res.Levels {
		pins := slice.Pins()
		pins.FinishedUTC = receipt.FinishedUTC(time.Now())
		pins.Concurrency = lv.Concurrency
		pins.Renderer = &renderer
		pins.Server = entry
		pins.ModelRevision = cfg.revision
		id := receipt.Identity{
			RunID:           receipt.NewRunID(),
			BaselineCommit:  baseline,
			WorkingTree:     receipt.WorkingTreeFromPorcelain(cfg.porcelain, baseline),
			PromptDigests:   prompts,
			CodePathDigests: code,
			FixtureDigests:  receipt.Digests{},
			Runtime:         receipt.NewRuntime(model, sess.ServedTemplate, serverBuild),
			ArmCallCounts:   receipt.Counts{{Name: "judgments", Value: len(lv.Run.Outcomes)}},
		}
		id.IdentityDigest = receipt.IdentityDigest(id)
		var serverArgs *serving.ServerArgsBlock
		if cfg.settings.Backend == backend.VLLM {
			b := res.LevelServerArgs[i]
			serverArgs = &b
		}
		rec, err := checkmatch.BuildReceipt(lv.Run, checkmatch.ReceiptParts{
			Backend: recBackend, Model: model, Pins: pins, Identity: id, ServerArgs: serverArgs, Secrets: sess.Secrets(),
		})
		if err != nil {
			return err
		}
		sum, err := receipt.Write(cfg.paths[i], rec, sess.Secrets())
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "receipt %s sha256 %s\n", cfg.paths[i], sum)
	}
	if err := writeTable(stdout, res.Levels); err != nil {
		return err
	}
	if last := res.Levels[len(res.Levels)-1]; last.Stopped != nil {
		s := last.Stopped
		return fmt.Errorf("level %d stopped at case %s (index %d, %s); its receipt holds the %d cases before it and no later level ran",
			last.Concurrency, s.CaseID, s.Index, s.ErrorClass, len(last.Run.Outcomes))
	}
	return nil
}

// writeTable writes the summary: one row per level.
func writeTable(w io.Writer, levels []checkmatch.SweepLevel) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "level\tjudgments/s\timages/s\tp50_s\tp95_s\tdiscarded\tkv_cache_usage")
	for _, lv := range levels {
		tp := lv.Throughput
		kv := "null"
		if lv.KVCacheUsage != nil {
			kv = lv.KVCacheUsage.String()
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\n", lv.Concurrency,
			rate(tp.JudgmentsPerSecond), rate(tp.ImagesPerSecond),
			rate(tp.LatencySeconds.P50), rate(tp.LatencySeconds.P95), tp.Discarded, kv)
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

// repoRoot returns the nearest directory at or above the working directory
// that holds a .git entry, for the receipt's baseline commit.
func repoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd
		}
		dir = parent
	}
}
