package serving

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const vllmModels = `{"object":"list","data":[
 {"id":"google/gemma-4-31B-it","object":"model","created":1,"owned_by":"vllm","root":"google/gemma-4-31B-it","parent":null,"max_model_len":8192,"permission":[]},
 {"id":"other","root":"other","max_model_len":4096}]}`

// entryServer serves fixed bodies per path; a missing path is a 404.
func entryServer(t *testing.T, routes map[string]func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := routes[r.URL.Path]; ok {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func body(s string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(s)) }
}

func status(code int, s string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code); _, _ = w.Write([]byte(s)) }
}

func TestReadServerEntry(t *testing.T) {
	const model = "google/gemma-4-31B-it"
	var propsQuery string
	props := func(s string) func(http.ResponseWriter, *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) { propsQuery = r.URL.RawQuery; _, _ = w.Write([]byte(s)) }
	}
	tests := []struct {
		name, reason string
		backend      Backend
		model        string
		routes       map[string]func(http.ResponseWriter, *http.Request)
		want         string // compact JSON of the entry
		wantErr      string
	}{
		{name: "vLLM", backend: VLLM, routes: map[string]func(http.ResponseWriter, *http.Request){
			"/v1/models": body(vllmModels), "/version": body(`{"version":"0.30.0"}`)},
			want: `{"served":[{"id":"google/gemma-4-31B-it","root":"google/gemma-4-31B-it","max_model_len":8192}],"build_info":"0.30.0"}`},
		{name: "vLLM version 500", reason: "typevet: unknown when /version is not 200", backend: VLLM,
			routes: map[string]func(http.ResponseWriter, *http.Request){"/v1/models": body(vllmModels), "/version": status(500, "not json")},
			want:   `{"served":[{"id":"google/gemma-4-31B-it","root":"google/gemma-4-31B-it","max_model_len":8192}],"build_info":"unknown"}`},
		{name: "vLLM version not JSON", reason: "decision: any /version failure is unknown", backend: VLLM,
			routes: map[string]func(http.ResponseWriter, *http.Request){"/v1/models": body(vllmModels), "/version": body("0.30.0")},
			want:   `{"served":[{"id":"google/gemma-4-31B-it","root":"google/gemma-4-31B-it","max_model_len":8192}],"build_info":"unknown"}`},
		{name: "model not served", backend: VLLM, model: "nope",
			routes: map[string]func(http.ResponseWriter, *http.Request){"/v1/models": body(vllmModels), "/version": body(`{"version":"0.30.0"}`)},
			want:   `{"served":[],"build_info":"0.30.0"}`},
		{name: "absent and odd keys left out", reason: "root null and max_model_len as text are not kept", backend: VLLM,
			routes: map[string]func(http.ResponseWriter, *http.Request){
				"/v1/models": body(`{"data":[{"id":"google/gemma-4-31B-it","root":null,"max_model_len":"8192"},{"id":"google/gemma-4-31B-it"}]}`),
				"/version":   body(`{"version":"0.30.0"}`)},
			want: `{"served":[{"id":"google/gemma-4-31B-it"},{"id":"google/gemma-4-31B-it"}],"build_info":"0.30.0"}`},
		{name: "llama.cpp", backend: LlamaCPP, routes: map[string]func(http.ResponseWriter, *http.Request){
			"/v1/models": body(`{"object":"list","data":[{"id":"google/gemma-4-31B-it","object":"model","owned_by":"llamacpp","meta":{"n_vocab":262144}}]}`),
			"/props":     props(`{"build_info":"b6000-abc","model_alias":"gemma","default_generation_settings":{"n_ctx":8192},"modalities":{"vision":true}}`)},
			want:   `{"served":[{"id":"google/gemma-4-31B-it"}],"build_info":"b6000-abc","model_alias":"gemma","n_ctx":8192}`,
			reason: "no http_keepalive: typevet writes it only in face-match receipts"},
		{name: "llama.cpp props without the facts", reason: "build_info defaults to unknown; alias and n_ctx are null", backend: LlamaCPP,
			routes: map[string]func(http.ResponseWriter, *http.Request){"/v1/models": body(`{"data":[]}`), "/props": props(`{}`)},
			want:   `{"served":[],"build_info":"unknown","model_alias":null,"n_ctx":null}`},
		{name: "models 500", backend: VLLM, routes: map[string]func(http.ResponseWriter, *http.Request){"/v1/models": status(500, "boom")},
			wantErr: "serving: GET /v1/models: HTTP 500"},
		{name: "models not JSON", backend: VLLM, routes: map[string]func(http.ResponseWriter, *http.Request){"/v1/models": body("<html>")},
			wantErr: "serving: GET /v1/models: the body is not JSON; is the base URL the server's root?"},
		{name: "models data a number", reason: "junk JSON is named by field and kind, not by Go struct", backend: VLLM,
			routes:  map[string]func(http.ResponseWriter, *http.Request){"/v1/models": body(`{"data": 7}`)},
			wantErr: `serving: GET /v1/models: "data" is a JSON number where the server should send a list; is the base URL the server's root?`},
		{name: "models without data", backend: VLLM, routes: map[string]func(http.ResponseWriter, *http.Request){"/v1/models": body(`{}`)},
			wantErr: "serving: GET /v1/models: no data list"},
		{name: "llama.cpp props 404", backend: LlamaCPP, routes: map[string]func(http.ResponseWriter, *http.Request){"/v1/models": body(`{"data":[]}`)},
			wantErr: "serving: GET /props: HTTP 404"},
		{name: "unknown backend", backend: "ollama", wantErr: `serving: backend "ollama" has no server entry`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := entryServer(t, tt.routes)
			m := tt.model
			if m == "" {
				m = model
			}
			e, err := ReadServerEntry(context.Background(), srv.Client(), srv.URL, tt.backend, m)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			got, err := json.Marshal(e)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			var back ServerEntry
			require.NoError(t, json.Unmarshal(got, &back))
			assert.Equal(t, e, back, "the entry reads back")
		})
	}
	assert.Equal(t, "model=google%2Fgemma-4-31B-it", propsQuery, "the model is sent escaped")

	t.Run("HTTPError is typed", func(t *testing.T) {
		srv := entryServer(t, map[string]func(http.ResponseWriter, *http.Request){"/v1/models": status(503, "")})
		_, err := ReadServerEntry(context.Background(), srv.Client(), srv.URL, VLLM, model)
		var he *HTTPError
		require.True(t, errors.As(err, &he))
		assert.Equal(t, HTTPError{Path: "/v1/models", StatusCode: 503}, *he)
	})
	t.Run("cancelled during /version", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		srv := entryServer(t, map[string]func(http.ResponseWriter, *http.Request){
			"/v1/models": body(vllmModels),
			"/version":   func(w http.ResponseWriter, r *http.Request) { cancel(); <-r.Context().Done() },
		})
		_, err := ReadServerEntry(ctx, srv.Client(), srv.URL, VLLM, model)
		assert.ErrorIs(t, err, context.Canceled)
	})
}

func TestServerEntryJSON(t *testing.T) {
	tests := []struct{ name, in string }{
		{"vLLM", `{"served":[{"id":"m","root":"r","max_model_len":8192}],"build_info":"0.30.0"}`},
		{"llama.cpp", `{"served":[{"id":"m"}],"build_info":"b1","model_alias":"a","n_ctx":4096,"http_keepalive":true}`},
		{"llama.cpp nulls", `{"served":[],"build_info":"unknown","model_alias":null,"n_ctx":null,"http_keepalive":true}`},
		{"llama.cpp without http_keepalive", `{"served":[{"id":"m"}],"build_info":"b1","model_alias":"a","n_ctx":4096}`},
		{"llama.cpp nulls without http_keepalive", `{"served":[],"build_info":"unknown","model_alias":null,"n_ctx":null}`},
		{"offline backend pin", `{"served":[],"build_info":"typevet-go-reader/1","backend_pin":{"name":"reader","version":"typevet-go-reader/1","constants":{"ink_low":0.25}}}`},
		{"HTML characters left to the receipt writer", `{"served":[{"id":"a<b>&c","root":"<r>"}],"build_info":"<b>","model_alias":"x&y","n_ctx":1,"http_keepalive":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e ServerEntry
			require.NoError(t, json.Unmarshal([]byte(tt.in), &e))
			var out jsonBuffer
			require.NoError(t, out.encode(e))
			assert.Equal(t, tt.in, out.String())
		})
	}
	out, err := json.Marshal(ServerEntry{BuildInfo: "x"})
	require.NoError(t, err)
	assert.Equal(t, `{"served":[],"build_info":"x"}`, string(out), "nil Served is written as []")
	assert.Error(t, json.Unmarshal([]byte(`{"served":{}}`), new(ServerEntry)))
	for _, bad := range []string{`"x"`, `[1]`, `null`, `3`} {
		err := json.Unmarshal([]byte(`{"served":[],"build_info":"v","backend_pin":`+bad+`}`), new(ServerEntry))
		if bad == `null` {
			assert.NoError(t, err, "a null pin is no pin")
			continue
		}
		assert.ErrorContains(t, err, "backend_pin is not a JSON object", bad)
	}
	assert.Equal(t, "llama_cpp", LlamaCPP.String())
}
