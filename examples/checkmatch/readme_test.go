package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
)

// readmeCommand returns the arguments of the first README line that runs
// this command, so the test runs exactly what a new user copies.
func readmeCommand(t *testing.T, prefix string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, prefix) {
			return strings.Fields(strings.TrimPrefix(line, prefix))
		}
	}
	t.Fatalf("README.md has no line starting %q", prefix)
	return nil
}

// TestREADMEQuickStart runs the README's offline main job (the check-match
// run with the built-in reader judge) in-process on one register row (the
// line as written, all 140 cases, runs as a child in TestREADMECommands,
// which makes the same checks of its output and receipt) and checks it
// prints what the README says: the summary table with the receipt's path
// and SHA-256; and that the receipt reads back with metrics Recompute
// reproduces.
func TestREADMEQuickStart(t *testing.T) {
	args := readmeCommand(t, "go run ./examples/checkmatch ")
	require.Contains(t, args, "-backend")
	require.Contains(t, args, "reader")
	path := filepath.Join(t.TempDir(), "receipts", "check_match_reader.json")
	for i := range args {
		if args[i] == "-receipt" && i+1 < len(args) {
			args[i+1] = path
		}
	}
	args = append(args, "-rows", "1")

	var stdout, stderr strings.Builder
	require.NoError(t, run(&stdout, &stderr, args, envOf(nil)), "stderr: %s", stderr.String())

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	checkSummary(t, stdout.String(), path, b)
	r, err := checkmatch.ReadReceipt(strings.NewReader(string(b)))
	require.NoError(t, err)
	assert.Len(t, r.Cases, 7)
	checkRecompute(t, r)
}

// checkSummary checks the summary table a check-match run printed (out)
// for the receipt b it wrote at path: the receipt's path and SHA-256 and
// the README's keys.
func checkSummary(t *testing.T, out, path string, b []byte) {
	t.Helper()
	sum := sha256.Sum256(b)
	assert.Regexp(t, regexp.MustCompile(`(?m)^receipt +`+regexp.QuoteMeta(path)+`$`), out)
	assert.Regexp(t, regexp.MustCompile(`(?m)^sha256 +`+hex.EncodeToString(sum[:])+`$`), out)
	for _, key := range []string{"cases judged", "accuracy", "false-clear rate", "cannot-tell rate", "payee_matches", "amounts_match",
		"worst variant", "wrong cases", "wall time"} {
		assert.Regexp(t, regexp.MustCompile(`(?m)^`+key+`  +\S`), out, "the summary prints %s", key)
	}
	assert.Contains(t, out, "judgments/s")
}

// checkRecompute checks a reader receipt: its backend, no stop, and
// metrics Recompute reproduces.
func checkRecompute(t *testing.T, r checkmatch.Receipt) {
	t.Helper()
	assert.Equal(t, "reader", string(r.Backend))
	assert.Nil(t, r.Stopped)
	m, err := r.Recompute()
	require.NoError(t, err)
	assert.Equal(t, r.Metrics.Accuracy, m.Accuracy)
	assert.Equal(t, r.Metrics.FalseClearRate, m.FalseClearRate)
}
