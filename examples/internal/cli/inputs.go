package cli

import (
	"strings"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/serving"
)

// The variables the run commands share.
const (
	EnvBackend    = "TYPEVET_BACKEND"
	EnvPorcelain  = "TYPEVET_GIT_STATUS_PORCELAIN"
	EnvRevision   = "TYPEVET_VLLM_MODEL_REVISION"
	EnvServerArgs = serving.ServerArgsEnv
	EnvLlamaModel = "TYPEVET_LLAMA__MULTIMODAL_MODEL"
	EnvLlamaTime  = "TYPEVET_LLAMA__TIMEOUT"
	EnvVLLMModel  = "TYPEVET_VLLM__MODEL"
)

// Recorded is what a run's receipt records from the caller besides the
// backend settings.
type Recorded struct {
	// Porcelain is TYPEVET_GIT_STATUS_PORCELAIN; nil when unset.
	Porcelain *string
	// Revision is TYPEVET_VLLM_MODEL_REVISION; "" when not recorded.
	Revision string
	// Stated is TYPEVET_VLLM_SERVER_ARGS; nil when unset or not recorded.
	Stated *string
	// Extra are further inputs the command records (a file name).
	Extra []checkmatch.Input
}

// CheckKeyFree refuses, before any network call, a recorded text that
// would make the receipt fail its key-free check against the secrets of s
// ([backend.Settings.Secrets]): the porcelain text, the model name of the llama.cpp or vLLM
// settings, the revision, the stated server arguments and r.Extra. The
// error is a [*UsageError] naming the variable, never the value.
func CheckKeyFree(s backend.Settings, r Recorded) error {
	var in []checkmatch.Input
	if r.Porcelain != nil {
		in = append(in, checkmatch.Input{Name: EnvPorcelain, Text: *r.Porcelain})
	}
	switch s.Backend {
	case backend.LlamaCPP:
		in = append(in, checkmatch.Input{Name: EnvLlamaModel, Text: s.LlamaCPP.MultimodalModel})
	case backend.VLLM:
		in = append(in, checkmatch.Input{Name: EnvVLLMModel, Text: s.VLLM.Model})
	}
	if r.Revision != "" {
		in = append(in, checkmatch.Input{Name: EnvRevision, Text: r.Revision})
	}
	if r.Stated != nil {
		in = append(in, checkmatch.Input{Name: EnvServerArgs, Text: *r.Stated})
	}
	in = append(in, r.Extra...)
	if err := checkmatch.CheckInputsKeyFree(s.Secrets(), in...); err != nil {
		return &UsageError{Msg: err.Error()}
	}
	return nil
}

// Serving is what the check-match and throughput commands read after their
// own settings: the backend settings, the vLLM weights revision, the
// porcelain text and the stated server arguments.
type Serving struct {
	// Settings are the selected backend's settings.
	Settings backend.Settings
	// Revision is TYPEVET_VLLM_MODEL_REVISION, stripped; "" off vLLM.
	Revision string
	// Porcelain is TYPEVET_GIT_STATUS_PORCELAIN, else the output of
	// `git status --porcelain`; nil when neither is known.
	Porcelain *string
	// Stated is TYPEVET_VLLM_SERVER_ARGS verbatim; nil when unset.
	Stated *string
	// Notes are lines for the terminal: what the receipt will record of
	// the git tree ([WorkingTreeText]) and the warnings of [Warnings].
	Notes []string
}

// ReadServing reads the backend settings and the texts a receipt records
// from the caller, in typevet's order: the
// backend, the vLLM revision (required on vLLM), the porcelain text (from
// TYPEVET_GIT_STATUS_PORCELAIN, else from git: [WorkingTreeText]) and the
// stated server arguments. It then refuses, by variable, a recorded
// text that holds a key ([CheckKeyFree]). Every error is a [*UsageError].
// Warnings look at the environment alone ([Env.Environ]): a flag such as
// -base-url gives both backends' variables.
func ReadServing(e *Env) (Serving, error) {
	env := e.Lookup
	var s Serving
	var err error
	if s.Settings, err = backend.SettingsFromEnv(env); err != nil {
		return s, Usage(err)
	}
	if s.Settings.Backend == backend.VLLM {
		rev, _ := env(EnvRevision)
		if s.Revision = strings.TrimSpace(rev); s.Revision == "" {
			return s, Usagef("%s must name the served weights revision", EnvRevision)
		}
	}
	var note string
	s.Porcelain, note = WorkingTreeText(env, RepoRoot())
	s.Notes = append([]string{note}, Warnings(e.Environ, s.Settings)...)
	s.Stated = serving.StatedServerArgs(env)
	return s, CheckKeyFree(s.Settings, Recorded{Porcelain: s.Porcelain, Revision: s.Revision, Stated: s.Stated})
}
