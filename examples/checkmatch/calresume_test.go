package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/examples/internal/cmdtest"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// TestCalibratedRunIsNotResumedRaw: a calibrated run killed half-way
// keeps its journal, and `checkmatch -receipt P -resume` alone (which
// takes every setting from the journal) is refused with exit 2 naming
// -calibration, never finished with raw answers beside calibrated ones.
func TestCalibratedRunIsNotResumedRaw(t *testing.T) {
	t.Parallel() // waits on child processes
	bin := commandsDir(t)
	dir := t.TempDir()
	fast := judgmenttest.NewLlamaCPP(&judgmenttest.Model{NVocab: 64})
	t.Cleanup(fast.Close)
	server := []string{"-model", judgmenttest.DefaultModelID, "-base-url", fast.URL, "-rows", "4"}

	// Maps fitted on a llama.cpp receipt of the same model, so they fit the run.
	fitted := filepath.Join(dir, "fitted.json")
	run := func(name string, args ...string) (string, int) {
		c := exec.Command(filepath.Join(bin, name), args...)
		c.Dir, c.Env = dir, userEnv(bin, "TYPEVET_GIT_STATUS_PORCELAIN=")
		b, _ := c.CombinedOutput()
		return string(b), c.ProcessState.ExitCode()
	}
	out, code := run("checkmatch", append(server, "-receipt", fitted)...)
	require.Equal(t, 0, code, out)
	out, code = run("calibrate", fitted, "-out", filepath.Join(dir, "maps"), "-method", "isotonic")
	require.Equal(t, 0, code, out)
	m := regexp.MustCompile(`(\S+/payee_matches_isotonic\.json)\s+([0-9a-f]{64})`).FindStringSubmatch(out)
	require.NotNil(t, m, "calibrate prints the payee_matches map:\n%s", out)
	spec := "payee_matches=" + m[1] + "@" + m[2]

	slow := judgmenttest.NewLlamaCPP(&judgmenttest.Model{NVocab: 64, Delay: func(string) time.Duration { return 30 * time.Millisecond }})
	t.Cleanup(slow.Close)
	path := filepath.Join(dir, "calibrated.json")
	child, buf := startBuilt(t, bin, dir, userEnv(bin, "TYPEVET_GIT_STATUS_PORCELAIN="),
		"-model", judgmenttest.DefaultModelID, "-base-url", slow.URL, "-rows", "4", "-calibration", spec, "-receipt", path)
	cmdtest.WaitJournaled(t, child, buf, path+journal.Suffix, 3)
	require.NoError(t, child.Process.Signal(syscall.SIGKILL))
	_ = child.Wait()
	require.NoFileExists(t, path, "killed before the receipt")

	out, code = run("checkmatch", "-receipt", path, "-resume")
	assert.Equal(t, 2, code, out)
	assert.Contains(t, out, "-calibration cannot be used with -resume")
	assert.NoFileExists(t, path)
	assert.FileExists(t, path+journal.Suffix, "the journal is kept")
}
