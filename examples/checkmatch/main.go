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
//	-resume                                          finish the run journaled at PATH.journal.jsonl
//	-retries N                                       retry a judgment after a transport error or HTTP 429/502/503/504 (default 0)
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
// usage error (nothing sent, nothing written); 1 otherwise, including a run
// that stopped on a backend failure or Ctrl-C, whose receipt is still
// written with every earlier outcome.
//
// Ctrl-C, SIGTERM or SIGHUP stops sending: calls in flight end, then (on
// vLLM) /metrics is read once more, for at most 10 s, and the receipt is
// written. A second signal quits at once. Every finished case is in the
// journal beside the receipt (PATH.journal.jsonl) either way, so -resume
// finishes a stopped or killed run, judging only what never finished; it
// refuses, naming the first differing pin, a run that is not the same
// experiment. See examples/README.md and package checkmatch's "Journals,
// resume and retry".
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
	"github.com/typevet/typevet-go/serving"
)

const (
	prog      = "checkmatch"
	usageLine = "usage: checkmatch -receipt PATH [-resume] [-retries N] [-rows N] [-seed N] [-concurrency N] [-backend NAME] [-revision REV] [-server-args TEXT] [-model ID]"

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
	files       cli.RunFiles
	receiptPath string
	retries     int
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
	resume := fset.Bool("resume", false, "finish the run journaled beside the receipt path, judging only the cases it lacks")
	retries := fset.Int("retries", 0, "retry a judgment up to N times after a transport error or HTTP 429/502/503/504")
	set, help, err := cli.ParseFlags(fset, args, vars, stdout, usageLine, "Judge the synthetic check slice and write a check-match receipt.")
	if err != nil || help {
		return err
	}
	if *retries < 0 {
		return cli.Usagef("-retries must be 0 or more, got %d", *retries)
	}
	cfg, err := configureRun(cli.Overlay(set, lookup, cli.LiveDefaults), *resume)
	if err != nil {
		return err
	}
	cfg.retries = *retries
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	return execute(ctx, stdout, stderr, cfg)
}

// configure validates every setting of a new run in typevet's order.
func configure(env func(string) (string, bool)) (config, error) { return configureRun(env, false) }

// configureRun validates every setting in typevet's order: the receipt
// path and its journal first ([cli.NewRunFiles]: with resume, the
// journal must be there).
func configureRun(env func(string) (string, bool), resume bool) (config, error) {
	var cfg config
	var err error
	if cfg.files, err = cli.NewRunFiles(env, envReceipt, resume, isStoppedReceipt); err != nil {
		return cfg, err
	}
	cfg.receiptPath = cfg.files.Receipt
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

// isStoppedReceipt reports whether path holds a check-match receipt of a
// run that stopped: one a resumed run may complete and replace.
func isStoppedReceipt(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	r, err := checkmatch.ReadReceipt(f)
	return err == nil && r.Stopped != nil
}

// execute opens the session and runs; from here on a failure is exit 1,
// but for the checks that refuse a run before its first scoring call.
func execute(ctx context.Context, stdout, stderr io.Writer, cfg config) error {
	build := buildSlice // read once: the render goroutine may outlive an interrupted run
	slice, err := cli.Interruptible(ctx, func() (checkmatch.Slice, error) { return build(cfg.seed, cfg.rows) })
	if err != nil {
		return err
	}
	// Snapshot the baseline, tree, prompt and code digests before any
	// scoring call.
	snap, err := checkmatch.TakeSnapshot(cli.RepoRoot(), cfg.porcelain)
	if err != nil {
		return err
	}
	// A key that is a word of every receipt of this run ("vllm" on vLLM)
	// is refused before the session opens.
	if err := checkFixedText(cfg, slice, snap, nil); err != nil {
		return err
	}
	sess, err := backend.Open(ctx, cfg.settings, "")
	if err != nil {
		if ctx.Err() != nil {
			return cli.ErrInterrupted
		}
		return fmt.Errorf("open %s session: %w", cfg.settings.Backend, err)
	}
	defer sess.Close()
	rc, err := cli.NewRunContext(ctx, sess, snap, cfg.revision, cfg.stated)
	if err != nil {
		if ctx.Err() != nil {
			return cli.ErrInterrupted
		}
		return err
	}
	// The server's own answers the receipt records, checked before the
	// first scoring call.
	if err := checkFixedText(cfg, slice, snap, &rc); err != nil {
		return err
	}
	head, err := checkmatch.JournalHeader(rc, slice, cfg.concurrency)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return cli.ErrInterrupted
	}
	j, err := cfg.files.OpenJournal(head, slice.Requests)
	if err != nil {
		return err
	}
	if t := j.Torn(); t != nil {
		fmt.Fprintf(stderr, "%s: the journal's last line (%d bytes) was torn by the stopped process and is ignored; that case is judged again\n", prog, t.Bytes)
	}
	if n := j.Finished(); n > 0 {
		fmt.Fprintf(stderr, "%s: resuming: %d of %d cases are in the journal, %d to judge\n", prog, n, len(slice.Requests), len(slice.Requests)-n)
	}

	opts := checkmatch.RunOptions{Concurrency: cfg.concurrency, Metrics: cli.MetricsReader(sess), Journal: j,
		Retry: checkmatch.RetryPolicy{Retries: cfg.retries}}
	prog := newProgress(stderr, len(slice.Requests)-j.Finished())
	port := prog.wrap(sess.Port)
	prog.start()
	res, err := checkmatch.Run(ctx, port, rc.Model, slice.Requests, opts)
	prog.stop()
	if cerr := j.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%w; the journal %s keeps every finished case: rerun with -resume", err, cfg.files.Journal)
	}
	if len(res.Outcomes) == 0 && res.Stopped != nil && ctx.Err() != nil {
		// Interrupted before the first case in slice order finished: no
		// receipt (the path stays free). A journal with no case is
		// removed; one with cases (finished out of order, or by an
		// earlier part) stays for -resume.
		if j.Finished()+j.Added() == 0 {
			if err := cfg.files.Discard(); err != nil {
				return err
			}
			return cli.ErrInterrupted
		}
		return fmt.Errorf("interrupted before the first case; no receipt was written; the journal %s keeps %d finished cases: rerun with -resume",
			cfg.files.Journal, j.Finished()+j.Added())
	}

	rec, err := checkmatch.BuildReceipt(res, rc.ReceiptParts(slice, res))
	if err != nil {
		return err
	}
	sum, err := cfg.files.WriteReceipt(rec, cli.NamedSecrets(cfg.settings), rec.Stopped == nil)
	if err != nil {
		return err
	}
	if err := summary(stdout, cfg.receiptPath, sum, rec); err != nil {
		return err
	}
	if s := rec.Stopped; s != nil {
		return fmt.Errorf("run stopped at case %s (index %d, %s); the receipt holds the %d cases before it; "+
			"the journal %s keeps every finished case: rerun with -resume to judge the rest (the stopped receipt is then replaced)",
			s.CaseID, s.Index, s.ErrorClass, len(rec.Cases), cfg.files.Journal)
	}
	return nil
}

// checkFixedText refuses a key that occurs in the receipt the run would
// write: before the session opens (rc nil: backend, model, question and
// label words, key names; a usage error) and again once the server has
// answered (its entry included).
func checkFixedText(cfg config, slice checkmatch.Slice, snap checkmatch.Snapshot, rc *checkmatch.RunContext) error {
	c := checkmatch.RunContext{Backend: serving.Backend(cfg.settings.Backend.String()), Model: settingsModel(cfg.settings),
		ModelRevision: cfg.revision, StatedServerArgs: cfg.stated, Snapshot: snap}
	if rc != nil {
		c = *rc
	}
	preview, err := checkmatch.PreviewReceipt(c, slice, cfg.concurrency)
	if err != nil {
		return err
	}
	if rc == nil {
		return cli.CheckFixedText(cfg.settings, preview)
	}
	return cli.CheckServerText(cfg.settings, rc.ServerEntry, preview)
}

// settingsModel is the model a session of s will name.
func settingsModel(s backend.Settings) string {
	switch s.Backend {
	case backend.LlamaCPP:
		return s.LlamaCPP.MultimodalModel
	case backend.VLLM:
		return s.VLLM.Model
	case backend.Fake:
		return cli.FakeModel
	}
	return s.Backend.String()
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
