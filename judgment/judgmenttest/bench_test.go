package judgmenttest

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
)

// serveOnce answers one request in-process (no network) and checks the
// status; tests and benchmarks share it.
func serveOnce(tb testing.TB, s *Server, path string, body []byte) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	w := httptest.NewRecorder()
	s.serve(w, r)
	if w.Code != 200 {
		tb.Fatalf("%s: status %d: %s", path, w.Code, truncate(w.Body.Bytes()))
	}
	return w
}

func mustJSON(tb testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// A large vocabulary goes through the cached filler entries; the answer
// stays the scripted distribution over every token. (5000 tokens keep the
// race-enabled run short; the code path is the one of 262144.)
func TestServeOnceLargeVocabulary(t *testing.T) {
	const n = 5000
	s := NewLlamaCPP(&Model{NVocab: n, Logprobs: testModel().Logprobs})
	defer s.Close()
	for range 2 { // the second answer reuses the filler table
		w := serveOnce(t, s, "/completion", mustJSON(t, llamaBody(textPrompt, n)))
		lp := decode[completion](t, w.Body.Bytes()).logprobs(t)
		var terms []float64
		for _, v := range lp {
			terms = append(terms, math.Exp(v))
		}
		if len(lp) != n || math.Abs(fsum(terms)-1) > 1e-9 || !near(lp[236770], math.Log(0.04)) {
			t.Errorf("%d entries with mass %v", len(lp), fsum(terms))
		}
	}
}

func benchServe(b *testing.B, s *Server, path string, body []byte) {
	defer s.Close()
	b.ReportAllocs()
	b.SetBytes(int64(len(serveOnce(b, s, path, body).Body.Bytes())))
	b.ResetTimer()
	for b.Loop() {
		serveOnce(b, s, path, body)
	}
	b.StopTimer()
	s.mu.Lock()
	s.records = nil // keep memory flat between runs
	s.mu.Unlock()
}

// BenchmarkLlamaCompletion64 is the server cost of one scoring answer with
// a 64-token vocabulary (the conformance model); bytes/s count the answer.
func BenchmarkLlamaCompletion64(b *testing.B) {
	benchServe(b, NewLlamaCPP(testModel()), "/completion", mustJSON(b, llamaBody(textPrompt, 64)))
}

// BenchmarkLlamaCompletionGemmaVocab returns all 262144 entries, as a
// real Gemma 4 server does.
func BenchmarkLlamaCompletionGemmaVocab(b *testing.B) {
	benchServe(b, NewLlamaCPP(&Model{Logprobs: testModel().Logprobs}), "/completion", mustJSON(b, llamaBody(textPrompt, DefaultNVocab)))
}

// BenchmarkVLLMChatImage answers one scoring request with a 1 MiB image.
func BenchmarkVLLMChatImage(b *testing.B) {
	img := make([]byte, 1<<20)
	content := []any{
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + b64(img)}},
		map[string]any{"type": "text", "text": userText},
	}
	benchServe(b, NewVLLM(testModel()), "/v1/chat/completions", mustJSON(b, chatBody(content, 236771, 236770)))
}
