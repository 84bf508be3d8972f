package checkmatch_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/reader"
	"github.com/typevet/typevet-go/receipt"
)

// TestNewRunContextOffline: the fake has no server entry and the model
// "fake-model"; the reader's entry is its pin; neither reads /metrics.
func TestNewRunContextOffline(t *testing.T) {
	snap := checkmatch.Snapshot{BaselineCommit: receipt.Unknown}
	for _, name := range []backend.Name{backend.Fake, backend.Reader} {
		t.Run(name.String(), func(t *testing.T) {
			sess, err := backend.Open(context.Background(), backend.Settings{Backend: name}, "")
			require.NoError(t, err)
			defer sess.Close()
			rc, err := checkmatch.NewRunContext(context.Background(), sess, snap, "", nil)
			require.NoError(t, err)
			assert.Nil(t, checkmatch.MetricsReader(sess))
			assert.Equal(t, name.String(), string(rc.Backend))
			assert.Equal(t, snap, rc.Snapshot)
			planned := checkmatch.PlannedRunContext(backend.Settings{Backend: name}, snap, "", nil)
			assert.Equal(t, rc.Model, planned.Model, "the planned context names the session's model")
			if name == backend.Fake {
				assert.Equal(t, "fake-model", rc.Model)
				assert.Nil(t, rc.ServerEntry)
				return
			}
			assert.Equal(t, reader.BackendName, rc.Model)
			require.NotNil(t, rc.ServerEntry)
			assert.Equal(t, reader.Version, rc.ServerEntry.BuildInfo)
			var pin reader.Pin
			require.NoError(t, json.Unmarshal(rc.ServerEntry.BackendPin, &pin))
			assert.Equal(t, reader.Options{}.Pin(), pin)
		})
	}
}

// TestNewRunContextVLLM: the context of a vLLM session holds the server's
// entry, the caller's revision and statement and the session's secrets;
// its metrics reader reads the server's /metrics; a model /v1/models does
// not list is an UnservedModelError that names no variable.
func TestNewRunContextVLLM(t *testing.T) {
	srv := judgmenttest.NewVLLM(nil)
	t.Cleanup(srv.Close)
	settings := func(model string) backend.Settings {
		s, err := backend.SettingsFromEnv(func(k string) (string, bool) {
			v, ok := map[string]string{"TYPEVET_BACKEND": "vllm", "TYPEVET_VLLM__BASE_URL": srv.URL,
				"TYPEVET_VLLM__MODEL": model, "TYPEVET_VLLM__API_KEY": "sk-session-0123"}[k]
			return v, ok
		})
		require.NoError(t, err)
		return s
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stated := "--max-num-seqs 8"
	sess, err := backend.Open(ctx, settings(judgmenttest.DefaultModelID), "")
	require.NoError(t, err)
	defer sess.Close()
	rc, err := checkmatch.NewRunContext(ctx, sess, checkmatch.Snapshot{}, "rev-1", &stated)
	require.NoError(t, err)
	assert.Equal(t, "vllm", string(rc.Backend))
	assert.Equal(t, judgmenttest.DefaultModelID, rc.Model)
	assert.Equal(t, "rev-1", rc.ModelRevision)
	assert.Equal(t, &stated, rc.StatedServerArgs)
	assert.Contains(t, rc.Secrets.Values(), "sk-session-0123")
	require.NotNil(t, rc.ServerEntry)
	assert.NotEmpty(t, rc.ServerEntry.Served)
	planned := checkmatch.PlannedRunContext(settings(judgmenttest.DefaultModelID), checkmatch.Snapshot{}, "rev-1", &stated)
	assert.Equal(t, rc.Model, planned.Model)
	assert.Equal(t, rc.Backend, planned.Backend)

	read := checkmatch.MetricsReader(sess)
	require.NotNil(t, read)
	before := srv.Count("/metrics")
	text, ok := read(ctx)
	assert.True(t, ok)
	assert.Contains(t, text, "vllm:")
	assert.Equal(t, before+1, srv.Count("/metrics"))

	other, err := backend.Open(ctx, settings("gemma-typo"), "")
	require.NoError(t, err)
	defer other.Close()
	_, err = checkmatch.NewRunContext(ctx, other, checkmatch.Snapshot{}, "rev-1", nil)
	var ue *checkmatch.UnservedModelError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "gemma-typo", ue.Model)
	assert.NotContains(t, err.Error(), "TYPEVET_")
	assert.Zero(t, srv.Count("/v1/chat/completions"), "refused before any scoring call")
}
