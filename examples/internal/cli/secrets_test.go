package cli

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/judgment/backend"
)

// TestSecrets: the secrets known from the settings (backend.Settings.Secrets)
// equal the ones the open session reports (vLLM opens without a network call).
func TestSecrets(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{name: "vllm key and headers", env: map[string]string{
			"TYPEVET_BACKEND": "vllm", "TYPEVET_VLLM__BASE_URL": "http://127.0.0.1:1", "TYPEVET_VLLM__MODEL": "m",
			"TYPEVET_VLLM__API_KEY": "K1", "TYPEVET_VLLM__HEADERS": `{"X-A": "hv1", "X-B": "hv2"}`,
		}, want: []string{"K1", "hv1", "hv2"}},
		{name: "vllm none", env: map[string]string{
			"TYPEVET_BACKEND": "vllm", "TYPEVET_VLLM__BASE_URL": "http://127.0.0.1:1", "TYPEVET_VLLM__MODEL": "m",
		}},
		{name: "fake", env: map[string]string{"TYPEVET_BACKEND": "fake", "TYPEVET_VLLM__API_KEY": "K1"}},
		{name: "reader", env: map[string]string{"TYPEVET_BACKEND": "reader", "TYPEVET_LLAMA__API_KEY": "K1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := backend.SettingsFromEnv(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			require.NoError(t, err)
			got := s.Secrets().Values()
			assert.Equal(t, tt.want, got)
			if s.Backend == backend.VLLM || s.Backend == backend.Fake || s.Backend == backend.Reader {
				sess, err := backend.Open(context.Background(), s, "")
				require.NoError(t, err)
				defer sess.Close()
				assert.Equal(t, sess.Secrets(), s.Secrets(), "settings and session agree")
			}
		})
	}
}

func TestSecretsLlamaCPP(t *testing.T) {
	s, err := backend.SettingsFromEnv(func(k string) (string, bool) {
		v, ok := map[string]string{"TYPEVET_LLAMA__API_KEY": "LK", "TYPEVET_LLAMA__HEADERS": `{"X-A": "lh"}`}[k]
		return v, ok
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"LK", "lh"}, s.Secrets().Values())
	assert.Equal(t, []NamedSecret{{Name: "TYPEVET_LLAMA__API_KEY", Value: "LK"}, {Name: "TYPEVET_LLAMA__HEADERS (header X-A)", Value: "lh"}}, NamedSecrets(s))
}
