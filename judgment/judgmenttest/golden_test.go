package judgmenttest

import (
	"path/filepath"
	"testing"

	"github.com/typevet/typevet-go/internal/golden"
)

// The wire bytes of each answer are pinned, so a change to what the fakes
// send is a reviewed change.
func TestGoldenAnswers(t *testing.T) {
	small := func() *Model { m := testModel(); m.NVocab = 40; return m }
	// The marker is random per server unless seeded.
	seeded := func(m *Model) *Server {
		s := NewUnstartedLlamaCPP(m)
		s.MarkerSeed = 1
		s.Start()
		return s
	}
	tests := []struct {
		name  string
		start func(*Model) *Server
		path  string
		body  any
	}{
		{"llama_completion_text", NewLlamaCPP, "/completion", llamaBody(textPrompt, 40)},
		{"llama_completion_top5", NewLlamaCPP, "/completion", llamaBody(textPrompt, 5)},
		{"vllm_chat_text", NewVLLM, "/v1/chat/completions", chatBody(userText, 236771, 236770)},
		{"vllm_tokenize", NewVLLM, "/tokenize", map[string]any{"model": DefaultModelID, "prompt": "0", "add_special_tokens": false}},
		{"llama_props", seeded, "/props", nil},
		{"llama_models", NewLlamaCPP, "/v1/models", nil},
		{"vllm_models", NewVLLM, "/v1/models", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.start(small())
			defer s.Close()
			method := "POST"
			if tt.body == nil {
				method = "GET"
			}
			_, raw := do(t, s, method, tt.path, tt.body)
			golden.Compare(t, filepath.Join("testdata", tt.name+".golden"), append(raw, '\n'))
		})
	}
}

func TestGoldenMetrics(t *testing.T) {
	c := MetricCounters{Model: DefaultModelID, Requests: 3, PromptTokens: 300, GenerationTokens: 3,
		PrefixCacheQueries: 300, PrefixCacheHits: 160, Running: 1, E2ESeconds: []float64{0.2, 0.6, 12}}
	golden.Compare(t, "testdata/default_metrics.golden", []byte(DefaultMetrics(c)))
}
