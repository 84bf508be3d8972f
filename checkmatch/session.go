package checkmatch

import (
	"context"
	"fmt"

	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/judgment/reader"
	"github.com/typevet/typevet-go/serving"
)

// This file composes a run from an open backend session: the run context
// a receipt records ([NewRunContext]) and the /metrics reader of the run
// ([MetricsReader]). examples/checkmatch, examples/orderings and
// examples/throughput are these few calls; a user's own tool makes the
// same ones:
//
//	sess, err := backend.Open(ctx, settings, "")
//	snap, err := checkmatch.TakeSnapshot(repoRoot, porcelain)
//	rc, err := checkmatch.NewRunContext(ctx, sess, snap, revision, stated)
//	run, err := checkmatch.Run(ctx, sess.Port, rc.Model, slice.Requests,
//		checkmatch.RunOptions{Metrics: checkmatch.MetricsReader(sess)})
//	rec, err := checkmatch.BuildReceipt(run, rc.ReceiptParts(slice, run))

// fakeModel is the model id the receipts of the offline fake backend
// record: the fake session pins none (its Model is "").
const fakeModel = "fake-model"

// sessionModel returns the model id a run with sess names: the session's,
// or fakeModel for the fake.
func sessionModel(sess *backend.Session) string {
	if sess.Backend == backend.Fake {
		return fakeModel
	}
	return sess.Model
}

// PlannedRunContext returns the run context as far as it is known before
// the session of s opens: the backend, the model the session will name
// (the configured model; "fake-model" for the fake; for the reader its
// backend name), the revision, the stated server arguments and snap. The
// served template, the server entry and the secrets are the session's and
// stay empty. Its receipt ([PreviewReceipt]) is what a key is checked
// against before any request; [NewRunContext] gives the full context once
// the session is open.
func PlannedRunContext(s backend.Settings, snap Snapshot, revision string, stated *string) RunContext {
	model := s.Backend.String()
	switch s.Backend {
	case backend.LlamaCPP:
		model = s.LlamaCPP.MultimodalModel
	case backend.VLLM:
		model = s.VLLM.Model
	case backend.Fake:
		model = fakeModel
	}
	return RunContext{Backend: serving.Backend(s.Backend.String()), Model: model,
		ModelRevision: revision, StatedServerArgs: stated, Snapshot: snap}
}

// UnservedModelError is [NewRunContext]'s refusal of a vLLM model that is
// not one of the ids GET /v1/models lists: the first scoring call would
// only fail (404), so the run is refused before it. It names the model,
// not where the caller set it.
type UnservedModelError struct {
	// Model is the model id the session names.
	Model string
}

// Error returns "the vLLM server does not serve model "<model>": GET
// /v1/models lists no model with that id".
func (e *UnservedModelError) Error() string {
	return fmt.Sprintf("the vLLM server does not serve model %q: GET /v1/models lists no model with that id", e.Model)
}

// serverEntry returns the pins.server entry of sess: nil for the offline
// fake (no server, no pin); for the built-in reader, its pin
// (offlineServerEntry: build_info is the reader's version, backend_pin
// its version, font and constants); for llama.cpp and vLLM the entry the
// server reports ([serving.ReadServerEntry]), with the session's secrets
// masked in any error. A vLLM model that is not one of GET /v1/models'
// ids is an [*UnservedModelError].
func serverEntry(ctx context.Context, sess *backend.Session, model string) (*serving.ServerEntry, error) {
	switch sess.Backend {
	case backend.Fake:
		return nil, nil
	case backend.Reader:
		pin := reader.Options{}.Pin()
		return offlineServerEntry(pin.Version, pin)
	}
	e, err := serving.ReadServerEntry(ctx, sess.HTTPClient, sess.BaseURL, serving.Backend(sess.Backend.String()), model)
	if err != nil {
		return nil, fmt.Errorf("read the server entry: %w", sess.Secrets().Mask(err))
	}
	if sess.Backend == backend.VLLM && len(e.Served) == 0 {
		return nil, &UnservedModelError{Model: model}
	}
	return &e, nil
}

// NewRunContext returns the receipt context of a run with the open session
// sess: its backend, the model it names ("fake-model" for the fake), its
// served template, the server entry, its secrets, snap (taken before the
// first call: [TakeSnapshot], or orderings.TakeSnapshot for the
// option-order study), and the caller's model revision (pins.model_revision;
// required on vLLM, "" elsewhere) and stated server arguments
// (server_args.caller_stated; nil when not stated).
//
// The server entry (pins.server) is nil for the fake, the reader's pin
// for the built-in reader (build_info its version, backend_pin its
// version, font and constants), and for llama.cpp and
// vLLM what the server reports ([serving.ReadServerEntry]: GET /v1/models
// and the build), read now, before the first scoring call; a read error
// has the session's secrets masked. A vLLM model that GET /v1/models does
// not list is refused with an [*UnservedModelError].
func NewRunContext(ctx context.Context, sess *backend.Session, snap Snapshot, revision string, stated *string) (RunContext, error) {
	model := sessionModel(sess)
	entry, err := serverEntry(ctx, sess, model)
	if err != nil {
		return RunContext{}, err
	}
	return RunContext{
		Backend:          serving.Backend(sess.Backend.String()),
		Model:            model,
		ServedTemplate:   sess.ServedTemplate,
		ServerEntry:      entry,
		ModelRevision:    revision,
		StatedServerArgs: stated,
		Secrets:          sess.Secrets(),
		Snapshot:         snap,
	}, nil
}

// MetricsReader returns the /metrics reader of a run with sess, for
// [RunOptions].Metrics and a throughput sweep's Options.Metrics: on vLLM one GET
// /metrics through the session's client ([serving.Read]); nil for every
// other backend, which has no /metrics.
func MetricsReader(sess *backend.Session) func(context.Context) (string, bool) {
	if sess.Backend != backend.VLLM {
		return nil
	}
	return func(ctx context.Context) (string, bool) {
		return serving.Read(ctx, sess.HTTPClient, sess.BaseURL)
	}
}
