package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/receipt"
)

// fixture is typevet's committed 140-case vLLM receipt, kept in the
// checkmatch package's testdata (see its README) and reused here.
const fixture = "../../checkmatch/testdata/receipt_typevet/check_match_vllm_receipt.json"

// copies writes n copies of the fixture as run0.json …; copy odd gets its
// runner code digest replaced by changed. It returns the paths.
func copies(t *testing.T, n, odd int, changed string) []string {
	t.Helper()
	raw, err := os.ReadFile(fixture)
	require.NoError(t, err)
	r, err := checkmatch.ReadReceipt(bytes.NewReader(raw))
	require.NoError(t, err)
	old, ok := r.Identity.CodePathDigests.Get("runner")
	require.True(t, ok)
	dir := t.TempDir()
	var paths []string
	for i := range n {
		b := raw
		if i == odd {
			b = bytes.Replace(raw, []byte(old), []byte(changed), 1)
			require.NotEqual(t, raw, b)
		}
		p := filepath.Join(dir, "run"+string(rune('0'+i))+".json")
		require.NoError(t, os.WriteFile(p, b, 0o644))
		paths = append(paths, p)
	}
	return paths
}

// TestRepeatsReportsOutlierByName runs the command over three copies of
// typevet's 140-case receipt, one with a changed runner digest.
func TestRepeatsReportsOutlierByName(t *testing.T) {
	changed := "0123456789abcdef" + strings.Repeat("9", 48)
	paths := copies(t, 3, 1, changed)
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(&stdout, &stderr, paths))

	var got struct {
		Included []string `json:"included"`
		Excluded []struct {
			Run              string   `json:"run"`
			DifferingDigests []string `json:"differing_digests"`
		} `json:"excluded"`
		Stable bool `json:"stable"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got))
	assert.Equal(t, []string{"run0", "run2"}, got.Included)
	require.Len(t, got.Excluded, 1)
	assert.Equal(t, "run1", got.Excluded[0].Run)
	assert.Equal(t, []string{"runner"}, got.Excluded[0].DifferingDigests)
	assert.True(t, got.Stable, "identical copies are stable")
	for name, out := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
		assert.NotContains(t, out, changed, "%s never shows a digest value", name)
		assert.NotContains(t, out, changed[:12], name)
	}
	assert.True(t, strings.HasPrefix(stdout.String(), "{\n  \"runs\": ["), "indent-2 JSON, typevet's key order")

	// The table on stderr.
	text := stderr.String()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	require.GreaterOrEqual(t, len(lines), 4)
	assert.Regexp(t, `^run\s+commit\s+included\s+accuracy\s+false_clear\s+ece payee_matches\s+ece amounts_match\s+wall_s\s+agreement\s+max_abs_diff$`, lines[0])
	assert.Regexp(t, `^run0\s+\S+\s+true\s+0\.\d{4}`, lines[1])
	assert.Regexp(t, `^run1\s+\S+\s+false\s+0\.\d{4}`, lines[2])
	assert.Contains(t, text, "excluded run1: code digests differ: runner")
	assert.Contains(t, text, "over 280 rows (10000 resamples, seed 0)")
	assert.Contains(t, text, "stable (rule: at least two included runs, the accuracy range and every ECE range below 0.01)\n")
}

// shortCopies writes one 7-case copy of typevet's receipt per edit (nil:
// unchanged) as a.json, b.json, …: short copies keep the 10,000 resamples
// cheap where the size does not matter.
func shortCopies(t *testing.T, edits ...func(*checkmatch.Receipt)) []string {
	t.Helper()
	f, err := os.Open(fixture)
	require.NoError(t, err)
	defer f.Close()
	base, err := checkmatch.ReadReceipt(f)
	require.NoError(t, err)
	base.Cases = base.Cases[:7]
	dir := t.TempDir()
	var paths []string
	for i, edit := range edits {
		r := base
		if edit != nil {
			edit(&r)
		}
		b, err := receipt.Marshal(r)
		require.NoError(t, err)
		p := filepath.Join(dir, string(rune('a'+i))+".json")
		require.NoError(t, os.WriteFile(p, b, 0o644))
		paths = append(paths, p)
	}
	return paths
}

// TestRepeatsNoTable: -table=false leaves stderr empty.
func TestRepeatsNoTable(t *testing.T) {
	paths := shortCopies(t, nil, nil)
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(&stdout, &stderr, append([]string{"-table=false"}, paths...)))
	assert.Empty(t, stderr.String())
	assert.Contains(t, stdout.String(), `"rows": 14`)
	assert.Contains(t, stdout.String(), `"included": [
    "a",
    "b"
  ]`)
}

// TestRepeatsWarnsOfOtherExperiments: runs of another model are still
// summarised (typevet does not check), but the table says so, and so does
// the JSON, with the table or without.
func TestRepeatsWarnsOfOtherExperiments(t *testing.T) {
	paths := shortCopies(t, nil, func(r *checkmatch.Receipt) { r.Model = "another-model" })
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(&stdout, &stderr, paths))
	assert.Contains(t, stderr.String(), "warning: run b: model differs from the first included run's\n")
	want := `  "stable": true,
  "warnings": [
    "run b: model differs from the first included run's"
  ]
}
`
	assert.True(t, strings.HasSuffix(stdout.String(), want), stdout.String())

	stdout.Reset()
	stderr.Reset()
	require.NoError(t, run(&stdout, &stderr, append([]string{"-table=false"}, paths...)))
	assert.Empty(t, stderr.String())
	assert.True(t, strings.HasSuffix(stdout.String(), want), "-table=false keeps the warnings")
}

// TestRepeatsOtherSeedNotStable runs the command over two real receipts of
// this module, seed 0 and seed 1 (offline fake judge): the seed-1 run is
// excluded as another slice, naming pins.slice_sha256, and the one run left
// is not called stable.
func TestRepeatsOtherSeedNotStable(t *testing.T) {
	seed0 := "../../checkmatch/stats/testdata/fake_seed0.json"
	seed1 := "../../checkmatch/stats/testdata/fake_seed1.json"
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(&stdout, &stderr, []string{"-table=false", seed0, seed1}))
	var got struct {
		Included []string `json:"included"`
		Excluded []struct {
			Run           string   `json:"run"`
			Reason        string   `json:"reason"`
			DifferingPins []string `json:"differing_pins"`
		} `json:"excluded"`
		Runs []struct {
			Agreement *float64 `json:"agreement"`
		} `json:"runs"`
		Stable   bool     `json:"stable"`
		Warnings []string `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got))
	assert.False(t, got.Stable)
	assert.Equal(t, []string{"fake_seed0"}, got.Included)
	require.Len(t, got.Excluded, 1)
	assert.Equal(t, "another slice", got.Excluded[0].Reason)
	assert.Contains(t, got.Excluded[0].DifferingPins, "pins.slice_sha256")
	assert.Nil(t, got.Runs[1].Agreement, "no agreement between different cases")
	require.Len(t, got.Warnings, 2)
	assert.Contains(t, got.Warnings[0], "pins.slice_sha256")
	assert.Contains(t, got.Warnings[1], "fewer than two included runs")

	stderr.Reset()
	require.NoError(t, run(&stdout, &stderr, []string{seed0, seed1}))
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	assert.True(t, strings.HasPrefix(lines[len(lines)-1], "stability not judged: 1 included run"), lines[len(lines)-1])
	assert.Contains(t, stderr.String(), "excluded fake_seed1: another slice: pins.slice_sha256, pins.generator_seed\n")
}

func TestRepeatsErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{name: "no paths", args: nil, wantCode: 2, want: "name at least one receipt"},
		{name: "bad flag", args: []string{"-nope"}, wantCode: 2, want: "flag provided but not defined"},
		{name: "missing file", args: []string{filepath.Join(t.TempDir(), "absent.json")}, wantCode: 1, want: "absent.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := exitCode(run(&stdout, &stderr, tt.args), &stderr)
			assert.Equal(t, tt.wantCode, code)
			assert.Contains(t, stderr.String(), tt.want)
			assert.Empty(t, stdout.String())
		})
	}
	var stdout bytes.Buffer
	assert.Equal(t, 0, exitCode(run(&stdout, &bytes.Buffer{}, []string{"-h"}), &bytes.Buffer{}))
	assert.Contains(t, stdout.String(), usageLine)
}
