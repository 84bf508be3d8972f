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
// (schema "typevet-go/throughput-sweep-summary", sweep.Summary),
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
//	-resume               finish the sweep journaled beside PATH_c<level>.json (see below)
//	-retries N            retry a judgment after a transport error or HTTP 429/502/503/504 (default 0: typevet's stop at the first failure)
//	-shard I/N            judge only shard I of N at every level; write shard records for examples/merge
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
// # Runs that lose nothing
//
// Each level is a check-match run with a journal, as examples/checkmatch
// keeps one: every finished case is appended to
// PATH_c<level>.json.journal.jsonl and synced before it counts as done;
// the first line is the level's identity (every pin that decides the
// answers, concurrency included). The journals stay until the summary of
// the complete sweep is written and are then removed. After a SIGKILL, an
// OOM kill, a reboot, a backend failure, Ctrl-C, SIGTERM or SIGHUP, rerun
// the same command with -resume: each level's journal is checked against
// the sweep now starting (refused, naming the first differing pin, when it
// is another experiment), a level whose receipt is complete is not run
// again (its summary row comes from its receipt; kv_cache_usage, read in
// flight by the earlier part, is null), the level that stopped judges only
// the cases its journal lacks (its stopped receipt is replaced; its wall
// time is the sum of the parts, as examples/checkmatch counts it), and the
// later levels run afresh; the summary is then written (or replaced).
// Interrupted before the first case, the sweep writes nothing. When a
// receipt cannot be written (a key found in it, a full disk, the path
// taken), the journals stay and the message says how to finish.
//
// -shard I/N judges, at every level, only the cases of shard I
// (checkmatch.Shard: SHA-256 of the case id mod N) and writes, per level,
// a shard record (schema typevet-go.shard) at PATH_c<level>.json with its
// journal beside it, and no summary (nor the in-flight KV read, which
// only the summary holds); examples/merge puts one level's
// shards together into the receipt a single process would have written:
//
//	merge s0_c4.json s1_c4.json s2_c4.json -receipt receipts/tp_c4.json
//
// Exit status: 0 when every level judged every case; 2 on a usage error
// (nothing sent, nothing written), which includes a model the llama.cpp
// server does not serve (refused before the first scoring request); 1
// otherwise. A level stopped by a
// backend failure still writes its receipt and ends the sweep. So do
// Ctrl-C, SIGTERM and SIGHUP (the level's after-run /metrics read still
// happens, for at most 10 s); a second one quits at once and writes
// nothing more (the journals keep every finished case). `go run`
// reports a status of 2 as "exit status 2" and exits 1 itself.
package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/checkmatch/sweep"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

const (
	prog      = "throughput"
	usageLine = "usage: throughput -receipt-prefix PATH [-levels 1,4,16,32] [-resume] [-retries N] [-shard I/N] [-rows N] [-seed N] [-backend NAME] [-base-url URL] [-model ID] [-timeout SECONDS] [-revision REV] [-server-args TEXT]"
)

// help is the -h text; its flags are the command's flags.
var help = cli.Help{
	Usage: usageLine,
	About: "Run the throughput sweep (typevet #335): judge the check slice once per concurrency level and write one check-match receipt per level.",
	Flags: append([]cli.Flag{
		{Name: "levels", Arg: "LIST", Default: "1,4,16,32", Usage: "concurrency levels 1 to 4096, comma-separated, no repeats"},
		{Name: "receipt-prefix", Arg: "PATH", Usage: "receipts go to PATH_c<level>.json; each must be a new file (required)"},
		{Name: "resume", Bool: true, Usage: "finish the sweep journaled at PATH_c<level>.json.journal.jsonl: finished levels are not run again, the stopped one judges only the cases its journal lacks"},
		{Name: "retries", Arg: "N", Default: "0", Usage: "retry a judgment after a transport error or HTTP 429/502/503/504 (0: stop at the first failure, as typevet does)"},
		{Name: "shard", Arg: "I/N", Usage: "judge only shard I of N (I from 0) at every level and write a shard record per level for examples/merge instead of receipts"},
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
	prefix    string
	paths     []string         // one receipt path per level
	files     []cli.RunFiles   // one receipt and journal per level
	finished  map[int]bool     // levels an earlier part finished (their receipt or shard record is written)
	summary   string           // the sweep's summary document: PREFIX_summary.json ("" for a shard)
	resume    bool             // -resume
	retries   int              // -retries
	shard     checkmatch.Shard // zero: the whole slice
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
	cfg.prefix = strings.TrimSpace(prefix)
	if cfg.prefix == "" {
		return cfg, cli.Usagef("-receipt-prefix is required")
	}
	cfg.resume = env.Flag("resume") == "true"
	if cfg.retries, err = cli.ParseRetries(env); err != nil {
		return cfg, err
	}
	if cfg.shard, err = cli.ParseShard(env); err != nil {
		return cfg, err
	}
	if err := cfg.levelFiles(); err != nil {
		return cfg, err
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

// levelFiles checks every level's receipt path and journal, and the
// summary path, before any network call. A new sweep needs new files and
// no journal (a journal is an unfinished sweep: add -resume). A -resume
// sweep needs a journal of at least one level; each level is then
// finished (its receipt, or its shard record, is written; its journal
// stays until the sweep's end and is checked against this sweep), to be
// finished (a journal, and maybe its stopped receipt, which is replaced),
// or not started (neither: it runs afresh).
func (cfg *config) levelFiles() error {
	cfg.finished = map[int]bool{}
	taken := fmt.Sprintf("move every file %s_c<level>.json and its .journal.jsonl to a new prefix and rerun with -receipt-prefix NEW and -resume", cfg.prefix)
	journals := 0
	for _, l := range cfg.levels {
		p := fmt.Sprintf("%s_c%d.json", cfg.prefix, l)
		cfg.paths = append(cfg.paths, p)
		_, jerr := os.Lstat(journal.Path(p))
		hasJournal := jerr == nil
		if hasJournal {
			journals++
		}
		_, rerr := os.Lstat(p)
		hasFile := rerr == nil
		switch {
		case !cfg.resume && hasJournal:
			return cli.Usagef("a journal of an unfinished sweep is at %s: add -resume to finish that sweep, or remove the journal to start over", journal.Path(p))
		case !cfg.resume || !hasFile:
			if err := receipt.CheckNew(p); err != nil {
				var ae *receipt.AlreadyExistsError
				if errors.As(err, &ae) {
					return cli.Usagef("-receipt-prefix must name new files: %s exists", p)
				}
				return cli.Usagef("-receipt-prefix: %v", err)
			}
		case !hasJournal:
			return cli.Usagef("-resume: %s has no journal beside it, so it cannot be checked to be this sweep's; start a new sweep with another -receipt-prefix", p)
		case cfg.shard.Count > 0:
			if _, err := checkmatch.ReadShard(p); err != nil {
				return cli.Usagef("-resume: %s is not this level's shard record: %v", p, err)
			}
			cfg.finished[l] = true
		default:
			complete, err := completeReceipt(p)
			if err != nil {
				return cli.Usagef("-resume: %s is not a check-match receipt: %v", p, err)
			}
			cfg.finished[l] = complete
		}
		if err := receipt.CheckWritable(p); err != nil {
			return cli.Usagef("-receipt-prefix: no receipt can be written at %s: %v", p, errors.Unwrap(err))
		}
		cfg.files = append(cfg.files, cli.LevelFiles(p, "-receipt-prefix", hasJournal, hasFile && !cfg.finished[l], taken))
	}
	if cfg.resume && journals == 0 {
		return cli.Usagef("-resume: no journal at %s_c<level>.json%s to resume (-receipt-prefix and -levels name the sweep to finish)", cfg.prefix, journal.Suffix)
	}
	if cfg.shard.Count > 0 {
		return nil // a shard writes shard records, no summary
	}
	cfg.summary = cfg.prefix + "_summary.json"
	if cfg.resume {
		return nil // an unfinished sweep's summary, if any, is replaced
	}
	if err := receipt.CheckNew(cfg.summary); err != nil {
		var ae *receipt.AlreadyExistsError
		if errors.As(err, &ae) {
			return cli.Usagef("-receipt-prefix must name new files: %s exists", cfg.summary)
		}
		return cli.Usagef("-receipt-prefix: %v", err)
	}
	return nil
}

// completeReceipt reports whether path holds the receipt of a level that
// judged every case (false: a stopped level's, which -resume completes).
func completeReceipt(path string) (bool, error) {
	r, err := readLevelReceipt(path)
	return err == nil && r.Stopped == nil, err
}

func readLevelReceipt(path string) (checkmatch.Receipt, error) {
	f, err := os.Open(path)
	if err != nil {
		return checkmatch.Receipt{}, err
	}
	defer f.Close()
	return checkmatch.ReadReceipt(f)
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
	pre := checkmatch.PlannedRunContext(cfg.settings, snap, cfg.revision, cfg.stated)
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
		return cli.SetupError(ctx, err, cfg.settings, cfg.name)
	}
	defer sess.Close()
	rc, err := checkmatch.NewRunContext(ctx, sess, snap, cfg.revision, cfg.stated)
	if err != nil {
		return cli.SetupError(ctx, err, cfg.settings, cfg.name)
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
	sw, err := newSweep(stderr, cfg, rc, slice)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return cli.ErrInterrupted
	}

	opts := sweep.Options{Levels: sw.toRun, CallerStated: cfg.stated, Metrics: checkmatch.MetricsReader(sess),
		Journal: sw.journal, Retry: checkmatch.RetryPolicy{Retries: cfg.retries}, Shard: cfg.shard, Finished: sw.done,
		LevelDone: func(lv sweep.Level, args serving.ServerArgsBlock) error { return sw.levelDone(ctx, lv, args) }}
	if sess.Backend == backend.VLLM && cfg.shard.Count == 0 {
		opts.KVCacheUsage = func(ctx context.Context) serving.Value {
			return serving.ReadKVCacheUsage(ctx, sess.HTTPClient, sess.BaseURL)
		}
	}
	fmt.Fprintf(stderr, "%s: %d cases at levels %v\n", prog, cli.ShardSize(slice.Requests, cfg.shard), cfg.levels)
	p := cli.NewProgress(stderr, "sweep", cli.ShardSize(slice.Requests, cfg.shard)*(len(cfg.levels)-len(cfg.finished)), "judgments")
	p.Start()
	res, err := sweep.Run(ctx, p.Wrap(sess.Port), rc.Model, slice.Requests, opts)
	p.Stop()
	if sw.writeErr != nil {
		return sw.writeErr // it says how to finish, or why a resume is refused
	}
	if err != nil {
		return fmt.Errorf("%w; the level journals %s_c<level>.json%s keep every finished case: rerun with -resume", err, cfg.prefix, journal.Suffix)
	}
	if cfg.shard.Count > 0 {
		return sw.finishShards(stdout, res)
	}
	return sw.finish(stdout, stderr, res)
}

// sweeper is one part of a sweep run: its levels, files and journals.
type sweeper struct {
	cfg      config
	rc       checkmatch.RunContext
	slice    checkmatch.Slice
	stderr   io.Writer
	at       map[int]int                 // level -> index in cfg.levels
	toRun    []int                       // the levels the sweep passes (a shard's finished levels left out)
	done     map[int]checkmatch.Receipt  // finished levels' receipts (not for a shard)
	journals map[int]*checkmatch.Journal // the journals the levels opened
	sums     map[int]string              // each written level receipt's SHA-256
	// interrupted is the level stopped before its first case in slice
	// order (no receipt written); 0 when none.
	interrupted int
	writeErr    error // a level's journal refused or its receipt or shard record not written: returned as it is
}

// newSweep checks every finished level's journal against this sweep (a
// finished level of another experiment is refused, naming the first
// differing pin) and reads its receipt.
func newSweep(stderr io.Writer, cfg config, rc checkmatch.RunContext, slice checkmatch.Slice) (*sweeper, error) {
	sw := &sweeper{cfg: cfg, rc: rc, slice: slice, stderr: stderr, at: map[int]int{},
		done: map[int]checkmatch.Receipt{}, journals: map[int]*checkmatch.Journal{}, sums: map[int]string{}}
	for i, l := range cfg.levels {
		sw.at[l] = i
		if !cfg.finished[l] {
			sw.toRun = append(sw.toRun, l)
			continue
		}
		j, err := sw.openJournal(l, false)
		if err != nil {
			return nil, err
		}
		if err := j.Close(); err != nil {
			return nil, err
		}
		if cfg.shard.Count > 0 {
			fmt.Fprintf(stderr, "%s: level %d: the shard record %s is written; not run again\n", prog, l, cfg.paths[i])
			continue
		}
		rec, err := readLevelReceipt(cfg.paths[i])
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(cfg.paths[i])
		if err != nil {
			return nil, err
		}
		sw.done[l], sw.sums[l] = rec, fmt.Sprintf("%x", sha256.Sum256(b))
		sw.toRun = append(sw.toRun, l)
		fmt.Fprintf(stderr, "%s: level %d: the receipt %s is complete; not run again\n", prog, l, cfg.paths[i])
	}
	return sw, nil
}

// openJournal creates or resumes the journal of level l
// ([cli.RunFiles.OpenJournal]); a journal of another experiment is a
// usage error naming the first differing pin.
// With report, it says on stderr what a resume found in it
// ([cli.RunFiles.OpenJournalReporting]).
func (sw *sweeper) openJournal(l int, report bool) (*checkmatch.Journal, error) {
	h, err := checkmatch.ShardJournalHeader(sw.rc, sw.slice, l, sw.cfg.shard)
	if err != nil {
		return nil, err
	}
	f := sw.cfg.files[sw.at[l]]
	if !report {
		return f.OpenJournal(h, sw.slice.Requests)
	}
	return f.OpenJournalReporting(sw.stderr, fmt.Sprintf("%s: level %d", prog, l), "judge", h, sw.slice.Requests, sw.cfg.shard)
}

// journal is [sweep.Options].Journal: it opens level l's
// journal and says what a resume found in it.
func (sw *sweeper) journal(l int) (*checkmatch.Journal, error) {
	j, err := sw.openJournal(l, true)
	if err != nil {
		sw.writeErr = err // a refused resume says what to do itself
		return nil, err
	}
	sw.journals[l] = j
	return j, nil
}

// levelDone is [sweep.Options].LevelDone: it writes the level's
// receipt (or, for a shard, its shard record) as soon as the level ends,
// so a sweep killed at a later level keeps it. A level interrupted before
// its first case in slice order writes no receipt (a journal without a
// case is removed); a stopped shard level writes nothing. The journals
// stay until the summary of a complete sweep is written.
func (sw *sweeper) levelDone(ctx context.Context, lv sweep.Level, args serving.ServerArgsBlock) error {
	files := sw.cfg.files[sw.at[lv.Concurrency]]
	var sum string
	var err error
	switch {
	case sw.cfg.shard.Count > 0 && lv.Stopped != nil:
		return nil
	case sw.cfg.shard.Count > 0:
		sum, err = sw.writeShard(lv, args)
	case len(lv.Run.Outcomes) == 0 && lv.Stopped != nil && ctx.Err() != nil:
		sw.interrupted = lv.Concurrency
		if j := sw.journals[lv.Concurrency]; j != nil && j.Finished()+j.Added() == 0 {
			err = files.Discard()
		}
		sw.writeErr = err
		return err
	default:
		parts := sw.rc.ReceiptParts(sw.slice, lv.Run)
		// The sweep rule: the first level whose reading holds
		// vllm:cache_config_info sets server_args for it and every later
		// level; before that (and on backends without /metrics) the
		// block holds caller_stated alone.
		parts.ServerArgs = &args
		var rec checkmatch.Receipt
		if rec, err = checkmatch.BuildReceipt(lv.Run, parts); err == nil {
			sum, err = files.WriteReceipt(rec, cli.NamedSecrets(sw.cfg.settings), false)
		}
		if err == nil {
			fmt.Fprintf(sw.stderr, "receipt %s sha256 %s\n", files.Receipt, sum)
		}
	}
	if err != nil {
		sw.writeErr = err
		return err
	}
	sw.sums[lv.Concurrency] = sum
	return nil
}

// writeShard writes the shard record of a level that judged every case
// of the shard at the level's receipt path; its journal stays beside it
// (examples/merge reads both, level by level).
func (sw *sweeper) writeShard(lv sweep.Level, args serving.ServerArgsBlock) (string, error) {
	files := sw.cfg.files[sw.at[lv.Concurrency]]
	h, err := checkmatch.ShardJournalHeader(sw.rc, sw.slice, lv.Concurrency, sw.cfg.shard)
	if err != nil {
		return "", err
	}
	var readings []checkmatch.ShardReading
	if r := lv.Run.MetricsReadings; len(r) == 2 {
		readings = []checkmatch.ShardReading{checkmatch.NewShardReading("", lv.Began, lv.Ended, r[0], r[1])}
	}
	rec, err := checkmatch.NewShardRecord(sw.rc, sw.slice, sw.cfg.shard, h, files.Journal, lv.Run, readings)
	if err != nil {
		return "", err
	}
	// The level's server_args block by the sweep rule, as its receipt
	// would record it.
	rec.ServerArgs = &args
	sum, err := files.WriteReceipt(rec, cli.NamedSecrets(sw.cfg.settings), false)
	if err == nil {
		fmt.Fprintf(sw.stderr, "shard %s level %d record %s sha256 %s (%d cases; journal %s)\n",
			sw.cfg.shard, lv.Concurrency, files.Receipt, sum, rec.Cases, files.Journal)
	}
	return sum, err
}

// finish writes the summary over every level with a receipt and the
// table, and removes the journals once the sweep is complete.
func (sw *sweeper) finish(stdout, stderr io.Writer, res sweep.Result) error {
	cfg := sw.cfg
	var kept []sweep.Level
	for _, lv := range res.Levels {
		if lv.Concurrency != sw.interrupted {
			kept = append(kept, lv)
		}
	}
	if len(kept) == 0 {
		if sw.anyJournal() {
			return fmt.Errorf("interrupted before the first case in slice order; no receipt was written; the journal of level %d keeps the cases that finished: rerun with -resume", res.Levels[0].Concurrency)
		}
		return cli.ErrInterrupted
	}
	summary, err := sweep.NewSummary(sweep.Result{Levels: kept})
	if err != nil {
		return err
	}
	for i, lv := range kept {
		summary.Levels[i].Receipt, summary.Levels[i].ReceiptSHA256 = cfg.paths[sw.at[lv.Concurrency]], sw.sums[lv.Concurrency]
	}
	write := receipt.Write
	if _, err := os.Lstat(cfg.summary); err == nil && cfg.resume {
		write = receipt.Replace // the summary of the unfinished sweep this one completes
	}
	sum, err := write(cfg.summary, summary, sw.rc.Secrets)
	if err != nil {
		return fmt.Errorf("%w; the level receipts are written and the journals keep every case: rerun with -resume to write the summary", err)
	}
	fmt.Fprintf(stderr, "summary %s sha256 %s\n", cfg.summary, sum)
	last := kept[len(kept)-1]
	if sw.interrupted == 0 && last.Stopped == nil && len(kept) == len(cfg.levels) {
		for _, f := range cfg.files {
			if err := f.Discard(); err != nil {
				return fmt.Errorf("remove the journal %s of the finished sweep: %w", f.Journal, err)
			}
		}
	}
	if err := writeTable(stdout, summary); err != nil {
		return err
	}
	resume := fmt.Sprintf("the level journals %s_c<level>.json%s keep every finished case: rerun with -resume to finish the sweep (the stopped receipt and the summary are then replaced)", cfg.prefix, journal.Suffix)
	switch {
	case sw.interrupted != 0:
		return fmt.Errorf("level %d was interrupted before its first case; no later level ran; %s", sw.interrupted, resume)
	case last.Stopped != nil:
		s := last.Stopped
		return cli.Explain(fmt.Errorf("level %d stopped at case %s (index %d, %s); its receipt holds the %d cases before it and no later level ran; %s",
			last.Concurrency, s.CaseID, s.Index, s.ErrorClass, len(last.Run.Outcomes), resume), s.Message, cfg.settings, cfg.name)
	}
	return nil
}

// anyJournal reports whether a level's journal is still on disk.
func (sw *sweeper) anyJournal() bool {
	for _, f := range sw.cfg.files {
		if _, err := os.Lstat(f.Journal); err == nil {
			return true
		}
	}
	return false
}

// finishShards ends a shard sweep: every level's shard record is written
// (by levelDone); a stopped level wrote nothing more, its journal keeping
// every finished case for -resume, and no later level ran.
func (sw *sweeper) finishShards(stdout io.Writer, res sweep.Result) error {
	cfg := sw.cfg
	if n := len(res.Levels); n > 0 {
		if lv := res.Levels[n-1]; lv.Stopped != nil {
			s := lv.Stopped
			return fmt.Errorf("shard %s level %d stopped at case %s (index %d, %s); no later level ran; the journal %s keeps every finished case: rerun with -resume to judge the rest",
				cfg.shard, lv.Concurrency, s.CaseID, s.Index, s.ErrorClass, cfg.files[sw.at[lv.Concurrency]].Journal)
		}
	}
	for _, l := range cfg.levels {
		f := cfg.files[sw.at[l]]
		if _, err := fmt.Fprintf(stdout, "shard %s level %d record %s journal %s\n", cfg.shard, l, f.Receipt, f.Journal); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(stdout, "merge each level's shards with examples/merge: merge S0_c<level>.json S1_c<level>.json ... -receipt OUT_c<level>.json")
	return err
}

// writeTable writes the summary: one row per level, with whether its
// answers moved from the first level's (largest |Δp|, verdict flips,
// accuracy change).
func writeTable(w io.Writer, s sweep.Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "level\tjudgments/s\timages/s\tp50_s\tp95_s\tdiscarded\tkv_cache_usage\tmax_abs_dp\tverdict_flips\td_accuracy")
	for _, lv := range s.Levels {
		kv := cli.NA
		if lv.KVCacheUsage != nil {
			kv = lv.KVCacheUsage.String()
		}
		a := lv.Answers
		dAcc := cli.NA
		if a.AccuracyChange != nil {
			dAcc = cli.Signed(*a.AccuracyChange, 4)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%s\n", lv.Concurrency,
			cli.SigOrNA(lv.JudgmentsPerSecond, 3), cli.SigOrNA(lv.ImagesPerSecond, 3),
			cli.SigOrNA(lv.P50Seconds, 3), cli.SigOrNA(lv.P95Seconds, 3), lv.Discarded, kv,
			cli.Sig(a.MaxAbsProbabilityDifference, 3), a.VerdictFlips, dAcc)
	}
	return tw.Flush()
}
