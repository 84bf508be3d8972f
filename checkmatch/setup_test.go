package checkmatch

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

func TestCheckInputsKeyFree(t *testing.T) {
	const key = "sk-live-123"
	tests := []struct {
		name    string
		reason  string
		secrets []string
		inputs  []Input
		refused string // the refused input's name, "" for none
		rule    string
	}{
		{name: "clean", secrets: []string{key}, inputs: []Input{
			{Name: "TYPEVET_VLLM_SERVER_ARGS", Text: "--max-num-seqs 4"},
			{Name: "TYPEVET_GIT_STATUS_PORCELAIN", Text: " M checkmatch/setup.go\n"},
		}},
		{name: "key in server args", secrets: []string{key}, inputs: []Input{
			{Name: "TYPEVET_VLLM__MODEL", Text: "gemma"},
			{Name: "TYPEVET_VLLM_SERVER_ARGS", Text: "--api-key " + key + " --max-num-seqs 4"},
		}, refused: "TYPEVET_VLLM_SERVER_ARGS", rule: "a configured secret"},
		{name: "header value in porcelain", secrets: []string{key, "hv"}, inputs: []Input{
			{Name: "TYPEVET_GIT_STATUS_PORCELAIN", Text: "?? hv.txt"},
		}, refused: "TYPEVET_GIT_STATUS_PORCELAIN", rule: "a configured secret"},
		{name: "authorization word", reason: "the receipt rule refuses the word itself, any case", inputs: []Input{
			{Name: "TYPEVET_GIT_STATUS_PORCELAIN", Text: " M Authorization.go"},
		}, refused: "TYPEVET_GIT_STATUS_PORCELAIN", rule: "authorization"},
		{name: "bearer", inputs: []Input{{Name: "TYPEVET_VLLM_MODEL_REVISION", Text: "BEARER abc"}},
			refused: "TYPEVET_VLLM_MODEL_REVISION", rule: "bearer "},
		{name: "escaped secret", reason: "a quote in the key is found in its JSON-escaped form too",
			secrets: []string{`a"b`}, inputs: []Input{{Name: "X", Text: `--api-key a"b`}}, refused: "X", rule: "a configured secret"},
		{name: "first refused wins", secrets: []string{key}, inputs: []Input{
			{Name: "A", Text: key}, {Name: "B", Text: key},
		}, refused: "A", rule: "a configured secret"},
		{name: "no secrets", inputs: []Input{{Name: "A", Text: "--api-key K"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckInputsKeyFree(judgment.Secrets{Keys: tt.secrets}, tt.inputs...)
			if tt.refused == "" {
				require.NoError(t, err)
				return
			}
			var ie *inputNotKeyFreeError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, tt.refused, ie.Name)
			assert.Equal(t, tt.rule, ie.Reason)
			assert.Contains(t, err.Error(), tt.refused)
			for _, s := range tt.secrets {
				assert.NotContains(t, err.Error(), s, "the message never holds a secret")
			}
		})
	}
}

func TestOfflineServerEntry(t *testing.T) {
	type pin struct {
		Name    string  `json:"name"`
		Version string  `json:"version"`
		Ink     float64 `json:"ink"`
	}
	e, err := offlineServerEntry("r/1", pin{Name: "reader", Version: "r/1", Ink: 0.25})
	require.NoError(t, err)
	b, err := receipt.Marshal(e)
	require.NoError(t, err)
	assert.Equal(t, "{\n  \"served\": [],\n  \"build_info\": \"r/1\",\n  \"backend_pin\": {\n    \"name\": \"reader\",\n    \"version\": \"r/1\",\n    \"ink\": 0.25\n  }\n}", strings.TrimSpace(string(b)))
	var back serving.ServerEntry
	require.NoError(t, json.Unmarshal(b, &back))
	assert.JSONEq(t, `{"name":"reader","version":"r/1","ink":0.25}`, string(back.BackendPin))

	for _, bad := range []any{"text", []int{1}, nil, func() {}} {
		_, err := offlineServerEntry("v", bad)
		assert.Error(t, err, "%T", bad)
	}
}

func TestRunContextReceiptParts(t *testing.T) {
	slice := syntheticSlice(t, 0, 1, func(i int) []byte { return fmt.Appendf(nil, "synthetic image %03d", i) })
	snap, err := TakeSnapshot(t.TempDir(), nil)
	require.NoError(t, err)
	assert.Equal(t, receipt.Unknown, snap.BaselineCommit, "no repository")
	assert.True(t, snap.WorkingTree.Dirty)
	code, err := checkCodeDigests()
	require.NoError(t, err)
	assert.Equal(t, code, snap.CodePathDigests)
	assert.Equal(t, receipt.PromptDigests(Questions()), snap.PromptDigests)

	stated := "--max-num-seqs 4"
	at := time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC)
	entry := &serving.ServerEntry{BuildInfo: "0.30.0"}
	c := RunContext{Backend: serving.VLLM, Model: "m", ServedTemplate: "vllm_chat", ServerEntry: entry,
		ModelRevision: "rev", StatedServerArgs: &stated, Secrets: judgment.Secrets{Keys: []string{"k"}}, Snapshot: snap,
		Now: func() time.Time { return at }}
	cache := `vllm:cache_config_info{block_size="16",engine="0"} 1.0` + "\n"
	run := RunResult{Concurrency: 4, Outcomes: make([]Outcome, 3),
		MetricsReadings: []serving.Reading{{Text: cache, OK: true}, {}}}
	parts := c.ReceiptParts(slice, run)

	assert.Equal(t, serving.VLLM, parts.Backend)
	assert.Equal(t, "m", parts.Model)
	assert.Equal(t, judgment.Secrets{Keys: []string{"k"}}, parts.Secrets)
	want := slice.Pins()
	want.FinishedUTC = "2026-11-29T23:00:00+00:00"
	want.Concurrency = 4
	r := c.Snapshot.RendererPin()
	want.Renderer = &r
	want.Server = entry
	want.ModelRevision = "rev"
	assert.Equal(t, want, parts.Pins)

	id := parts.Identity
	assert.Len(t, id.RunID, 32)
	assert.Equal(t, receipt.Counts{{Name: "judgments", Value: 3}}, id.ArmCallCounts)
	assert.Equal(t, receipt.Digests{}, id.FixtureDigests)
	assert.Equal(t, receipt.NewRuntime("m", "vllm_chat", "0.30.0"), id.Runtime)
	assert.Equal(t, receipt.IdentityDigest(id), id.IdentityDigest)
	again := c.ReceiptParts(slice, run).Identity
	assert.NotEqual(t, id.RunID, again.RunID, "a fresh run id per call")
	assert.Equal(t, id.IdentityDigest, again.IdentityDigest, "the digest leaves the run id out")

	require.NotNil(t, parts.ServerArgs)
	b, err := json.Marshal(parts.ServerArgs)
	require.NoError(t, err)
	assert.JSONEq(t, `{"cache_config":{"block_size":"16","engine":"0"},"cache_config_source":"metrics","caller_stated":"--max-num-seqs 4"}`, string(b))

	c.Backend, c.ServerEntry, c.ModelRevision = serving.LlamaCPP, nil, ""
	run.MetricsReadings = nil // llama.cpp has no /metrics
	parts = c.ReceiptParts(slice, run)
	require.NotNil(t, parts.ServerArgs, "image runs write server_args on every backend")
	assert.Nil(t, parts.ServerArgs.CacheConfig, "no /metrics reading, no cache_config")
	require.NotNil(t, parts.ServerArgs.CallerStated)
	assert.Equal(t, "--max-num-seqs 4", *parts.ServerArgs.CallerStated)
	assert.Nil(t, parts.Pins.Server)
	assert.Equal(t, receipt.Unknown, parts.Identity.Runtime.ServerBuild)
}

func ptrTo[T any](v T) *T { return &v }
