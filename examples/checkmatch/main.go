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
// usage error (nothing sent, nothing written); 1 otherwise, including a run
// that stopped on a backend failure or Ctrl-C, whose receipt is still
// written with every earlier outcome.
//
// Ctrl-C stops sending: calls in flight end, then (on vLLM) /metrics is
// read once more, for at most 10 s, and the receipt is written. A second
// Ctrl-C quits at once and writes nothing.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

const (
	prog      = "checkmatch"
	usageLine = "usage: checkmatch -receipt PATH [-rows N] [-seed N] [-concurrency N] [-backend NAME] [-revision REV] [-server-args TEXT] [-model ID]"

	// ConfidenceLine ends every summary.
	confidenceLine = "Noul values are model confidence; generated checks are not real checks."

	defaultLlamaModel   = "gemma-4-31b-kv9-q4km-mm"
	defaultLlamaTimeout = "900"
)

// The environment variables this command reads itself.
const (
	envReceipt     = "TYPEVET_CHECK_MATCH_RECEIPT"
	envRows        = "TYPEVET_CHECK_MATCH_ROWS"
	envSeed        = checkmatch.SeedEnv
	envConcurrency = "TYPEVET_IMAGE_CONCURRENCY"
	envBackend     = "TYPEVET_BACKEND"
	envRevision    = "TYPEVET_VLLM_MODEL_REVISION"
	envServerArgs  = serving.ServerArgsEnv
	envPorcelain   = "TYPEVET_GIT_STATUS_PORCELAIN"
	envLlamaModel  = "TYPEVET_LLAMA__MULTIMODAL_MODEL"
	envLlamaTime   = "TYPEVET_LLAMA__TIMEOUT"
	envVLLMModel   = "TYPEVET_VLLM__MODEL"
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
	fset.SetOutput(io.Discard)
	for name, env := range flagEnv {
		fset.String(name, "", "overrides "+env)
	}
	fset.String("model", "", "overrides "+envLlamaModel+" or "+envVLLMModel)
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "%s\n\nJudge the synthetic check slice and write a check-match receipt.\n\n", usageLine)
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
		if f.Name == "model" {
			set[envLlamaModel] = f.Value.String()
			set[envVLLMModel] = f.Value.String()
		}
	})
	env := func(key string) (string, bool) {
		if v, ok := set[key]; ok {
			return v, true
		}
		if v, ok := lookup(key); ok {
			return v, true
		}
		switch key { // typevet's live-test defaults, set only when absent
		case envLlamaModel:
			return defaultLlamaModel, true
		case envLlamaTime:
			return defaultLlamaTimeout, true
		}
		return "", false
	}
	cfg, err := configure(env)
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
	path, _ := env(envReceipt)
	cfg.receiptPath = strings.TrimSpace(path)
	if cfg.receiptPath == "" {
		return cfg, cli.Usagef("%s not set", envReceipt)
	}
	if err := receipt.CheckNew(cfg.receiptPath); err != nil {
		var ae *receipt.AlreadyExistsError
		if errors.As(err, &ae) {
			return cfg, cli.Usagef("%s must name a new file: %s exists", envReceipt, cfg.receiptPath)
		}
		return cfg, cli.Usagef("%s: %v", envReceipt, err)
	}

	cfg.rows = checkmatch.RowCount
	if raw, ok := env(envRows); ok {
		n, ok := pyInt(raw)
		if !ok {
			return cfg, cli.Usagef("%s must be 1 to %d: not a whole number", envRows, checkmatch.RowCount)
		}
		if n < 1 || n > checkmatch.RowCount {
			return cfg, cli.Usagef("%s must be 1 to %d: %d", envRows, checkmatch.RowCount, n)
		}
		cfg.rows = int(n)
	}

	raw, _ := env(envSeed)
	seed, err := checkmatch.ParseSeed(raw, envSeed)
	if err != nil {
		return cfg, cli.Usage(err)
	}
	cfg.seed = seed

	cfg.concurrency, err = concurrency(env)
	if err != nil {
		return cfg, err
	}

	cfg.settings, err = backend.SettingsFromEnv(env)
	if err != nil {
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
	// Refuse, by variable, a recorded text the key-free check would
	// refuse in the finished receipt. The stated server arguments are
	// recorded on vLLM only.
	rec := cli.Recorded{Porcelain: cfg.porcelain, Revision: cfg.revision}
	if cfg.settings.Backend == backend.VLLM {
		rec.Stated = cfg.stated
	}
	if err := cli.CheckKeyFree(cfg.settings, rec); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// concurrency reads TYPEVET_IMAGE_CONCURRENCY (spec §6.5): blank or unset
// is 1; anything but a whole number of at least 1 is refused.
func concurrency(env func(string) (string, bool)) (int, error) {
	raw, _ := env(envConcurrency)
	if strings.TrimSpace(raw) == "" {
		return 1, nil
	}
	n, ok := pyInt(raw)
	if !ok || n < 1 || n > 1<<20 {
		return 0, cli.Usagef("%s must be a whole number of at least 1", envConcurrency)
	}
	return int(n), nil
}

// pyInt parses text the way Python's int() does for ASCII input: outer
// whitespace stripped, an optional sign, decimal digits with single
// underscores between them. Decisions: non-ASCII digits, which Python also
// accepts, and values outside int64 are refused (ok false, n 0).
func pyInt(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 || body == "" || body[0] == '_' || body[len(body)-1] == '_' || strings.Contains(body, "__") {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// execute opens the session and runs; from here on a failure is exit 1.
func execute(ctx context.Context, stdout, stderr io.Writer, cfg config) error {
	baseline := receipt.BaselineCommit(repoRoot())

	slice, err := buildSlice(cfg.seed, cfg.rows)
	if err != nil {
		return err
	}
	// Snapshot the prompt and code digests before any scoring call.
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
	opts := checkmatch.RunOptions{Concurrency: cfg.concurrency}
	if cfg.settings.Backend == backend.VLLM {
		opts.Metrics = func(ctx context.Context) (string, bool) {
			return serving.Read(ctx, sess.HTTPClient, sess.BaseURL)
		}
	}

	prog := newProgress(stderr, len(slice.Requests))
	port := prog.wrap(sess.Port)
	prog.start()
	res, err := checkmatch.Run(ctx, port, model, slice.Requests, opts)
	prog.stop()
	if err != nil {
		return err
	}

	pins := slice.Pins()
	pins.FinishedUTC = receipt.FinishedUTC(time.Now())
	pins.Concurrency = res.Concurrency
	renderer := checkmatch.RendererPin()
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
		ArmCallCounts:   receipt.Counts{{Name: "judgments", Value: len(res.Outcomes)}},
	}
	id.IdentityDigest = receipt.IdentityDigest(id)

	var serverArgs *serving.ServerArgsBlock
	if cfg.settings.Backend == backend.VLLM {
		cache, _ := serving.FirstCacheConfig(res.MetricsReadings...)
		b := serving.ServerArgs(cache, cfg.stated)
		serverArgs = &b
	}

	rec, err := checkmatch.BuildReceipt(res, checkmatch.ReceiptParts{
		Backend: recBackend, Model: model, Pins: pins, Identity: id, ServerArgs: serverArgs, Secrets: sess.Secrets(),
	})
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
// (spec §6.7), each value as JSON.
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
		b, err := json.Marshal(l.v)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s %s\n", l.key, b)
	}
	_, err := fmt.Fprintln(w, confidenceLine)
	return err
}

// repoRoot returns the nearest directory at or above the working directory
// that holds a .git entry, for the receipt's baseline commit; the working
// directory itself when there is none (the baseline is then "unknown").
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
