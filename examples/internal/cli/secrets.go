package cli

import (
	"errors"
	"slices"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/backend"
	"github.com/typevet/typevet-go/receipt"
)

// NamedSecret is a secret and the variable that set it.
type NamedSecret struct {
	// Name names the variable ("TYPEVET_VLLM__API_KEY", or
	// "TYPEVET_VLLM__HEADERS (header X-Team)").
	Name string
	// Value is the secret; never print it.
	Value string
}

// NamedSecrets returns the secrets of s ([backend.Settings.Secrets]: the
// values the session will mask and the receipt writer refuses), each with
// the variable that set it, for messages that name the variable.
func NamedSecrets(s backend.Settings) []NamedSecret {
	var prefix string
	var headers []judgment.Header
	switch s.Backend {
	case backend.LlamaCPP:
		prefix, headers = "TYPEVET_LLAMA__", s.LlamaCPP.Headers
	case backend.VLLM:
		prefix, headers = "TYPEVET_VLLM__", s.VLLM.Headers
	}
	names := backendhttp.EnvNames(prefix)
	secrets := s.Secrets()
	var out []NamedSecret
	for _, k := range secrets.Keys {
		out = append(out, NamedSecret{Name: names.APIKey, Value: k})
	}
	for _, v := range secrets.HeaderValues {
		i := slices.IndexFunc(headers, func(h judgment.Header) bool { return h.Value == v })
		out = append(out, NamedSecret{Name: names.Headers + " (header " + headers[i].Name + ")", Value: v})
	}
	return out
}

// secretIn returns the first of secrets that occurs in b the way the
// receipt's key-free check finds it ([receipt.CheckKeyFree]).
func secretIn(b []byte, secrets []NamedSecret) (NamedSecret, bool) {
	for _, s := range secrets {
		if bytesHoldSecret(b, s.Value) {
			return s, true
		}
	}
	return NamedSecret{}, false
}

// bytesHoldSecret reports whether b holds secret verbatim or escaped.
func bytesHoldSecret(b []byte, secret string) bool {
	var nk *receipt.NotKeyFreeError
	err := receipt.CheckKeyFree(b, judgment.Secrets{Keys: []string{secret}})
	return errors.As(err, &nk) && nk.Reason == "a configured secret"
}

// CheckFixedText refuses, before the first request, a secret of s that
// occurs in a receipt's fixed text: preview is the receipt the run would
// write ([checkmatch.PreviewReceipt]), whose backend and model names,
// question and label words and key names are in every real one. A key
// such as "vllm" on a vLLM run would make the finished receipt
// unwritable; the refusal is a [*UsageError] naming the variable, never
// the value.
func CheckFixedText(s backend.Settings, preview any) error {
	b, err := receipt.Marshal(preview)
	if err != nil {
		return err
	}
	if n, ok := secretIn(b, NamedSecrets(s)); ok {
		return Usagef("%s occurs in the receipt's own text (backend and model names, question and label words, key names), "+
			"so no receipt of this run could be written: choose a key that is not a word of the receipt; nothing was sent", n.Name)
	}
	return nil
}

// CheckServerText refuses, before the first scoring call, a receipt whose
// text from the server (pins.server: llama.cpp's /props build_info,
// vLLM's /version and /v1/models root) holds a secret of s,
// "authorization" or "bearer ": such a receipt could never be written.
// preview is the receipt the run would write, with the server entry.
func CheckServerText(s backend.Settings, entry any, preview any) error {
	eb, err := receipt.Marshal(entry)
	if err != nil {
		return err
	}
	if receipt.CheckKeyFree(eb, s.Secrets()) != nil {
		return errors.New("the server's answer that the receipt records (pins.server: llama.cpp GET /props build_info, vLLM GET /version or /v1/models root) " +
			"holds a key or an auth header, so no receipt of this run could be written; nothing was judged: check the server or the proxy in front of it")
	}
	b, err := receipt.Marshal(preview)
	if err != nil {
		return err
	}
	if n, ok := secretIn(b, NamedSecrets(s)); ok {
		return Usagef("%s occurs in the receipt's own text, so no receipt of this run could be written: choose another; nothing was judged", n.Name)
	}
	return nil
}
