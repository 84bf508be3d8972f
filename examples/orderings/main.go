// Command orderings runs typevet's option-order study (#105): does the order
// of the six verdict options move the answer? It asks the verdict of every
// case of the seed-1 check slice once per balanced ordering (six orderings,
// one verdict-only request each), averages the probabilities over the
// orderings and compares the result with a single-order check-match receipt
// of the same slice, then writes an option-order receipt.
//
//	go run ./examples/orderings -single receipts/check_match_seed1.json \
//	  -receipt receipts/orderings_seed1.json
//
// The single-order receipt must come from this module's renderer (for
// example examples/checkmatch with -seed 1): Go renders never equal
// typevet's Pillow renders, so the render digests of a typevet receipt
// never match and the study refuses it.
//
// Settings are flags or typevet's environment variables; a flag wins
// (`orderings -h` lists them with their defaults):
//
//	-receipt PATH      TYPEVET_CHECK_ORDERINGS_RECEIPT   receipt path; must name a new file (required)
//	-resume                                              finish the study journaled at PATH.journal.jsonl
//	-retries N                                           retry a verdict call after a transport error or HTTP 429/502/503/504 (default 0)
//	-shard I/N                                           score only shard I of N (I from 0); write a shard record, not a receipt
//	-rows N            TYPEVET_CHECK_ORDERINGS_ROWS      register rows, 1 to 20 (default 3: 21 cases, 126 requests)
//	-seed N            TYPEVET_CHECK_MATCH_SEED          must be 1, the single-order receipt's seed (default 1)
//	-single PATH       TYPEVET_CHECK_ORDERINGS_SINGLE    the single-order check-match receipt (required)
//	-backend NAME      TYPEVET_BACKEND                   llama_cpp (default), fake or reader
//	-base-url URL      TYPEVET_LLAMA__BASE_URL           (default http://127.0.0.1:8090)
//	-model ID          TYPEVET_LLAMA__MULTIMODAL_MODEL   (default gemma-4-31b-kv9-q4km-mm)
//	-timeout SECONDS   TYPEVET_LLAMA__TIMEOUT            (default here 900)
//	-server-args TEXT  TYPEVET_VLLM_SERVER_ARGS          the flags you started the server with (recorded verbatim)
//
// A single-order receipt judged by another backend or model than the
// study's is taken with a warning: the accuracy difference then mixes two
// judges with the order effect. Rendering and scoring show their progress
// on stderr when it is a terminal.
//
// TYPEVET_CHECK_ORDERINGS_SINGLE is this port's own variable: typevet's
// live test reads a committed receipt, which a Go study cannot use.
//
// Backends: typevet runs the study on a local llama.cpp only and refuses
// any other backend ("the orderings study runs on local llama_cpp only:
// vllm"). This command also accepts the two offline backends, which run
// on the local machine like llama.cpp: the fake, so the study's plumbing
// can be tried without a model (a fake receipt says "backend": "fake"),
// and the built-in check reader (judgment/reader; "backend": "reader",
// pins.server holding the reader's pin), a baseline for the model's
// order effect. The llama.cpp session reads the others of
// judgment/backend (API key, headers). TYPEVET_GIT_STATUS_PORCELAIN is the
// text of `git status --porcelain` for the working-tree fingerprint; when
// it is unset the command asks git, as examples/checkmatch does.
//
// Everything is checked before any network call: receipt path, backend,
// seed, rows, the single-order receipt, then that no text the receipt
// records from the caller (porcelain text, model name, stated server
// arguments, the single-order file name) holds the API key, an extra
// header value, "authorization" or "bearer " (refused by the variable's
// name), then the single-order receipt's cases (a render digest equal to
// this build's render for every case of the study). The command
// prints the receipt path and SHA-256 and the statistics block.
//
// An API key or header value that is a word of every receipt of the study
// (a label, a key name, the backend or model name) is refused before the
// session opens, naming its variable; the server's answers the receipt
// records (pins.server) are checked before the first scoring call.
//
// Journal and resume: every fully scored case (all its orderings' answers
// at full precision, and its attempt count) is appended to
// PATH.journal.jsonl and synced before the next case is sent; the
// journal's first line pins the study's identity
// (orderings.JournalHeader: slice, renderer, backend, model,
// server entry, orderings, the single-order receipt's name and SHA-256,
// prompt and code digests). Ctrl-C, SIGTERM or SIGHUP stops sending and
// writes the receipt of the cases before the stop (nothing at all when no
// case was scored); SIGKILL or a reboot leaves the journal. -resume reads
// it, refuses a study that is not the same experiment (naming the first
// differing pin: seed, model, the single-order receipt's digest, …),
// scores only the cases it lacks and writes the receipt an uninterrupted
// study would have written: the cases in slice order, statistics over all
// of them, requests counting every case's orderings. Its wall_seconds is
// the sum of the parts: each earlier part from its start to its last
// scored case, plus the resumed part. The journal is removed once the
// receipt is written and read back; when the receipt cannot be written
// (a key in it, a full disk, the path taken) the journal stays and the
// message says how to finish.
//
// With -shard I/N the command scores only the cases of shard I (the first
// 8 bytes of SHA-256 of the case id, big-endian, modulo N, as
// examples/checkmatch: checkmatch.Shard), keeps the journal beside PATH
// and writes at PATH a shard record (schema typevet-go.shard) instead of a
// receipt. examples/merge puts the N shards back into one option-order
// receipt, byte-identical to a single process's but for
// pins.finished_utc, identity.run_id and wall_seconds (the longest
// shard's). See docs/scale-out.md.
//
// Exit status: 0 when every case was scored and the receipt written; 2 on a
// refused setting (nothing sent, nothing written), which includes a model
// the llama.cpp server does not serve (refused before the first scoring
// request) and a -resume of another experiment; 1 otherwise, including a
// study stopped by a backend failure or Ctrl-C, whose receipt is still
// written with every case scored before it. A second Ctrl-C quits at once
// and writes nothing more (the journal stays). `go run` reports a status
// of 2 as "exit status 2" and exits 1 itself.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/checkmatch/orderings"
	"github.com/typevet/typevet-go/evalrun"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/serving"
)

const (
	prog      = "orderings"
	usageLine = "usage: orderings -single PATH -receipt PATH [-resume] [-retries N] [-shard I/N] [-rows N] [-seed 1] [-backend llama_cpp|fake|reader] [-base-url URL] [-model ID] [-timeout SECONDS] [-server-args TEXT] [-json]"
)

// backends are the backends the study runs on.
var backends = cli.Backends{backend.LlamaCPP, backend.Fake, backend.Reader}

// help is the -h text; its flags are the command's flags.
var help = cli.Help{
	Usage: usageLine,
	About: "Run the option-order study (typevet #105): the seed-1 verdict scored once per balanced ordering, compared with a single-order check-match receipt; write its receipt.",
	Flags: append([]cli.Flag{
		{Name: "receipt", Arg: "PATH", Vars: []string{envReceipt}, Usage: "receipt path; must name a new file (required)"},
		cli.ResumeFlag(),
		{Name: "retries", Arg: "N", Default: "0", Usage: "retry a verdict call after a transport error or HTTP 429/502/503/504 (0: stop at the first failure, as typevet does)"},
		{Name: "shard", Arg: "I/N", Usage: "score only shard I of N (I from 0) and write a shard record for examples/merge instead of a receipt"},
		{Name: "rows", Arg: "N", Vars: []string{envRows}, Default: "3: 21 cases, 126 requests", Usage: "register rows, 1 to 20"},
		{Name: "seed", Arg: "N", Vars: []string{envSeed}, Default: "1", Usage: "must be 1, the single-order receipt's seed"},
		{Name: "single", Arg: "PATH", Vars: []string{envSingle}, Usage: "the single-order check-match receipt of seed 1, by this renderer (required)"},
	}, append(cli.BackendFlags(backends, true),
		cli.Flag{Name: "json", Bool: true, Usage: "print the summary as key-value JSON lines, for scripts"})...),
	Vars:  cli.BackendVars(backends),
	Notes: []string{cli.BackendNote(backends), cli.ExitNote},
}

// The environment variables this command reads itself.
const (
	envReceipt    = cli.OrderingsReceiptEnv
	envRows       = cli.OrderingsRowsEnv
	envSeed       = cli.SeedEnv
	envBackend    = cli.EnvBackend
	envPorcelain  = cli.EnvPorcelain
	envLlamaModel = cli.EnvLlamaModel
	envSingle     = "TYPEVET_CHECK_ORDERINGS_SINGLE"
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
	json       bool // -json: the summary as key-value lines
	files      cli.RunFiles
	shard      checkmatch.Shard // zero: the whole slice
	retries    int
	rows       int
	settings   backend.Settings
	singlePath string
	single     checkmatch.Receipt
	singleSHA  string
	porcelain  *string // the working tree's porcelain text; nil when unknown
	stated     *string // TYPEVET_VLLM_SERVER_ARGS; nil when unset
	notes      []string
	name       func(string) string
	journaled  []journal.Pin // the settings a -resume takes from the journal
}

// run is the whole command: flags and environment (lookup; flags win),
// validation, the study, the receipt and the summary on stdout.
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

// configure validates every setting and reads the single-order receipt;
// the receipt path and its journal come first ([cli.NewRunFiles]: with
// -resume, the journal must be there).
func configure(env *cli.Env) (config, error) {
	var cfg config
	var err error
	cfg.name = env.Name
	cfg.json = env.Flag("json") == "true"
	resume := env.Flag("resume") == "true"
	// Messages name the receipt setting as the user gave it (-receipt or
	// the variable).
	if cfg.files, err = cli.NewRunFiles(func(string) (string, bool) { return env.Lookup(envReceipt) }, env.Name(envReceipt), resume, evalrun.ReceiptOfJournal); err != nil {
		return cfg, env.Err(err)
	}
	if cfg.retries, err = cli.ParseRetries(env); err != nil {
		return cfg, err
	}
	cfg.files.Retry = checkmatch.RetryPolicy{Retries: cfg.retries} // attempts beside a complete study's receipt
	if cfg.shard, err = cli.ParseShard(env); err != nil {
		return cfg, err
	}

	name, _ := env.Lookup(envBackend)
	b, err := backend.ParseName(name)
	if err != nil {
		return cfg, env.Err(err)
	}
	if b != backend.LlamaCPP && b != backend.Fake && b != backend.Reader {
		return cfg, cli.Usagef("the orderings study runs on local llama_cpp only: %s", b)
	}

	if raw, ok := env.Lookup(envSeed); ok {
		seed, err := cli.ParseSeed(raw, env.Name(envSeed))
		if err != nil {
			return cfg, cli.Usage(err)
		}
		if seed != orderings.Seed {
			return cfg, cli.Usagef("%s must be 1: the comparison receipt is seed 1", env.Name(envSeed))
		}
	}

	rows, _ := env.Lookup(envRows)
	if cfg.rows, err = cli.ParseOrderingsRows(rows); err != nil {
		return cfg, env.Err(err)
	}

	cfg.settings, err = backend.SettingsFromEnv(env.Lookup)
	if err != nil {
		return cfg, env.Err(err)
	}

	singlePath, _ := env.Lookup(envSingle)
	cfg.singlePath = strings.TrimSpace(singlePath)
	single := env.Name(envSingle)
	if cfg.singlePath == "" {
		return cfg, cli.Usagef("%s must name the single-order check-match receipt", single)
	}
	raw, err := os.ReadFile(cfg.singlePath)
	if err != nil {
		return cfg, cli.Usagef("%s: %v", single, err)
	}
	sum := sha256.Sum256(raw)
	cfg.singleSHA = hex.EncodeToString(sum[:])
	if cfg.single, err = checkmatch.ReadReceipt(bytes.NewReader(raw)); err != nil {
		return cfg, cli.Usagef("%s %s: %v", single, cfg.singlePath, err)
	}

	var note string
	cfg.porcelain, note = cli.WorkingTreeText(env.Lookup, cli.RepoRoot())
	cfg.notes = append([]string{note}, cli.Warnings(env.Environ, cfg.settings)...)
	cfg.stated = serving.StatedServerArgs(env.Lookup)
	cfg.journaled = cli.JournalSettings(env, help, cfg.settings, "single", "retries", "server-args")
	// The receipt records the stated server arguments on every backend and
	// the single-order receipt's file name.
	return cfg, env.Err(cli.CheckKeyFree(cfg.settings, cli.Recorded{
		Porcelain: cfg.porcelain, Stated: cfg.stated,
		Extra: []checkmatch.Input{{Name: envSingle, Text: filepath.Base(cfg.singlePath)}},
	}))
}

// execute renders the slice, pairs it with the single-order receipt, runs
// the study and writes the receipt; from the session on, a failure is exit 1.
func execute(ctx context.Context, stdout, stderr io.Writer, cfg config) error {
	for _, n := range cfg.notes {
		fmt.Fprintln(stderr, n)
	}
	orders, err := orderings.BalancedOrders(len(checkmatch.VerdictLabels))
	if err != nil {
		return err
	}
	// Snapshot the baseline, tree, prompt and code digests before any
	// scoring call.
	snap, err := orderings.TakeSnapshot(cli.RepoRoot(), cfg.porcelain)
	if err != nil {
		return err
	}
	if cfg.files.Resume {
		// Another build's prompts or code are refused before any request.
		if err := snap.CheckJournal(cfg.files.Header); err != nil {
			return cli.Usagef("-resume refused: %v; resume with the build that started the study, or start a new study with another %s", err, cfg.name(envReceipt))
		}
	}
	// A key that is a word of every receipt of the study is refused before
	// any request, on the slice's case ids and words (its checks not yet
	// rendered: [checkmatch.PlannedSlice]).
	planned, err := checkmatch.PlannedSlice(orderings.Seed, cfg.rows)
	if err != nil {
		return err
	}
	if err := checkFixedText(cfg, planned, orders, snap, nil); err != nil {
		return err
	}
	build := buildSlice // read once: the render goroutine may outlive an interrupted run
	slice, err := cli.Interruptible(ctx, func() (checkmatch.Slice, error) {
		return cli.RenderSlice(stderr, build, orderings.Seed, cfg.rows)
	})
	if err != nil {
		return err
	}
	single, err := orderings.SingleOrderCases(cfg.single, slice.Requests, orderings.Seed)
	if err != nil {
		return cli.Usagef("%s %s: %v", cfg.name(envSingle), cfg.singlePath, err)
	}

	sess, err := cli.OpenSession(ctx, cfg.settings, "-model")
	if err != nil {
		return cli.SetupError(ctx, err, cfg.settings, cfg.name)
	}
	defer sess.Close()
	rc, err := checkmatch.NewRunContext(ctx, sess, snap, "", cfg.stated)
	if err != nil {
		return cli.SetupError(ctx, err, cfg.settings, cfg.name)
	}
	// The server's own answers the receipt records, checked before the
	// first scoring call.
	if err := checkFixedText(cfg, slice, orders, snap, &rc); err != nil {
		return err
	}
	if w := otherJudge(cfg.single, rc); w != "" {
		fmt.Fprintln(stderr, w)
	}
	singleFile := orderings.SingleOrderFile{Path: cfg.singlePath, SHA256: cfg.singleSHA}
	head, err := orderings.JournalHeader(rc, slice, orders, singleFile, cfg.shard)
	if err != nil {
		return err
	}
	head.Settings = cfg.journaled
	if ctx.Err() != nil {
		return cli.ErrInterrupted
	}
	j, err := cfg.files.OpenJournalReporting(stderr, prog, "score", head, slice.Requests, cfg.shard)
	if err != nil {
		return err
	}
	if err := orderings.CheckJournal(j, slice.Requests, orders, cfg.shard); err != nil {
		j.Close()
		return fmt.Errorf("-resume: read the journal %s: %w", cfg.files.Journal, err)
	}
	cases := cli.ShardSize(slice.Requests, cfg.shard)

	total := (cases - j.Finished()) * len(orders)
	fmt.Fprintf(stderr, "%s: %d cases × %d orderings = %d verdict requests\n", prog, cases-j.Finished(), len(orders), total)
	p := cli.NewProgress(stderr, "scoring orderings", total, "requests")
	p.Start()
	res, err := orderings.Run(ctx, p.Wrap(sess.Port), rc.Model, slice.Requests, orders, single,
		checkmatch.RunOptions{Journal: j, Retry: checkmatch.RetryPolicy{Retries: cfg.retries}, Shard: cfg.shard})
	p.Stop()
	if cerr := j.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%w; the journal %s keeps every finished case: rerun with -resume", err, cfg.files.Journal)
	}
	if len(res.Cases) == 0 && res.Stopped != nil && ctx.Err() != nil {
		// Interrupted before the first case: no receipt (the path stays
		// free) and no journal.
		if err := cfg.files.Discard(); err != nil {
			return err
		}
		return cli.ErrInterrupted
	}
	if cfg.shard.Count > 0 {
		return finishShard(stdout, cfg, rc, slice, orders, singleFile, head, res)
	}

	rec, err := orderings.BuildReceipt(res, orderings.NewReceiptParts(rc, slice, orders, singleFile, res))
	if err != nil {
		return err
	}
	sum, err := cfg.files.WriteReceipt(rec, cli.NamedSecrets(cfg.settings), rec.Stopped == nil)
	if err != nil {
		return err
	}
	write := cli.OrderingsTable
	if cfg.json {
		write = summary
	}
	if err := write(stdout, cfg.files.Receipt, sum, rec); err != nil {
		return err
	}
	if s := rec.Stopped; s != nil {
		return fmt.Errorf("study stopped at case %s ordering %d (index %d, %s); the receipt holds the %d cases before it; "+
			"the journal %s keeps every finished case: rerun with -resume to score the rest (the stopped receipt is then replaced)",
			s.CaseID, s.Ordering, s.Index, s.ErrorClass, len(rec.Cases), cfg.files.Journal)
	}
	return nil
}

// checkFixedText refuses a key that occurs in the receipt the study would
// write: before the session opens (rc nil: backend, model, label words,
// key names; a usage error) and again once the server has answered (its
// entry included).
func checkFixedText(cfg config, slice checkmatch.Slice, orders [][]int, snap checkmatch.Snapshot, rc *checkmatch.RunContext) error {
	c := checkmatch.PlannedRunContext(cfg.settings, snap, "", cfg.stated)
	if rc != nil {
		c = *rc
	}
	preview, err := previewReceipt(c, slice, orders, cfg)
	if err != nil {
		return err
	}
	if rc == nil {
		return cli.CheckFixedText(cfg.settings, preview)
	}
	return cli.CheckServerText(cfg.settings, rc.ServerEntry, preview)
}

// previewReceipt is the receipt the study would write, every case scored
// with placeholder answers (all probability on the first expected
// verdict), paired with the single-order receipt's records where it has
// them.
func previewReceipt(c checkmatch.RunContext, slice checkmatch.Slice, orders [][]int, cfg config) (orderings.Receipt, error) {
	labels := checkmatch.VerdictLabels[:]
	singles := map[string]checkmatch.CaseRecord{}
	for _, r := range cfg.single.Cases {
		singles[r.CaseID] = r
	}
	run := orderings.Result{Requests: len(slice.Requests) * len(orders)}
	for _, req := range slice.Requests {
		verdict := labels[0]
		if v := req.Case.Expected.Verdicts; len(v) > 0 {
			verdict = v[0]
		}
		probs := make(judgment.Probabilities, len(labels))
		for k, l := range labels {
			probs[k] = judgment.Probability{Label: l}
			if l == verdict {
				probs[k].P = 1
			}
		}
		all := make([]judgment.Probabilities, len(orders))
		for o := range all {
			all[o] = probs
		}
		single, ok := singles[req.CaseID()]
		if !ok {
			single = checkmatch.CaseRecord{Verdict: verdict, VerdictProbabilities: probs}
		}
		rec, err := orderings.NewCase(req, labels, orders, all, single)
		if err != nil {
			return orderings.Receipt{}, err
		}
		run.Cases = append(run.Cases, rec)
	}
	// The statistics block's keys and labels, without its 1000 resamples:
	// its numbers hold no word of a key.
	cases := run.Cases
	run.Cases = nil
	r, err := orderings.BuildReceipt(run, orderings.NewReceiptParts(c, slice, orders,
		orderings.SingleOrderFile{Path: cfg.singlePath, SHA256: cfg.singleSHA}, run))
	if err != nil {
		return r, err
	}
	r.Cases = cases
	r.Statistics = &orderings.Stats{Cases: len(cases), PositionMeans: make([]float64, len(labels)),
		SpreadLimit: orderings.PositionSpreadLimit, Decision: orderings.DecisionInconclusive,
		Bootstrap: orderings.Bootstrap{Resamples: orderings.BootstrapResamples, Seed: orderings.BootstrapSeed}}
	return r, nil
}

// finishShard ends a shard study: a shard that scored every one of its
// cases writes its shard record at the receipt path and keeps the journal
// beside it (examples/merge reads both); a stopped shard writes nothing
// more, its journal keeping every finished case for -resume.
func finishShard(stdout io.Writer, cfg config, rc checkmatch.RunContext, slice checkmatch.Slice, orders [][]int,
	single orderings.SingleOrderFile, head journal.Header, res orderings.Result) error {
	if s := res.Stopped; s != nil {
		return fmt.Errorf("shard %s stopped at case %s ordering %d (index %d, %s); the journal %s keeps every finished case: rerun with -resume to score the rest",
			cfg.shard, s.CaseID, s.Ordering, s.Index, s.ErrorClass, cfg.files.Journal)
	}
	rec, err := orderings.NewShardRecord(rc, slice, orders, single, cfg.shard, head, cfg.files.Journal, res)
	if err != nil {
		return err
	}
	return cfg.files.WriteShardRecord(stdout, rec, cli.NamedSecrets(cfg.settings))
}

// otherJudge returns the warning for a single-order receipt judged by
// another backend or model than the study's, or "".
func otherJudge(single checkmatch.Receipt, rc checkmatch.RunContext) string {
	if single.Backend == rc.Backend && single.Model == rc.Model {
		return ""
	}
	return fmt.Sprintf("warning: the single-order receipt was judged by %s %q, this study by %s %q: the accuracy difference mixes two judges with the order effect",
		single.Backend, single.Model, rc.Backend, rc.Model)
}

// summary prints the receipt path and digest, the request count, the
// stopped record and the statistics block, each value as one line of JSON
// with the receipt's number text (1.0, not 1; [cli.SummaryLine]).
func summary(w io.Writer, path, sum string, r orderings.Receipt) error {
	if _, err := fmt.Fprintf(w, "receipt %s sha256 %s\n", path, sum); err != nil {
		return err
	}
	for _, l := range []struct {
		key string
		v   any
	}{
		{"requests", r.Requests},
		{"wall_seconds", r.WallSeconds},
		{"stopped", r.Stopped},
		{"statistics", r.Statistics},
	} {
		if err := cli.SummaryLine(w, l.key, l.v); err != nil {
			return err
		}
	}
	return nil
}
