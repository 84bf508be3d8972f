package vllm_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/vllm"
)

func ptr(f float64) *float64 { return &f }

// Every HTTP row of the classification table and the vLLM
// rules (no retry of any kind), through a fake vLLM server.
func TestJudgeErrors(t *testing.T) {
	const chat = "/v1/chat/completions"
	long := strings.Repeat("x", 600)
	tests := []struct {
		name      string
		fault     judgmenttest.Fault
		settings  vllm.Settings
		wantClass string // judgment.ErrorClass; "" = success
		wantMsg   string
		wantSnip  *string
		wantRetry *float64
		wantRate  [][2]string
		wantCalls int // scoring calls
		reason    string
	}{
		{name: "server error", fault: judgmenttest.Fault{Path: chat, Status: 500, Body: `{"error":"boom"}`},
			wantClass: "BackendHttpError", wantMsg: `vLLM HTTP 500: {"error":"boom"}`, wantCalls: 1, reason: "no retry of any kind"},
		{name: "snippet cut at 500", fault: judgmenttest.Fault{Path: chat, Status: 400, Body: long},
			wantClass: "BackendHttpError", wantMsg: "vLLM HTTP 400: " + long[:500], wantSnip: &[]string{long[:500]}[0], wantCalls: 1},
		{name: "HTML content type withheld", fault: judgmenttest.Fault{Path: chat, Status: 502, Body: "<html>proxy says no</html>", ContentType: "text/html"},
			wantClass: "BackendHttpError", wantMsg: "vLLM HTTP 502: HTML body withheld", wantSnip: new(string), wantCalls: 1},
		{name: "body starting with < withheld", fault: judgmenttest.Fault{Path: chat, Status: 503, Body: "<!doctype html>", ContentType: "text/plain"},
			wantClass: "BackendHttpError", wantMsg: "vLLM HTTP 503: HTML body withheld", wantSnip: new(string), wantCalls: 1},
		{name: "redirect not followed", fault: judgmenttest.Fault{Path: chat, Status: 302, Header: http.Header{"Location": {"http://evil.invalid/steal"}}},
			wantClass: "BackendHttpError", wantMsg: "vLLM HTTP 302: redirect not followed", wantSnip: new(string), wantCalls: 1,
			reason: "the Location is never followed nor recorded"},
		{name: "retry-after seconds", fault: judgmenttest.Fault{Path: chat, Status: 429, Body: "slow down", Header: http.Header{"Retry-After": {"120"}}},
			wantClass: "BackendHttpError", wantMsg: "vLLM HTTP 429: slow down", wantRetry: ptr(120), wantCalls: 1},
		{name: "retry-after date minus Date", fault: judgmenttest.Fault{Path: chat, Status: 503, Body: "busy", Header: http.Header{
			"Retry-After": {"Sun, 29 Nov 2026 12:01:30 GMT"}, "Date": {"Sun, 29 Nov 2026 12:00:00 GMT"}}},
			wantClass: "BackendHttpError", wantRetry: ptr(90), wantCalls: 1},
		{name: "retry-after past date floored", fault: judgmenttest.Fault{Path: chat, Status: 503, Body: "busy", Header: http.Header{
			"Retry-After": {"Sun, 29 Nov 2026 11:00:00 GMT"}, "Date": {"Sun, 29 Nov 2026 12:00:00 GMT"}}},
			wantClass: "BackendHttpError", wantRetry: ptr(0), wantCalls: 1},
		{name: "retry-after repeated", fault: judgmenttest.Fault{Path: chat, Status: 429, Body: "x", Header: http.Header{"Retry-After": {"1", "2"}}},
			wantClass: "BackendHttpError", wantRetry: nil, wantCalls: 1, reason: "a repeated header is ambiguous: null"},
		{name: "retry-after over a year capped", fault: judgmenttest.Fault{Path: chat, Status: 429, Body: "x", Header: http.Header{"Retry-After": {"99999999999"}}},
			wantClass: "BackendHttpError", wantRetry: ptr(31536000), wantCalls: 1,
			reason: "a huge Retry-After is the longest wait, not an absent one (a retry then waits its own cap)"},
		{name: "retry-after garbage", fault: judgmenttest.Fault{Path: chat, Status: 429, Body: "x", Header: http.Header{"Retry-After": {"1.5"}}},
			wantClass: "BackendHttpError", wantRetry: nil, wantCalls: 1, reason: "delta-seconds are digits only"},
		{name: "rate-limit headers", fault: judgmenttest.Fault{Path: chat, Status: 429, Body: "x", Header: http.Header{
			"X-Ratelimit-Remaining-Requests": {"0"}, "Ratelimit-Reset": {"30"}, "X-Ratelimit-Client": {"echo"}, "X-Other": {"1"}}},
			settings:  vllm.Settings{Auth: judgment.Auth{Headers: []judgment.Header{{Name: "X-Ratelimit-Client", Value: "team-a"}}}},
			wantClass: "BackendHttpError", wantRate: [][2]string{{"ratelimit-reset", "30"}, {"x-ratelimit-remaining-requests", "0"}}, wantCalls: 1,
			reason: "a header the request sent is never copied"},
		{name: "non-JSON 200", fault: judgmenttest.Fault{Path: chat, Status: 200, Body: "ok"},
			wantClass: "GenerationError", wantMsg: "vLLM returned non-JSON HTTP body", wantCalls: 1},
		{name: "missing top_logprobs", fault: judgmenttest.Fault{Path: chat, Status: 200, Body: `{"choices":[{"logprobs":null}]}`},
			wantClass: "GenerationError", wantMsg: "vLLM chat completion response missing choices[0].logprobs.content[0].top_logprobs", wantCalls: 1},
		{name: "token not in id form", fault: judgmenttest.Fault{Path: chat, Status: 200, Body: `{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"0","logprob":-1}]}]}}]}`},
			wantClass: "GenerationError", wantMsg: "vLLM top_logprobs token '0' is not in token_id:N form; send return_tokens_as_token_ids", wantCalls: 1},
		{name: "bool logprob", fault: judgmenttest.Fault{Path: chat, Status: 200, Body: `{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":true}]}]}}]}`},
			wantClass: "GenerationError", wantMsg: "vLLM chat completion response is malformed", wantCalls: 1, reason: "logprob must be a real number, not a bool"},
		{name: "candidate missing", fault: judgmenttest.Fault{Path: chat, Tamper: judgmenttest.TamperMissingCandidate},
			wantClass: "ScoringValidationError", wantMsg: "missing scores for requested candidates: ['False']", wantCalls: 1},
		{name: "candidate duplicated", fault: judgmenttest.Fault{Path: chat, Tamper: judgmenttest.TamperDuplicateCandidate},
			wantClass: "ScoringValidationError", wantMsg: "vLLM top_logprobs lists token id 236771 more than once", wantCalls: 1},
		{name: "positive logprob", fault: judgmenttest.Fault{Path: chat, Tamper: judgmenttest.TamperPositiveLogprob},
			wantClass: "ScoringValidationError", wantMsg: "positive logprob for candidate 'False'", wantCalls: 1},
		{name: "non-finite logprob", fault: judgmenttest.Fault{Path: chat, Tamper: judgmenttest.TamperNonFiniteLogprob},
			wantClass: "ScoringValidationError", wantMsg: "non-finite logprob for candidate 'False'", wantCalls: 1},
		{name: "NaN logprob", fault: judgmenttest.Fault{Path: chat, Tamper: judgmenttest.TamperNaNLogprob},
			wantClass: "BackendHttpError", wantMsg: "vLLM HTTP 400: {\"error\":{\"message\":\"Out of range float values are not JSON compliant: nan\"", wantCalls: 1,
			reason: "vLLM's JSON encoder refuses NaN: a 400, never a bare NaN in a 200"},
		{name: "finish_reason error", fault: judgmenttest.Fault{Path: chat, Tamper: judgmenttest.TamperFinishError},
			wantClass: "BackendHttpError", wantMsg: "vLLM HTTP 500: {\"error\":{\"message\":\"Internal server error\"", wantCalls: 1},
		{name: "timeout", fault: judgmenttest.Fault{Path: chat, Delay: 2 * time.Second}, settings: vllm.Settings{Timeout: 150 * time.Millisecond},
			wantClass: "TransportError", wantMsg: "vLLM request failed: context deadline exceeded (no answer within the session's timeout of 150ms)", wantCalls: 1},
		{name: "tokenize error", fault: judgmenttest.Fault{Path: "/tokenize", Status: 500, Body: "down"},
			wantClass: "BackendHttpError", wantMsg: "vLLM HTTP 500: down", wantCalls: 0},
		{name: "answers as another model", fault: judgmenttest.Fault{Path: chat, Status: 200, Body: `{"model":"evil-other-model","choices":[]}`},
			wantClass: "GenerationError", wantMsg: `vLLM answered as another model than the requested "` + judgmenttest.DefaultModelID + `"`, wantCalls: 1,
			reason: "the receipt would name the requested model for another model's answers"},
		{name: "answer larger than any answer needs", fault: judgmenttest.Fault{Path: chat, Status: 200, Body: `{"pad":"` + strings.Repeat("x", vllm.MaxResponseBytes) + `"}`},
			wantClass: "GenerationError", wantMsg: "vLLM /v1/chat/completions response is larger than any answer needs", wantCalls: 1,
			reason: "read at most MaxResponseBytes+1, not 256 MiB"},
		{name: "tokenize without integers", fault: judgmenttest.Fault{Path: "/tokenize", Status: 200, Body: `{"tokens":"0"}`},
			wantClass: "GenerationError", wantMsg: "vLLM /tokenize response must hold a list of integer tokens", wantCalls: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, judgmenttest.CheckModel(), nil)
			s := tt.settings
			s.RequestIDHeader = "X-Request-Id"
			sess := openSession(t, srv, s)
			f := tt.fault
			f.Nth = 1
			srv.Inject(f)
			req := judgmenttest.CheckRequest(nil)
			_, err := sess.Judge(context.Background(), req)
			if got := judgment.ErrorClass(err); got != tt.wantClass {
				t.Fatalf("error %v: class %q, want %q", err, got, tt.wantClass)
			}
			if !strings.HasPrefix(err.Error(), tt.wantMsg) {
				t.Errorf("message %q, want prefix %q", err, tt.wantMsg)
			}
			if got := srv.Count("/v1/chat/completions"); got != tt.wantCalls {
				t.Errorf("scoring calls = %d, want %d (%s)", got, tt.wantCalls, tt.reason)
			}
			var he *judgment.BackendHTTPError
			if errors.As(err, &he) {
				if tt.wantSnip != nil && he.BodySnippet != *tt.wantSnip {
					t.Errorf("snippet %q, want %q", he.BodySnippet, *tt.wantSnip)
				}
				if (he.RetryAfterSeconds == nil) != (tt.wantRetry == nil) || (he.RetryAfterSeconds != nil && *he.RetryAfterSeconds != *tt.wantRetry) {
					t.Errorf("RetryAfterSeconds = %v, want %v", deref(he.RetryAfterSeconds), deref(tt.wantRetry))
				}
				if tt.wantRate != nil && !reflect.DeepEqual(he.RateLimit, tt.wantRate) {
					t.Errorf("RateLimit = %v, want %v (%s)", he.RateLimit, tt.wantRate, tt.reason)
				}
				if strings.Contains(err.Error(), "evil.invalid") {
					t.Error("the Location leaked")
				}
			}
			if id := requestID(err); id == "" || len(id) != 32 {
				if tt.wantClass == "TransportError" || tt.wantClass == "BackendHttpError" {
					t.Errorf("error carries request id %q, want the id sent", id)
				}
			}
		})
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func requestID(err error) string {
	var he *judgment.BackendHTTPError
	var te *judgment.TransportError
	switch {
	case errors.As(err, &he):
		return he.RequestID
	case errors.As(err, &te):
		return te.RequestID
	}
	return ""
}

// TestServerWithoutLogprobTokenIDs: a vLLM from before logprob_token_ids
// on chat completions ignores the field and answers with no requested
// id; the judgment fails at once as unsupported, naming what vLLM needs,
// not as a "missing scores" answer.
func TestServerWithoutLogprobTokenIDs(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), func(s *judgmenttest.Server) { s.NoLogprobTokenIDs = true })
	sess := openSession(t, srv, vllm.Settings{})
	_, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(nil))
	if got := judgment.ErrorClass(err); got != "ScoringUnsupportedCapabilityError" || !strings.Contains(err.Error(), "vLLM PR #43463") {
		t.Fatalf("error %v (class %s), want ScoringUnsupportedCapabilityError naming vLLM PR #43463", err, got)
	}
	if n := srv.Count("/v1/chat/completions"); n != 1 {
		t.Errorf("scoring calls = %d, want 1", n)
	}
}
