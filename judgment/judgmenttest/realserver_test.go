package judgmenttest

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// The tests here pin behaviours measured against llama-server v0.5.0
// (commit de3ff81) with Gemma 4's tokenizer; each failed against the
// fake before it learned them.

func TestLlamaDefaultVocabIsGemma4(t *testing.T) {
	raw, err := os.ReadFile("testdata/control-ids.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]int
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	got := DefaultVocab()
	if len(got) != len(want) || len(want) != len(Controls) {
		t.Fatalf("%d controls, want %d", len(got), len(want))
	}
	for c, id := range want {
		if got[c] != id {
			t.Errorf("control %q has id %d, want Gemma 4's %d", c, got[c], id)
		}
	}
}

// A single-model llama-server ignores the request's model: every endpoint
// answers as the served model.
func TestLlamaSingleModelIgnoresModel(t *testing.T) {
	s := NewLlamaCPP(testModel())
	defer s.Close()
	reqs := []struct {
		method, path string
		body         any
	}{
		{"GET", "/props?model=typo", nil},
		{"POST", "/apply-template", map[string]any{"model": "typo", "messages": []any{map[string]any{"role": "user", "content": "hello"}}, "add_generation_prompt": true}},
		{"POST", "/tokenize", map[string]any{"model": "typo", "content": "4"}},
		{"POST", "/tokenize", map[string]any{"content": "4"}},
		{"POST", "/completion", func() any { b := llamaBody(textPrompt, 8); b["model"] = "typo"; return b }()},
	}
	for _, r := range reqs {
		resp, raw := do(t, s, r.method, r.path, r.body)
		if resp.StatusCode != 200 {
			t.Errorf("%s %s: status %d %s, want 200 as the served model", r.method, r.path, resp.StatusCode, truncate(raw))
		}
		if strings.Contains(r.path, "props") || r.path == "/completion" {
			var v struct {
				Alias string `json:"model_alias"`
				Model string `json:"model"`
			}
			json.Unmarshal(raw, &v)
			if v.Alias+v.Model != DefaultModelID {
				t.Errorf("%s answers as %q, want the served %q", r.path, v.Alias+v.Model, DefaultModelID)
			}
		}
	}
}

func TestLlamaMalformedJSONIsServerError(t *testing.T) {
	s := NewLlamaCPP(testModel())
	defer s.Close()
	for _, path := range []string{"/completion", "/tokenize", "/apply-template"} {
		for _, body := range []string{"{bad", "", `{"content":"a"} x`} {
			resp, raw := do(t, s, "POST", path, body)
			var e struct {
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
					Type    string `json:"type"`
				} `json:"error"`
			}
			json.Unmarshal(raw, &e)
			if resp.StatusCode != 500 || e.Error.Code != 500 || e.Error.Type != "server_error" ||
				!strings.HasPrefix(e.Error.Message, "[json.exception.parse_error.101] parse error") {
				t.Errorf("%s %q: status %d %s, want 500 server_error", path, body, resp.StatusCode, raw)
			}
		}
	}
}

// cpp-httplib's keep-alive limit: the 100th request on a connection is
// answered with Connection: close, and the next one dials anew.
func TestLlamaKeepAliveEndsAfter100Requests(t *testing.T) {
	s := NewLlamaCPP(nil)
	defer s.Close()
	c := s.Client()
	for i := 1; i <= 101; i++ {
		resp, err := c.Get(s.URL + "/health")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body) // read to the end, so the connection is reused
		resp.Body.Close()
		if want := i == 100; resp.Close != want {
			t.Fatalf("request %d: Connection close %v, want %v", i, resp.Close, want)
		}
	}
}

func newRouter(t *testing.T, edit func(*Server)) *Server {
	t.Helper()
	s := NewUnstartedLlamaCPP(testModel())
	s.Router = true
	s.RouterModels = []string{"other"}
	if edit != nil {
		edit(s)
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func props(t *testing.T, s *Server, model string) (int, map[string]any) {
	t.Helper()
	path := "/props"
	if model != "" {
		path += "?model=" + model
	}
	resp, raw := do(t, s, "GET", path, nil)
	var m map[string]any
	json.Unmarshal(raw, &m)
	return resp.StatusCode, m
}

func TestLlamaRouterProps(t *testing.T) {
	s := newRouter(t, nil)
	status, p := props(t, s, "")
	if _, hasModalities := p["modalities"]; status != 200 || p["role"] != "router" || hasModalities || p["model_alias"] != "llama-server" {
		t.Errorf("router /props = %d %v, want the router's own props without modalities", status, p)
	}
	if status, p := props(t, s, "nope"); status != 400 || !strings.Contains(p["error"].(map[string]any)["message"].(string), "model 'nope' not found") {
		t.Errorf("unknown model: %d %v", status, p)
	}
	if s.LoadedModel() != "" || s.Loads() != 0 {
		t.Errorf("a router starts with nothing loaded; loaded %q after %d loads", s.LoadedModel(), s.Loads())
	}
}

func TestLlamaRouterNeedsAModel(t *testing.T) {
	s := newRouter(t, nil)
	for _, path := range []string{"/tokenize", "/apply-template", "/completion"} {
		body := map[string]any{"content": "4"}
		switch path {
		case "/apply-template":
			body = map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hello"}}}
		case "/completion":
			body = llamaBody(textPrompt, 8)
			body["model"] = ""
		}
		resp, raw := do(t, s, "POST", path, body)
		if resp.StatusCode != 400 || errMessage(raw) != "model name is missing from the request" {
			t.Errorf("%s without a model: %d %s", path, resp.StatusCode, raw)
		}
	}
}

// A request for an unloaded model loads it (taking LoadDelay) and, unless
// the marker is pinned (LLAMA_MEDIA_MARKER), draws a new media marker.
func TestLlamaRouterAutoload(t *testing.T) {
	for _, pin := range []bool{false, true} {
		s := newRouter(t, func(s *Server) { s.LoadDelay = 30 * time.Millisecond; s.PinMarker = pin })
		start := time.Now()
		_, a := props(t, s, DefaultModelID)
		if took := time.Since(start); took < 30*time.Millisecond || s.LoadedModel() != DefaultModelID {
			t.Errorf("first /props took %v and loaded %q, want a load of %q", took, s.LoadedModel(), DefaultModelID)
		}
		_, again := props(t, s, DefaultModelID)
		_, b := props(t, s, "other")
		if s.Loads() != 2 || s.LoadedModel() != "other" || a["model_alias"] != DefaultModelID || b["model_alias"] != "other" {
			t.Errorf("loads %d loaded %q aliases %v %v", s.Loads(), s.LoadedModel(), a["model_alias"], b["model_alias"])
		}
		if a["media_marker"] != again["media_marker"] || (a["media_marker"] == b["media_marker"]) != pin {
			t.Errorf("PinMarker %v: markers %v, %v, then %v after a reload", pin, a["media_marker"], again["media_marker"], b["media_marker"])
		}
		_, raw := do(t, s, "GET", "/v1/models", nil)
		var list struct {
			Data []struct {
				ID     string
				Status struct{ Value string }
				Meta   *json.RawMessage
			}
		}
		json.Unmarshal(raw, &list)
		if len(list.Data) != 2 || list.Data[0].Status.Value != "unloaded" || list.Data[1].Status.Value != "loaded" ||
			list.Data[0].Meta != nil || list.Data[1].Meta == nil {
			t.Errorf("/v1/models = %s", raw)
		}
	}
}

// With --models-max 1 a load while the loaded model is busy is refused.
func TestLlamaRouterLoadWhileBusy(t *testing.T) {
	m := testModel()
	release := make(chan struct{})
	m.Delay = func(string) time.Duration {
		<-release
		return 0
	}
	s := NewUnstartedLlamaCPP(m)
	s.Router, s.RouterModels = true, []string{"other"}
	s.Start()
	defer s.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		do(t, s, "POST", "/completion", llamaBody(textPrompt, 8))
	}()
	for s.Count("/completion") == 0 || s.LoadedModel() == "" {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(10 * time.Millisecond) // the completion is past routing, thinking
	resp, raw := do(t, s, "POST", "/tokenize", map[string]any{"model": "other", "content": "4"})
	close(release)
	wg.Wait()
	if resp.StatusCode != http.StatusInternalServerError || errMessage(raw) != "model limit reached, try again later" {
		t.Errorf("load while busy: %d %s, want 500 model limit reached", resp.StatusCode, raw)
	}
	// Once idle, the load goes through.
	if resp, raw := do(t, s, "POST", "/tokenize", map[string]any{"model": "other", "content": "4"}); resp.StatusCode != 200 {
		t.Errorf("load when idle: %d %s", resp.StatusCode, raw)
	}
}

// The real full-vocabulary answer (llama-server v0.5.0, Gemma 4's
// tokenizer) is 26.5 MB: 262,144 entries, ids 0..262143 once each, sorted
// by logprob with the ids shuffled, total mass 1.0000000000010.
func TestRealSizeCompletionHasTheRealShape(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("the 26 MB answer's shape is checked without -race and -short")
	}
	body := RealSizeCompletion(nil, "")
	if n := len(body); n < 20e6 || n > 32e6 {
		t.Errorf("body is %d bytes, want about 26.5 MB", n)
	}
	var c struct {
		TokensPredicted int `json:"tokens_predicted"`
		Probs           []struct {
			Top []struct {
				ID      int     `json:"id"`
				Logprob float64 `json:"logprob"`
			} `json:"top_logprobs"`
		} `json:"completion_probabilities"`
	}
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatal(err)
	}
	top := c.Probs[0].Top
	if len(top) != DefaultNVocab {
		t.Fatalf("%d entries, want %d", len(top), DefaultNVocab)
	}
	seen := make([]bool, DefaultNVocab)
	ascending, distinct := 0, map[float64]bool{}
	var mass, comp float64 // Neumaier's compensated sum
	for i, e := range top {
		if e.ID < 0 || e.ID >= DefaultNVocab || seen[e.ID] {
			t.Fatalf("entry %d: id %d out of range or repeated", i, e.ID)
		}
		seen[e.ID] = true
		if i > 0 && e.ID > top[i-1].ID {
			ascending++
		}
		if i > 0 && e.Logprob > top[i-1].Logprob {
			t.Fatalf("entry %d not sorted most likely first", i)
		}
		distinct[e.Logprob] = true
		p := math.Exp(e.Logprob)
		t := mass + p
		if math.Abs(mass) >= math.Abs(p) {
			comp += (mass - t) + p
		} else {
			comp += (p - t) + mass
		}
		mass = t
	}
	mass += comp
	if ascending > DefaultNVocab*3/4 {
		t.Errorf("%d of %d ids follow a smaller one: want a shuffled order, as sorted by logprob", ascending, DefaultNVocab)
	}
	if len(distinct) < DefaultNVocab*9/10 {
		t.Errorf("%d distinct logprobs: want nearly all distinct", len(distinct))
	}
	if math.Abs(mass-(1+1e-12)) > 1e-13 {
		t.Errorf("total mass %.16f, want 1.0000000000010", mass)
	}
	if c.TokensPredicted != 1 {
		t.Errorf("tokens_predicted %d, want 1", c.TokensPredicted)
	}
}

// The fake server answers with the same shape when Model.RealShape is set,
// so a client's full-vocabulary path meets it on the wire (the same bytes,
// from a second model: nothing depends on map order or time); the token
// strings vary and include multi-byte UTF-8, spelled by their bytes.
func TestLlamaRealShapeServed(t *testing.T) {
	m := CheckModel()
	m.NVocab, m.RealShape = 4096, true
	s := NewLlamaCPP(m)
	defer s.Close()
	resp, raw := do(t, s, "POST", "/completion", llamaBody(textPrompt, m.NVocab))
	if resp.StatusCode != 200 || !bytes.Equal(raw, RealSizeCompletion(m, textPrompt)) {
		t.Fatalf("status %d: the served answer differs from RealSizeCompletion", resp.StatusCode)
	}
	var c struct {
		Probs []struct {
			Top []struct {
				Token string `json:"token"`
				Bytes []int  `json:"bytes"`
			} `json:"top_logprobs"`
		} `json:"completion_probabilities"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	multibyte, lengths := 0, map[int]bool{}
	for _, e := range c.Probs[0].Top {
		b := make([]byte, len(e.Bytes))
		for i, v := range e.Bytes {
			b[i] = byte(v)
		}
		if string(b) != e.Token {
			t.Fatalf("bytes %v do not spell %q", e.Bytes, e.Token)
		}
		if len(e.Token) > utf8.RuneCountInString(e.Token) {
			multibyte++
		}
		lengths[len(e.Token)] = true
	}
	if multibyte == 0 || len(lengths) < 5 {
		t.Errorf("%d multi-byte tokens, %d token lengths: want varied tokens, some multi-byte", multibyte, len(lengths))
	}
}
