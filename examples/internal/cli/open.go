package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/judgment/llamacpp"
)

// OpenSession opens the backend session of s ([backend.Open]). A llama.cpp
// server that does not serve the requested model
// ([*llamacpp.UnservedModelError]) is a [*UsageError] (exit 2, nothing
// scored, nothing written) naming [EnvLlamaModel], the command's model
// flag (modelFlag, e.g. "-model"; "" when it has none) and the models the
// server serves; other failures are wrapped as "open <backend> session:
// <err>".
func OpenSession(ctx context.Context, s backend.Settings, modelFlag string) (*backend.Session, error) {
	sess, err := backend.Open(ctx, s, "")
	var ue *llamacpp.UnservedModelError
	switch {
	case errors.As(err, &ue):
		served := make([]string, len(ue.Served))
		for i, name := range ue.Served {
			served[i] = fmt.Sprintf("%q", name)
		}
		setting := EnvLlamaModel
		if modelFlag != "" {
			setting += " (or " + modelFlag + ")"
		}
		return nil, Usagef("%s names model %q, which the llama.cpp server does not serve (it serves %s); "+
			"a single-model llama-server ignores the request's model and would answer as its own, "+
			"so set %s to a served model", setting, ue.Model, strings.Join(served, ", "), setting)
	case err != nil:
		return nil, fmt.Errorf("open %s session: %w", s.Backend, err)
	}
	return sess, nil
}

// SetupError is what a command returns for err from opening the session
// ([OpenSession]) or building its run context
// ([checkmatch.NewRunContext]): [ErrInterrupted] when ctx ended (a stop
// signal during set-up: nothing is written); for a vLLM model that GET
// /v1/models does not list ([*checkmatch.UnservedModelError]), a
// [*UsageError] naming the model setting as name gives it ([Env.Name]; nil:
// the variable); else [Explain]'s hint.
func SetupError(ctx context.Context, err error, s backend.Settings, name func(string) string) error {
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	if name == nil {
		name = func(v string) string { return v }
	}
	var ue *checkmatch.UnservedModelError
	if errors.As(err, &ue) {
		return Usagef("%s names a model the server does not serve: GET /v1/models lists no model with that id; set it to one the server serves", name(EnvVLLMModel))
	}
	return Explain(err, "", s, name)
}
