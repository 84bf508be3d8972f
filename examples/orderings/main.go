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
// Exit status: 0 when every case was scored and the receipt written; 2 on a
// refused setting (nothing sent, nothing written), which includes a model
// the llama.cpp server does not serve (refused before the first scoring
// request); 1 otherwise, including a
// study stopped by a backend failure or Ctrl-C, whose receipt is still
// written with every case scored before it. A second Ctrl-C quits at once
// and writes nothing. `go run` reports a status of 2 as "exit status 2"
// and exits 1 itself.
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
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

const (
	prog      = "orderings"
	usageLine = "usage: orderings -single PATH -receipt PATH [-rows N] [-seed 1] [-backend llama_cpp|fake|reader] [-base-url URL] [-model ID] [-timeout SECONDS] [-server-args TEXT]"
)

// backends are the backends the study runs on.
var backends = cli.Backends{backend.LlamaCPP, backend.Fake, backend.Reader}

// help is the -h text; its flags are the command's flags.
var help = cli.Help{
	Usage: usageLine,
	About: "Run the option-order study (typevet #105): the seed-1 verdict scored once per balanced ordering, compared with a single-order check-match receipt; write its receipt.",
	Flags: append([]cli.Flag{
		{Name: "receipt", Arg: "PATH", Vars: []string{envReceipt}, Usage: "receipt path; must name a new file (required)"},
		{Name: "rows", Arg: "N", Vars: []string{envRows}, Default: "3: 21 cases, 126 requests", Usage: "register rows, 1 to 20"},
		{Name: "seed", Arg: "N", Vars: []string{envSeed}, Default: "1", Usage: "must be 1, the single-order receipt's seed"},
		{Name: "single", Arg: "PATH", Vars: []string{envSingle}, Usage: "the single-order check-match receipt of seed 1, by this renderer (required)"},
	}, cli.BackendFlags(backends, true)...),
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
	receiptPath string
	rows        int
	settings    backend.Settings
	singlePath  string
	single      checkmatch.Receipt
	singleSHA   string
	porcelain   *string // the working tree's porcelain text; nil when unknown
	stated      *string // TYPEVET_VLLM_SERVER_ARGS; nil when unset
	notes       []string
	name        func(string) string
}

// run is the whole command: flags and environment (lookup; flags win),
// validation, the study, the receipt and the summary on stdout.
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

// configure validates every setting and reads the
// single-order receipt.
func configure(env *cli.Env) (config, error) {
	var cfg config
	var err error
	cfg.name = env.Name
	if cfg.receiptPath, err = cli.NewReceiptPath(env.Lookup, envReceipt); err != nil {
		return cfg, env.Err(err)
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
		if seed != checkmatch.OrderingsSeed {
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
	slice, err := cli.RenderSlice(stderr, buildSlice, checkmatch.OrderingsSeed, cfg.rows)
	if err != nil {
		return err
	}
	single, err := checkmatch.SingleOrderCases(cfg.single, slice.Requests, checkmatch.OrderingsSeed)
	if err != nil {
		return cli.Usagef("%s %s: %v", cfg.name(envSingle), cfg.singlePath, err)
	}
	orders, err := checkmatch.BalancedOrders(len(checkmatch.VerdictLabels))
	if err != nil {
		return err
	}

	// Snapshot the baseline, tree, prompt and code digests before any
	// scoring call.
	snap, err := checkmatch.TakeOrderingsSnapshot(cli.RepoRoot(), cfg.porcelain)
	if err != nil {
		return err
	}
	sess, err := cli.OpenSession(ctx, cfg.settings, "-model")
	if err != nil {
		return cli.Explain(err, "", cfg.settings, cfg.name)
	}
	defer sess.Close()
	rc, err := cli.NewRunContext(ctx, sess, snap, "", cfg.stated)
	if err != nil {
		return cli.Explain(err, "", cfg.settings, cfg.name)
	}
	if w := otherJudge(cfg.single, rc); w != "" {
		fmt.Fprintln(stderr, w)
	}

	total := len(slice.Requests) * len(orders)
	fmt.Fprintf(stderr, "%s: %d cases × %d orderings = %d verdict requests\n", prog, len(slice.Requests), len(orders), total)
	p := cli.NewProgress(stderr, "scoring orderings", total, "requests")
	p.Start()
	res, err := checkmatch.RunOrderings(ctx, p.Wrap(sess.Port), rc.Model, slice.Requests, orders, single)
	p.Stop()
	if err != nil {
		return err
	}

	rec, err := checkmatch.BuildOrderingsReceipt(res, rc.OrderingsReceiptParts(slice, orders,
		checkmatch.SingleOrderFile{Path: cfg.singlePath, SHA256: cfg.singleSHA}, res))
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
		return fmt.Errorf("study stopped at case %s ordering %d (index %d, %s); the receipt holds the %d cases before it",
			s.CaseID, s.Ordering, s.Index, s.ErrorClass, len(rec.Cases))
	}
	return nil
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
func summary(w io.Writer, path, sum string, r checkmatch.OrderingsReceipt) error {
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
