package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/sweep"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/reader"
)

// The tests render the one-row slice once.
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

type result struct {
	err            error
	code           int
	stdout, stderr string
}

func runCmd(t *testing.T, args []string, env map[string]string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(&stdout, &stderr, args, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	return result{err: err, code: exitCode(err, &stderr), stdout: stdout.String(), stderr: stderr.String()}
}

func readReceipt(t *testing.T, path string) checkmatch.Receipt {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := checkmatch.ReadReceipt(f)
	require.NoError(t, err)
	return r
}

func vllmEnv(t *testing.T, srv *judgmenttest.Server) map[string]string {
	t.Cleanup(srv.Close)
	return map[string]string{
		envBackend:                 "vllm",
		"TYPEVET_VLLM__BASE_URL":   srv.URL,
		"TYPEVET_VLLM__MODEL":      judgmenttest.DefaultModelID,
		envRevision:                "rev-1",
		"TYPEVET_VLLM_SERVER_ARGS": "--max-num-seqs 64",
		envRows:                    "1",
		envPorcelain:               "",
	}
}

const cacheLine = `vllm:cache_config_info{block_size="16",engine="0"} 1.0` + "\n"

func TestSweepAgainstVLLM(t *testing.T) {
	srv := judgmenttest.NewUnstartedVLLM(nil)
	srv.Metrics = func(c judgmenttest.MetricCounters) string { return judgmenttest.DefaultMetrics(c) + cacheLine }
	srv.Start()
	env := vllmEnv(t, srv)
	prefix := filepath.Join(t.TempDir(), "receipts", "tp")
	r := runCmd(t, []string{"-levels", "1, 4", "-receipt-prefix", prefix}, env)
	require.NoError(t, r.err, r.stderr)
	assert.Equal(t, 0, r.code)
	assert.Equal(t, 6, srv.Count("/metrics"), "before, in flight and after, per level")

	for _, level := range []int{1, 4} {
		rec := readReceipt(t, fmt.Sprintf("%s_c%d.json", prefix, level))
		assert.Equal(t, "vllm", string(rec.Backend))
		assert.Nil(t, rec.Stopped)
		assert.Len(t, rec.Cases, 7)
		assert.Equal(t, level, rec.Pins.Concurrency)
		require.NotNil(t, rec.Throughput)
		assert.Equal(t, level, rec.Throughput.Concurrency)
		assert.Equal(t, 7, rec.Throughput.Judgments)
		require.NotNil(t, rec.Throughput.Server)
		assert.Equal(t, 28.0, rec.Throughput.Server.Counters.RequestSuccess.Number, "this level's calls only")
		require.NotNil(t, rec.ServerArgs)
		assert.NotNil(t, rec.ServerArgs.CacheConfig, "level 1's before reading holds the gauge")
		require.NotNil(t, rec.ServerArgs.CallerStated)
		assert.Equal(t, "--max-num-seqs 64", *rec.ServerArgs.CallerStated)
		assert.Equal(t, "rev-1", rec.Pins.ModelRevision)
		m, err := rec.Recompute()
		require.NoError(t, err)
		assert.Equal(t, rec.Metrics.Accuracy, m.Accuracy)
	}

	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 3, r.stdout)
	assert.Regexp(t, `^level\s+judgments/s\s+images/s\s+p50_s\s+p95_s\s+discarded\s+kv_cache_usage\s+max_abs_dp\s+verdict_flips\s+d_accuracy$`, lines[0])
	assert.Regexp(t, `^1(\s+\d+(?:\.\d+)?){4}\s+0\s+\S+\s+0\s+0\s+\+0\.0000$`, lines[1])
	assert.Regexp(t, `^4(\s+\d+(?:\.\d+)?){4}\s+0\s+\S+\s+0\s+0\s+\+0\.0000$`, lines[2], "the fake server answers every level alike")
	// Three significant digits, as every printed table (79.6, 0.0120).
	assert.NotContains(t, r.stdout, "n/a", "vLLM levels have every value")
	assert.Contains(t, r.stderr, "receipt "+prefix+"_c4.json sha256 ")

	// The sweep's own summary document holds the table and the receipts'
	// digests; the receipts hold none of it.
	raw, err := os.ReadFile(prefix + "_summary.json")
	require.NoError(t, err)
	assert.Contains(t, r.stderr, "summary "+prefix+"_summary.json sha256 ")
	var sum sweep.Summary
	require.NoError(t, json.Unmarshal(raw, &sum))
	assert.Equal(t, sweep.SummarySchema, sum.Schema)
	assert.Equal(t, 1, sum.Version)
	require.Len(t, sum.Levels, 2)
	for i, lv := range sum.Levels {
		assert.Equal(t, []int{1, 4}[i], lv.Concurrency)
		assert.Equal(t, fmt.Sprintf("%s_c%d.json", prefix, lv.Concurrency), lv.Receipt)
		b, err := os.ReadFile(lv.Receipt)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("%x", sha256.Sum256(b)), lv.ReceiptSHA256)
		assert.NotContains(t, string(b), "answers_vs_first_level")
		assert.Equal(t, 7, lv.Answers.Cases)
		assert.Equal(t, 0.0, lv.Answers.MaxAbsProbabilityDifference)
		require.NotNil(t, lv.Answers.AccuracyChange)
	}
	assert.True(t, strings.HasPrefix(string(raw), "{\n  \"schema\": \"typevet-go/throughput-sweep-summary\",\n  \"version\": 1,\n  \"levels\": [\n"))
}

func TestSweepStopsOnFailure(t *testing.T) {
	srv := judgmenttest.NewVLLM(nil)
	// Level 1 takes 28 scoring calls; the failure hits level 4.
	srv.Inject(judgmenttest.Fault{Path: "/v1/chat/completions", Nth: 28 + 9, Status: 503, Body: `{"error": "overloaded"}`})
	env := vllmEnv(t, srv)
	prefix := filepath.Join(t.TempDir(), "tp")
	r := runCmd(t, []string{"-levels", "1,4,16", "-receipt-prefix", prefix}, env)
	require.Error(t, r.err)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "level 4 stopped at case")
	assert.FileExists(t, prefix+"_c1.json")
	rec := readReceipt(t, prefix+"_c4.json")
	require.NotNil(t, rec.Stopped)
	assert.Equal(t, "BackendHttpError", rec.Stopped.ErrorClass)
	assert.NoFileExists(t, prefix+"_c16.json", "no later level ran")
}

func TestSweepOffline(t *testing.T) {
	for _, name := range []string{"fake", "reader"} {
		t.Run(name, func(t *testing.T) {
			prefix := filepath.Join(t.TempDir(), "tp")
			r := runCmd(t, []string{"-levels", "2", "-receipt-prefix", prefix, "-backend", name, "-rows", "1"}, map[string]string{})
			require.NoError(t, r.err, r.stderr)
			rec := readReceipt(t, prefix+"_c2.json")
			assert.Equal(t, name, string(rec.Backend))
			require.NotNil(t, rec.ServerArgs, "the sweep rule writes server_args before any level")
			assert.Nil(t, rec.ServerArgs.CacheConfig, "no /metrics offline")
			assert.Nil(t, rec.Throughput.Server)
			assert.Regexp(t, `\n2\s+\S+\s+\S+\s+\S+\s+\S+\s+0\s+n/a\s+0\s+0\s+\+0\.0000\n$`, r.stdout)
			if name == "fake" {
				assert.Nil(t, rec.Pins.Server)
				return
			}
			// The reader has no server to read: pins.server is its pin.
			require.NotNil(t, rec.Pins.Server)
			assert.Equal(t, reader.Version, rec.Pins.Server.BuildInfo)
			var pin reader.Pin
			require.NoError(t, json.Unmarshal(rec.Pins.Server.BackendPin, &pin))
			assert.Equal(t, reader.Options{}.Pin(), pin)
			assert.Len(t, rec.Cases, 7)
		})
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	taken := filepath.Join(dir, "tp_c4.json")
	require.NoError(t, os.WriteFile(taken, []byte("{}"), 0o644))
	prefix := filepath.Join(dir, "tp")
	takenSummary := filepath.Join(dir, "ts_summary.json")
	require.NoError(t, os.WriteFile(takenSummary, []byte("{}"), 0o644))
	const key = "sk-throughput-0123"
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{name: "no prefix", args: nil, want: "-receipt-prefix is required"},
		{name: "level zero", args: []string{"-levels", "1,0", "-receipt-prefix", prefix}, want: "-levels must list whole numbers"},
		{name: "level text", args: []string{"-levels", "one", "-receipt-prefix", prefix}, want: "-levels must list whole numbers"},
		{name: "empty levels", args: []string{"-levels", "", "-receipt-prefix", prefix}, want: "-levels must list whole numbers"},
		{name: "repeated level", args: []string{"-levels", "4,4", "-receipt-prefix", prefix}, want: "-levels lists 4 twice"},
		{name: "level receipt exists", args: []string{"-levels", "1,4", "-receipt-prefix", prefix}, want: "must name new files: " + taken + " exists"},
		{name: "summary exists", args: []string{"-levels", "1", "-receipt-prefix", filepath.Join(dir, "ts")}, want: "must name new files: " + takenSummary + " exists"},
		{name: "rows", args: []string{"-levels", "1", "-receipt-prefix", prefix, "-rows", "21"}, want: "-rows must be 1 to 20: 21"},
		{name: "seed", args: []string{"-levels", "1", "-receipt-prefix", prefix}, env: map[string]string{envSeed: "x"}, want: "TYPEVET_CHECK_MATCH_SEED must be a non-negative integer"},
		{name: "vllm revision", args: []string{"-levels", "1", "-receipt-prefix", prefix, "-backend", "vllm"},
			env: map[string]string{"TYPEVET_VLLM__BASE_URL": "http://127.0.0.1:1", "TYPEVET_VLLM__MODEL": "m"}, want: "TYPEVET_VLLM_MODEL_REVISION must name"},
		{name: "key in server args", args: []string{"-levels", "1", "-receipt-prefix", prefix, "-backend", "vllm"},
			env: map[string]string{"TYPEVET_VLLM__BASE_URL": "http://127.0.0.1:1", "TYPEVET_VLLM__MODEL": "m", envRevision: "r",
				"TYPEVET_VLLM__API_KEY": key, cli.EnvServerArgs: "--api-key " + key + " --max-num-seqs 4"},
			want: "TYPEVET_VLLM_SERVER_ARGS holds a key or an auth header"},
		{name: "authorization in porcelain", args: []string{"-levels", "1", "-receipt-prefix", prefix, "-backend", "fake"},
			env: map[string]string{envPorcelain: "?? authorization.txt\n"}, want: "TYPEVET_GIT_STATUS_PORCELAIN holds a key or an auth header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCmd(t, tt.args, tt.env)
			var ue *cli.UsageError
			require.ErrorAs(t, r.err, &ue)
			assert.Contains(t, r.err.Error(), tt.want)
			assert.Equal(t, 2, r.code)
			assert.Empty(t, r.stdout)
			assert.NotContains(t, r.stderr, key)
			assert.NoFileExists(t, prefix+"_c1.json")
		})
	}
}

// FuzzParseLevels: parseLevels never panics; what it accepts is one
// level per comma-separated field, each unique and within 1..maxLevel;
// what it refuses is a usage error.
func FuzzParseLevels(f *testing.F) {
	for _, s := range []string{"1,4,16,32", "1", " 8 , 2", "4096", "4097", "0", "-1", "1,1", "", ",", "1,,2", "+3", "1e3", "٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		levels, err := parseLevels(s)
		if err != nil {
			var u *cli.UsageError
			if !errors.As(err, &u) {
				t.Fatalf("parseLevels(%q): %v is not a usage error", s, err)
			}
			return
		}
		if got, want := len(levels), strings.Count(s, ",")+1; got != want {
			t.Fatalf("parseLevels(%q) = %v: %d levels for %d fields", s, levels, got, want)
		}
		seen := map[int]bool{}
		for _, l := range levels {
			if l < 1 || l > maxLevel {
				t.Fatalf("parseLevels(%q) accepted level %d outside 1..%d", s, l, maxLevel)
			}
			if seen[l] {
				t.Fatalf("parseLevels(%q) accepted %d twice", s, l)
			}
			seen[l] = true
		}
	})
}

// A model the single-model llama-server does not serve is refused before
// the first scoring request (exit 2); throughput has no -model flag, so
// the message names the variable alone.
func TestUnservedModelRefused(t *testing.T) {
	srv := judgmenttest.NewLlamaCPP(&judgmenttest.Model{NVocab: 64})
	t.Cleanup(srv.Close)
	prefix := filepath.Join(t.TempDir(), "sweep")
	r := runCmd(t, []string{"-levels", "1,2", "-rows", "1", "-receipt-prefix", prefix}, map[string]string{
		"TYPEVET_BACKEND": "llama_cpp", "TYPEVET_LLAMA__BASE_URL": srv.URL,
		"TYPEVET_LLAMA__MULTIMODAL_MODEL": "gemma-4-typo",
	})
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, `TYPEVET_LLAMA__MULTIMODAL_MODEL (or -model) names model "gemma-4-typo", which the llama.cpp server does not serve`)
	assert.Zero(t, srv.Count("/completion")+srv.Count("/tokenize"), "no scoring request")
	assert.NoFileExists(t, prefix+"_c1.json")
}
