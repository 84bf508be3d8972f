package wording

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/typevet/typevet-go/internal/pytext"
)

// Provider is the wording judge provider (TYPEVET_WORDING_JUDGE_PROVIDER).
type Provider int

// The judge providers. The zero Provider is [ProviderGemma], the default.
const (
	ProviderGemma  Provider = iota // typevet's Gemma judge over llama.cpp or vLLM
	ProviderJev                    // the judgevet HTTP API
	ProviderOllama                 // an Ollama server through judgevet's HTTP adapter
)

// String returns the provider as the artifact's judge_provider writes it:
// "gemma", "jev" or "ollama".
func (p Provider) String() string {
	switch p {
	case ProviderGemma:
		return "gemma"
	case ProviderJev:
		return "jev"
	case ProviderOllama:
		return "ollama"
	}
	return fmt.Sprintf("Provider(%d)", int(p))
}

// MarshalText writes the provider name, so judge_provider is a JSON string.
func (p Provider) MarshalText() ([]byte, error) {
	if p < ProviderGemma || p > ProviderOllama {
		return nil, fmt.Errorf("wording: invalid %s", p)
	}
	return []byte(p.String()), nil
}

// UnmarshalText reads a provider name (case-sensitive).
func (p *Provider) UnmarshalText(b []byte) error {
	q, ok := parseProvider(string(b))
	if !ok {
		return &ValueError{Msg: "judge_provider must be one of ('gemma', 'jev', 'ollama')"}
	}
	*p = q
	return nil
}

func parseProvider(s string) (Provider, bool) {
	switch s {
	case "gemma":
		return ProviderGemma, true
	case "jev":
		return ProviderJev, true
	case "ollama":
		return ProviderOllama, true
	}
	return 0, false
}

// Defaults of the judge settings.
const (
	// DefaultGemmaJudge is typevet's TEXT_JUDGE, the gemma provider's model.
	DefaultGemmaJudge = "gemma-4-31b-kv9-q4km-mm"
	// DefaultOllamaJudge is the ollama provider's model.
	DefaultOllamaJudge = "nimble"
	// DefaultJevJudge is judgevet's default model when JEV_API__DEFAULT_MODEL
	// is unset.
	DefaultJevJudge = "jev-latest"
	// DefaultOllamaBase is the Ollama server URL.
	DefaultOllamaBase = "http://localhost:11434"
	// DefaultOllamaTimeout is the judge adapter's read timeout.
	DefaultOllamaTimeout = 600 * time.Second
)

// OllamaPlaceholderKey is OLLAMA_PLACEHOLDER_KEY, the API key judgevet's
// HTTP adapter is given for an Ollama server, which checks none. It must
// never appear in any written JSON (#379): no type of this package holds
// or writes it.
const OllamaPlaceholderKey = "ollama-no-key"

// DefaultConcurrency returns the provider's gepa-adk max_concurrent_evals
// when TYPEVET_WORDING_CONCURRENCY is unset or 0: gemma 5, jev 1, ollama 1.
func (p Provider) DefaultConcurrency() int {
	if p == ProviderGemma {
		return 5
	}
	return 1
}

// Settings are the wording judge settings of the environment.
type Settings struct {
	// Provider is TYPEVET_WORDING_JUDGE_PROVIDER (default gemma).
	Provider Provider
	// Judge is TYPEVET_WORDING_JUDGE, the requested model, or the
	// provider's default.
	Judge string
	// OllamaBase is TYPEVET_OLLAMA_BASE without a trailing "/" (default
	// [DefaultOllamaBase]). Read for every provider; used by ollama.
	OllamaBase string
	// OllamaTimeout is TYPEVET_OLLAMA_TIMEOUT in seconds (default 600),
	// the judge adapter's read timeout.
	OllamaTimeout time.Duration
	// Concurrency is gepa-adk's max_concurrent_evals:
	// TYPEVET_WORDING_CONCURRENCY, or the provider default when it is
	// unset or 0.
	Concurrency int
}

// Environment variables read by [SettingsFromEnv].
const (
	EnvProvider    = "TYPEVET_WORDING_JUDGE_PROVIDER" // gemma, jev or ollama
	EnvJudge       = "TYPEVET_WORDING_JUDGE"          // the judge model
	EnvOllamaBase  = "TYPEVET_OLLAMA_BASE"            // the Ollama server URL
	EnvTimeout     = "TYPEVET_OLLAMA_TIMEOUT"         // the adapter's read timeout, seconds
	EnvConcurrency = "TYPEVET_WORDING_CONCURRENCY"    // gepa-adk max_concurrent_evals
	EnvJevModel    = "JEV_API__DEFAULT_MODEL"         // judgevet's default model (jev only)
)

// SettingsFromEnv reads the wording judge settings through lookup (pass
// os.LookupEnv). Every value is stripped of whitespace (Python str.strip)
// first, and an empty value counts as unset. Errors name the variable,
// never its value:
//
//   - TYPEVET_WORDING_JUDGE_PROVIDER: "gemma", "jev" or "ollama"
//     (case-sensitive), else "TYPEVET_WORDING_JUDGE_PROVIDER must be one of
//     ('gemma', 'jev', 'ollama')".
//   - TYPEVET_WORDING_JUDGE: the model; default gemma
//     [DefaultGemmaJudge], ollama [DefaultOllamaJudge], jev
//     JEV_API__DEFAULT_MODEL or [DefaultJevJudge].
//   - TYPEVET_OLLAMA_BASE: trailing "/" removed; default [DefaultOllamaBase].
//   - TYPEVET_OLLAMA_TIMEOUT: seconds, default 600. typevet parses it with
//     float() only after the identity reads and checks nothing more; here
//     it is parsed up front and must be a finite number above 0 ("...
//     must be a positive number of seconds").
//   - TYPEVET_WORDING_CONCURRENCY: an integer ("... must be an integer");
//     0 means the provider default, as in typevet. A negative value, which
//     typevet passes on for gepa-adk to refuse, is refused here ("... must
//     not be negative").
func SettingsFromEnv(lookup func(string) (string, bool)) (Settings, error) {
	get := func(name string) string {
		v, ok := lookup(name)
		if !ok {
			return ""
		}
		return pytext.Strip(v)
	}
	var s Settings
	if v := get(EnvProvider); v != "" {
		p, ok := parseProvider(v)
		if !ok {
			return Settings{}, &SettingsError{EnvProvider, EnvProvider + " must be one of ('gemma', 'jev', 'ollama')"}
		}
		s.Provider = p
	}
	s.Judge = get(EnvJudge)
	if s.Judge == "" {
		switch s.Provider {
		case ProviderGemma:
			s.Judge = DefaultGemmaJudge
		case ProviderOllama:
			s.Judge = DefaultOllamaJudge
		case ProviderJev:
			if s.Judge = get(EnvJevModel); s.Judge == "" {
				s.Judge = DefaultJevJudge
			}
		}
	}
	s.OllamaBase = strings.TrimRight(get(EnvOllamaBase), "/")
	if s.OllamaBase == "" {
		s.OllamaBase = DefaultOllamaBase
	}
	s.OllamaTimeout = DefaultOllamaTimeout
	if v := get(EnvTimeout); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 || strings.ContainsAny(v, "xX") {
			return Settings{}, &SettingsError{EnvTimeout, EnvTimeout + " must be a positive number of seconds"}
		}
		s.OllamaTimeout = time.Duration(f * float64(time.Second))
	}
	s.Concurrency = s.Provider.DefaultConcurrency()
	if v := get(EnvConcurrency); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return Settings{}, &SettingsError{EnvConcurrency, EnvConcurrency + " must be an integer"}
		}
		if n < 0 {
			return Settings{}, &SettingsError{EnvConcurrency, EnvConcurrency + " must not be negative"}
		}
		if n > 0 {
			s.Concurrency = n
		}
	}
	return s, nil
}

// EnvComponents is the wording run's selection knob.
const EnvComponents = "TYPEVET_WORDING_COMPONENTS"

// ComponentsFromEnv reads TYPEVET_WORDING_COMPONENTS through lookup: a
// comma-separated list of part names, each stripped; unset or blank means
// ["instructions"]. Every name must be one of allowed (the Noul part names
// for the DIFrauD seed, the parts of the PubMedQA Choice seed), else
// "TYPEVET_WORDING_COMPONENTS names a part outside <allowed, comma-joined>";
// the value is not echoed. A trailing comma gives an empty name, which is
// refused the same way. Repeats are left to [CheckSelection].
func ComponentsFromEnv(lookup func(string) (string, bool), allowed []string) ([]string, error) {
	v, ok := lookup(EnvComponents)
	if !ok || pytext.Strip(v) == "" {
		return []string{Instructions}, nil
	}
	var out []string
	for _, name := range strings.Split(v, ",") {
		name = pytext.Strip(name)
		if !slices.Contains(allowed, name) {
			return nil, &SettingsError{EnvComponents, EnvComponents + " names a part outside " + strings.Join(allowed, ",")}
		}
		out = append(out, name)
	}
	return out, nil
}
