package judgmenttest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestFaultResponses(t *testing.T) {
	tests := []struct {
		name       string
		reason     string
		fault      Fault
		wantStatus int
		wantType   string
		wantBody   string
		wantHeader [2]string
	}{
		{name: "json error", fault: Fault{Status: 503, Body: `{"error":"overloaded"}`},
			wantStatus: 503, wantType: "application/json", wantBody: `{"error":"overloaded"}`},
		{name: "plain error", fault: Fault{Status: 500, Body: "boom"},
			wantStatus: 500, wantType: "text/plain; charset=utf-8", wantBody: "boom"},
		{name: "html error", reason: "a proxy page; vLLM clients withhold it",
			fault:      Fault{Status: 502, Body: "<html><body>Bad gateway</body></html>", ContentType: "text/html"},
			wantStatus: 502, wantType: "text/html", wantBody: "<html><body>Bad gateway</body></html>"},
		{name: "non-JSON 200", fault: Fault{Status: 200, Body: "not json"},
			wantStatus: 200, wantType: "text/plain; charset=utf-8", wantBody: "not json"},
		{name: "redirect", reason: "vLLM clients never follow it",
			fault:      Fault{Status: 307, Header: http.Header{"Location": {"http://elsewhere.invalid/v1/models"}}},
			wantStatus: 307, wantHeader: [2]string{"Location", "http://elsewhere.invalid/v1/models"}},
		{name: "rate limited", fault: Fault{Status: 429, Body: `{"error":"slow down"}`, Header: http.Header{
			"Retry-After": {"7"}, "X-Ratelimit-Remaining-Requests": {"0"}, "Ratelimit-Reset": {"7"}}},
			wantStatus: 429, wantBody: `{"error":"slow down"}`, wantHeader: [2]string{"Retry-After", "7"}},
		{name: "header on a normal answer", fault: Fault{Header: http.Header{"X-Ratelimit-Limit-Requests": {"100"}}},
			wantStatus: 200, wantType: "application/json", wantHeader: [2]string{"X-Ratelimit-Limit-Requests", "100"}},
	}
	for _, backend := range []func(*Model) *Server{NewUnstartedLlamaCPP, NewUnstartedVLLM} {
		for _, tt := range tests {
			s := backend(nil)
			t.Run(s.backend+"/"+tt.name, func(t *testing.T) {
				s.Inject(tt.fault)
				s.Start()
				defer s.Close()
				resp, raw := do(t, s, "GET", "/v1/models", nil)
				if resp.StatusCode != tt.wantStatus {
					t.Errorf("status %d, want %d", resp.StatusCode, tt.wantStatus)
				}
				if tt.wantType != "" && resp.Header.Get("Content-Type") != tt.wantType {
					t.Errorf("content type %q, want %q", resp.Header.Get("Content-Type"), tt.wantType)
				}
				if tt.wantBody != "" && string(raw) != tt.wantBody {
					t.Errorf("body %q, want %q", raw, tt.wantBody)
				}
				if h := tt.wantHeader; h[0] != "" && resp.Header.Get(h[0]) != h[1] {
					t.Errorf("header %s = %q, want %q", h[0], resp.Header.Get(h[0]), h[1])
				}
				if rec := s.Requests()[0]; !rec.Fault || rec.Status != tt.wantStatus {
					t.Errorf("recorded fault %v status %d", rec.Fault, rec.Status)
				}
			})
		}
	}
}

func TestFaultSelection(t *testing.T) {
	s := NewLlamaCPP(nil)
	defer s.Close()
	do(t, s, "GET", "/health", nil) // before Inject: not counted
	s.Inject(Fault{Path: "/health", Nth: 2, Status: 500})
	s.Inject(Fault{Path: "/health", Nth: 2, Status: 501}) // shadowed by the first
	s.Inject(Fault{Path: "/health", Nth: 3, Status: 502})
	var got []int
	for range 4 {
		resp, _ := do(t, s, "GET", "/health", nil)
		got = append(got, resp.StatusCode)
		do(t, s, "GET", "/props", nil) // another path: not counted
	}
	if want := []int{200, 500, 502, 200}; !reflect.DeepEqual(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	s.Inject(Fault{Status: 418})
	if resp, _ := do(t, s, "GET", "/props", nil); resp.StatusCode != 418 {
		t.Errorf("every-path fault: status %d", resp.StatusCode)
	}
	s.ClearFaults()
	if resp, _ := do(t, s, "GET", "/props", nil); resp.StatusCode != 200 {
		t.Errorf("after ClearFaults: status %d", resp.StatusCode)
	}
}

// llama.cpp #305: the server reads the request and closes the connection
// without a status line; the next request on a new connection works.
func TestFaultEarlyClose(t *testing.T) {
	s := NewLlamaCPP(testModel())
	defer s.Close()
	s.Inject(Fault{Path: "/completion", Nth: 1, Close: true})
	body := strings.NewReader(`{}`)
	_, err := s.Client().Post(s.URL+"/completion", "application/json", body)
	if err == nil || !(errors.Is(err, io.EOF) || strings.Contains(err.Error(), "EOF")) {
		t.Fatalf("first request: err %v, want an EOF", err)
	}
	resp, raw := do(t, s, "POST", "/completion", llamaBody(textPrompt, 64))
	if resp.StatusCode != 200 {
		t.Fatalf("resend: status %d %s", resp.StatusCode, raw)
	}
	recs := s.Requests()
	if len(recs) != 2 || recs[0].Status != 0 || !recs[0].Fault || recs[1].Status != 200 {
		t.Errorf("records %+v", recs)
	}
}

func TestFaultDelayHonoursContext(t *testing.T) {
	s := NewVLLM(nil)
	defer s.Close()
	s.Inject(Fault{Delay: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/version", nil)
	start := time.Now()
	_, err := s.Client().Do(req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want a deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestFaultDelayThenAnswer(t *testing.T) {
	s := NewVLLM(nil)
	defer s.Close()
	s.Inject(Fault{Delay: 20 * time.Millisecond, Status: 504, Body: "late"})
	start := time.Now()
	resp, raw := do(t, s, "GET", "/version", nil)
	if resp.StatusCode != 504 || string(raw) != "late" || time.Since(start) < 20*time.Millisecond {
		t.Errorf("status %d body %q after %v", resp.StatusCode, raw, time.Since(start))
	}
}

func TestCloseEndsWaitsAndBlocks(t *testing.T) {
	s := NewLlamaCPP(nil)
	s.Inject(Fault{Delay: time.Hour})
	done := make(chan error, 1)
	go func() {
		_, err := s.Client().Get(s.URL + "/props")
		done <- err
	}()
	for s.Count("/props") == 0 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	s.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	if err := <-done; err == nil {
		t.Error("request cut by Close succeeded")
	}
	s.Close() // harmless

	NewUnstartedVLLM(nil).Close() // never started: releases the listener
}

func TestTampers(t *testing.T) {
	id0, id1 := 236771, 236770
	tests := []struct {
		tamper Tamper
		check  func(t *testing.T, body string, count int, has0 bool)
	}{
		{TamperNone, func(t *testing.T, body string, count int, has0 bool) {
			if count != 1 {
				t.Errorf("control 0 listed %d times", count)
			}
		}},
		{TamperMissingCandidate, func(t *testing.T, body string, count int, has0 bool) {
			if count != 0 {
				t.Errorf("control 0 listed %d times, want 0", count)
			}
		}},
		{TamperDuplicateCandidate, func(t *testing.T, body string, count int, has0 bool) {
			if count != 2 {
				t.Errorf("control 0 listed %d times, want 2", count)
			}
		}},
		{TamperPositiveLogprob, func(t *testing.T, body string, count int, has0 bool) {
			if count != 1 || !strings.Contains(body, `"logprob":0.5`) {
				t.Errorf("no positive logprob in %s", truncate([]byte(body)))
			}
		}},
		{TamperNonFiniteLogprob, func(t *testing.T, body string, count int, has0 bool) {
			if !strings.Contains(body, `"logprob":-1e400`) {
				t.Errorf("no -1e400 in %s", truncate([]byte(body)))
			}
		}},
		{TamperNaNLogprob, func(t *testing.T, body string, count int, has0 bool) {
			if !strings.Contains(body, `"logprob":NaN`) {
				t.Errorf("no NaN in %s", truncate([]byte(body)))
			}
		}},
	}
	for _, tt := range tests {
		t.Run("llama.cpp/"+tt.tamper.String(), func(t *testing.T) {
			s := NewLlamaCPP(testModel())
			defer s.Close()
			s.Inject(Fault{Path: "/completion", Tamper: tt.tamper})
			resp, raw := do(t, s, "POST", "/completion", llamaBody(textPrompt, 64))
			if resp.StatusCode != 200 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			tt.check(t, string(raw), strings.Count(string(raw), `"id":236771,`), true)
		})
		t.Run("vLLM/"+tt.tamper.String(), func(t *testing.T) {
			if tt.tamper == TamperNaNLogprob {
				t.Skip("vLLM answers a NaN logprob with HTTP 400: TestVLLMNaNLogprobIs400")
			}
			s := NewVLLM(testModel())
			defer s.Close()
			s.Inject(Fault{Path: "/v1/chat/completions", Tamper: tt.tamper})
			resp, raw := do(t, s, "POST", "/v1/chat/completions", chatBody(userText, id0, id1))
			if resp.StatusCode != 200 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			top := string(raw)[strings.Index(string(raw), `"top_logprobs"`):]
			tt.check(t, top, strings.Count(top, `"token_id:236771"`), true)
		})
	}
}

// A dropped image still answers 200 with a valid distribution;
// only the token count (and the text-only answer) give it away.
func TestTamperDropImage(t *testing.T) {
	t.Run("llama.cpp", func(t *testing.T) {
		s := NewLlamaCPP(testModel())
		defer s.Close()
		body := llamaBody(map[string]any{"prompt_string": s.CurrentMarker() + "\nq: x", "multimodal_data": []string{b64(pngBytes)}}, 64)
		_, raw := do(t, s, "POST", "/completion", body)
		full := decode[completion](t, raw)
		s.Inject(Fault{Tamper: TamperDropImage})
		_, raw = do(t, s, "POST", "/completion", body)
		dropped := decode[completion](t, raw)
		if full.TokensEvaluated-dropped.TokensEvaluated != DefaultImageTokens {
			t.Errorf("tokens %d vs %d", full.TokensEvaluated, dropped.TokensEvaluated)
		}
		if lp := dropped.logprobs(t); !near(lp[236770], -3.2188758248682006) { // log 0.04: the text answer
			t.Errorf("dropped image answer p(1) logprob %v", lp[236770])
		}
	})
	t.Run("vLLM", func(t *testing.T) {
		s := NewVLLM(testModel())
		defer s.Close()
		content := []any{map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + b64(pngBytes)}},
			map[string]any{"type": "text", "text": "q: x"}}
		_, raw := do(t, s, "POST", "/v1/chat/completions", chatBody(content, 236771, 236770))
		full := decode[chat](t, raw)
		s.Inject(Fault{Tamper: TamperDropImage})
		_, raw = do(t, s, "POST", "/v1/chat/completions", chatBody(content, 236771, 236770))
		dropped := decode[chat](t, raw)
		if full.Usage.PromptTokens-dropped.Usage.PromptTokens != DefaultImageTokens {
			t.Errorf("tokens %d vs %d", full.Usage.PromptTokens, dropped.Usage.PromptTokens)
		}
	})
}

func TestAuth(t *testing.T) {
	const key = `s3cr"et`
	tests := []struct {
		name    string
		reason  string
		backend func(*Model) *Server
		setup   func(*Server)
		path    string
		header  []string
		status  int
		echo    string
	}{
		{name: "llama.cpp no key", backend: NewUnstartedLlamaCPP, path: "/props", status: 401},
		{name: "llama.cpp wrong key", backend: NewUnstartedLlamaCPP, path: "/props", header: []string{"Authorization", "Bearer nope"}, status: 401},
		{name: "llama.cpp right key", backend: NewUnstartedLlamaCPP, path: "/props", header: []string{"Authorization", "Bearer " + key}, status: 200},
		{name: "llama.cpp public models", reason: "llama-server leaves /v1/models open", backend: NewUnstartedLlamaCPP, path: "/v1/models", status: 200},
		{name: "vLLM no key", backend: NewUnstartedVLLM, path: "/v1/models", status: 401},
		{name: "vLLM right key", backend: NewUnstartedVLLM, path: "/v1/models", header: []string{"Authorization", "Bearer " + key}, status: 200},
		{name: "vLLM open tokenize", reason: "vLLM's --api-key guards only /v1 paths", backend: NewUnstartedVLLM, path: "/version", status: 200},
		{name: "llama.cpp custom header and scheme", backend: NewUnstartedLlamaCPP, setup: func(s *Server) { s.AuthHeader, s.AuthScheme = "X-Api-Key", "Token" },
			path: "/props", header: []string{"X-Api-Key", "Token " + key}, status: 200},
		{name: "llama.cpp bare key", backend: NewUnstartedLlamaCPP, setup: func(s *Server) { s.BareKey = true },
			path: "/props", header: []string{"Authorization", key}, status: 200},
		{name: "vLLM custom header", reason: "vLLM accepts only Authorization: Bearer", backend: NewUnstartedVLLM,
			path: "/v1/models", header: []string{"X-Api-Key", key}, status: 401},
		{name: "vLLM bare key", reason: "vLLM accepts only Authorization: Bearer", backend: NewUnstartedVLLM,
			path: "/v1/models", header: []string{"Authorization", key}, status: 401},
		{name: "vLLM ignores the llama.cpp knobs", backend: NewUnstartedVLLM, setup: func(s *Server) { s.AuthHeader, s.BareKey = "X-Api-Key", true },
			path: "/v1/models", header: []string{"X-Api-Key", key}, status: 401},
		{name: "echo", reason: "a careless server quotes the header, JSON-escaped", backend: NewUnstartedVLLM, setup: func(s *Server) { s.EchoAuth = true },
			path: "/v1/models", header: []string{"Authorization", "Bearer wrong" + key}, status: 401, echo: `Bearer wrongs3cr\"et`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.backend(nil)
			s.APIKey = key
			if tt.setup != nil {
				tt.setup(s)
			}
			s.Start()
			defer s.Close()
			resp, raw := do(t, s, "GET", tt.path, nil, tt.header...)
			if resp.StatusCode != tt.status {
				t.Errorf("status %d (%s), want %d", resp.StatusCode, raw, tt.status)
			}
			if echoed := strings.Contains(string(raw), "s3cr"); tt.status == 401 && echoed != (tt.echo != "") {
				t.Errorf("401 body %s: key echoed = %v", raw, echoed)
			}
			if tt.echo != "" && !strings.Contains(string(raw), tt.echo) {
				t.Errorf("401 body %s lacks %s", raw, tt.echo)
			}
		})
	}
}

func TestRequestsRecorded(t *testing.T) {
	s := NewVLLM(testModel())
	defer s.Close()
	do(t, s, "POST", "/tokenize", map[string]any{"model": DefaultModelID, "prompt": "0", "add_special_tokens": false}, "X-Request-Id", "abc")
	do(t, s, "GET", "/metrics?x=1", nil)
	recs := s.Requests()
	if len(recs) != 2 || s.Count("") != 2 || s.Count("/tokenize") != 1 {
		t.Fatalf("records %+v", recs)
	}
	r := recs[0]
	if r.Index != 0 || r.Method != "POST" || r.Path != "/tokenize" || r.Header.Get("X-Request-Id") != "abc" ||
		r.JSON.(map[string]any)["prompt"] != "0" || r.Status != 200 || r.Fault {
		t.Errorf("record 0 %+v", r)
	}
	if r := recs[1]; r.Index != 1 || r.Query != "x=1" || r.JSON != nil || len(r.Body) != 0 {
		t.Errorf("record 1 %+v", r)
	}
	recs[0].Path = "changed"
	if s.Requests()[0].Path != "/tokenize" {
		t.Error("Requests returned shared storage")
	}
}

func TestMisusePanics(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"start twice", func() { s := NewLlamaCPP(nil); defer s.Close(); s.Start() }},
		{"client before start", func() { NewUnstartedVLLM(nil).Client() }},
		{"negative Nth", func() { NewUnstartedVLLM(nil).Inject(Fault{Nth: -1}) }},
		{"bad status", func() { NewUnstartedVLLM(nil).Inject(Fault{Status: 42}) }},
		{"tiny vocabulary", func() { NewLlamaCPP(&Model{NVocab: 10}) }},
		{"two strings one id", func() { NewLlamaCPP(&Model{Vocab: map[string]int{"0": 5, "yes": 5}}) }},
		{"off token is a control", func() { NewLlamaCPP(&Model{OffToken: 236771}) }},
		{"unknown template", func() { s := NewUnstartedLlamaCPP(nil); s.Template = 99; s.Start() }},
		{"too many probabilities", func() { Probs(make([]float64, 37)...) }},
		{"probability above 1", func() { Probs(1.5) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "judgmenttest: ") {
					t.Errorf("recovered %v, want a judgmenttest: panic", r)
				}
			}()
			tt.f()
		})
	}
}

// Knobs that may change at run time are safe under concurrent requests.
func TestConcurrentRequestsAndKnobs(t *testing.T) {
	s := NewLlamaCPP(testModel())
	defer s.Close()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				resp, _ := do(t, s, "POST", "/completion", llamaBody(textPrompt, 64))
				if resp.StatusCode != 200 && resp.StatusCode != 500 {
					t.Errorf("status %d", resp.StatusCode)
				}
			}
		})
	}
	wg.Go(func() {
		for range 10 {
			s.Inject(Fault{Path: "/completion", Nth: 1, Status: 500})
			s.RotateMarker()
			_ = s.Requests()
			_ = s.Counters()
		}
		s.ClearFaults()
	})
	wg.Wait()
	if s.Count("/completion") != 80 {
		t.Errorf("count %d", s.Count("/completion"))
	}
}

// TestVLLMNaNLogprobIs400: vLLM's JSON encoder refuses a NaN logprob, so
// the request fails with HTTP 400, never a 200 with a bare NaN.
func TestVLLMNaNLogprobIs400(t *testing.T) {
	s := NewVLLM(testModel())
	defer s.Close()
	s.Inject(Fault{Path: "/v1/chat/completions", Tamper: TamperNaNLogprob})
	resp, raw := do(t, s, "POST", "/v1/chat/completions", chatBody(userText, 236771, 236770))
	want := `{"error":{"message":"Out of range float values are not JSON compliant: nan","type":"BadRequestError","param":null,"code":400}}`
	if resp.StatusCode != 400 || string(raw) != want {
		t.Errorf("status %d body %s, want 400 %s", resp.StatusCode, raw, want)
	}
}

// TestVLLMFinishError: finish_reason "error" is HTTP 500 with vLLM's body.
func TestVLLMFinishError(t *testing.T) {
	s := NewVLLM(testModel())
	defer s.Close()
	s.Inject(Fault{Path: "/v1/chat/completions", Tamper: TamperFinishError})
	resp, raw := do(t, s, "POST", "/v1/chat/completions", chatBody(userText, 236771, 236770))
	want := `{"error":{"message":"Internal server error","type":"InternalServerError","param":null,"code":500}}`
	if resp.StatusCode != 500 || string(raw) != want {
		t.Errorf("status %d body %s, want 500 %s", resp.StatusCode, raw, want)
	}
}

// TestVLLMParamError: a refused parameter names itself in param and in
// the message's "(parameter=…, value=…)" suffix, as vLLM's
// VLLMValidationError does.
func TestVLLMParamError(t *testing.T) {
	s := NewVLLM(testModel())
	defer s.Close()
	ids := make([]int, 129)
	resp, raw := do(t, s, "POST", "/v1/chat/completions", chatBody(userText, ids...))
	want := `{"error":{"message":"Requested logprob_token_ids of length 129, which is greater than max allowed: 128 (parameter=logprob_token_ids, value=129)","type":"BadRequestError","param":"logprob_token_ids","code":400}}`
	if resp.StatusCode != 400 || string(raw) != want {
		t.Errorf("status %d body %s, want 400 %s", resp.StatusCode, raw, want)
	}
}
