package judgmenttest

import (
	"math"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLlamaProps(t *testing.T) {
	tests := []struct {
		name     string
		model    *Model
		marker   string
		vision   bool
		wantMark string
	}{
		{name: "router marker", model: &Model{NVocab: 64}, marker: "<__media_NaJbOnuq8__>", vision: true, wantMark: "<__media_NaJbOnuq8__>"},
		{name: "single-model marker", model: &Model{NVocab: 64}, marker: "<__media__>", vision: true, wantMark: "<__media__>"},
		{name: "text-only model", model: &Model{NVocab: 64, TextOnly: true}, marker: "<__media__>", vision: false, wantMark: "<__media__>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewUnstartedLlamaCPP(tt.model)
			s.MediaMarker = tt.marker
			s.Start()
			defer s.Close()
			resp, raw := do(t, s, "GET", "/props?model="+DefaultModelID, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, raw)
			}
			p := decode[struct {
				Modalities struct{ Vision bool } `json:"modalities"`
				Marker     string                `json:"media_marker"`
				BuildInfo  string                `json:"build_info"`
				Alias      string                `json:"model_alias"`
				Settings   struct {
					NCtx int `json:"n_ctx"`
				} `json:"default_generation_settings"`
			}](t, raw)
			if p.Modalities.Vision != tt.vision || p.Marker != tt.wantMark || p.BuildInfo != "b11277-eae11d221" ||
				p.Alias != DefaultModelID || p.Settings.NCtx != 8192 {
				t.Errorf("props = %+v", p)
			}
		})
	}
}

// llama-server v0.5.0 draws "<__media_" + 32 letters and digits + "__>"
// per process, single-model or router; a seed makes the fake's repeatable.
func TestLlamaGeneratedMarker(t *testing.T) {
	realForm := regexp.MustCompile(`^<__media_[A-Za-z0-9]{32}__>$`)
	marker := func(seed uint64) string {
		s := NewUnstartedLlamaCPP(nil)
		s.MarkerSeed = seed
		s.Start()
		defer s.Close()
		_, raw := do(t, s, "GET", "/props", nil)
		return decode[struct {
			M string `json:"media_marker"`
		}](t, raw).M
	}
	a, b, c := marker(1), marker(1), marker(2)
	if a != b || a == c {
		t.Errorf("seeded markers %q %q %q: want them to depend only on the seed", a, b, c)
	}
	u, v := marker(0), marker(0)
	if u == v {
		t.Errorf("unseeded markers %q %q: want one per server, as per process", u, v)
	}
	for _, m := range []string{a, c, u, v} {
		if !realForm.MatchString(m) {
			t.Errorf("marker %q: want <__media_ + 32 letters and digits + __>", m)
		}
	}
}

func TestLlamaApplyTemplate(t *testing.T) {
	tests := []struct {
		name     string
		template Template
		want     string
	}{
		// llama-server v0.5.0 with Gemma 4's template: a thinking system
		// turn and no <bos>.
		{"gemma4", TemplateGemma4, "<|turn>system\n<|think|><turn|>\n<|turn>user\nhello<turn|>\n<|turn>model\n"},
		{"gemma3", TemplateGemma3, "<bos><start_of_turn>user\nhello<end_of_turn>\n<start_of_turn>model\n"},
		{"chatml", TemplateChatML, "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n"},
		{"mixed", TemplateMixed, "<|im_start|>system\n<|im_end|>\n<bos><start_of_turn>user\nhello<end_of_turn>\n<start_of_turn>model\n"},
		{"plain", TemplatePlain, "user: hello\nassistant: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewUnstartedLlamaCPP(nil)
			s.Template = tt.template
			s.Start()
			defer s.Close()
			resp, raw := do(t, s, "POST", "/apply-template", map[string]any{
				"model": DefaultModelID, "add_generation_prompt": true,
				"messages": []any{map[string]any{"role": "user", "content": "hello"}},
			})
			got := decode[struct{ Prompt string }](t, raw).Prompt
			if resp.StatusCode != 200 || got != tt.want {
				t.Errorf("status %d prompt %q, want %q", resp.StatusCode, got, tt.want)
			}
		})
	}
}

func TestLlamaTokenize(t *testing.T) {
	s := NewLlamaCPP(nil)
	defer s.Close()
	tests := []struct {
		name    string
		content string
		special bool
		want    []int
	}{
		{"control 0", "0", false, []int{236771}},
		{"control 1", "1", false, []int{236770}},
		{"control 2", "2", false, []int{236778}},
		{"control 3", "3", false, []int{236800}},
		{"letter B", "B", false, []int{236799}},
		{"control 4", "4", false, []int{236812}},
		{"letter A", "A", false, []int{236776}},
		{"two digits are two tokens", "10", false, []int{236770, 236771}},
		{"text outside the vocabulary", "a", false, []int{textTokenBase + 'a'}},
		{"bos with add_special", "0", true, []int{bosID, 236771}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, raw := do(t, s, "POST", "/tokenize", map[string]any{"model": DefaultModelID, "content": tt.content, "add_special": tt.special})
			got := decode[struct{ Tokens []int }](t, raw).Tokens
			if resp.StatusCode != 200 || !slices.Equal(got, tt.want) {
				t.Errorf("status %d tokens %v, want %v", resp.StatusCode, got, tt.want)
			}
		})
	}
}

func TestLlamaModels(t *testing.T) {
	for _, hide := range []bool{false, true} {
		s := NewUnstartedLlamaCPP(&Model{NVocab: 64, Aliases: []string{"gemma4"}})
		s.HideVocab = hide
		s.Start()
		_, raw := do(t, s, "GET", "/v1/models", nil)
		s.Close()
		m := decode[struct {
			Data []struct {
				ID      string
				Aliases []string
				Meta    *struct {
					NVocab int `json:"n_vocab"`
				}
			}
		}](t, raw)
		if len(m.Data) != 1 || m.Data[0].ID != DefaultModelID || !slices.Equal(m.Data[0].Aliases, []string{"gemma4"}) {
			t.Fatalf("models = %s", raw)
		}
		if hide != (m.Data[0].Meta == nil) || (!hide && m.Data[0].Meta.NVocab != 64) {
			t.Errorf("HideVocab=%v: models = %s", hide, raw)
		}
	}
}

const textPrompt = "<|turn>user\nstate\n\nq: Is it so?\n\nOptions:\nControl 0 → False\nControl 1 → True\n\nAnswer.<turn|>\n<|turn>model\n<|channel>thought\n<channel|>"

func TestLlamaCompletionFullDistribution(t *testing.T) {
	s := NewLlamaCPP(testModel())
	defer s.Close()
	resp, raw := do(t, s, "POST", "/completion", llamaBody(textPrompt, 64))
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, raw)
	}
	c := decode[completion](t, raw)
	lp := c.logprobs(t)
	if len(lp) != 64 {
		t.Errorf("%d entries, want n_vocab 64", len(lp))
	}
	var total float64
	for _, v := range lp {
		total += math.Exp(v)
	}
	if math.Abs(total-1) > 1e-9 {
		t.Errorf("total mass %v, want 1", total)
	}
	if !near(lp[236771], math.Log(0.16)) || !near(lp[236770], math.Log(0.04)) || lp[236778] != UnknownLogprob {
		t.Errorf("control logprobs %v %v %v, want the script", lp[236771], lp[236770], lp[236778])
	}
	top := c.Probs[0].Top
	if !slices.IsSortedFunc(top, func(a, b struct {
		ID      int     `json:"id"`
		Token   string  `json:"token"`
		Bytes   []byte  `json:"-"`
		Logprob float64 `json:"logprob"`
	}) int {
		return -cmpFloat(a.Logprob, b.Logprob)
	}) {
		t.Error("top_logprobs not sorted most likely first")
	}
	// The off token holds half of the 0.8 non-control mass, more than any control.
	if c.Probs[0].ID != top[0].ID || top[0].ID != DefaultOffToken || !near(top[0].Logprob, math.Log(0.4)) {
		t.Errorf("sampled id %d, first listed %d (%v), want the off token at log 0.4", c.Probs[0].ID, top[0].ID, top[0].Logprob)
	}
	// n_predict 0 still generates one token, the greedy pick
	// (llama-server v0.5.0 answers tokens_predicted 1).
	if c.TokensEvaluated != utf8.RuneCountInString(textPrompt) || c.TokensPredicted != 1 || c.Model != DefaultModelID ||
		c.Content != " The" {
		t.Errorf("tokens_evaluated %d predicted %d content %q model %q, want 1 token, the off token", c.TokensEvaluated, c.TokensPredicted, c.Content, c.Model)
	}

	// n_probs below the vocabulary gives the n most likely tokens.
	_, raw = do(t, s, "POST", "/completion", llamaBody(textPrompt, 5))
	if n := len(decode[completion](t, raw).logprobs(t)); n != 5 {
		t.Errorf("n_probs 5: %d entries", n)
	}
	// n_probs above the vocabulary is clamped to it.
	_, raw = do(t, s, "POST", "/completion", llamaBody(textPrompt, 262144))
	if n := len(decode[completion](t, raw).logprobs(t)); n != 64 {
		t.Errorf("n_probs 262144: %d entries, want 64", n)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestLlamaCompletionMedia(t *testing.T) {
	const marker = "<__media_NaJbOnuq8__>"
	imaged := marker + "\n" + textPrompt[len("<|turn>user\n"):]
	tests := []struct {
		name       string
		reason     string
		prompt     any
		top        []string // top-level multimodal_data
		status     int
		wantErr    string
		wantP1     float64 // probability of control 1
		wantTokens int
		images     int
		markers    int
	}{
		{name: "nested form with the current marker", prompt: map[string]any{"prompt_string": imaged, "multimodal_data": []string{b64(pngBytes)}},
			status: 200, wantP1: 0.15, wantTokens: utf8.RuneCountInString(imaged) - len(marker) + DefaultImageTokens, images: 1, markers: 1},
		{name: "stale marker", reason: "llama.cpp #322: the router reloaded and picked a new marker",
			prompt: map[string]any{"prompt_string": strings.ReplaceAll(imaged, marker, "<__media_OLDOLDOLD__>"), "multimodal_data": []string{b64(pngBytes)}},
			status: 400, wantErr: "Failed to tokenize prompt", images: 1, markers: 1},
		{name: "default marker on a router", prompt: map[string]any{"prompt_string": strings.ReplaceAll(imaged, marker, "<__media__>"), "multimodal_data": []string{b64(pngBytes)}},
			status: 400, wantErr: "Failed to tokenize prompt", images: 1, markers: 1},
		{name: "two markers one image", prompt: map[string]any{"prompt_string": marker + "\n" + imaged, "multimodal_data": []string{b64(pngBytes)}},
			status: 400, wantErr: "Failed to tokenize prompt", images: 1, markers: 2},
		{name: "data URI instead of raw base64", reason: "llama-server fails to load a data URI",
			prompt: map[string]any{"prompt_string": imaged, "multimodal_data": []string{"data:image/png;base64," + b64(pngBytes)}},
			status: 400, wantErr: "Failed to load image", images: 1, markers: 1},
		{name: "top-level multimodal_data drops the image", reason: "llama-server answers 200 with text-only tokens",
			prompt: imaged, top: []string{b64(pngBytes)},
			status: 200, wantP1: 0.04, wantTokens: utf8.RuneCountInString(imaged), images: 1, markers: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewUnstartedLlamaCPP(testModel())
			s.MediaMarker = marker
			s.Start()
			defer s.Close()
			body := llamaBody(tt.prompt, 64)
			if tt.top != nil {
				body["multimodal_data"] = tt.top
			}
			resp, raw := do(t, s, "POST", "/completion", body)
			if resp.StatusCode != tt.status || !strings.Contains(string(raw), tt.wantErr) {
				t.Fatalf("status %d body %s, want %d containing %q", resp.StatusCode, truncate(raw), tt.status, tt.wantErr)
			}
			rec := s.Requests()[0]
			if rec.Images != tt.images || rec.Markers != tt.markers || rec.Status != tt.status {
				t.Errorf("recorded images %d markers %d status %d", rec.Images, rec.Markers, rec.Status)
			}
			if tt.status != 200 {
				return
			}
			c := decode[completion](t, raw)
			lp := c.logprobs(t)
			if p0, p1 := math.Exp(lp[236771]), math.Exp(lp[236770]); math.Abs(p1-tt.wantP1) > 1e-12 || p0 <= 0 {
				t.Errorf("p(1) = %v, want %v", p1, tt.wantP1)
			}
			if c.TokensEvaluated != tt.wantTokens {
				t.Errorf("tokens_evaluated %d, want %d", c.TokensEvaluated, tt.wantTokens)
			}
		})
	}
}

// llama.cpp #322: the marker rotates after every N media answers; a client
// that re-reads /props gets the new one.
func TestLlamaMarkerRotation(t *testing.T) {
	s := NewUnstartedLlamaCPP(testModel())
	s.RotateMarkerEvery = 2
	s.Start()
	defer s.Close()
	send := func(marker string) int {
		resp, _ := do(t, s, "POST", "/completion", llamaBody(map[string]any{
			"prompt_string": marker + "\nq: x", "multimodal_data": []string{b64(pngBytes)}}, 64))
		return resp.StatusCode
	}
	props := func() string {
		_, raw := do(t, s, "GET", "/props", nil)
		return decode[struct {
			M string `json:"media_marker"`
		}](t, raw).M
	}
	m1 := props()
	got := []int{send(m1), send(m1), send(m1)}
	m2 := props()
	got = append(got, send(m2))
	// Text requests never rotate the marker.
	resp, _ := do(t, s, "POST", "/completion", llamaBody("q: x", 64))
	got = append(got, resp.StatusCode, send(m2), send(m2))
	if want := []int{200, 200, 400, 200, 200, 200, 400}; !slices.Equal(got, want) || m1 == m2 {
		t.Errorf("statuses %v, want %v (markers %q, %q)", got, want, m1, m2)
	}
}

func TestLlamaCompletionBodyChecks(t *testing.T) {
	s := NewLlamaCPP(testModel())
	defer s.Close()
	tests := []struct {
		name   string
		reason string
		edit   func(map[string]any)
		want   string
	}{
		{"n_predict", "", func(b map[string]any) { b["n_predict"] = 1 }, `"n_predict" must be 0`},
		{"n_probs zero", "", func(b map[string]any) { b["n_probs"] = 0 }, `"n_probs" must be a positive integer`},
		{"n_probs fraction", "", func(b map[string]any) { b["n_probs"] = 1.5 }, `"n_probs" must be a positive integer`},
		{"temperature", "", func(b map[string]any) { b["temperature"] = 1 }, `"temperature" must be 0`},
		{"top_k", "", func(b map[string]any) { b["top_k"] = 40 }, `"top_k" must be 0`},
		{"top_p", "", func(b map[string]any) { b["top_p"] = 0.9 }, `"top_p" must be 1`},
		{"post_sampling_probs", "pre-sampling values are the contract", func(b map[string]any) { b["post_sampling_probs"] = true }, `"post_sampling_probs" must be false`},
		{"stream", "", func(b map[string]any) { b["stream"] = true }, `"stream" must be false`},
		{"cache_prompt", "#154/#155: a cached prefix shifts scores", func(b map[string]any) { b["cache_prompt"] = true }, `"cache_prompt" must be false`},
		{"missing cache_prompt", "the default caches", func(b map[string]any) { delete(b, "cache_prompt") }, `missing field "cache_prompt"`},
		{"unexpected field", "", func(b map[string]any) { b["seed"] = 1 }, `unexpected field "seed"`},
		{"token prompt", "", func(b map[string]any) { b["prompt"] = []int{1, 2} }, `"prompt" must be a string or an object`},
		{"nested prompt with an extra key", "", func(b map[string]any) {
			b["prompt"] = map[string]any{"prompt_string": "x", "multimodal_data": []string{}, "x": 1}
		}, `unexpected field "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := llamaBody(textPrompt, 64)
			tt.edit(body)
			resp, raw := do(t, s, "POST", "/completion", body)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(errMessage(raw), tt.want) {
				t.Errorf("status %d body %s, want 400 containing %q", resp.StatusCode, raw, tt.want)
			}
		})
	}
}

func TestLlamaTextOnlyRefusesMedia(t *testing.T) {
	m := testModel()
	m.TextOnly = true
	s := NewUnstartedLlamaCPP(m)
	s.MediaMarker = "<__media__>"
	s.Start()
	defer s.Close()
	resp, raw := do(t, s, "POST", "/completion", llamaBody(map[string]any{"prompt_string": "<__media__>\nq: x", "multimodal_data": []string{b64(pngBytes)}}, 64))
	if resp.StatusCode != 400 || errMessage(raw) != "Multimodal data provided, but model does not support multimodal requests." {
		t.Errorf("status %d body %s, want llama-server's 400 for an image without a projector", resp.StatusCode, raw)
	}
}

func TestLlamaRoutes(t *testing.T) {
	s := NewLlamaCPP(nil)
	defer s.Close()
	tests := []struct {
		method, path string
		status       int
	}{
		{"GET", "/health", 200},
		{"GET", "/models", 200},
		{"GET", "/nope", 404},
		// llama-server answers a wrong method like an unknown path.
		{"GET", "/completion", 404},
		{"POST", "/props", 404},
		{"DELETE", "/health", 404},
	}
	const notFound = `{"error":{"message":"File Not Found","type":"not_found_error","code":404}}`
	for _, tt := range tests {
		t.Run(tt.method+tt.path, func(t *testing.T) {
			resp, raw := do(t, s, tt.method, tt.path, nil)
			if resp.StatusCode != tt.status || (tt.status == 404 && string(raw) != notFound) {
				t.Errorf("status %d (%s), want %d", resp.StatusCode, raw, tt.status)
			}
		})
	}
}
