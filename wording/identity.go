package wording

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/typevet/typevet-go/internal/pytext"
)

// Facts are the judge facts a provider reports (the Python judge facts
// dict), written in this key order: base_url, served_template,
// ollama_version, model_digest, build_info. served_template is always
// written (null for jev and ollama); the others only when set:
//
//	gemma:  {"served_template": "<probed class>"}
//	jev:    {"base_url": "<api base>", "served_template": null}
//	ollama: {"base_url": ..., "served_template": null, "ollama_version": ..., "model_digest": ...}
//
// The pointers tell a missing fact from an empty one.
type Facts struct {
	BaseURL        *string `json:"base_url,omitempty"`       // jev, ollama: the API base
	ServedTemplate *string `json:"served_template"`          // gemma: the probed template class; nil = null
	OllamaVersion  *string `json:"ollama_version,omitempty"` // ollama: /api/version
	ModelDigest    *string `json:"model_digest,omitempty"`   // ollama: the /api/tags digest
	BuildInfo      *string `json:"build_info,omitempty"`     // a server build string, when a backend reports one
}

// OllamaFacts returns the judge facts of an Ollama judge: base_url,
// served_template null, ollama_version, model_digest.
func OllamaFacts(base string, id OllamaIdentity) Facts {
	return Facts{BaseURL: &base, OllamaVersion: &id.Version, ModelDigest: &id.ModelDigest}
}

// RuntimeBuild returns the server build of the experiment identity
// (runtime_build): build_info when present, else ollama_version, else
// "unknown".
func RuntimeBuild(f Facts) string {
	switch {
	case f.BuildInfo != nil:
		return *f.BuildInfo
	case f.OllamaVersion != nil:
		return *f.OllamaVersion
	}
	return "unknown"
}

// JudgeIdentity is the judge_identity block of a wording evolution
// artifact (and the judge_identity pin of Ollama held-out and comparison
// receipts), in this key order:
//
//	requested_model  the model the run asked for
//	reported_models  the sorted, distinct models that successful responses reported
//	base_url         jev and ollama
//	ollama_version   ollama
//	model_digest     ollama
//
// Example (a real Ollama artifact):
//
//	"judge_identity": {
//	  "requested_model": "nimble",
//	  "reported_models": ["nimble"],
//	  "base_url": "http://localhost:11434",
//	  "ollama_version": "0.35.0",
//	  "model_digest": "24e550a16a7081881be2f1f0d91e8cc13a597472735c04119f035a0a85c67e0c"
//	}
type JudgeIdentity struct {
	RequestedModel string   `json:"requested_model"`          // the model the run asked for
	ReportedModels []string `json:"reported_models"`          // sorted, distinct; [] (never null) when no call succeeded
	BaseURL        *string  `json:"base_url,omitempty"`       // fact of jev and ollama; nil = not a fact of this provider
	OllamaVersion  *string  `json:"ollama_version,omitempty"` // fact of ollama
	ModelDigest    *string  `json:"model_digest,omitempty"`   // fact of ollama
	BuildInfo      *string  `json:"build_info,omitempty"`     // a build fact, when the facts hold one
}

// NewJudgeIdentity returns the judge_identity block (judge_identity):
// requested_model, reported_models, then every fact except served_template,
// in fact order. reported is the list of model ids successful calls
// reported; it is sorted and de-duplicated ([ReportedModels]).
func NewJudgeIdentity(model string, facts Facts, reported []string) JudgeIdentity {
	return JudgeIdentity{
		RequestedModel: model,
		ReportedModels: ReportedModels(reported),
		BaseURL:        facts.BaseURL,
		OllamaVersion:  facts.OllamaVersion,
		ModelDigest:    facts.ModelDigest,
		BuildInfo:      facts.BuildInfo,
	}
}

// ReportedModels returns the sorted, distinct, non-empty model ids
// (call_summary models): a failed call reports no model ("").
func ReportedModels(models []string) []string {
	out := make([]string, 0, len(models))
	for _, m := range models {
		if m != "" {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// JudgePins returns the judge_identity pin of a held-out or comparison
// receipt (judge_pins): the identity for backend "ollama", nil (no pin)
// for "jev", "llama_cpp" and "vllm", whose receipts keep their old keys.
func JudgePins(backend string, id JudgeIdentity) *JudgeIdentity {
	if backend != "ollama" {
		return nil
	}
	return &id
}

// OllamaJudge is a resolved Ollama judge: the identity has been read and
// the server lists the model. It carries what judgevet's HTTP adapter is
// built with; the placeholder API key is not a field and is never written
// ([OllamaJudge.APIKey] returns it for the adapter).
type OllamaJudge struct {
	BaseURL  string         `json:"base_url"`      // the base URL, without a trailing "/"
	Model    string         `json:"default_model"` // the requested model
	Timeout  time.Duration  `json:"-"`             // the adapter's read timeout
	Identity OllamaIdentity `json:"-"`             // the identity reads
}

// APIKey returns [OllamaPlaceholderKey], the key the adapter is given. The
// judge has no spend cap and no key check.
func (OllamaJudge) APIKey() string { return OllamaPlaceholderKey }

// Facts returns the judge facts: base_url, served_template null,
// ollama_version, model_digest.
func (j OllamaJudge) Facts() Facts { return OllamaFacts(j.BaseURL, j.Identity) }

// ResolveOllamaJudge reads the Ollama identity for the settings' base URL
// and judge model ([ReadOllamaIdentity]) and returns the judge; on any
// failure no judge is returned, so no adapter is built and no judge call is
// made.
func ResolveOllamaJudge(ctx context.Context, client *http.Client, s Settings) (OllamaJudge, error) {
	id, err := ReadOllamaIdentity(ctx, client, s.OllamaBase, s.Judge)
	if err != nil {
		return OllamaJudge{}, err
	}
	return OllamaJudge{BaseURL: s.OllamaBase, Model: s.Judge, Timeout: s.OllamaTimeout, Identity: id}, nil
}

// ComparisonBackends returns the backends a comparison receipt accepts
// (COMPARISON_BACKENDS), in typevet's order: jev, llama_cpp, vllm, ollama.
// The slice is a fresh copy on each call.
func ComparisonBackends() []string { return slices.Clone(comparisonBackends) }

var comparisonBackends = []string{"jev", "llama_cpp", "vllm", "ollama"}

// EvolutionProvider returns the judge_provider an evolution artifact must
// have for a comparison on backend (EVOLUTION_PROVIDER): jev → jev,
// llama_cpp and vllm → gemma, ollama → ollama. ok is false for any other
// backend.
func EvolutionProvider(backend string) (p Provider, ok bool) {
	switch backend {
	case "jev":
		return ProviderJev, true
	case "llama_cpp", "vllm":
		return ProviderGemma, true
	case "ollama":
		return ProviderOllama, true
	}
	return 0, false
}

// CheckJudgeProvider is the comparison receipt's refusal of an artifact
// evolved with another judge: "backend '<b>' needs judge_provider '<p>',
// not '<actual>'". A backend outside [ComparisonBackends] is refused as
// "backend '<b>' is not one of ('jev', 'llama_cpp', 'vllm', 'ollama')".
func CheckJudgeProvider(backend, actual string) error {
	want, ok := EvolutionProvider(backend)
	if !ok {
		return valueErr("backend %s is not one of ('jev', 'llama_cpp', 'vllm', 'ollama')", pytext.Repr(backend))
	}
	if actual != want.String() {
		return valueErr("backend %s needs judge_provider %s, not %s", pytext.Repr(backend), pytext.Repr(want.String()), pytext.Repr(actual))
	}
	return nil
}
