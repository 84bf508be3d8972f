package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/calibration"
	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/stats"
	"github.com/typevet/typevet-go/examples/internal/cmdtest"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// keyPaths lists every object key of a JSON document with its path, in
// document order: two receipts with the same list have the same keys in
// the same layout.
func keyPaths(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []string
	var walk func(path string) error
	walk = func(path string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				out = append(out, path+"/"+k.(string))
				if err := walk(path + "/" + k.(string)); err != nil {
					return err
				}
			}
			_, err = dec.Token()
		case json.Delim('['):
			for dec.More() {
				if err := walk(path + "[]"); err != nil {
					return err
				}
			}
			_, err = dec.Token()
		}
		return err
	}
	require.NoError(t, walk(""))
	return out
}

func runExe(t *testing.T, exe string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), envPorcelain+"=")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	require.NoError(t, err, string(out))
	return string(out), 0
}

// TestCalibratedRun is the user's path with the built commands: a reader
// receipt, examples/calibrate on it, then checkmatch -calibration with
// the printed maps. The calibrated receipt has the plain receipt's keys
// in the same layout and the calibrated confidences; the records beside
// it hold every case's raw and calibrated values and are the receipt's
// (stats.ReceiptCalibration accepts them). typevet's own fixture map
// (another task) is refused with exit 2 before any request.
func TestCalibratedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two commands and judges three slices")
	}
	if raceEnabled {
		t.Skip("builds and runs commands; the non-race run covers it")
	}
	dir, err := cmdtest.Build("checkmatch", "calibrate")
	require.NoError(t, err)
	checkmatchExe, calibrateExe := cmdtest.Exe(dir, "checkmatch"), cmdtest.Exe(dir, "calibrate")
	tmp := t.TempDir()

	plain := filepath.Join(tmp, "plain.json")
	out, code := runExe(t, checkmatchExe, "-backend", "reader", "-rows", "6", "-receipt", plain)
	require.Equal(t, 0, code, out)
	out, code = runExe(t, calibrateExe, plain, "-out", filepath.Join(tmp, "maps"), "-method", "platt")
	require.Equal(t, 0, code, out)
	var specs []string
	for _, q := range []string{"payee_matches", "amounts_match"} {
		m := regexp.MustCompile(`(\S+/` + q + `_platt\.json)\s+([0-9a-f]{64})`).FindStringSubmatch(out)
		require.NotNil(t, m, "calibrate prints the %s map:\n%s", q, out)
		specs = append(specs, q+"="+m[1]+"@"+m[2])
	}

	cal := filepath.Join(tmp, "calibrated.json")
	out, code = runExe(t, checkmatchExe, "-backend", "reader", "-rows", "6", "-receipt", cal, "-calibration", strings.Join(specs, ","))
	require.Equal(t, 0, code, out)
	plainBytes, err := os.ReadFile(plain)
	require.NoError(t, err)
	calBytes, err := os.ReadFile(cal)
	require.NoError(t, err)
	assert.Equal(t, keyPaths(t, plainBytes), keyPaths(t, calBytes), "the calibrated receipt keeps typevet's keys and layout")
	assert.NotContains(t, string(calBytes), "calibration")
	rec, err := checkmatch.ReadReceipt(bytes.NewReader(calBytes))
	require.NoError(t, err)

	side, err := os.ReadFile(cal + ".calibration.json")
	require.NoError(t, err)
	s, err := calibration.ReadSidecar(side)
	require.NoError(t, err)
	assert.Equal(t, "check_match", s.TaskID)
	assert.Equal(t, "reader", s.Backend)
	require.Len(t, s.Maps, 2)
	cases := s.Cases()
	require.Len(t, cases, len(rec.Cases))
	changed := 0
	for i, c := range cases {
		assert.Equal(t, rec.Cases[i].CaseID, c.CaseID, "records in receipt order")
		require.Len(t, c.Records, 2)
		if c.Records[0].Raw != c.Records[0].Calibrated {
			changed++
		}
	}
	assert.Positive(t, changed, "the maps changed some confidences")
	got, err := stats.ReceiptCalibration(rec, s)
	require.NoError(t, err)
	require.Len(t, got.Questions, 2)

	// typevet's fixture maps are for another task: refused before any
	// request, nothing written.
	fixture, err := os.ReadFile("../../calibration/testdata/platt_noul_map.json")
	require.NoError(t, err)
	sum := sha256.Sum256(fixture)
	srv := judgmenttest.NewLlamaCPP(nil)
	t.Cleanup(srv.Close)
	refused := filepath.Join(tmp, "refused.json")
	env := map[string]string{envBackend: "llama_cpp", "TYPEVET_LLAMA__BASE_URL": srv.URL, envLlamaModel: judgmenttest.DefaultModelID,
		envRows: "1", envPorcelain: "", envReceipt: refused}
	r := runCmd(t, []string{"-calibration", "payee_matches=../../calibration/testdata/platt_noul_map.json@" + hex.EncodeToString(sum[:])}, env)
	require.Error(t, r.err)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.err.Error(), "-calibration")
	assert.Contains(t, r.err.Error(), "task")
	slice, err := buildSlice(0, 1, nil)
	require.NoError(t, err)
	assert.Empty(t, cmdtest.ScoringCalls(srv, "/completion", slice), "no scoring request")
	assert.NoFileExists(t, refused)
	assert.NoFileExists(t, refused+".calibration.json")
}
