package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"github.com/typevet/typevet-go/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/orderings"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/internal/pyjson"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/fake"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/reader"
	"github.com/typevet/typevet-go/receipt"
)

// The tests render the one-row seed-1 slice once.
func init() {
	var mu sync.Mutex
	cache := map[[2]uint64]checkmatch.Slice{}
	buildSlice = func(seed uint64, rows int, _ func()) (checkmatch.Slice, error) {
		mu.Lock()
		defer mu.Unlock()
		k := [2]uint64{seed, uint64(rows)}
		if s, ok := cache[k]; ok {
			return s, nil
		}
		s, err := checkmatch.BuildSlice(seed, rows, nil)
		if err == nil {
			cache[k] = s
		}
		return s, err
	}
}

// writeSingle writes a single-order check-match receipt of the seed's
// one-row slice, judged by the offline fake, and returns its path. edit, if
// set, changes the receipt before it is written.
func writeSingle(t *testing.T, seed uint64, edit func(*checkmatch.Receipt)) string {
	t.Helper()
	sl, err := buildSlice(seed, 1, nil)
	require.NoError(t, err)
	res, err := checkmatch.Run(context.Background(), fake.New(nil), "fake-model", sl.Requests, checkmatch.RunOptions{})
	require.NoError(t, err)
	rec, err := checkmatch.BuildReceipt(res, checkmatch.ReceiptParts{Backend: "fake", Model: "fake-model", Pins: sl.Pins()})
	require.NoError(t, err)
	if edit != nil {
		edit(&rec)
	}
	path := filepath.Join(t.TempDir(), "check_match_seed1.json")
	_, err = receipt.Write(path, rec, judgment.Secrets{})
	require.NoError(t, err)
	return path
}

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

type result struct {
	err            error
	code           int
	stdout, stderr string
}

func runCmd(t *testing.T, args []string, env map[string]string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(&stdout, &stderr, args, envOf(env))
	return result{err: err, code: exitCode(err, &stderr), stdout: stdout.String(), stderr: stderr.String()}
}

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	taken := filepath.Join(dir, "taken.json")
	require.NoError(t, os.WriteFile(taken, []byte("{}"), 0o644))
	fresh := filepath.Join(dir, "new.json")
	seed0 := writeSingle(t, 1, func(r *checkmatch.Receipt) { r.Pins.GeneratorSeed = 0 })
	short := writeSingle(t, 1, func(r *checkmatch.Receipt) { r.Cases = r.Cases[:6] })
	otherRender := writeSingle(t, 1, func(r *checkmatch.Receipt) { r.Cases[2].RenderSHA256 = strings.Repeat("0", 64) })
	good := writeSingle(t, 1, nil)
	bearerName := filepath.Join(dir, "Bearer token.json")
	b, err := os.ReadFile(good)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bearerName, b, 0o644))
	const key = "sk-orderings-0123"
	tests := []struct {
		name   string
		args   []string
		env    map[string]string
		want   string
		reason string
	}{
		{name: "no receipt", env: map[string]string{}, want: "TYPEVET_CHECK_ORDERINGS_RECEIPT not set"},
		{name: "receipt exists", env: map[string]string{envReceipt: taken, envBackend: "vllm"},
			want: "TYPEVET_CHECK_ORDERINGS_RECEIPT must name a new file: " + taken + " exists", reason: "the path comes first"},
		{name: "vllm refused", env: map[string]string{envReceipt: fresh, envBackend: "vllm"},
			want: "the orderings study runs on local llama_cpp only: vllm"},
		{name: "unknown backend", env: map[string]string{envReceipt: fresh, envBackend: "nope"}, want: "TYPEVET_BACKEND"},
		{name: "seed 0", env: map[string]string{envReceipt: fresh, envSeed: "0"},
			want: "TYPEVET_CHECK_MATCH_SEED must be 1: the comparison receipt is seed 1"},
		{name: "seed blank", env: map[string]string{envReceipt: fresh, envSeed: " "},
			want: "TYPEVET_CHECK_MATCH_SEED must be 1", reason: "blank parses as seed 0, as typevet's parse_seed does"},
		{name: "seed text", env: map[string]string{envReceipt: fresh, envSeed: "one"},
			want: "TYPEVET_CHECK_MATCH_SEED must be a non-negative integer: 'one'"},
		{name: "rows 21", env: map[string]string{envReceipt: fresh, envRows: "21"},
			want: "TYPEVET_CHECK_ORDERINGS_ROWS must be an integer from 1 to 20"},
		{name: "rows flag wins", args: []string{"-rows", "007x"}, env: map[string]string{envReceipt: fresh, envRows: "1"},
			want: "-rows must be an integer from 1 to 20"},
		{name: "no single", env: map[string]string{envReceipt: fresh, envBackend: "fake"}, want: "-single or TYPEVET_CHECK_ORDERINGS_SINGLE must name"},
		{name: "single missing", args: []string{"-single", filepath.Join(dir, "absent.json")}, env: map[string]string{envReceipt: fresh, envBackend: "fake"},
			want: "absent.json"},
		{name: "single not a check receipt", args: []string{"-single", taken}, env: map[string]string{envReceipt: fresh, envBackend: "fake"},
			want: "-single " + taken},
		{name: "single of seed 0", args: []string{"-single", seed0}, env: map[string]string{envReceipt: fresh, envBackend: "fake", envRows: "1"},
			want: "receipt seed differs from seed 1"},
		{name: "single of another renderer", args: []string{"-single", otherRender}, env: map[string]string{envReceipt: fresh, envBackend: "fake", envRows: "1"},
			want: "render of r00:written_amount_changed differs from the receipt", reason: "a typevet (Pillow) receipt fails the same way"},
		{name: "single too short", args: []string{"-single", short}, env: map[string]string{envReceipt: fresh, envBackend: "fake", envRows: "1"},
			want: "case r00:low_legibility missing from the receipt"},
		{name: "single from the environment", env: map[string]string{envReceipt: fresh, envBackend: "fake", envRows: "1", envSingle: seed0},
			want: "receipt seed differs from seed 1"},
		{name: "single flag wins", args: []string{"-single", seed0}, env: map[string]string{envReceipt: fresh, envBackend: "fake", envRows: "1", envSingle: "/nonexistent.json"},
			want: "receipt seed differs from seed 1"},
		{name: "extra argument", args: []string{"x"}, env: map[string]string{envReceipt: fresh}, want: "unexpected arguments: x"},
		{name: "key in server args", args: []string{"-single", good}, env: map[string]string{envReceipt: fresh, envRows: "1",
			"TYPEVET_LLAMA__BASE_URL": "http://127.0.0.1:1", "TYPEVET_LLAMA__API_KEY": key, cli.EnvServerArgs: "--api-key " + key},
			want: "TYPEVET_VLLM_SERVER_ARGS holds a key or an auth header", reason: "refused before the llama.cpp probe; the key is not echoed"},
		{name: "bearer in single name", args: []string{"-single", bearerName}, env: map[string]string{envReceipt: fresh, envBackend: "fake", envRows: "1"},
			want: "-single holds a key or an auth header", reason: "the receipt records the file name"},
		{name: "authorization in porcelain", args: []string{"-single", good}, env: map[string]string{envReceipt: fresh, envBackend: "fake", envRows: "1",
			envPorcelain: " M Authorization.go\n"}, want: "TYPEVET_GIT_STATUS_PORCELAIN holds a key or an auth header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCmd(t, tt.args, tt.env)
			require.Error(t, r.err)
			var ue *cli.UsageError
			require.ErrorAs(t, r.err, &ue, r.err.Error())
			assert.Contains(t, r.err.Error(), tt.want, tt.reason)
			assert.Equal(t, 2, r.code)
			assert.Empty(t, r.stdout)
			assert.NotContains(t, r.stderr, key)
			assert.NoFileExists(t, fresh)
		})
	}
}

// readBack reads a written orderings receipt and checks that its statistics
// are what orderings.Statistics computes from its cases.
func readBack(t *testing.T, path string) orderings.Receipt {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := orderings.ReadReceipt(f)
	require.NoError(t, err)
	if len(r.Cases) > 0 {
		st, err := orderings.Statistics(r.Cases)
		require.NoError(t, err)
		require.NotNil(t, r.Statistics)
		assert.Equal(t, st, *r.Statistics)
	}
	return r
}

func llamaEnv(t *testing.T) (*judgmenttest.Server, map[string]string) {
	srv := judgmenttest.NewLlamaCPP(&judgmenttest.Model{NVocab: 64})
	t.Cleanup(srv.Close)
	return srv, map[string]string{
		envBackend:                 "llama_cpp",
		"TYPEVET_LLAMA__BASE_URL":  srv.URL,
		envLlamaModel:              judgmenttest.DefaultModelID,
		envRows:                    "1",
		envPorcelain:               "",
		"TYPEVET_VLLM_SERVER_ARGS": "--ctx-size 8192",
	}
}

func TestStudyAgainstLlamaCPP(t *testing.T) {
	srv, env := llamaEnv(t)
	single := writeSingle(t, 1, nil)
	path := filepath.Join(t.TempDir(), "receipts", "orderings.json")
	env[envReceipt] = path
	r := runCmd(t, []string{"-single", single, "-json"}, env)
	require.NoError(t, r.err, r.stderr)
	assert.Equal(t, 0, r.code)
	assert.Equal(t, 42, srv.Count("/completion"), "7 cases × 6 orderings, one verdict call each")

	rec := readBack(t, path)
	assert.Equal(t, 105, rec.Issue)
	assert.Equal(t, "llama_cpp", string(rec.Backend))
	assert.Nil(t, rec.Stopped)
	assert.Equal(t, 42, rec.Requests)
	require.Len(t, rec.Cases, 7)
	for _, c := range rec.Cases {
		require.Len(t, c.Orderings, 6)
		assert.Equal(t, c.Orderings[0].Order, checkmatch.VerdictLabels[:])
	}
	p := rec.Pins
	assert.Equal(t, uint64(1), p.GeneratorSeed)
	assert.Equal(t, 1, p.RegisterRows)
	assert.Equal(t, 1, p.Concurrency)
	assert.Equal(t, "check_match_seed1.json", p.SingleOrderReceipt)
	b, err := os.ReadFile(single)
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	assert.Equal(t, hex.EncodeToString(sum[:]), p.SingleOrderReceiptSHA256)
	require.NotNil(t, p.Renderer)
	assert.Equal(t, checkmatch.Snapshot{BaselineCommit: rec.Identity.BaselineCommit, WorkingTree: rec.Identity.WorkingTree}.RendererPin(), *p.Renderer)
	require.NotNil(t, p.Server)
	require.NotNil(t, p.ServerArgs)
	assert.Nil(t, p.ServerArgs.CacheConfig, "no /metrics reading on llama.cpp")
	require.NotNil(t, p.ServerArgs.CallerStated)
	assert.Equal(t, "--ctx-size 8192", *p.ServerArgs.CallerStated)
	assert.Len(t, p.Orderings, 6)

	id := rec.Identity
	snap, err := orderings.TakeSnapshot(t.TempDir(), nil)
	require.NoError(t, err)
	assert.Equal(t, snap.PromptDigests, id.PromptDigests)
	assert.Equal(t, snap.CodePathDigests, id.CodePathDigests)
	assert.Equal(t, receipt.Digests{{Name: "single_order_receipt", Value: p.SingleOrderReceiptSHA256}}, id.FixtureDigests)
	assert.Equal(t, receipt.Counts{{Name: "verdict_requests", Value: 42}}, id.ArmCallCounts)
	assert.Equal(t, receipt.IdentityDigest(id), id.IdentityDigest)

	written, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, lines, 5, r.stdout)
	wsum := sha256.Sum256(written)
	assert.Equal(t, "receipt "+path+" sha256 "+hex.EncodeToString(wsum[:]), lines[0])
	assert.Equal(t, "requests 42", lines[1])
	assert.Equal(t, "stopped null", lines[3])
	assert.Equal(t, "wall_seconds "+pyjson.FormatFloat(rec.WallSeconds), lines[2], "numbers as the receipt writes them")
	assert.True(t, strings.HasPrefix(lines[4], `statistics {"cases": 7, "position_means": [`), lines[4])
	assert.Contains(t, r.stderr, "7 cases × 6 orderings = 42 verdict requests")
}

// TestStudyFaultMidway: a backend failure on verdict call 8 (case 1,
// ordering 2) stops the study with the spec's record, keeps the one
// finished case and exits 1 after writing the receipt.
func TestStudyFaultMidway(t *testing.T) {
	srv, env := llamaEnv(t)
	srv.Inject(judgmenttest.Fault{Path: "/completion", Nth: 9, Status: 503, Body: `{"error": {"message": "loading model"}}`})
	path := filepath.Join(t.TempDir(), "orderings.json")
	env[envReceipt] = path
	r := runCmd(t, []string{"-single", writeSingle(t, 1, nil)}, env)
	require.Error(t, r.err)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "study stopped at case r00:payee_changed ordering 2 (index 1, BackendHttpError); the receipt holds the 1 cases before it")

	rec := readBack(t, path)
	require.NotNil(t, rec.Stopped)
	assert.Equal(t, 1, rec.Stopped.Index)
	assert.Equal(t, "r00:payee_changed", rec.Stopped.CaseID)
	assert.Equal(t, 2, rec.Stopped.Ordering)
	assert.Equal(t, "BackendHttpError", rec.Stopped.ErrorClass)
	assert.Contains(t, rec.Stopped.Message, "503")
	require.Len(t, rec.Cases, 1, "the partly scored case is dropped")
	assert.Equal(t, "r00:clean", rec.Cases[0].CaseID)
	require.NotNil(t, rec.Statistics)
	assert.Equal(t, 1, rec.Statistics.Cases)
	assert.Equal(t, 8, rec.Requests)
	assert.Equal(t, 9, srv.Count("/completion"), "nothing sent after the failure")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	golden.InOrder(t, string(raw), `"index": 1`, `"case_id": "r00:payee_changed"`, `"ordering": 2`, `"error_class": "BackendHttpError"`, `"message"`)
	assert.NotContains(t, string(raw), `"discarded"`)
}

func TestStudyOffline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "orderings.json")
	r := runCmd(t, []string{"-single", writeSingle(t, 1, nil), "-backend", "fake", "-rows", " 1 "},
		map[string]string{envReceipt: path})
	require.NoError(t, r.err, r.stderr)
	rec := readBack(t, path)
	assert.Equal(t, "fake", string(rec.Backend))
	assert.Equal(t, "fake-model", rec.Model)
	assert.Nil(t, rec.Pins.Server)
	require.NotNil(t, rec.Statistics)
	// The fake answers uniformly: every ordering gives every label 1/6,
	// so position does not matter at all.
	assert.Equal(t, 0.0, rec.Statistics.PositionSpread)
	assert.Equal(t, orderings.DecisionDoNotAdopt, rec.Statistics.Decision)
	assert.Equal(t, 1.0, rec.Statistics.Ordering0Agreement, "the single-order run was the same fake")
	assert.Equal(t, 0.0, rec.Statistics.Ordering0MaxAbsDifference)
}

// TestStudyReader: the built-in reader runs the study offline like the
// fake; pins.server holds its pin.
func TestStudyReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "orderings.json")
	r := runCmd(t, []string{"-single", writeSingle(t, 1, nil), "-backend", "reader", "-rows", "1"},
		map[string]string{envReceipt: path})
	require.NoError(t, r.err, r.stderr)
	rec := readBack(t, path)
	assert.Equal(t, "reader", string(rec.Backend))
	assert.Equal(t, reader.BackendName, rec.Model)
	require.NotNil(t, rec.Pins.Server)
	assert.Equal(t, reader.Version, rec.Pins.Server.BuildInfo)
	var pin reader.Pin
	require.NoError(t, json.Unmarshal(rec.Pins.Server.BackendPin, &pin))
	assert.Equal(t, reader.Options{}.Pin(), pin)
	assert.Equal(t, reader.Version, rec.Identity.Runtime.ServerBuild)
	require.NotNil(t, rec.Statistics)
	assert.Nil(t, rec.Stopped)
	assert.Len(t, rec.Cases, 7)
}

// A model the single-model llama-server does not serve is refused before
// the first scoring request (exit 2).
func TestUnservedModelRefused(t *testing.T) {
	srv, env := llamaEnv(t)
	env[envLlamaModel] = "gemma-4-typo"
	path := filepath.Join(t.TempDir(), "orderings.json")
	env[envReceipt] = path
	r := runCmd(t, []string{"-single", writeSingle(t, 1, nil)}, env)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, `TYPEVET_LLAMA__MULTIMODAL_MODEL (or -model) names model "gemma-4-typo", which the llama.cpp server does not serve`)
	assert.Zero(t, srv.Count("/completion")+srv.Count("/tokenize"), "no scoring request")
	assert.NoFileExists(t, path)
}

// TestStudyPrintsTable: without -json the study prints a table, as
// checkmatch does: the cases and requests, the statistics and the
// receipt's path and digest.
func TestStudyPrintsTable(t *testing.T) {
	_, env := llamaEnv(t)
	path := filepath.Join(t.TempDir(), "orderings.json")
	env[envReceipt] = path
	r := runCmd(t, []string{"-single", writeSingle(t, 1, nil)}, env)
	require.NoError(t, r.err, r.stderr)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	for _, want := range []string{"cases scored          7 (42 verdict requests; llama_cpp, ", "position spread       ", "argmax stability      ",
		"averaged accuracy     ", "receipt               " + path, "sha256                " + hex.EncodeToString(sum[:])} {
		assert.Contains(t, r.stdout, want)
	}
}
