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
	assert.Contains(t, stderr, "pins.renderer")
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
	assert.Contains(t, stderr, "p=1.0000")
	assert.Contains(t, stderr, "identity: the runs differ in no recorded field but run_id")
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
	assert.Contains(t, stderr.String(), "identity differs: backend, model,")
	assert.Regexp(t, `(?m)^accuracy\s+0\.\d{4}\s+1\.0000\s+\+0\.\d{4} \[`, stderr.String())
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
		{[]string{"-resamples", "0", fakeSeed0, fakeSeed0}, "-resamples must be at least 1"},
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
