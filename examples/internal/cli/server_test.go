package cli

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment/backend"
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
			rc, err := NewRunContext(context.Background(), sess, snap, "", nil)
			require.NoError(t, err)
			assert.Nil(t, MetricsReader(sess))
			assert.Equal(t, name.String(), string(rc.Backend))
			assert.Equal(t, snap, rc.Snapshot)
			if name == backend.Fake {
				assert.Equal(t, FakeModel, rc.Model)
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
