package checkmatch

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
			err := CheckInputsKeyFree(tt.secrets, tt.inputs...)
			if tt.refused == "" {
				require.NoError(t, err)
				return
			}
			var ie *InputNotKeyFreeError
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
	e, err := OfflineServerEntry("r/1", pin{Name: "reader", Version: "r/1", Ink: 0.25})
	require.NoError(t, err)
	b, err := receipt.Marshal(e)
	require.NoError(t, err)
	assert.Equal(t, "{\n  \"served\": [],\n  \"build_info\": \"r/1\",\n  \"backend_pin\": {\n    \"name\": \"reader\",\n    \"version\": \"r/1\",\n    \"ink\": 0.25\n  }\n}", strings.TrimSpace(string(b)))
	var back serving.ServerEntry
	require.NoError(t, json.Unmarshal(b, &back))
	assert.JSONEq(t, `{"name":"reader","version":"r/1","ink":0.25}`, string(back.BackendPin))

	for _, bad := range []any{"text", []int{1}, nil, func() {}} {
		_, err := OfflineServerEntry("v", bad)
		assert.Error(t, err, "%T", bad)
	}
}
