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
	// The default takes register rows as independent, and says so.
	assert.Equal(t, stats.ClusterRegisterRow, doc.Cluster)
	assert.Equal(t, 20, doc.Bootstrap.Units)
	assert.Contains(t, stderr, "shares: 95% Wilson intervals at the Korn–Graubard effective n over register rows")
	assert.Contains(t, stderr, "assumes: register rows independent")
	assert.Contains(t, stderr, "clustered by register_row: each draw takes a whole row, 20 rows")
	assert.Contains(t, stderr, "brier and log_loss: point estimates")
	assert.NotContains(t, stderr, "null")

	// Same receipt, same bytes (fewer resamples keep the race run short).
	once, _, _ := runChild(t, "-resamples", "300", typevet)
	again, _, _ := runChild(t, "-resamples", "300", typevet)
	assert.Equal(t, once, again)
	assert.Contains(t, once, `"resamples": 300,`)
}

func TestOutAndCluster(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(&stdout, &stderr, []string{"-cluster", "case", "-resamples", "100", typevet}))
	doc, err := stats.ReadIntervals(&stdout)
	require.NoError(t, err)
	assert.Equal(t, stats.ClusterCase, doc.Cluster)
	assert.Equal(t, "wilson", doc.Interval)
	assert.Equal(t, 140, doc.Bootstrap.Units)
	assert.Contains(t, stderr.String(), "assumes: every case independent (-cluster case)")

	out := filepath.Join(t.TempDir(), "iv.json")
	stdout.Reset()
	stderr.Reset()
	require.NoError(t, run(&stdout, &stderr, []string{"-out", out, "-cluster", "register_row", "-resamples", "100", "-table=false", typevet}))
	assert.Empty(t, stdout.String())
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	doc, err = stats.ReadIntervals(f)
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
		// Issue #28: 2e9 resamples died of a 48 GB allocation with exit 2
		// as a runtime fatal error; now a usage error before any work.
		{[]string{"-resamples", "2000000000", typevet}, "-resamples must be 1 to 1000000, got 2000000000"},
		{[]string{"-resamples", "0", typevet}, "-resamples must be 1 to 1000000, got 0"},
		{[]string{"-cluster", "row", typevet}, `-cluster must be "case" or "register_row"`},
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

// TestImpossibleReceiptRefused: a receipt no run can write is exit 1
// with the field and case named, not intervals (issue #28).
func TestImpossibleReceiptRefused(t *testing.T) {
	raw, err := os.ReadFile(typevet)
	require.NoError(t, err)
	bad := strings.Replace(string(raw), `"verdict": "consistent"`, `"verdict": "approved<script>"`, 1)
	require.NotEqual(t, string(raw), bad)
	p := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(p, []byte(bad), 0o644))
	stdout, stderr, code := runChild(t, p)
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "case r00:clean (index 0): verdict: unknown verdict label: approved<script>")
}

// A calibrated reader run and the calibration records it wrote, kept in
// checkmatch/stats/testdata.
const calibrated = "../../checkmatch/stats/testdata/calibrated_reader.json"

// TestCalibratedRun finds the records beside the receipt, prints raw and
// calibrated figures side by side and puts them in the document; "none"
// leaves them out; records of another receipt are refused with exit 1,
// naming -calibration-records.
func TestCalibratedRun(t *testing.T) {
	stdout, stderr, code := runChild(t, "-resamples", "100", calibrated)
	require.Equal(t, 0, code, stderr)
	doc, err := stats.ReadIntervals(strings.NewReader(stdout))
	require.NoError(t, err)
	require.NotNil(t, doc.Calibration)
	assert.Equal(t, calibrated+".calibration.json", doc.Calibration.Records.Path)
	assert.Equal(t, "9886649e39b0", doc.Calibration.Records.SHA256[:12])
	require.Len(t, doc.Calibration.Questions, 2)
	assert.Contains(t, stderr, "(found beside the receipt; -calibration-records none leaves it out)")
	assert.Regexp(t, `(?m)^payee_matches\s+temperature sha256 83c9364eb074\s+42\s+0\.0762\s+0\.0714\s+0\.1891\s+0\.1890\s+0\.0357\s+0\.0357\s+1\.0000\s+1\.0000$`, stderr)
	assert.Regexp(t, `(?m)^amounts_match\s+platt sha256 86e0007cd4cd\s+42\s+0\.0753\s+0\.0000\s+0\.1890\s+0\.0000\s+0\.0357\s+0\.0000\s+1\.0000\s+1\.0000$`, stderr)

	stdout, stderr, code = runChild(t, "-resamples", "100", "-calibration-records", "none", calibrated)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, `"calibration"`)
	assert.NotContains(t, stderr, "calibration: records")

	// Named explicitly beside a receipt of another run.
	_, stderr, code = runChild(t, "-resamples", "100", "-calibration-records", calibrated+".calibration.json", typevet)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "-calibration-records")
	assert.Contains(t, stderr, `backend "reader" model "reader"`)

	_, stderr, code = runChild(t, "-calibration-records", filepath.Join(t.TempDir(), "missing.json"), calibrated)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "-calibration-records")
}
