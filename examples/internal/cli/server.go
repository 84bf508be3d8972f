package cli

import (
	"context"
	"fmt"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/judgment/reader"
	"github.com/typevet/typevet-go/serving"
)

// FakeModel is the model name receipts of the offline fake record (the
// fake session pins none).
const FakeModel = "fake-model"

// Model returns the model id a run with sess names: the session's, or
// [FakeModel] for the fake.
func Model(sess *backend.Session) string {
	if sess.Backend == backend.Fake {
		return FakeModel
	}
	return sess.Model
}

// SettingsModel is the model a session opened with s will name, known
// before the session opens ([Model] once it is open).
func SettingsModel(s backend.Settings) string {
	switch s.Backend {
	case backend.LlamaCPP:
		return s.LlamaCPP.MultimodalModel
	case backend.VLLM:
		return s.VLLM.Model
	case backend.Fake:
		return FakeModel
	}
	return s.Backend.String()
}

// ServerEntry returns the pins.server entry of sess: nil for the offline
// fake (no server, no pin); for the built-in reader, its pin
// ([checkmatch.OfflineServerEntry]: build_info is the reader's version,
// backend_pin its version, font and constants); for llama.cpp and vLLM
// the entry the server reports ([serving.ReadServerEntry]), with the
// session's secrets masked in any error. A vLLM model that is not one of
// GET /v1/models' ids is refused here, before the first scoring call.
func ServerEntry(ctx context.Context, sess *backend.Session, model string) (*serving.ServerEntry, error) {
	switch sess.Backend {
	case backend.Fake:
		return nil, nil
	case backend.Reader:
		pin := reader.Options{}.Pin()
		return checkmatch.OfflineServerEntry(pin.Version, pin)
	}
	e, err := serving.ReadServerEntry(ctx, sess.HTTPClient, sess.BaseURL, serving.Backend(sess.Backend.String()), model)
	if err != nil {
		return nil, fmt.Errorf("read the server entry: %w", sess.Secrets().Mask(err))
	}
	if sess.Backend == backend.VLLM && len(e.Served) == 0 {
		// Refuse before the first scoring call, which would only 404.
		return nil, fmt.Errorf("%s names a model the server does not serve: GET /v1/models lists no model with that id", EnvVLLMModel)
	}
	return &e, nil
}

// NewRunContext returns the receipt context of a run with the open session
// sess: backend, model ([Model]), served template, server entry
// ([ServerEntry]), the session's secrets, the snapshot taken before the
// first call, and the caller's revision and stated server arguments.
func NewRunContext(ctx context.Context, sess *backend.Session, snap checkmatch.Snapshot, revision string, stated *string) (checkmatch.RunContext, error) {
	model := Model(sess)
	entry, err := ServerEntry(ctx, sess, model)
	if err != nil {
		return checkmatch.RunContext{}, err
	}
	return checkmatch.RunContext{
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

// MetricsReader returns the /metrics reader of a vLLM session (one GET
// /metrics through the session's client, [serving.Read]) and nil for every
// other backend, which has no /metrics.
func MetricsReader(sess *backend.Session) func(context.Context) (string, bool) {
	if sess.Backend != backend.VLLM {
		return nil
	}
	return func(ctx context.Context) (string, bool) {
		return serving.Read(ctx, sess.HTTPClient, sess.BaseURL)
	}
}
