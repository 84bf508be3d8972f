package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/judgment/backend"
)

func TestRunFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	env := func(string) (string, bool) { return path, true }

	_, err := NewRunFiles(env, "TYPEVET_X_RECEIPT", true, nil)
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "-resume: no journal at "+path+journal.Suffix)

	f, err := NewRunFiles(env, "TYPEVET_X_RECEIPT", false, nil)
	require.NoError(t, err)
	j, err := f.OpenJournal(journal.Header{Kind: "check_match"}, nil)
	require.NoError(t, err)
	require.NoError(t, j.Close())
	_, err = NewRunFiles(env, "TYPEVET_X_RECEIPT", false, nil)
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "a journal of an unfinished run is at "+f.Journal+": add -resume")

	// A receipt with a key in it is not written; the message names the
	// variable, never the value, and the journal stays.
	secrets := []NamedSecret{{Name: "TYPEVET_VLLM__API_KEY", Value: "sk-live-42"}}
	_, err = f.WriteReceipt(map[string]string{"note": "echo sk-live-42"}, secrets, true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the value of TYPEVET_VLLM__API_KEY occurs in it")
	assert.Contains(t, err.Error(), "rerun with -resume")
	assert.NotContains(t, err.Error(), "sk-live-42")
	assert.FileExists(t, f.Journal)
	assert.NoFileExists(t, path)

	// A stopped run's receipt keeps the journal; the complete one removes it.
	_, err = f.WriteReceipt(map[string]string{"stopped": "yes"}, secrets, false)
	require.NoError(t, err)
	assert.FileExists(t, f.Journal)
	stopped := func([]byte, journal.Header) (bool, error) { return true, nil }
	r, err := NewRunFiles(env, "TYPEVET_X_RECEIPT", true, stopped)
	require.NoError(t, err)
	assert.True(t, r.ReplaceStopped)
	_, err = NewRunFiles(env, "TYPEVET_X_RECEIPT", true, func([]byte, journal.Header) (bool, error) { return false, errors.New("model differs") })
	require.ErrorAs(t, err, &ue, "another run's receipt is never replaced")
	assert.Contains(t, err.Error(), "is not the receipt of the run journaled at "+f.Journal+": model differs; it is left as it is")
	// A killed write's temporary file is removed by the resume.
	tmp := filepath.Join(dir, ".r.json.tmp-0123456789abcdef")
	require.NoError(t, os.WriteFile(tmp, nil, 0o644))
	r, err = NewRunFiles(env, "TYPEVET_X_RECEIPT", true, stopped)
	require.NoError(t, err)
	assert.NoFileExists(t, tmp)
	sum, err := r.WriteReceipt(map[string]string{"stopped": "no"}, secrets, true)
	require.NoError(t, err)
	assert.Len(t, sum, 64)
	assert.NoFileExists(t, f.Journal)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"no"`)

	// Killed after the receipt was written and before the journal was
	// removed: -resume removes the journal and says the run is complete.
	jf, err := NewRunFiles(func(string) (string, bool) { return filepath.Join(dir, "k.json"), true }, "TYPEVET_X_RECEIPT", false, nil)
	require.NoError(t, err)
	jj, err := jf.OpenJournal(journal.Header{Kind: "check_match"}, nil)
	require.NoError(t, err)
	require.NoError(t, jj.Close())
	_, err = jf.WriteReceipt(map[string]string{"done": "yes"}, nil, false)
	require.NoError(t, err)
	_, err = NewRunFiles(func(string) (string, bool) { return jf.Receipt, true }, "TYPEVET_X_RECEIPT", true,
		func([]byte, journal.Header) (bool, error) { return false, nil })
	var ce *CompleteError
	require.ErrorAs(t, err, &ce)
	assert.NoFileExists(t, jf.Journal)
	assert.Equal(t, 0, ExitCode(err, io.Discard, "x", "usage"))

	// Path taken at write time: the message says how to finish.
	other := filepath.Join(dir, "o.json")
	g, err := NewRunFiles(func(string) (string, bool) { return other, true }, "TYPEVET_X_RECEIPT", false, nil)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(other, nil, 0o644))
	_, err = g.WriteReceipt(map[string]string{}, nil, true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "move it to NEW"+journal.Suffix+" and rerun with TYPEVET_X_RECEIPT=NEW and -resume")
}

func TestCheckFixedTextNamesVariable(t *testing.T) {
	env := map[string]string{"TYPEVET_BACKEND": "vllm", "TYPEVET_VLLM__BASE_URL": "http://127.0.0.1:1",
		"TYPEVET_VLLM__MODEL": "m", "TYPEVET_VLLM__HEADERS": `{"X-Team": "verdict"}`}
	s, err := backend.SettingsFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	require.NoError(t, err)
	err = CheckFixedText(s, map[string]string{"backend": "vllm", "question": "verdict"})
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "TYPEVET_VLLM__HEADERS (header X-Team) occurs in the receipt's own text")
	assert.NoError(t, CheckFixedText(s, map[string]string{"backend": "vllm"}))
}
