package cli

import (
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/judgment/backend/backendhttp"
)

// Secrets returns the secrets of the session s selects, known before it
// opens: the API key and the extra header values of the llama.cpp or vLLM
// settings (the values backend.Session.Secrets returns once open); none for
// the offline backends. A command checks its receipt inputs against them
// before any network call.
func Secrets(s backend.Settings) []string {
	var key string
	var headers []backendhttp.Header
	switch s.Backend {
	case backend.LlamaCPP:
		key, headers = s.LlamaCPP.APIKey, s.LlamaCPP.Headers
	case backend.VLLM:
		key, headers = s.VLLM.APIKey, s.VLLM.Headers
	default:
		return nil
	}
	var out []string
	if key != "" {
		out = append(out, key)
	}
	for _, h := range headers {
		if h.Value != "" {
			out = append(out, h.Value)
		}
	}
	return out
}
