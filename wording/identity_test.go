package wording

import (
	"encoding/json"
	"testing"
)

func strp(s string) *string { return &s }

// TestJudgeIdentity follows typevet's judge-identity shape rules
// (test_wording_ollama_judge.py).
func TestJudgeIdentity(t *testing.T) {
	const base = "http://localhost:11434"
	ollama := OllamaFacts(base, OllamaIdentity{"0.35.0", ollamaDigest})
	tests := []struct {
		name     string
		model    string
		facts    Facts
		reported []string
		want     string
		reason   string
	}{
		{"ollama", "nimble", ollama, []string{"nimble:latest"},
			`{"requested_model":"nimble","reported_models":["nimble:latest"],"base_url":"` + base + `","ollama_version":"0.35.0","model_digest":"` + ollamaDigest + `"}`, ""},
		{"jev, no calls", "jev-latest", Facts{BaseURL: strp("u")}, nil,
			`{"requested_model":"jev-latest","reported_models":[],"base_url":"u"}`, "served_template is never in the identity"},
		{"gemma", DefaultGemmaJudge, Facts{ServedTemplate: strp("native_gemma4_turn")}, []string{"b", "", "a", "b"},
			`{"requested_model":"gemma-4-31b-kv9-q4km-mm","reported_models":["a","b"]}`, "sorted, distinct, failed calls dropped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(NewJudgeIdentity(tt.model, tt.facts, tt.reported))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got  %s\nwant %s", b, tt.want)
			}
		})
	}
}

func TestFactsJSONAndRuntimeBuild(t *testing.T) {
	tests := []struct {
		name  string
		facts Facts
		json  string
		build string
	}{
		{"ollama", OllamaFacts("b", OllamaIdentity{"0.35.0", "d"}),
			`{"base_url":"b","served_template":null,"ollama_version":"0.35.0","model_digest":"d"}`, "0.35.0"},
		{"build info", Facts{BuildInfo: strp("b1")}, `{"served_template":null,"build_info":"b1"}`, "b1"},
		{"jev", Facts{BaseURL: strp("u")}, `{"base_url":"u","served_template":null}`, "unknown"},
		{"gemma", Facts{ServedTemplate: strp("native_gemma4_turn")}, `{"served_template":"native_gemma4_turn"}`, "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := json.Marshal(tt.facts)
			if string(b) != tt.json {
				t.Errorf("facts %s, want %s", b, tt.json)
			}
			if got := RuntimeBuild(tt.facts); got != tt.build {
				t.Errorf("RuntimeBuild = %q, want %q", got, tt.build)
			}
		})
	}
}

func TestJudgePins(t *testing.T) {
	id := NewJudgeIdentity("nimble", Facts{}, nil)
	for _, backend := range []string{"jev", "llama_cpp", "vllm"} {
		if JudgePins(backend, id) != nil {
			t.Errorf("%s has a judge_identity pin", backend)
		}
	}
	if p := JudgePins("ollama", id); p == nil || p.RequestedModel != "nimble" {
		t.Errorf("ollama pin %+v", p)
	}
}

func TestCheckJudgeProvider(t *testing.T) {
	tests := []struct {
		name, backend, actual, want string
	}{
		{"ollama", "ollama", "ollama", ""},
		{"vllm gemma", "vllm", "gemma", ""},
		{"llama_cpp gemma", "llama_cpp", "gemma", ""},
		{"jev", "jev", "jev", ""},
		{"ollama with a gemma artifact", "ollama", "gemma", "backend 'ollama' needs judge_provider 'ollama', not 'gemma'"},
		{"ollama with a jev artifact", "ollama", "jev", "backend 'ollama' needs judge_provider 'ollama', not 'jev'"},
		{"unknown backend", "openrouter", "gemma", "backend 'openrouter' is not one of ('jev', 'llama_cpp', 'vllm', 'ollama')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errString(CheckJudgeProvider(tt.backend, tt.actual)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	for _, b := range ComparisonBackends() {
		if _, ok := EvolutionProvider(b); !ok {
			t.Errorf("%s has no provider", b)
		}
	}
}
