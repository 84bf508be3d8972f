package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch/stats"
)

// The receipts, kept in checkmatch/stats/testdata: typevet's 140-case vLLM
// run, and three 21-case runs of this module (seed 0 and seed 1 with the
// offline fake, seed 0 with the built-in reader).
const (
	typevet    = "../../checkmatch/stats/testdata/check_match_vllm_receipt.json"
	fakeSeed0  = "../../checkmatch/stats/testdata/fake_seed0.json"
	fakeSeed1  = "../../checkmatch/stats/testdata/fake_seed1.json"
	readerSeed = "../../checkmatch/stats/testdata/reader_seed0.json"
)

// TestMain runs the command itself when the test binary is started as a
// child (see runChild).
func TestMain(m *testing.M) {
	if os.Getenv("TYPEVET_TEST_RUN_MAIN") == "1" {
		os.Args = append([]string{prog}, strings.Fields(os.Getenv("TYPEVET_TEST_ARGS"))...)
		main()
		return
	}
	os.Exit(m.Run())
}

// runChild runs the command as a child process and returns its stdout,
// stderr and exit status.
func runChild(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs the command as a child process")
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "TYPEVET_TEST_RUN_MAIN=1", "TYPEVET_TEST_ARGS="+strings.Join(args, " "))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return stdout.String(), stderr.String(), code
}

func TestDifferentSeedsRefusedExit2(t *testing.T) {
	stdout, stderr, code := runChild(t, "-resamples", "50", fakeSeed0, fakeSeed1)
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout, "nothing written")
	assert.Contains(t, stderr, "compare: error: ")
	assert.Contains(t, stderr, "pins.slice_sha256")
	assert.Contains(t, stderr, "pins.generator_seed")

	// typevet's Pillow render against our Go render of seed 0: another slice.
	_, stderr, code = runChild(t, typevet, fakeSeed0)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "pins.slice_sha256")
	assert.NotContains(t, stderr, "pins.renderer", "the renderer's pins are notes, not the slice")
}

func TestReceiptWithItself(t *testing.T) {
	stdout, stderr, code := runChild(t, typevet, typevet)
	require.Equal(t, 0, code, stderr)
	cmp, err := stats.ReadComparison(strings.NewReader(stdout))
	require.NoError(t, err)
	assert.Empty(t, cmp.Discordant)
	assert.Equal(t, 1.0, cmp.McNemar.PValue)
	assert.Equal(t, 10000, cmp.Bootstrap.Resamples)
	assert.Equal(t, cmp.A.SHA256, cmp.B.SHA256)
	assert.Len(t, cmp.A.SHA256, 64)
	assert.Contains(t, stderr, "discordant cases: 0\n")
	assert.Regexp(t, `(?m)^exact McNemar\s+1\.0000\s+case pairs independent$`, stderr)
	assert.Regexp(t, `(?m)^mid-p McNemar\s+1\.0000\s+case pairs independent$`, stderr)
	assert.Regexp(t, `(?m)^register-row sign-flip\s+1\.0000\s+register rows independent; pairs within a row may be correlated \(net \+0 over 20 rows, 0 discordant\)$`, stderr)
	assert.Contains(t, stderr, "clustered by register_row: each draw takes a whole row's pairs, 20 rows")
	assert.Contains(t, stderr, "notes: the runs differ in no recorded field but run_id")
	assert.Equal(t, stats.ClusterRegisterRow, cmp.Bootstrap.Cluster, "the default")
	assert.Equal(t, 1.0, cmp.McNemar.MidPValue)
	assert.Equal(t, 1.0, cmp.RowTest.PValue)
}

// TestRendererModuleVersionIsANote: two runs of one slice (the same
// pins.slice_sha256) whose renderers were built from the same code, one
// "+dirty", compare; the module version is named as a note, not refused.
func TestRendererModuleVersionIsANote(t *testing.T) {
	raw, err := os.ReadFile(fakeSeed0)
	require.NoError(t, err)
	dirty := strings.Replace(string(raw), `"module_version": "(devel)"`, `"module_version": "v0.0.0-20261204181500-db41075ab1c2+dirty"`, 1)
	require.NotEqual(t, string(raw), dirty)
	p := filepath.Join(t.TempDir(), "dirty.json")
	require.NoError(t, os.WriteFile(p, []byte(dirty), 0o644))
	stdout, stderr, code := runChild(t, "-resamples", "50", fakeSeed0, p)
	require.Equal(t, 0, code, stderr)
	cmp, err := stats.ReadComparison(strings.NewReader(stdout))
	require.NoError(t, err)
	assert.Equal(t, []string{"pins.renderer.module_version"}, cmp.IdentityDifferences)
	assert.Equal(t, 21, cmp.Pairs)
	assert.Contains(t, stderr, "notes: these differ between the runs (names only): pins.renderer.module_version")
	assert.NotContains(t, stderr, "+dirty", "names, never values")
}

// TestFakeAgainstReader pairs two real runs of one slice by two judges:
// every identity field that differs is named, and the flips add up.
func TestFakeAgainstReader(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(&stdout, &stderr, []string{"-resamples", "300", "-cluster", "register_row", fakeSeed0, readerSeed}))
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &raw))
	cmp, err := stats.ReadComparison(&stdout)
	require.NoError(t, err)
	assert.Equal(t, []string{"backend", "model", "pins.server.build_info", "identity.runtime.model",
		"identity.runtime.served_template", "identity.runtime.server_build"}, cmp.IdentityDifferences)
	assert.Equal(t, 21, cmp.Pairs)
	assert.Equal(t, 3, cmp.Bootstrap.Units, "three register rows")
	b, c := 0, 0
	for _, f := range cmp.FlipsByVariant {
		b += f.Value.RightToWrong
		c += f.Value.WrongToRight
	}
	assert.Equal(t, cmp.McNemar.B, b)
	assert.Equal(t, cmp.McNemar.C, c)
	assert.Len(t, cmp.Discordant, b+c)
	p, _ := stats.McNemarExact(b, c)
	assert.Equal(t, p, cmp.McNemar.PValue)
	assert.Contains(t, stderr.String(), "notes: these differ between the runs (names only): backend, model,")
	assert.Regexp(t, `(?m)^accuracy\s+0\.\d{4}\s+1\.0000\s+\+0\.\d{4} \[`, stderr.String())
	// 15 discordant cases: the table lists 10 and points to the document.
	assert.Equal(t, 15, len(cmp.Discordant))
	assert.Contains(t, stderr.String(), `discordant cases: 15; the first 10 below, all of them in the document's "discordant" list`)
	assert.Equal(t, 10, strings.Count(stderr.String(), "wrong→right  consistent →"))
	assert.Regexp(t, `(?m)^exact McNemar\s+<0\.0001\s`, stderr.String())
	assert.NotContains(t, stderr.String(), "null")
}

func TestOutFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cmp.json")
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(&stdout, &stderr, []string{"-resamples", "20", "-table=false", "-out", out, fakeSeed0, fakeSeed0}))
	assert.Empty(t, stdout.String())
	assert.Contains(t, stderr.String(), "compare: wrote "+out+" sha256 ")
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	_, err = stats.ReadComparison(f)
	require.NoError(t, err)

	// A second write is refused before any work, naming -out.
	_, stderr2, code := runChild(t, "-out", out, fakeSeed0, fakeSeed0)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr2, "-out: ")
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "name two receipts"},
		{[]string{fakeSeed0}, "name two receipts"},
		{[]string{"-cluster", "row", fakeSeed0, fakeSeed0}, "-cluster must be"},
		{[]string{"-resamples", "0", fakeSeed0, fakeSeed0}, "-resamples must be 1 to 1000000, got 0"},
		{[]string{"-resamples", "2000000000", fakeSeed0, fakeSeed0}, "-resamples must be 1 to 1000000, got 2000000000"},
		{[]string{"-nope", fakeSeed0, fakeSeed0}, "flag provided but not defined"},
	} {
		_, stderr, code := runChild(t, tc.args...)
		assert.Equal(t, 2, code, tc.args)
		assert.Contains(t, stderr, tc.want, tc.args)
	}
	_, stderr, code := runChild(t, fakeSeed0, "missing.json")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "missing.json")
}
