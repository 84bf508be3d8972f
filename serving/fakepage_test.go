package serving_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/serving"
)

// TestFakeVLLMPageHasEverySeries: the fake vLLM's /metrics page, read
// around a few answered scoring calls with an image, gives a server block
// with no "unknown" field, as a real vLLM page does, and a cache
// configuration; a regression in reading any of them fails here.
func TestFakeVLLMPageHasEverySeries(t *testing.T) {
	srv := judgmenttest.NewVLLM(judgmenttest.CheckModel())
	t.Cleanup(srv.Close)
	read := func() serving.Reading {
		text, ok := serving.Read(context.Background(), srv.Client(), srv.URL)
		require.True(t, ok)
		return serving.Reading{Text: text, OK: true}
	}
	before := read()
	image := judgmenttest.CheckPNG()
	for range 4 {
		body := `{"model":"` + judgmenttest.DefaultModelID + `","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` +
			base64.StdEncoding.EncodeToString(image) + `"}},{"type":"text","text":"Is it signed?"}]}],"max_tokens":1,"temperature":0,"logprobs":true,"logprob_token_ids":[236771,236770],` +
			`"return_tokens_as_token_ids":true,"add_generation_prompt":true,"chat_template_kwargs":{"enable_thinking":false}}`
		resp, err := srv.Client().Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	after := read()
	d, err := serving.RunServerDelta(before, after)
	require.NoError(t, err)
	got := marshal(t, d)
	assert.NotContains(t, got, `"unknown"`, "every series typevet records: %s", got)
	assert.Equal(t, 4.0, d.Counters.MMCacheQueries.Number)
	assert.Equal(t, 3.0, d.Counters.MMCacheHits.Number, "one image sent four times")
	cfg, ok := serving.CacheConfig(after.Text)
	require.True(t, ok, "vllm:cache_config_info")
	bs, _ := cfg.Get("block_size")
	assert.Equal(t, "16", bs)
}

// TestReadServerEntryVLLMAlias: vLLM lists a /v1/models card per served
// name, all with the --model path as root, and answers under the first
// name; a run naming a later one is refused before its first scoring
// call (it would fail at the first judgment, every answer naming
// another model), and the first name is read with its root.
func TestReadServerEntryVLLMAlias(t *testing.T) {
	srv := judgmenttest.NewUnstartedVLLM(&judgmenttest.Model{Aliases: []string{"judge"}})
	srv.ModelPath = "/models/google/gemma-4-31B-it"
	srv.Start()
	t.Cleanup(srv.Close)
	_, err := serving.ReadServerEntry(context.Background(), srv.Client(), srv.URL, serving.VLLM, "judge")
	var ae *serving.AliasError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, `the vLLM server serves "judge" as another name of "`+judgmenttest.DefaultModelID+`" and answers every request for it as "`+
		judgmenttest.DefaultModelID+`"; name the model "`+judgmenttest.DefaultModelID+`"`, err.Error())
	assert.Zero(t, srv.Count("/v1/chat/completions"))
	e, err := serving.ReadServerEntry(context.Background(), srv.Client(), srv.URL, serving.VLLM, judgmenttest.DefaultModelID)
	require.NoError(t, err)
	require.Len(t, e.Served, 1)
	assert.Equal(t, "/models/google/gemma-4-31B-it", *e.Served[0].Root)
}
