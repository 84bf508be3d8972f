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
//	-resume                                          finish the run journaled at PATH.journal.jsonl
//	-retries N                                       retry a judgment after a transport error or HTTP 429/502/503/504 (default 0)
//	-retry-budget SECONDS                            the most back-off time all retries may wait together
//	-shard I/N                                       judge only shard I of N (I from 0); write a shard record, not a receipt
//	-metrics-urls URLS  TYPEVET_VLLM__METRICS_URLS  comma-separated replica /metrics URLs behind the base URL (vLLM)
//	-rows N            TYPEVET_CHECK_MATCH_ROWS      register rows, 1 to 20 (default 20; 7 cases each)
//	-seed N            TYPEVET_CHECK_MATCH_SEED      generator seed (default 0, the #316 slice)
//	-concurrency N     TYPEVET_IMAGE_CONCURRENCY     judgments in flight (default 1)
//	-calibration MAP[,MAP]                           apply pinned calibration maps (QUESTION=PATH@SHA256 each); see below
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
// With -shard I/N the command judges only the cases of shard I (the first 8
// bytes of SHA-256 of the case id, big-endian, modulo N: see
// checkmatch.Shard), keeps the journal beside PATH and writes at PATH a
// shard record (schema typevet-go.shard) instead of a receipt.
// examples/merge puts the N shards back into one receipt. The shard is
// pinned in the journal, so -resume of a shard refuses another shard.
//
// With -metrics-urls (or TYPEVET_VLLM__METRICS_URLS), a vLLM run behind a
// load balancer reads each replica's /metrics instead of the base URL's:
// the receipt's server block then holds the counter and histogram changes
// summed over the replicas and the pool's gauges (serving.MergeRunDelta).
// Before the first scoring call every replica's /v1/models and /version
// must equal the base URL's entry (pins.server), or the run is refused.
//
// With -calibration the run judges through typevet's calibration maps
// (package calibration; examples/calibrate fits them and prints each
// QUESTION=PATH@SHA256): the receipt keeps typevet's keys and holds the
// calibrated confidences, and PATH.calibration.json (schema
// typevet-go.calibration_records) each case's raw and calibrated values,
// which examples/stats and examples/view read beside the receipt. A map of
// another task, kind, level count, backend or model is refused before any
// request (exit 2); so is -calibration with -resume or -shard, since the
// journal does not pin the maps.
//
// Exit status: 0 when every case was judged and the receipt written; 2 on a
// usage error (nothing sent, nothing written), which includes a model the
// llama.cpp server does not serve (refused before the first scoring
// request); 1 otherwise, including a run
// that stopped on a backend failure or Ctrl-C, whose receipt is still
// written with every earlier outcome. `go run` reports a status of 2 as
// "exit status 2" and exits 1 itself; a built binary exits 2.
//
// Ctrl-C, SIGTERM or SIGHUP stops sending: calls in flight end, then (on
// vLLM) /metrics is read once more, for at most 10 s, and the receipt is
// written. A second signal quits at once. Every finished case is in the
// journal beside the receipt (PATH.journal.jsonl) either way, so
// `checkmatch -receipt PATH -resume` finishes a stopped or killed run,
// judging only what never finished: every other setting comes from the
// journal (a flag or variable given with another value is refused, naming
// it and both values), secrets from the environment. It refuses, naming
// the first differing pin, a build whose prompts or code differ; a
// different git baseline or working tree is a warning. A complete run
// with -retries writes its attempts to PATH.attempts.json. See examples/README.md and package checkmatch's "Journals,
// resume and retry".
package main

import (
	"context"
	"fmt"
	"github.com/typevet/typevet-go/calibration"
	"io"
	"os"
	"time"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/checkmatch/stats"
	"github.com/typevet/typevet-go/evalrun"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/judgment/backend"
)

const (
	prog      = "checkmatch"
	usageLine = "usage: checkmatch -receipt PATH [-resume] [-retries N] [-retry-budget SECONDS] [-shard I/N] [-metrics-urls URLS] [-rows N] [-seed N] [-concurrency N] [-calibration MAP[,MAP]] [-backend NAME] [-base-url URL] [-model ID] [-timeout SECONDS] [-revision REV] [-server-args TEXT] [-json]"

	// ConfidenceLine ends every summary.
	confidenceLine = cli.ConfidenceLine
)

// The environment variables this command reads itself.
const (
	envReceipt     = "TYPEVET_CHECK_MATCH_RECEIPT"
	envRows        = cli.RowsEnv
	envSeed        = cli.SeedEnv
	envConcurrency = cli.ConcurrencyEnv
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

// help is the -h text; its flags are the command's flags.
var help = cli.Help{
	Usage: usageLine,
	About: "Judge the synthetic check slice with a served vision model (or offline) and write a check-match receipt.",
	Flags: append(append(append([]cli.Flag{
		{Name: "receipt", Arg: "PATH", Vars: []string{envReceipt}, Usage: "receipt path; must name a new file (required)"},
		cli.ResumeFlag(),
		{Name: "shard", Arg: "I/N", Usage: "judge only shard I of N (I from 0) and write a shard record for examples/merge instead of a receipt"},
		{Name: "metrics-urls", Arg: "URLS", Vars: []string{cli.EnvMetricsURLs}, Usage: "comma-separated replica /metrics URLs behind the base URL (vLLM)"},
		{Name: "rows", Arg: "N", Vars: []string{envRows}, Default: "20", Usage: "register rows, 1 to 20, 7 cases each"},
		{Name: "seed", Arg: "N", Vars: []string{envSeed}, Default: "0, the #316 slice", Usage: "generator seed"},
		{Name: "concurrency", Arg: "N", Vars: []string{envConcurrency}, Default: "1", Usage: "judgments in flight"},
		{Name: "calibration", Arg: "MAP[,MAP]", Usage: "apply pinned calibration maps, QUESTION=PATH@SHA256 each (examples/calibrate prints them); writes RECEIPT.calibration.json"},
	}, cli.RetryFlags()...), cli.BackendFlags(cli.AllBackends, true)...),
		cli.Flag{Name: "json", Bool: true, Usage: "print the summary as key-value JSON lines, for scripts"}),
	Vars: cli.BackendVars(cli.AllBackends),
	Notes: []string{cli.BackendNote(cli.AllBackends),
		"Offline in seconds: checkmatch -backend reader -receipt receipts/check_match_reader.json",
		cli.ExitNote},
}

// config is everything checked before the first network call.
type config struct {
	files       cli.RunFiles
	shard       checkmatch.Shard // zero: the whole slice
	replicas    []cli.Replica    // replica /metrics URLs; none: the base URL's /metrics
	replicaName string           // the flag or variable that named them
	retry       checkmatch.RetryPolicy
	rows        int
	seed        uint64
	concurrency int
	settings    backend.Settings
	revision    string   // vLLM only
	porcelain   *string  // the working tree's porcelain text; nil when unknown
	stated      *string  // TYPEVET_VLLM_SERVER_ARGS; nil when unset
	notes       []string // git and warning lines for stderr
	name        func(string) string
	json        bool               // -json: the summary as key-value lines
	journaled   []journal.Pin      // the settings a -resume takes from the journal
	calibration []calibration.Spec // -calibration: the maps to apply; none: raw answers
}

// run is the whole command: flags and environment (lookup; flags win),
// validation, the run, the receipt and the summary on stdout.
func run(stdout, stderr io.Writer, args []string, lookup func(string) (string, bool)) error {
	// A -resume takes every setting from its journal.
	args, err := cli.ResumeArgs(help, args, lookup, envReceipt)
	if err != nil {
		return err
	}
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

// configure validates every setting in typevet's order, the receipt path
// and its journal first ([cli.NewRunFiles]: with -resume, the journal must
// be there); an error names the flag or the variable the value came from.
func configure(env *cli.Env) (config, error) {
	var cfg config
	var err error
	resume := env.Flag("resume") == "true"
	// Messages name the receipt setting as the user gave it (-receipt or
	// the variable).
	if cfg.files, err = cli.NewRunFiles(func(string) (string, bool) { return env.Lookup(envReceipt) }, env.Name(envReceipt), resume, evalrun.ReceiptOfJournal); err != nil {
		return cfg, env.Err(err)
	}
	if cfg.retry, err = cli.ParseRetryPolicy(env); err != nil {
		return cfg, err
	}
	cfg.files.Retry = cfg.retry
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
	raw, _ = env.Lookup(envConcurrency)
	if cfg.concurrency, err = cli.ParseConcurrency(raw, env.Name(envConcurrency)); err != nil {
		return cfg, cli.Usage(err)
	}
	// The backend, the vLLM revision, the porcelain text and the stated
	// server arguments, each refused by variable when it holds a key.
	srv, err := cli.ReadServing(env)
	cfg.settings, cfg.revision, cfg.porcelain, cfg.stated = srv.Settings, srv.Revision, srv.Porcelain, srv.Stated
	cfg.notes, cfg.name, cfg.json = srv.Notes, env.Name, env.Flag("json") == "true"
	if err != nil {
		return cfg, env.Err(err)
	}
	if cfg.shard, err = cli.ParseShard(env); err != nil {
		return cfg, err
	}
	if cfg.calibration, err = parseCalibration(env.Flag("calibration"), resume, cfg.shard); err != nil {
		return cfg, err
	}
	cfg.replicaName = env.Name(cli.EnvMetricsURLs)
	raw, _ = env.Lookup(cli.EnvMetricsURLs)
	if cfg.replicas, err = cli.ParseReplicas(raw, cfg.replicaName); err != nil {
		return cfg, err
	}
	if len(cfg.replicas) > 0 && cfg.settings.Backend != backend.VLLM {
		return cfg, cli.Usagef("%s is for vLLM replicas; the backend is %s", cfg.replicaName, cfg.settings.Backend)
	}
	cfg.journaled = cli.JournalSettings(env, help, cfg.settings, "retries", "retry-budget", "metrics-urls", "server-args", "calibration")
	return cfg, nil
}

// execute opens the session and runs; from here on a failure is exit 1,
// but for the checks that refuse a run before its first scoring call.
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
	if cfg.files.Resume {
		// Another build's prompts or code are refused before any request.
		if err := snap.CheckJournal(cfg.files.Header); err != nil {
			return cli.Usagef("-resume refused: %v; resume with the build that started the run, or start a new run with another %s", err, cfg.name(envReceipt))
		}
	}
	// A key that is a word of every receipt of this run ("vllm" on vLLM)
	// is refused before any request, on the slice's case ids and words
	// (its checks not yet rendered: [checkmatch.PlannedSlice]).
	planned, err := checkmatch.PlannedSlice(cfg.seed, cfg.rows)
	if err != nil {
		return err
	}
	if err := checkFixedText(cfg, planned, snap, nil); err != nil {
		return err
	}
	// Contact the server (the llama.cpp probe, the server entry) before
	// rendering, so a missing server fails at once.
	sess, err := cli.OpenSession(ctx, cfg.settings, "-model")
	if err != nil {
		return cli.SetupError(ctx, err, cfg.settings, cfg.name)
	}
	defer sess.Close()
	rc, err := checkmatch.NewRunContext(ctx, sess, snap, cfg.revision, cfg.stated)
	if err != nil {
		return cli.SetupError(ctx, err, cfg.settings, cfg.name)
	}
	cal, err := newCalibrated(cfg.calibration, rc, sess.Port)
	if err != nil {
		return err
	}
	build := buildSlice // read once: the render goroutine may outlive an interrupted run
	slice, err := cli.Interruptible(ctx, func() (checkmatch.Slice, error) {
		return cli.RenderSlice(stderr, build, cfg.seed, cfg.rows)
	})
	if err != nil {
		return err
	}
	// The server's own answers the receipt records, checked before the
	// first scoring call.
	if err := checkFixedText(cfg, slice, snap, &rc); err != nil {
		return err
	}
	if len(cfg.replicas) > 0 {
		if err := cli.CheckReplicas(ctx, sess, rc.Model, rc.ServerEntry, cfg.replicas, cfg.replicaName); err != nil {
			return err
		}
	}
	head, err := checkmatch.ShardJournalHeader(rc, slice, cfg.concurrency, cfg.shard)
	if err != nil {
		return err
	}
	head.Settings = cfg.journaled
	if ctx.Err() != nil {
		return cli.ErrInterrupted
	}
	j, err := cfg.files.OpenJournalReporting(stderr, prog, "judge", head, slice.Requests, cfg.shard)
	if err != nil {
		return err
	}

	opts := checkmatch.RunOptions{Concurrency: cfg.concurrency, Metrics: checkmatch.MetricsReader(sess), Journal: j,
		Retry: cfg.retry, Shard: cfg.shard}
	prog := cli.NewProgress(stderr, "judging", cli.ShardSize(slice.Requests, cfg.shard)-j.Finished(), "cases")
	port := prog.Wrap(cal.port(sess.Port, slice))
	var replicas *cli.ReplicaReadings
	if len(cfg.replicas) > 0 {
		// Each replica's /metrics instead of the front's, which shows one
		// replica or none.
		opts.Metrics = nil
		replicas = cli.ReadReplicasBefore(ctx, sess, cfg.replicas)
	}
	prog.Start()
	began := time.Now()
	res, err := checkmatch.Run(ctx, port, rc.Model, slice.Requests, opts)
	ended := time.Now()
	prog.Stop()
	var readings []checkmatch.ShardReading
	if r := res.MetricsReadings; len(r) == 2 {
		readings = []checkmatch.ShardReading{checkmatch.NewShardReading("", began, ended, r[0], r[1])}
	}
	if replicas != nil && err == nil {
		readings = replicas.After(ctx)
		d, derr := checkmatch.ReadingsDelta(readings)
		if derr != nil {
			res.Warnings = append(res.Warnings, derr)
			d, _ = checkmatch.ReadingsDelta(nil)
		}
		res.Warnings = append(res.Warnings, d.Warnings...)
		res.Server = &d
		res.MetricsReadings = readings[0].Readings()
	}
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

	if cfg.shard.Count > 0 {
		return finishShard(stdout, cfg, rc, slice, head, res, readings)
	}
	rec, err := checkmatch.BuildReceipt(res, rc.ReceiptParts(slice, res))
	if err != nil {
		return err
	}
	sum, err := cfg.files.WriteReceipt(rec, cli.NamedSecrets(cfg.settings), rec.Stopped == nil)
	if err != nil {
		return err
	}
	if _, err := cal.write(cfg.files.Receipt, rec); err != nil {
		return fmt.Errorf("-calibration: the receipt %s is written; its calibration records could not be: %w", cfg.files.Receipt, err)
	}
	write := cli.RunTable
	if cfg.json {
		write = summary
	}
	if err := write(stdout, cfg.files.Receipt, sum, rec); err != nil {
		return err
	}
	if s := rec.Stopped; s != nil {
		return cli.Explain(fmt.Errorf("run stopped at case %s (index %d, %s); the receipt holds the %d cases before it; "+
			"the journal %s keeps every finished case: rerun with -resume to judge the rest (the stopped receipt is then replaced)",
			s.CaseID, s.Index, s.ErrorClass, len(rec.Cases), cfg.files.Journal), s.Message, cfg.settings, cfg.name)
	}
	return nil
}

// checkFixedText refuses a key that occurs in the receipt the run would
// write: before the session opens (rc nil: backend, model, question and
// label words, key names; a usage error) and again once the server has
// answered (its entry included).
func checkFixedText(cfg config, slice checkmatch.Slice, snap checkmatch.Snapshot, rc *checkmatch.RunContext) error {
	c := checkmatch.PlannedRunContext(cfg.settings, snap, cfg.revision, cfg.stated)
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

// finishShard ends a shard run: a shard that judged every one of its cases
// writes its shard record at the receipt path and keeps the journal beside
// it (examples/merge reads both); a stopped shard writes nothing more, its
// journal keeping every finished case for -resume.
func finishShard(stdout io.Writer, cfg config, rc checkmatch.RunContext, slice checkmatch.Slice, head journal.Header,
	res checkmatch.RunResult, readings []checkmatch.ShardReading) error {
	if s := res.Stopped; s != nil {
		return fmt.Errorf("shard %s stopped at case %s (index %d, %s); the journal %s keeps every finished case: rerun with -resume to judge the rest",
			cfg.shard, s.CaseID, s.Index, s.ErrorClass, cfg.files.Journal)
	}
	rec, err := checkmatch.NewShardRecord(rc, slice, cfg.shard, head, cfg.files.Journal, res, readings)
	if err != nil {
		return err
	}
	return cfg.files.WriteShardRecord(stdout, rec, cli.NamedSecrets(cfg.settings))
}
