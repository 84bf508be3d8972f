// Command checkmatch runs typevet's check-match evaluation: it judges every
// case of the synthetic check slice with a served vision model (llama.cpp or
// vLLM), the offline fake or the built-in check reader, scores the answers
// and writes a receipt that typevet's tools read.
//
//	TYPEVET_GIT_STATUS_PORCELAIN="$(git status --porcelain)" \
//	  go run ./examples/checkmatch -receipt receipts/check_match.json
//
// Without a GPU server, the reader (judgment/reader) runs the whole main job
// offline in seconds, and gives every model receipt a baseline:
//
//	go run ./examples/checkmatch -backend reader -receipt receipts/check_match_reader.json
//
// The settings a run changes are flags, each with typevet's environment
// variable of the same meaning; a flag wins. `checkmatch -h` lists them
// with their defaults:
//
//	-receipt PATH      TYPEVET_CHECK_MATCH_RECEIPT   receipt path; must name a new file (required)
//	-rows N            TYPEVET_CHECK_MATCH_ROWS      register rows, 1 to 20 (default 20; 7 cases each)
//	-seed N            TYPEVET_CHECK_MATCH_SEED      generator seed (default 0, the #316 slice)
//	-concurrency N     TYPEVET_IMAGE_CONCURRENCY     judgments in flight (default 1)
//	-backend NAME      TYPEVET_BACKEND               llama_cpp (default), vllm, fake or reader
//	-base-url URL      TYPEVET_LLAMA__BASE_URL or TYPEVET_VLLM__BASE_URL (llama.cpp default http://127.0.0.1:8090)
//	-model ID          TYPEVET_LLAMA__MULTIMODAL_MODEL (default gemma-4-31b-kv9-q4km-mm) or TYPEVET_VLLM__MODEL
//	-timeout SECONDS   TYPEVET_LLAMA__TIMEOUT (default here 900) or TYPEVET_VLLM__TIMEOUT (default 300)
//	-revision REV      TYPEVET_VLLM_MODEL_REVISION   served weights revision (required on vLLM)
//	-server-args TEXT  TYPEVET_VLLM_SERVER_ARGS      the flags you started the server with (recorded verbatim)
//	-json                                            the summary as key-value JSON lines, for scripts
//
// The rest are variables only: the API keys, auth and extra headers and
// user agents (TYPEVET_LLAMA__API_KEY, TYPEVET_VLLM__API_KEY, …; secrets
// stay off the command line, where other users of the machine can read
// them), TYPEVET_FAKE__DISTRIBUTIONS, and TYPEVET_GIT_STATUS_PORCELAIN,
// the text of `git status --porcelain` for the receipt's working-tree
// fingerprint. When it is unset the command runs `git status --porcelain`
// itself (git on PATH, in a checkout) and says on stderr what the receipt
// records; without git the tree counts as dirty. An error names what you
// set: the flag when a flag gave the value, the variable when the
// environment did.
//
// Everything is checked before any network call, in typevet's order:
// receipt path, rows, seed, concurrency, backend settings, vLLM revision;
// then every text the receipt records from the caller (the porcelain
// text, the model name, the vLLM revision and stated server arguments)
// must be free of the API key, the extra header values, "authorization"
// and "bearer ": such a text would make the finished receipt unwritable,
// so it is refused up front, by its variable's name.
// The server is contacted (a llama.cpp probe, the /v1/models read) before
// the 140 checks are rendered, so a missing server fails at once with the
// URL setting to fix. Rendering and judging show their progress on stderr
// when stderr is a terminal. At the end the command prints a short table
// (cases judged, accuracy, false-clear and cannot-tell rates, each Noul's
// ROC-AUC and ECE, the worst variant, the wrong cases, wall time and
// judgments/s, the receipt's path and SHA-256); -json prints the key-value
// JSON lines instead.
//
// Exit status: 0 when every case was judged and the receipt written; 2 on a
// usage error (nothing sent, nothing written); 1 otherwise, including a run
// that stopped on a backend failure or Ctrl-C, whose receipt is still
// written with every earlier outcome. `go run` reports a status of 2 as
// "exit status 2" and exits 1 itself; a built binary exits 2.
//
// Ctrl-C stops sending: calls in flight end, then (on vLLM) /metrics is
// read once more, for at most 10 s, and the receipt is written. A second
// Ctrl-C quits at once and writes nothing.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/stats"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/receipt"
)

const (
	prog      = "checkmatch"
	usageLine = "usage: checkmatch -receipt PATH [-rows N] [-seed N] [-concurrency N] [-backend NAME] [-base-url URL] [-model ID] [-timeout SECONDS] [-revision REV] [-server-args TEXT] [-json]"

	// ConfidenceLine ends every summary.
	confidenceLine = cli.ConfidenceLine
)

// The environment variables this command reads itself.
const (
	envReceipt     = "TYPEVET_CHECK_MATCH_RECEIPT"
	envRows        = checkmatch.RowsEnv
	envSeed        = checkmatch.SeedEnv
	envConcurrency = checkmatch.ConcurrencyEnv
	envBackend     = cli.EnvBackend
	envRevision    = cli.EnvRevision
	envServerArgs  = cli.EnvServerArgs
	envPorcelain   = cli.EnvPorcelain
	envLlamaModel  = cli.EnvLlamaModel
	envVLLMModel   = cli.EnvVLLMModel
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

// help is the -h text; its flags are the command's flags.
var help = cli.Help{
	Usage: usageLine,
	About: "Judge the synthetic check slice with a served vision model (or offline) and write a check-match receipt.",
	Flags: append(append([]cli.Flag{
		{Name: "receipt", Arg: "PATH", Vars: []string{envReceipt}, Usage: "receipt path; must name a new file (required)"},
		{Name: "rows", Arg: "N", Vars: []string{envRows}, Default: "20", Usage: "register rows, 1 to 20, 7 cases each"},
		{Name: "seed", Arg: "N", Vars: []string{envSeed}, Default: "0, the #316 slice", Usage: "generator seed"},
		{Name: "concurrency", Arg: "N", Vars: []string{envConcurrency}, Default: "1", Usage: "judgments in flight"},
	}, cli.BackendFlags(cli.AllBackends, true)...),
		cli.Flag{Name: "json", Bool: true, Usage: "print the summary as key-value JSON lines, for scripts"}),
	Vars: cli.BackendVars(cli.AllBackends),
	Notes: []string{cli.BackendNote(cli.AllBackends),
		"Offline in seconds: checkmatch -backend reader -receipt receipts/check_match_reader.json",
		cli.ExitNote},
}

// config is everything checked before the first network call.
type config struct {
	receiptPath string
	rows        int
	seed        uint64
	concurrency int
	settings    backend.Settings
	revision    string   // vLLM only
	porcelain   *string  // the working tree's porcelain text; nil when unknown
	stated      *string  // TYPEVET_VLLM_SERVER_ARGS; nil when unset
	notes       []string // git and warning lines for stderr
	name        func(string) string
	json        bool // -json: the summary as key-value lines
}

// run is the whole command: flags and environment (lookup; flags win),
// validation, the run, the receipt and the summary on stdout.
func run(stdout, stderr io.Writer, args []string, lookup func(string) (string, bool)) error {
	env, _, ok, err := cli.Parse(help, args, stdout, lookup, cli.LiveDefaults, false)
	if err != nil || !ok {
		return err
	}
	cfg, err := configure(env)
	if err != nil {
		return err
	}
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	return execute(ctx, stdout, stderr, cfg)
}

// configure validates every setting in typevet's order; an error names
// the flag or the variable the value came from.
func configure(env *cli.Env) (config, error) {
	var cfg config
	var err error
	if cfg.receiptPath, err = cli.NewReceiptPath(env.Lookup, envReceipt); err != nil {
		return cfg, env.Err(err)
	}
	cfg.rows = checkmatch.RowCount
	if raw, ok := env.Lookup(envRows); ok {
		if cfg.rows, err = checkmatch.ParseRows(raw, env.Name(envRows)); err != nil {
			return cfg, cli.Usage(err)
		}
	}
	raw, _ := env.Lookup(envSeed)
	if cfg.seed, err = checkmatch.ParseSeed(raw, env.Name(envSeed)); err != nil {
		return cfg, cli.Usage(err)
	}
	raw, _ = env.Lookup(envConcurrency)
	if cfg.concurrency, err = checkmatch.ParseConcurrency(raw, env.Name(envConcurrency)); err != nil {
		return cfg, cli.Usage(err)
	}
	// The backend, the vLLM revision, the porcelain text and the stated
	// server arguments, each refused by variable when it holds a key.
	srv, err := cli.ReadServing(env)
	cfg.settings, cfg.revision, cfg.porcelain, cfg.stated = srv.Settings, srv.Revision, srv.Porcelain, srv.Stated
	cfg.notes, cfg.name, cfg.json = srv.Notes, env.Name, env.Flag("json") == "true"
	return cfg, env.Err(err)
}

// execute opens the session and runs; from here on a failure is exit 1.
func execute(ctx context.Context, stdout, stderr io.Writer, cfg config) error {
	for _, n := range cfg.notes {
		fmt.Fprintln(stderr, n)
	}
	// Snapshot the baseline, tree, prompt and code digests before any
	// scoring call.
	snap, err := checkmatch.TakeSnapshot(cli.RepoRoot(), cfg.porcelain)
	if err != nil {
		return err
	}
	// Contact the server (the llama.cpp probe, the server entry) before
	// rendering, so a missing server fails at once.
	sess, err := backend.Open(ctx, cfg.settings, "")
	if err != nil {
		return cli.Explain(fmt.Errorf("open %s session: %w", cfg.settings.Backend, err), "", cfg.settings, cfg.name)
	}
	defer sess.Close()
	rc, err := cli.NewRunContext(ctx, sess, snap, cfg.revision, cfg.stated)
	if err != nil {
		return cli.Explain(err, "", cfg.settings, cfg.name)
	}
	slice, err := cli.RenderSlice(stderr, buildSlice, cfg.seed, cfg.rows)
	if err != nil {
		return err
	}

	opts := checkmatch.RunOptions{Concurrency: cfg.concurrency, Metrics: cli.MetricsReader(sess)}
	prog := cli.NewProgress(stderr, "judging", len(slice.Requests), "cases")
	port := prog.Wrap(sess.Port)
	prog.Start()
	res, err := checkmatch.Run(ctx, port, rc.Model, slice.Requests, opts)
	prog.Stop()
	if err != nil {
		return err
	}

	rec, err := checkmatch.BuildReceipt(res, rc.ReceiptParts(slice, res))
	if err != nil {
		return err
	}
	sum, err := receipt.Write(cfg.receiptPath, rec, sess.Secrets())
	if err != nil {
		return err
	}
	write := cli.RunTable
	if cfg.json {
		write = summary
	}
	if err := write(stdout, cfg.receiptPath, sum, rec); err != nil {
		return err
	}
	if s := rec.Stopped; s != nil {
		return cli.Explain(fmt.Errorf("run stopped at case %s (index %d, %s); the receipt holds the %d cases before it",
			s.CaseID, s.Index, s.ErrorClass, len(rec.Cases)), s.Message, cfg.settings, cfg.name)
	}
	return nil
}

// summary is the -json summary, the lines scripts read: the receipt path
// and digest and the headline numbers, each value as one line of JSON with
// the receipt's number text (1.0, not 1; [cli.SummaryLine]), then one line
// of the headline shares with their 95% Wilson intervals
// ([stats.FormatRates]).
func summary(w io.Writer, path, sum string, r checkmatch.Receipt) error {
	lines := []struct {
		key string
		v   any
	}{
		{"accuracy", r.Metrics.Accuracy},
		{"false_clear_rate", r.Metrics.FalseClearRate},
		{"accuracy_by_variant", r.Metrics.AccuracyByVariant},
		{"wall_seconds", r.WallSeconds},
		{"stopped", r.Stopped},
		{"throughput", r.Throughput},
	}
	if _, err := fmt.Fprintf(w, "receipt %s sha256 %s\n", path, sum); err != nil {
		return err
	}
	for _, l := range lines {
		if err := cli.SummaryLine(w, l.key, l.v); err != nil {
			return err
		}
	}
	// The headline shares with their Wilson intervals (checkmatch/stats).
	if rates, err := stats.HeadlineRates(r.Cases, stats.DefaultLevel); err == nil {
		if _, err := fmt.Fprintln(w, "intervals "+stats.FormatRates(rates, stats.DefaultLevel)); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w, confidenceLine)
	return err
}
