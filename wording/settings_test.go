package wording

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestSettingsFromEnv follows test_wording_ollama_judge.py.
func TestSettingsFromEnv(t *testing.T) {
	tests := []struct {
		name   string
		env    []string
		want   Settings
		reason string
	}{
		{"defaults", nil, Settings{ProviderGemma, DefaultGemmaJudge, DefaultOllamaBase, 600 * time.Second, 5}, ""},
		{"empty provider", []string{EnvProvider, "  "}, Settings{ProviderGemma, DefaultGemmaJudge, DefaultOllamaBase, 600 * time.Second, 5}, "blank is unset"},
		{"gemma", []string{EnvProvider, "gemma"}, Settings{ProviderGemma, DefaultGemmaJudge, DefaultOllamaBase, 600 * time.Second, 5}, ""},
		{"ollama", []string{EnvProvider, " ollama "}, Settings{ProviderOllama, "nimble", DefaultOllamaBase, 600 * time.Second, 1}, ""},
		{"ollama blank judge", []string{EnvProvider, "ollama", EnvJudge, "  "}, Settings{ProviderOllama, "nimble", DefaultOllamaBase, 600 * time.Second, 1}, ""},
		{"jev", []string{EnvProvider, "jev"}, Settings{ProviderJev, "jev-latest", DefaultOllamaBase, 600 * time.Second, 1}, ""},
		{"jev default model", []string{EnvProvider, "jev", EnvJevModel, "jev-9"}, Settings{ProviderJev, "jev-9", DefaultOllamaBase, 600 * time.Second, 1}, "judgevet's default model"},
		{"judge knob gemma", []string{EnvJudge, " qwen3:8b "}, Settings{ProviderGemma, "qwen3:8b", DefaultOllamaBase, 600 * time.Second, 5}, ""},
		{"judge knob ollama", []string{EnvProvider, "ollama", EnvJudge, " qwen3:8b "}, Settings{ProviderOllama, "qwen3:8b", DefaultOllamaBase, 600 * time.Second, 1}, ""},
		{"base and timeout", []string{EnvOllamaBase, " http://gpu-box:11434/ ", EnvTimeout, "2.5"},
			Settings{ProviderGemma, DefaultGemmaJudge, "http://gpu-box:11434", 2500 * time.Millisecond, 5}, "trailing / removed"},
		{"concurrency", []string{EnvConcurrency, "3"}, Settings{ProviderGemma, DefaultGemmaJudge, DefaultOllamaBase, 600 * time.Second, 3}, ""},
		{"concurrency 0", []string{EnvProvider, "ollama", EnvConcurrency, "0"}, Settings{ProviderOllama, "nimble", DefaultOllamaBase, 600 * time.Second, 1},
			"0 silently means the provider default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SettingsFromEnv(env(tt.env...))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSettingsErrors(t *testing.T) {
	tests := []struct {
		name     string
		env      []string
		variable string
		want     string
		reason   string
	}{
		{"unknown provider", []string{EnvProvider, "openrouter"}, EnvProvider,
			"TYPEVET_WORDING_JUDGE_PROVIDER must be one of ('gemma', 'jev', 'ollama')", "the value is not echoed"},
		{"case-sensitive provider", []string{EnvProvider, "Ollama"}, EnvProvider,
			"TYPEVET_WORDING_JUDGE_PROVIDER must be one of ('gemma', 'jev', 'ollama')", ""},
		{"timeout not a number", []string{EnvTimeout, "ten"}, EnvTimeout, "TYPEVET_OLLAMA_TIMEOUT must be a positive number of seconds", ""},
		{"timeout zero", []string{EnvTimeout, "0"}, EnvTimeout, "TYPEVET_OLLAMA_TIMEOUT must be a positive number of seconds", "Go decision: refused up front"},
		{"timeout inf", []string{EnvTimeout, "inf"}, EnvTimeout, "TYPEVET_OLLAMA_TIMEOUT must be a positive number of seconds", ""},
		{"timeout hex", []string{EnvTimeout, "0x10"}, EnvTimeout, "TYPEVET_OLLAMA_TIMEOUT must be a positive number of seconds", "Python float() refuses hex"},
		{"concurrency not an integer", []string{EnvConcurrency, "2.5"}, EnvConcurrency, "TYPEVET_WORDING_CONCURRENCY must be an integer", ""},
		{"concurrency negative", []string{EnvConcurrency, "-1"}, EnvConcurrency, "TYPEVET_WORDING_CONCURRENCY must not be negative", "gepa-adk would refuse it later"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := SettingsFromEnv(env(tt.env...))
			var se *SettingsError
			if !errors.As(err, &se) || se.Variable != tt.variable || err.Error() != tt.want {
				t.Fatalf("err = %v, want %q on %s", err, tt.want, tt.variable)
			}
			if strings.Contains(err.Error(), tt.env[1]) {
				t.Errorf("message echoes the value %q", tt.env[1])
			}
		})
	}
}

func TestProviderText(t *testing.T) {
	for _, p := range []Provider{ProviderGemma, ProviderJev, ProviderOllama} {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var back Provider
		if err := json.Unmarshal(b, &back); err != nil || back != p {
			t.Errorf("%s: round trip %s -> %v, %v", p, b, back, err)
		}
	}
	if _, err := json.Marshal(Provider(7)); err == nil {
		t.Error("an invalid provider was written")
	}
	var p Provider
	if err := json.Unmarshal([]byte(`"openrouter"`), &p); err == nil {
		t.Error("an unknown provider was read")
	}
}

// TestSettingsLookupUnset checks that a lookup's "not set" wins over any
// value it returns alongside.
func TestSettingsLookupUnset(t *testing.T) {
	s, err := SettingsFromEnv(func(string) (string, bool) { return "garbage", false })
	if err != nil || s.Provider != ProviderGemma || s.Judge != DefaultGemmaJudge {
		t.Errorf("got %+v, %v", s, err)
	}
}

// TestComponentsFromEnv follows the knob rows of test_wording_live_knobs.py.
func TestComponentsFromEnv(t *testing.T) {
	tests := []struct {
		name   string
		value  *string
		want   []string
		err    string
		reason string
	}{
		{"unset", nil, []string{Instructions}, "", ""},
		{"blank", strp("  "), []string{Instructions}, "", ""},
		{"spaced", strp(" criteria_true , criteria_false "), []string{CriteriaTrue, CriteriaFalse}, "", "each name stripped"},
		{"secret text", strp("is_scam_secret_text"), nil, "TYPEVET_WORDING_COMPONENTS names a part outside instructions,criteria_true,criteria_false", "value not echoed"},
		{"trailing comma", strp("instructions,"), nil, "TYPEVET_WORDING_COMPONENTS names a part outside instructions,criteria_true,criteria_false", "an empty name"},
		{"other text part", strp("instructions,option_block"), nil, "TYPEVET_WORDING_COMPONENTS names a part outside instructions,criteria_true,criteria_false", ""},
		{"comma", strp(","), nil, "TYPEVET_WORDING_COMPONENTS names a part outside instructions,criteria_true,criteria_false", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := env()
			if tt.value != nil {
				lookup = env(EnvComponents, *tt.value)
			}
			got, err := ComponentsFromEnv(lookup, PartNames())
			if errString(err) != tt.err {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Error("the value is echoed")
			}
		})
	}
}
