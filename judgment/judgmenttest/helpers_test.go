package judgmenttest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"testing"
)

// testModel is a small scripted model: NVocab 64 so full distributions are
// cheap, a text and an image answer for question "q", and an answer for
// "other".
func testModel() *Model {
	return &Model{
		NVocab: 64,
		Logprobs: Script{
			Text:  map[string]map[string]float64{"q": Probs(0.16, 0.04), "other": Probs(0.1, 0.2, 0.3)},
			Image: map[string]map[string]float64{"q": Probs(0.05, 0.15)},
		}.Logprobs,
	}
}

// do sends a request and returns the response with its whole body.
func do(t testing.TB, s *Server, method, path string, body any, header ...string) (*http.Response, []byte) {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = bytes.NewReader([]byte(b))
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	c := *s.Client() // a copy: the server's client is shared
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, raw
}

// decode unmarshals raw into a fresh T or fails the test.
func decode[T any](t testing.TB, raw []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode %s: %v", truncate(raw), err)
	}
	return v
}

func truncate(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// llamaBody is the exact /completion body typevet's llama.cpp client sends.
func llamaBody(prompt any, nProbs int) map[string]any {
	return map[string]any{
		"prompt": prompt, "model": DefaultModelID, "n_predict": 0, "n_probs": nProbs,
		"temperature": 0, "top_k": 0, "top_p": 1, "post_sampling_probs": false,
		"stream": false, "cache_prompt": false,
	}
}

// chatBody is the exact /v1/chat/completions body typevet's vLLM
// client sends.
func chatBody(content any, ids ...int) map[string]any {
	return map[string]any{
		"model":                      DefaultModelID,
		"messages":                   []any{map[string]any{"role": "user", "content": content}},
		"max_tokens":                 1,
		"temperature":                0,
		"logprobs":                   true,
		"logprob_token_ids":          ids,
		"return_tokens_as_token_ids": true,
		"add_generation_prompt":      true,
		"chat_template_kwargs":       map[string]any{"enable_thinking": false},
	}
}

// completion is the part of a llama.cpp /completion answer tests read.
type completion struct {
	Model           string `json:"model"`
	Content         string `json:"content"`
	TokensEvaluated int    `json:"tokens_evaluated"`
	TokensPredicted int    `json:"tokens_predicted"`
	Probs           []struct {
		ID      int     `json:"id"`
		Logprob float64 `json:"logprob"`
		Top     []struct {
			ID      int     `json:"id"`
			Token   string  `json:"token"`
			Bytes   []byte  `json:"-"`
			Logprob float64 `json:"logprob"`
		} `json:"top_logprobs"`
	} `json:"completion_probabilities"`
}

// logprobs maps each listed id to its logprob; it fails on a duplicate.
func (c completion) logprobs(t testing.TB) map[int]float64 {
	t.Helper()
	if len(c.Probs) != 1 {
		t.Fatalf("completion_probabilities has %d entries, want 1", len(c.Probs))
	}
	m := map[int]float64{}
	for _, e := range c.Probs[0].Top {
		if _, dup := m[e.ID]; dup {
			t.Fatalf("id %d listed twice", e.ID)
		}
		m[e.ID] = e.Logprob
	}
	return m
}

// chat is the part of a vLLM chat answer tests read.
type chat struct {
	Model   string `json:"model"`
	Choices []struct {
		Logprobs struct {
			Content []struct {
				Token   string  `json:"token"`
				Logprob float64 `json:"logprob"`
				Top     []struct {
					Token   string  `json:"token"`
					Logprob float64 `json:"logprob"`
				} `json:"top_logprobs"`
			} `json:"content"`
		} `json:"logprobs"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

func (c chat) logprobs(t testing.TB) map[string]float64 {
	t.Helper()
	m := map[string]float64{}
	for _, e := range c.Choices[0].Logprobs.Content[0].Top {
		if _, dup := m[e.Token]; dup {
			t.Fatalf("token %s listed twice", e.Token)
		}
		m[e.Token] = e.Logprob
	}
	return m
}

var pngBytes = []byte("\x89PNG\r\n\x1a\nfake image bytes")

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

// errMessage returns error.message of a llama.cpp or vLLM error body, or
// the raw body when it has none.
func errMessage(raw []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	return string(raw)
}
