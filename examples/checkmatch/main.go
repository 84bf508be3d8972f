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
// Every setting is a flag or typevet's environment variable; a flag wins:
//
//	-receipt PATH      TYPEVET_CHECK_MATCH_RECEIPT   receipt path; must name a new file (required)
//	-rows N            TYPEVET_CHECK_MATCH_ROWS      register rows, 1 to 20 (default 20; 7 cases each)
//	-seed N            TYPEVET_CHECK_MATCH_SEED      generator seed (default 0, the #316 slice)
//	-concurrency N     TYPEVET_IMAGE_CONCURRENCY     judgments in flight (default 1)
//	-backend NAME      TYPEVET_BACKEND               llama_cpp (default), vllm, fake or reader
//	-revision REV      TYPEVET_VLLM_MODEL_REVISION   served weights revision (required on vLLM)
//	-server-args TEXT  TYPEVET_VLLM_SERVER_ARGS      the vLLM flags you started the server with (recorded verbatim)
//	-model ID          TYPEVET_LLAMA__MULTIMODAL_MODEL (default gemma-4-31b-kv9-q4km-mm) or TYPEVET_VLLM__MODEL
//
// The backend session reads the rest of typevet's variables:
// TYPEVET_LLAMA__BASE_URL, TYPEVET_LLAMA__TIMEOUT (default here 900),
// TYPEVET_VLLM__BASE_URL, TYPEVET_VLLM__API_KEY, TYPEVET_VLLM__USER_AGENT,
// TYPEVET_FAKE__DISTRIBUTIONS and the others of judgment/backend.
// TYPEVET_GIT_STATUS_PORCELAIN is the text of `git status --porcelain` for
// the receipt's working-tree fingerprint (unset: the tree counts as dirty).
//
// Everything is checked before any network call, in typevet's order:
// receipt path, rows, seed, concurrency, backend settings, vLLM revision;
// then every text the receipt records from the caller (the porcelain
// text, the model name, the vLLM revision and stated server arguments)
// must be free of the API key, the extra header values, "authorization"
// and "bearer ": such a text would make the finished receipt unwritable,
// so it is refused up front, by its variable's name.
// A long run shows its progress on stderr when stderr is a terminal. At the
// end the command prints the receipt's path and SHA-256 and a summary.
//
// Exit status: 0 when every case was judged and the receipt written; 2 on a
// usage error (nothing sent, nothing written), which includes a model the
// llama.cpp server does not serve (refused before the first scoring
// request); 1 otherwise, including a run
// that stopped on a backend failure or Ctrl-C, whose receipt is still
// written with every earlier outcome.
//
// Ctrl-C stops sending: calls in flight end, then (on vLLM) /metrics is
// read once more, for at most 10 s, and the receipt is written. A second
// Ctrl-C quits at once and writes nothing.
package main

import (
	"context"
	"flag"
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
	usageLine = "usage: checkmatch -receipt PATH [-rows N] [-seed N] [-concurrency N] [-backend NAME] [-revision REV] [-server-args TEXT] [-model ID]"

	// ConfidenceLine ends every summary.
	confidenceLine = "Noul values are model confidence; generated checks are not real checks."
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
var buildSlice = checkmatch.BuildSlice

func main() {
	os.Exit(exitCode(run(os.Stdout, os.Stderr, os.Args[1:], os.LookupEnv), os.Stderr))
}

// exitCode prints run's error and maps it to the exit status
// ([cli.ExitCode]).
func exitCode(err error, stderr io.Writer) int {
	return cli.ExitCode(err, stderr, prog, usageLine)
}

// flagEnv maps each flag but -model to the variable it overrides.
var flagEnv = map[string]string{
	"receipt": envReceipt, "rows": envRows, "seed": envSeed, "concurrency": envConcurrency,
	"backend": envBackend, "revision": envRevision, "server-args": envServerArgs,
}

// config is everything checked before the first network call.
type config struct {
	receiptPath string
	rows        int
	seed        uint64
	concurrency int
	settings    backend.Settings
	revision    string  // vLLM only
	porcelain   *string // TYPEVET_GIT_STATUS_PORCELAIN; nil when unset
	stated      *string // TYPEVET_VLLM_SERVER_ARGS; nil when unset
}

// run is the whole command: flags and environment (lookup; flags win),
// validation, the run, the receipt and the summary on stdout.
func run(stdout, stderr io.Writer, args []string, lookup func(string) (string, bool)) error {
	fset := flag.NewFlagSet(prog, flag.ContinueOnError)
	vars := map[string][]string{"model": {envLlamaModel, envVLLMModel}}
	for name, env := range flagEnv {
		fset.String(name, "", "overrides "+env)
		vars[name] = []string{env}
	}
	fset.String("model", "", "overrides "+envLlamaModel+" or "+envVLLMModel)
	set, help, err := cli.ParseFlags(fset, args, vars, stdout, usageLine, "Judge the synthetic check slice and write a check-match receipt.")
	if err != nil || help {
		return err
	}
	cfg, err := configure(cli.Overlay(set, lookup, cli.LiveDefaults))
	if err != nil {
		return err
	}
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	return execute(ctx, stdout, stderr, cfg)
}

// configure validates every setting in typevet's order (spec §6.7).
func configure(env func(string) (string, bool)) (config, error) {
	var cfg config
	var err error
	if cfg.receiptPath, err = cli.NewReceiptPath(env, envReceipt); err != nil {
		return cfg, err
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
	raw, _ = env(envConcurrency)
	if cfg.concurrency, err = checkmatch.ParseConcurrency(raw, envConcurrency); err != nil {
		return cfg, cli.Usage(err)
	}
	// The backend, the vLLM revision, the porcelain text and the stated
	// server arguments, each refused by variable when it holds a key.
	srv, err := cli.ReadServing(env)
	cfg.settings, cfg.revision, cfg.porcelain, cfg.stated = srv.Settings, srv.Revision, srv.Porcelain, srv.Stated
	return cfg, err
}

// execute opens the session and runs; from here on a failure is exit 1.
func execute(ctx context.Context, stdout, stderr io.Writer, cfg config) error {
	slice, err := buildSlice(cfg.seed, cfg.rows)
	if err != nil {
		return err
	}
	// Snapshot the baseline, tree, prompt and code digests before any
	// scoring call.
	snap, err := checkmatch.TakeSnapshot(cli.RepoRoot(), cfg.porcelain)
	if err != nil {
		return err
	}
	sess, err := cli.OpenSession(ctx, cfg.settings, "-model")
	if err != nil {
		return err
	}
	defer sess.Close()
	rc, err := cli.NewRunContext(ctx, sess, snap, cfg.revision, cfg.stated)
	if err != nil {
		return err
	}

	opts := checkmatch.RunOptions{Concurrency: cfg.concurrency, Metrics: cli.MetricsReader(sess)}
	prog := newProgress(stderr, len(slice.Requests))
	port := prog.wrap(sess.Port)
	prog.start()
	res, err := checkmatch.Run(ctx, port, rc.Model, slice.Requests, opts)
	prog.stop()
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
	if err := summary(stdout, cfg.receiptPath, sum, rec); err != nil {
		return err
	}
	if s := rec.Stopped; s != nil {
		return fmt.Errorf("run stopped at case %s (index %d, %s); the receipt holds the %d cases before it",
			s.CaseID, s.Index, s.ErrorClass, len(rec.Cases))
	}
	return nil
}

// summary prints the receipt path and digest and the headline numbers
// (spec §6.7), each value as one line of JSON with the receipt's number
// text (1.0, not 1; [cli.SummaryLine]), then one line of the headline
// shares with their 95% Wilson intervals ([stats.FormatRates]).
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
