package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/calibration"
)

// build compiles a command of this module into dir and returns its path.
func build(t *testing.T, dir, pkg string) string {
	t.Helper()
	bin := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// mapsInTable reads the map paths and digests the table prints and checks
// that each map loads with its digest.
func mapsInTable(t *testing.T, out string) map[string]*calibration.Map {
	t.Helper()
	maps := map[string]*calibration.Map{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || !strings.HasSuffix(f[len(f)-2], ".json") {
			continue
		}
		m, err := calibration.Load(f[len(f)-2], f[len(f)-1])
		if err != nil {
			t.Errorf("%s with the printed digest: %v", f[len(f)-2], err)
			continue
		}
		maps[filepath.Base(f[len(f)-2])] = m
	}
	return maps
}

// TestCalibrateReceipts judges the check slice offline with the reader and
// the fake backends through the checkmatch command, then calibrates each
// receipt with the built command, as a user would.
func TestCalibrateReceipts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two commands and judges two slices")
	}
	dir := t.TempDir()
	checkmatch := build(t, dir, "./examples/checkmatch")
	calibrate := build(t, dir, "./examples/calibrate")
	tests := []struct {
		backend string
		args    []string
		want    []string
	}{
		{"reader", nil, []string{
			"verdict_temperature.json", "verdict_platt.json", "verdict_isotonic.json",
			"payee_matches_temperature.json", "payee_matches_platt.json", "payee_matches_isotonic.json",
			"amounts_match_temperature.json", "amounts_match_platt.json", "amounts_match_isotonic.json",
		}},
		// The fake answers every case alike: one knot per series.
		{"fake", []string{"-method", "isotonic", "-task", "checks"}, []string{
			"verdict_isotonic.json", "payee_matches_isotonic.json", "amounts_match_isotonic.json",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.backend, func(t *testing.T) {
			receipt := filepath.Join(dir, tt.backend+".json")
			run := exec.Command(checkmatch, "-backend", tt.backend, "-rows", "6", "-receipt", receipt)
			run.Env = append(os.Environ(), "TYPEVET_GIT_STATUS_PORCELAIN=")
			if out, err := run.CombinedOutput(); err != nil {
				t.Fatalf("checkmatch: %v\n%s", err, out)
			}
			outDir := filepath.Join(dir, tt.backend+"-maps")
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(calibrate, append([]string{receipt, "-out", outDir}, tt.args...)...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("calibrate: %v\n%s%s", err, stdout.String(), stderr.String())
			}
			maps := mapsInTable(t, stdout.String())
			if len(maps) != len(tt.want) {
				t.Errorf("%d maps in the table, want %d:\n%s", len(maps), len(tt.want), stdout.String())
			}
			for _, name := range tt.want {
				m := maps[name]
				if m == nil {
					t.Errorf("no map %s", name)
					continue
				}
				if m.FittedOn.Backend != tt.backend || m.FittedOn.Receipt != receipt || m.FittedOn.NCalibration+m.Evaluation.NEvaluation != 42 || m.Evaluation.RuleMet == nil {
					t.Errorf("%s: fitted_on %+v evaluation %+v", name, m.FittedOn, m.Evaluation)
				}
			}
			if !strings.Contains(stdout.String(), "not an interval for the true calibration error") {
				t.Error("the table does not say what the interval covers")
			}
			// A second run refuses to overwrite the maps and leaves them as they are.
			before, _ := os.ReadFile(filepath.Join(outDir, tt.want[0]))
			again := exec.Command(calibrate, append([]string{receipt, "-out", outDir}, tt.args...)...)
			if code := exitCode(again.Run()); code != 1 {
				t.Errorf("second run exit %d, want 1", code)
			}
			if after, _ := os.ReadFile(filepath.Join(outDir, tt.want[0])); !bytes.Equal(before, after) {
				t.Error("a second run changed a written map")
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	series := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(series, []byte(`{"id":"a","p":0.5,"truth":true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no input", []string{"-out", "x"}, "exactly one"},
		{"no out", []string{series}, "-out is required"},
		{"bad method", []string{series, "-out", "x", "-method", "beta"}, "-method"},
		{"series without task", []string{series, "-out", "x"}, "-task is required"},
		{"series without model", []string{series, "-out", "x", "-task", "t"}, "-model is required"},
		{"series without backend", []string{series, "-out", "x", "-task", "t", "-model", "m"}, "-backend is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(&out, &errb, tt.args)
			var ue *usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want a usage error naming %q", err, tt.want)
			}
		})
	}
}

func TestSeriesFile(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "{\"id\":\"row%d\",\"p\":%.2f,\"truth\":%v}\n", i, float64(i%10)/10+0.05, i%3 == 0)
	}
	series := filepath.Join(dir, "mine.jsonl")
	if err := os.WriteFile(series, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{series, "-out", filepath.Join(dir, "maps"), "-task", "t", "-model", "m", "-backend", "vllm", "-method", "platt", "-resamples", "0"}); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	maps := mapsInTable(t, out.String())
	if m := maps["mine_platt.json"]; m == nil || m.FittedOn.TaskID != "t" || m.FittedOn.Model != "m" {
		t.Errorf("maps %v\n%s", maps, out.String())
	}
}
