package judgmenttest

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"
)

func TestVLLMTokenize(t *testing.T) {
	s := NewVLLM(nil)
	defer s.Close()
	tests := []struct {
		name   string
		body   map[string]any
		status int
		want   []int
	}{
		{"control 0", map[string]any{"model": DefaultModelID, "prompt": "0", "add_special_tokens": false}, 200, []int{236771}},
		{"control 3", map[string]any{"model": DefaultModelID, "prompt": "3", "add_special_tokens": false}, 200, []int{236800}},
		{"special tokens by default", map[string]any{"model": DefaultModelID, "prompt": "1"}, 200, []int{bosID, 236770}},
		{"unknown model", map[string]any{"model": "x", "prompt": "1"}, 404, nil},
		{"prompt not a string", map[string]any{"model": DefaultModelID, "prompt": 1}, 400, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, raw := do(t, s, "POST", "/tokenize", tt.body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d: %s", resp.StatusCode, raw)
			}
			if tt.status != 200 {
				return
			}
			got := decode[struct {
				Count       int   `json:"count"`
				MaxModelLen int   `json:"max_model_len"`
				Tokens      []int `json:"tokens"`
			}](t, raw)
			if !slices.Equal(got.Tokens, tt.want) || got.Count != len(tt.want) || got.MaxModelLen != 8192 {
				t.Errorf("got %+v, want tokens %v", got, tt.want)
			}
		})
	}
}

const userText = "state\n\nq: Is it so?\n\nOptions:\nControl 0 → False\nControl 1 → True\n\nAnswer."

func tokenID(id int) string { return fmt.Sprintf("token_id:%d", id) }

func TestVLLMChat(t *testing.T) {
	chatPrompt := func(user string) string {
		return "<bos><|turn>user\n" + user + "<turn|>\n<|turn>model\n<|channel>thought\n<channel|>"
	}
	tests := []struct {
		name       string
		content    any
		wantP      [2]float64 // p of controls 0 and 1
		wantTokens int
		images     int
		markers    int
	}{
		{name: "text", content: userText, wantP: [2]float64{0.16, 0.04},
			wantTokens: utf8.RuneCountInString(chatPrompt(userText))},
		{name: "image block then text", content: []any{
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + b64(pngBytes)}},
			map[string]any{"type": "text", "text": userText},
		}, wantP: [2]float64{0.05, 0.15}, wantTokens: utf8.RuneCountInString(chatPrompt("\n"+userText)) + DefaultImageTokens, images: 1},
		{name: "marker left in the text", content: []any{
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + b64(pngBytes)}},
			map[string]any{"type": "text", "text": "<__media__>\n" + userText},
		}, wantP: [2]float64{0.05, 0.15}, wantTokens: utf8.RuneCountInString(chatPrompt("\n\n"+userText)) + DefaultImageTokens, images: 1, markers: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewVLLM(testModel())
			defer s.Close()
			resp, raw := do(t, s, "POST", "/v1/chat/completions", chatBody(tt.content, 236771, 236770, 236778))
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, raw)
			}
			c := decode[chat](t, raw)
			lp := c.logprobs(t)
			if !near(lp[tokenID(236771)], math.Log(tt.wantP[0])) || !near(lp[tokenID(236770)], math.Log(tt.wantP[1])) ||
				lp[tokenID(236778)] != UnknownLogprob {
				t.Errorf("logprobs %v", lp)
			}
			// The sampled token is listed too; here the off token (half of
			// the 0.8 non-control mass) beats every candidate.
			if got := c.Choices[0].Logprobs.Content[0].Token; got != tokenID(DefaultOffToken) || len(lp) != 4 {
				t.Errorf("sampled %s, %d entries; want %s and 4", got, len(lp), tokenID(DefaultOffToken))
			}
			if c.Usage.PromptTokens != tt.wantTokens || c.Usage.CompletionTokens != 1 || c.Model != DefaultModelID ||
				c.Choices[0].FinishReason != "length" {
				t.Errorf("usage %+v model %q finish %q; want prompt_tokens %d", c.Usage, c.Model, c.Choices[0].FinishReason, tt.wantTokens)
			}
			if rec := s.Requests()[0]; rec.Images != tt.images || rec.Markers != tt.markers {
				t.Errorf("recorded images %d markers %d", rec.Images, rec.Markers)
			}
		})
	}
}

func TestVLLMChatSampledCandidateListedOnce(t *testing.T) {
	s := NewVLLM(&Model{NVocab: 64, Logprobs: func(string, [][]byte) map[string]float64 { return Probs(0.9, 0.05) }})
	defer s.Close()
	_, raw := do(t, s, "POST", "/v1/chat/completions", chatBody("x", 236771, 236770))
	c := decode[chat](t, raw)
	if got := c.Choices[0].Logprobs.Content[0].Token; got != tokenID(236771) || len(c.logprobs(t)) != 2 {
		t.Errorf("sampled %s, entries %v", got, c.logprobs(t))
	}
}

func TestVLLMChatBodyChecks(t *testing.T) {
	many := make([]int, 129)
	for i := range many {
		many[i] = i
	}
	tests := []struct {
		name   string
		reason string
		edit   func(map[string]any)
		status int
		want   string
	}{
		{name: "129 ids", reason: "vLLM v0.30.0's own limit", edit: func(b map[string]any) { b["logprob_token_ids"] = many },
			status: 400, want: "Requested logprob_token_ids of length 129, which is greater than max allowed: 128"},
		{name: "max_tokens", edit: func(b map[string]any) { b["max_tokens"] = 2 }, status: 400, want: `"max_tokens" must be 1`},
		{name: "temperature", edit: func(b map[string]any) { b["temperature"] = 0.7 }, status: 400, want: `"temperature" must be 0`},
		{name: "logprobs", edit: func(b map[string]any) { b["logprobs"] = false }, status: 400, want: `"logprobs" must be true`},
		{name: "token id form", edit: func(b map[string]any) { delete(b, "return_tokens_as_token_ids") }, status: 400, want: `missing field "return_tokens_as_token_ids"`},
		{name: "generation prompt", edit: func(b map[string]any) { b["add_generation_prompt"] = false }, status: 400, want: `"add_generation_prompt" must be true`},
		{name: "thinking on", edit: func(b map[string]any) { b["chat_template_kwargs"] = map[string]any{"enable_thinking": true} }, status: 400, want: `"chat_template_kwargs" must be {"enable_thinking": false}`},
		{name: "top_logprobs sent", reason: "typevet sends no top_logprobs field", edit: func(b map[string]any) { b["top_logprobs"] = 5 }, status: 400, want: `unexpected field "top_logprobs"`},
		{name: "negative id", edit: func(b map[string]any) { b["logprob_token_ids"] = []int{-1} }, status: 400, want: "non-negative integers"},
		{name: "no ids", edit: func(b map[string]any) { b["logprob_token_ids"] = []int{} }, status: 400, want: "logprob_token_ids is empty"},
		{name: "two messages", edit: func(b map[string]any) {
			b["messages"] = []any{map[string]any{"role": "system", "content": "s"}, map[string]any{"role": "user", "content": "u"}}
		}, status: 400, want: "one user message"},
		{name: "no messages", edit: func(b map[string]any) { b["messages"] = []any{} }, status: 400, want: "one user message"},
		{name: "http image url", edit: func(b map[string]any) {
			b["messages"] = []any{map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://example.com/a.png"}}}}}
		}, status: 400, want: "an image block is"},
		{name: "unsupported mime", edit: func(b map[string]any) {
			b["messages"] = []any{map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/gif;base64," + b64(pngBytes)}}}}}
		}, status: 400, want: "an image block is"},
		{name: "unknown model", edit: func(b map[string]any) { b["model"] = "gemma" }, status: 404, want: "The model `gemma` does not exist."},
	}
	s := NewVLLM(testModel())
	defer s.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := chatBody(userText, 236771, 236770)
			tt.edit(body)
			resp, raw := do(t, s, "POST", "/v1/chat/completions", body)
			if resp.StatusCode != tt.status || !strings.Contains(errMessage(raw), tt.want) {
				t.Errorf("status %d body %s, want %d containing %q", resp.StatusCode, raw, tt.status, tt.want)
			}
		})
	}
}

func TestVLLMImageLimitAndTextOnly(t *testing.T) {
	img := map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/webp;base64," + b64(pngBytes)}}
	content := []any{img, img, img, map[string]any{"type": "text", "text": "x"}}

	s := NewUnstartedVLLM(testModel())
	s.MaxImagesPerPrompt = 2
	s.Start()
	resp, raw := do(t, s, "POST", "/v1/chat/completions", chatBody(content, 236771))
	s.Close()
	if resp.StatusCode != 400 || errMessage(raw) != "At most 2 image(s) may be provided in one prompt." {
		t.Errorf("limit: status %d body %s", resp.StatusCode, raw)
	}

	m := testModel()
	m.TextOnly = true
	s = NewVLLM(m)
	resp, raw = do(t, s, "POST", "/v1/chat/completions", chatBody(content, 236771))
	s.Close()
	if resp.StatusCode != 400 || !strings.Contains(errMessage(raw), "is not a multimodal model") {
		t.Errorf("text-only: status %d body %s", resp.StatusCode, raw)
	}
}

func TestVLLMInfoRoutes(t *testing.T) {
	s := NewVLLM(nil)
	defer s.Close()
	_, raw := do(t, s, "GET", "/version", nil)
	if v := decode[struct{ Version string }](t, raw).Version; v != "0.30.0" {
		t.Errorf("version %q", v)
	}
	_, raw = do(t, s, "GET", "/v1/models", nil)
	models := decode[struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
		}
	}](t, raw)
	if len(models.Data) != 1 || models.Data[0].ID != DefaultModelID || models.Data[0].MaxModelLen != 8192 {
		t.Errorf("models %s", raw)
	}
	for _, tt := range []struct {
		method, path string
		status       int
	}{{"GET", "/health", 200}, {"GET", "/props", 404}, {"GET", "/tokenize", 405}} {
		if resp, _ := do(t, s, tt.method, tt.path, nil); resp.StatusCode != tt.status {
			t.Errorf("%s %s: status %d, want %d", tt.method, tt.path, resp.StatusCode, tt.status)
		}
	}
}

// metricValue parses a /metrics page with expfmt and returns the sum of
// the values of family name's samples.
func metricValue(t *testing.T, page, name string) float64 {
	t.Helper()
	p := expfmt.NewTextParser(pmodel.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(page))
	if err != nil {
		t.Fatalf("metrics page does not parse: %v\n%s", err, page)
	}
	f, ok := fams[name]
	if !ok {
		t.Fatalf("no family %s", name)
	}
	sum := 0.0
	for _, m := range f.GetMetric() {
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		default:
			t.Fatalf("family %s has no value", name)
		}
	}
	return sum
}

func TestVLLMMetricsAdvance(t *testing.T) {
	s := NewVLLM(testModel())
	defer s.Close()
	read := func() string {
		resp, raw := do(t, s, "GET", "/metrics", nil)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
			t.Fatalf("status %d type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		return string(raw)
	}
	before := read()
	for range 3 {
		do(t, s, "POST", "/v1/chat/completions", chatBody(userText, 236771, 236770))
	}
	// A refused request does not count.
	do(t, s, "POST", "/v1/chat/completions", chatBody(userText))
	after := read()
	prompt := float64(utf8.RuneCountInString("<bos><|turn>user\n" + userText + "<turn|>\n<|turn>model\n<|channel>thought\n<channel|>"))
	tests := []struct {
		name          string
		before, after float64
	}{
		{"vllm:request_success_total", 0, 3},
		{"vllm:prompt_tokens_total", 0, 3 * prompt},
		{"vllm:generation_tokens_total", 0, 3},
		{"vllm:prefix_cache_queries_total", 0, 3 * prompt},
		{"vllm:prefix_cache_hits_total", 0, 2 * math.Floor(prompt/16) * 16},
		{"vllm:e2e_request_latency_seconds", 0, 3},
		{"vllm:num_requests_running", 0, 0},
		{"vllm:request_queue_time_seconds", 0, 3},
		{"vllm:request_prefill_time_seconds", 0, 3},
		{"vllm:prompt_tokens_cached_total", 0, 2 * math.Floor(prompt/16) * 16},
		{"vllm:mm_cache_queries_total", 0, 0},
		{"vllm:num_preemptions_total", 0, 0},
		{"vllm:cache_config_info", 1, 1},
	}
	for _, tt := range tests {
		if b, a := metricValue(t, before, tt.name), metricValue(t, after, tt.name); b != tt.before || a != tt.after {
			t.Errorf("%s: before %v after %v, want %v %v", tt.name, b, a, tt.before, tt.after)
		}
	}
	if c := s.Counters(); c.Requests != 3 {
		t.Errorf("Counters().Requests = %d", c.Requests)
	}
}

func TestVLLMCustomMetrics(t *testing.T) {
	s := NewUnstartedVLLM(nil)
	s.Metrics = func(c MetricCounters) string { return fmt.Sprintf("custom %d\n", c.Requests) }
	s.Start()
	defer s.Close()
	if _, raw := do(t, s, "GET", "/metrics", nil); string(raw) != "custom 0\n" {
		t.Errorf("metrics %q", raw)
	}
	if resp, _ := do(t, s, "POST", "/metrics", nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /metrics status %d", resp.StatusCode)
	}
}
