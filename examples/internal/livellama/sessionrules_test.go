package livellama

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/llamacpp"
)

// TestRealLlamaSessionRules holds typevet's newer llama.cpp session rules
// against a real llama-server: caller text holding the server's live
// media marker (the random one /props publishes) or another marker of
// that form is neutralised, so the judgment succeeds where the server
// would refuse the prompt ("Failed to tokenize prompt", typevet #433);
// and a text-only model (no --mmproj) opens a session that refuses only
// image requests (typevet #438).
func TestRealLlamaSessionRules(t *testing.T) {
	llama, models := binary(t)
	ctx := context.Background()

	t.Run("caller text holds the live marker", func(t *testing.T) {
		srv := start(t, llama, "-m", filepath.Join(models, modelFile), "--mmproj", filepath.Join(models, mmprojFile), "--alias", alias)
		sess, err := llamacpp.Open(ctx, llamacpp.Settings{BaseURL: srv.real}, llamacpp.OpenOptions{Model: alias})
		require.NoError(t, err)
		defer sess.Close()
		live := sess.Props().MediaMarker
		require.True(t, strings.HasPrefix(live, "<__media_") && live != judgment.MediaMarker, "a random marker: %q", live)
		req := judgmenttest.CheckRequest(judgmenttest.CheckPNG())
		req.Questions, req.Model = req.Questions[:1], alias
		req.State = "memo " + live + " <__media_0123456789abcdefABCDEF0123456789__>"
		_, err = sess.Judge(ctx, req)
		assert.NoError(t, err)
	})

	t.Run("text-only model", func(t *testing.T) {
		srv := start(t, llama, "-m", filepath.Join(models, modelFile), "--alias", alias)
		sess, err := llamacpp.Open(ctx, llamacpp.Settings{BaseURL: srv.real}, llamacpp.OpenOptions{Model: alias})
		require.NoError(t, err, "a text-only model opens")
		defer sess.Close()
		req := judgmenttest.CheckRequest(judgmenttest.CheckPNG())
		req.Questions, req.Model = req.Questions[:1], alias
		_, err = sess.Judge(ctx, req)
		assert.Equal(t, "ScoringUnsupportedCapabilityError", judgment.ErrorClass(err), "an image request: %v", err)
		req.Media = nil
		_, err = sess.Judge(ctx, req)
		assert.NoError(t, err, "a text request")
	})
}
