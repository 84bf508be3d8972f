package cli

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/judgment/backend"
)

// TestReadServing: the backend settings, the vLLM revision rule, the
// porcelain and stated texts, and the key-free refusal by variable name
// (never the value) on every backend, since image runs record
// caller_stated on every backend.
func TestReadServing(t *testing.T) {
	const key = "sk-serving-7"
	vllm := map[string]string{"TYPEVET_BACKEND": "vllm", "TYPEVET_VLLM__BASE_URL": "http://127.0.0.1:1",
		"TYPEVET_VLLM__MODEL": "m", "TYPEVET_VLLM__API_KEY": key, EnvRevision: " rev-1 "}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string // "" = no error; else the variable the usage error names
	}{
		{name: "vllm", env: with(vllm, EnvPorcelain, "", EnvServerArgs, "--max-num-seqs 4")},
		{name: "vllm without revision", env: with(vllm, EnvRevision, "  "), wantErr: EnvRevision},
		{name: "key in stated args on vllm", env: with(vllm, EnvServerArgs, "--api-key "+key), wantErr: EnvServerArgs},
		{name: "key in porcelain", env: with(vllm, EnvPorcelain, "?? "+key+".txt\n"), wantErr: EnvPorcelain},
		{name: "authorization in stated args on llama.cpp", env: map[string]string{EnvServerArgs: "--header Authorization"}, wantErr: EnvServerArgs},
		{name: "fake, nothing recorded", env: map[string]string{"TYPEVET_BACKEND": "fake"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ReadServing(NewEnv(nil, nil, envOf(tt.env), nil))
			if tt.wantErr != "" {
				var ue *UsageError
				require.True(t, errors.As(err, &ue), "err = %v, want a usage error", err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.NotContains(t, err.Error(), key)
				return
			}
			require.NoError(t, err)
			if s.Settings.Backend == backend.VLLM {
				assert.Equal(t, "rev-1", s.Revision, "the revision is stripped")
			}
			if v, ok := tt.env[EnvServerArgs]; ok {
				require.NotNil(t, s.Stated)
				assert.Equal(t, v, *s.Stated, "stated verbatim")
			}
			_, set := tt.env[EnvPorcelain]
			assert.Equal(t, set, s.Porcelain != nil)
		})
	}
}
