package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/judgment/llamacpp"
	"github.com/typevet/typevet-go/judgment/vllm"
	"github.com/typevet/typevet-go/receipt"
)

var testHelp = Help{
	Usage: "usage: x -receipt PATH",
	About: "About x.",
	Flags: []Flag{
		{Name: "receipt", Arg: "PATH", Vars: []string{"R"}, Usage: "the receipt"},
		{Name: "rows", Arg: "N", Vars: []string{"ROWS"}, Default: "20", Usage: "rows"},
		{Name: "model", Arg: "ID", Vars: []string{"M1", "M2"}, Usage: "model"},
		{Name: "levels", Arg: "LIST", Default: "1,4", Usage: "levels"},
		{Name: "json", Bool: true, Usage: "lines"},
	},
	Vars:  []Var{{Name: "KEY", Usage: "a secret"}},
	Notes: []string{"A note."},
}

// TestParse: flags give variables (one flag may give two), flag-only
// values and defaults, -h writes the help, bad flags are usage errors.
func TestParse(t *testing.T) {
	env, rest, ok, err := Parse(testHelp, []string{"-rows", "3", "-model", "m", "-json"}, nil, envOf(map[string]string{"ROWS": "9", "R": "r.json"}), nil, false)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Empty(t, rest)
	for k, want := range map[string]string{"ROWS": "3", "M1": "m", "M2": "m", "R": "r.json"} {
		v, _ := env.Lookup(k)
		assert.Equal(t, want, v, k)
	}
	assert.Equal(t, "1,4", env.Flag("levels"), "a flag-only default")
	assert.Equal(t, "true", env.Flag("json"))
	assert.True(t, env.Given("rows"))
	assert.False(t, env.Given("levels"))

	var out strings.Builder
	_, _, ok, err = Parse(testHelp, []string{"-h"}, &out, envOf(nil), nil, false)
	require.NoError(t, err)
	assert.False(t, ok)
	for _, w := range []string{"usage: x -receipt PATH\n\nAbout x.\n", "a flag wins over its variable", "-rows N", "rows (default 20)",
		"variable M1 or M2", "Variables without a flag:", "KEY", "a secret", "A note."} {
		assert.Contains(t, out.String(), w)
	}

	for args, msg := range map[string]string{"-nope": "flag provided but not defined: -nope", "a b": "unexpected arguments: a b"} {
		_, _, _, err := Parse(testHelp, strings.Fields(args), nil, envOf(nil), nil, false)
		var ue *UsageError
		require.ErrorAs(t, err, &ue)
		assert.EqualError(t, err, msg)
	}
	_, rest, ok, err = Parse(testHelp, []string{"a", "b"}, nil, envOf(nil), nil, true)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, []string{"a", "b"}, rest, "positional arguments when the command takes them")
}

// TestEnvNames: an error names the flag when a flag gave the value, the
// variable when the environment did, both when neither did.
func TestEnvNames(t *testing.T) {
	env, _, _, err := Parse(testHelp, []string{"-rows", "0"}, nil, envOf(map[string]string{"M1": "x"}), nil, false)
	require.NoError(t, err)
	assert.Equal(t, "-rows", env.Name("ROWS"))
	assert.Equal(t, "M1", env.Name("M1"))
	assert.Equal(t, "-receipt or R", env.Name("R"))
	assert.Equal(t, "OTHER", env.Name("OTHER"), "a variable without a flag is named as it is")

	for _, tt := range []struct {
		err  error
		want string
	}{
		{&judgment.SettingError{Variable: "ROWS", Rule: "must be 1"}, "-rows must be 1"},
		{&judgment.SettingError{Variable: "M1", Rule: "is bad"}, "M1 is bad"},
		{errors.New("R not set"), "-receipt or R not set"},
		{errors.New("ROWS must be 1 to 20: 0"), "-rows must be 1 to 20: 0"},
		{errors.New("ROWSX is something else"), "ROWSX is something else"},
		{errors.New("KEY holds a key"), "KEY holds a key"},
	} {
		got := env.Err(tt.err)
		var ue *UsageError
		require.ErrorAs(t, got, &ue)
		assert.Equal(t, tt.want, got.Error())
	}
	assert.NoError(t, env.Err(nil))
}

// TestWarnings: another backend's variables and a /v1 base URL.
func TestWarnings(t *testing.T) {
	llama := backend.Settings{Backend: backend.LlamaCPP, LlamaCPP: llamacpp.Settings{BaseURL: "http://h:8090"}}
	assert.Empty(t, Warnings(envOf(map[string]string{EnvLlamaTime: "900", EnvLlamaModel: "m"}), llama),
		"the backend's own settings warn of nothing")
	env, _, _, err := Parse(Help{Flags: BackendFlags(AllBackends, true)}, []string{"-base-url", "http://h:1", "-timeout", "5"}, nil, envOf(nil), LiveDefaults, false)
	require.NoError(t, err)
	assert.Empty(t, Warnings(env.Environ, llama), "flags give both backends' variables; they are no warning")
	w := Warnings(envOf(map[string]string{"TYPEVET_VLLM__MODEL": "m", "TYPEVET_VLLM__API_KEY": "sk-1"}), llama)
	require.Len(t, w, 1)
	assert.Contains(t, w[0], "TYPEVET_VLLM__MODEL, TYPEVET_VLLM__API_KEY set, but the backend is llama_cpp: they are ignored")
	assert.Contains(t, w[0], "-backend vllm or TYPEVET_BACKEND=vllm")
	assert.NotContains(t, w[0], "sk-1", "never a value")
	v1 := backend.Settings{Backend: backend.VLLM, VLLM: vllm.Settings{BaseURL: "http://h:8000/v1"}}
	w = Warnings(envOf(map[string]string{EnvLlamaModel: "m", EnvFakeDist: "{}"}), v1)
	require.Len(t, w, 3)
	assert.Contains(t, w[0], "TYPEVET_LLAMA__MULTIMODAL_MODEL set, but the backend is vllm")
	assert.Contains(t, w[1], "TYPEVET_FAKE__DISTRIBUTIONS set, but the backend is vllm")
	assert.Contains(t, w[2], "requests go to http://h:8000/v1/v1/")
}

// TestExplain: a refused connection names the URL setting and the
// offline reader; a timeout names the timeout setting and its value.
func TestExplain(t *testing.T) {
	llama := backend.Settings{Backend: backend.LlamaCPP, LlamaCPP: llamacpp.Settings{BaseURL: "http://127.0.0.1:1", Timeout: 900 * time.Second}}
	refused := fmt.Errorf("open: %w", errors.New("dial tcp 127.0.0.1:1: connect: connection refused"))
	got := Explain(refused, "", llama, nil).Error()
	assert.Contains(t, got, "connection refused\nno llama_cpp server answers at http://127.0.0.1:1: start it, or point TYPEVET_LLAMA__BASE_URL at it; -backend reader")

	env := NewEnv(map[string]string{EnvLlamaURL: "x"}, map[string]string{EnvLlamaURL: "base-url", EnvLlamaTime: "timeout"}, envOf(nil), nil)
	assert.Contains(t, Explain(refused, "", llama, env.Name).Error(), "point -base-url at it")
	got = Explain(errors.New("run stopped at case r00:clean (index 0, TransportError)"), "llama.cpp request failed: context deadline exceeded", llama, env.Name).Error()
	assert.Contains(t, got, "a request took longer than the timeout, 900 s (the default; set -timeout or TYPEVET_LLAMA__TIMEOUT, in seconds)")
	assert.Contains(t, Explain(context.DeadlineExceeded, "", llama, nil).Error(), "900 s (TYPEVET_LLAMA__TIMEOUT, in seconds)")

	plain := errors.New("HTTP 500")
	assert.Equal(t, plain, Explain(plain, "", llama, nil), "other errors stay as they are")
	assert.Equal(t, refused, Explain(refused, "", backend.Settings{Backend: backend.Reader}, nil), "offline backends have no server")
}

// TestWorkingTreeText: the variable wins; else git in a checkout; else
// the terminal says what the receipt records and how to set it.
func TestWorkingTreeText(t *testing.T) {
	outside := t.TempDir()
	text, note := WorkingTreeText(envOf(nil), outside)
	assert.Nil(t, text)
	assert.Contains(t, note, "is not in a git checkout: the receipt records baseline_commit \"unknown\"")

	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "init"}} {
		out, err := exec.Command(git, append([]string{"-C", repo}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	path := envOf(map[string]string{"PATH": filepath.Dir(git)})
	text, note = WorkingTreeText(path, repo)
	require.NotNil(t, text)
	assert.Equal(t, "", *text)
	assert.Contains(t, note, "working tree clean (from git status --porcelain): the receipt records dirty false")
	assert.False(t, receipt.WorkingTreeFromPorcelain(text, receipt.BaselineCommit(repo)).Dirty)

	require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), nil, 0o644))
	text, note = WorkingTreeText(path, repo)
	require.NotNil(t, text)
	assert.Equal(t, "?? a.txt\n", *text)
	assert.Contains(t, note, "1 changed path (from git status --porcelain): the receipt records dirty true (a.txt)")

	text, note = WorkingTreeText(envOf(map[string]string{EnvPorcelain: ""}), repo)
	require.NotNil(t, text)
	assert.Contains(t, note, "(from TYPEVET_GIT_STATUS_PORCELAIN)")

	text, note = WorkingTreeText(envOf(map[string]string{"PATH": t.TempDir()}), repo)
	assert.Nil(t, text)
	assert.Contains(t, note, "git: not on PATH and TYPEVET_GIT_STATUS_PORCELAIN is unset")
}

// TestRunTable: the terminal summary of a receipt, one short row each.
func TestRunTable(t *testing.T) {
	acc, fc, ct, auc, ece := 0.75, 0.5, 0.25, 0.875, 0.0625
	jps := 12.34
	r := checkmatch.Receipt{Backend: "vllm", Model: "m", WallSeconds: 3.5,
		Pins:       checkmatch.Pins{RegisterRows: 1},
		Throughput: &receipt.Throughput{JudgmentsPerSecond: &jps},
		Metrics: checkmatch.MetricsBlock{Cases: 4, Accuracy: &acc, FalseClearRate: &fc, FalseClearCases: 2, CannotTellRate: &ct,
			AccuracyByVariant: receipt.Ordered[float64]{{Name: "clean", Value: 1}, {Name: "unsigned", Value: 0.5}},
			Nouls:             checkmatch.NoulsBlock{PayeeMatches: checkmatch.NoulSummary{ROCAUC: &auc, ECE: &ece}}},
		Cases:   []checkmatch.CaseRecord{{Correct: true}, {Correct: false}, {Correct: true}, {Correct: true}},
		Stopped: &checkmatch.Stopped{Index: 4, CaseID: "r00:x", ErrorClass: "TransportError"},
	}
	var out strings.Builder
	require.NoError(t, RunTable(&out, "r.json", "abc", r))
	assert.Equal(t, `cases judged      4 of 7 (vllm, m)
accuracy          0.7500
false-clear rate  0.5000 of 2 mismatch and unsigned cases
cannot-tell rate  0.2500
payee_matches     ROC-AUC 0.8750  ECE 0.0625
amounts_match     ROC-AUC n/a  ECE n/a
worst variant     unsigned (accuracy 0.5000)
wrong cases       1
wall time         3.500 s (12.3 judgments/s)
stopped           at case r00:x (index 4, TransportError)
receipt           r.json
sha256            abc
`+ConfidenceLine+"\n", out.String())
}
