package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch/stats"
)

// typevet's committed 140-case vLLM receipt, kept in checkmatch/stats/testdata.
const typevet = "../../checkmatch/stats/testdata/check_match_vllm_receipt.json"

func TestMain(m *testing.M) {
	if os.Getenv("TYPEVET_TEST_RUN_MAIN") == "1" {
		os.Args = append([]string{prog}, strings.Fields(os.Getenv("TYPEVET_TEST_ARGS"))...)
		main()
		return
	}
	os.Exit(m.Run())
}

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

// TestTypevetReceipt runs the built command on typevet's receipt: the
// document reads back, names the receipt by its file's SHA-256, and the
// table shows the numbers (blurred 11/20 → [0.3421, 0.7418],
// 0 false clears in 100 → below 0.0370).
func TestTypevetReceipt(t *testing.T) {
	stdout, stderr, code := runChild(t, typevet)
	require.Equal(t, 0, code, stderr)
	doc, err := stats.ReadIntervals(strings.NewReader(stdout))
	require.NoError(t, err)
	assert.Equal(t, "415c042a917dc869258034a3601411b868f08531a5da209f18bb747087155a72", doc.Receipt.SHA256)
	assert.Equal(t, 10000, doc.Bootstrap.Resamples)
	assert.Equal(t, 0, doc.Bootstrap.Seed)
	assert.Regexp(t, `(?m)^low_legibility\s+0\.5500 \[0\.3421, 0\.7418\] \(11/20\)`, stderr)
	assert.Regexp(t, `(?m)^overall\s+0\.9286 \[0\.8735, 0\.9607\] \(130/140\)\s+0\.0000 \[0\.0000, 0\.0370\] \(0/100\)`, stderr)
	assert.Regexp(t, `(?m)^amounts_match\s+1\.0000 \[`, stderr)

	// Same receipt, same bytes (fewer resamples keep the race run short).
	once, _, _ := runChild(t, "-resamples", "300", typevet)
	again, _, _ := runChild(t, "-resamples", "300", typevet)
	assert.Equal(t, once, again)
	assert.Contains(t, once, `"resamples": 300,`)
}

func TestOutAndCluster(t *testing.T) {
	out := filepath.Join(t.TempDir(), "iv.json")
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(&stdout, &stderr, []string{"-out", out, "-cluster", "register_row", "-resamples", "100", "-table=false", typevet}))
	assert.Empty(t, stdout.String())
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	doc, err := stats.ReadIntervals(f)
	require.NoError(t, err)
	assert.Equal(t, stats.ClusterRegisterRow, doc.Bootstrap.Cluster)
	assert.Equal(t, 20, doc.Bootstrap.Units)
	assert.Equal(t, 100, doc.Bootstrap.Resamples)
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "name exactly one receipt"},
		{[]string{typevet, typevet}, "name exactly one receipt"},
		{[]string{"-seed", "-1", typevet}, "-seed must be at least 0"},
		{[]string{"-out", typevet, typevet}, "-out: "},
	} {
		_, stderr, code := runChild(t, tc.args...)
		assert.Equal(t, 2, code, tc.args)
		assert.Contains(t, stderr, tc.want, tc.args)
	}
	head := "../../checkmatch/testdata/receipt_typevet/check_match_vllm_throughput_c4.head.json"
	_, stderr, code := runChild(t, head)
	assert.Equal(t, 1, code, "a receipt head has no cases")
	assert.Contains(t, stderr, "no cases")
}
