package llamacpp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/llamacpp"
)

// Every HTTP row of the classification table and every retry
// rule on the judgment path, through a fake llama-server.
//
// One row of typevet's error table has no case here: "softmax degenerate -> DecisionExecutionError"
// cannot be reached through a server, because a logprob that would make the
// softmax degenerate (non-finite) is refused first as a
// ScoringValidationError (the "non-finite logprob" and "NaN logprob" rows).
// judgment/score_test.go TestDecodeErrors covers that row on the decoder.
func TestJudgeErrorsAndRetries(t *testing.T) {
	const stale = `{"error":{"code":400,"message":"Failed to tokenize prompt","type":"invalid_request_error"}}`
	tests := []struct {
		name      string
		faults    []judgmenttest.Fault
		media     bool
		wantClass string // judgment.ErrorClass; "" = success
		wantMsg   string // prefix of the message
		wantCalls map[string]int
		afterOpen func(*judgmenttest.Server)
		reason    string
	}{
		{name: "server error", faults: []judgmenttest.Fault{{Path: "/completion", Status: 500, Body: `{"error":"boom"}`}},
			wantClass: "BackendHttpError", wantMsg: `llama.cpp HTTP 500: {"error":"boom"}`, wantCalls: map[string]int{"/completion": 1},
			reason: "an error status is never retried"},
		{name: "redirect not followed", faults: []judgmenttest.Fault{{Path: "/completion", Status: 307, Header: http.Header{"Location": {"http://elsewhere.invalid/x"}}}},
			wantClass: "BackendHttpError", wantMsg: "llama.cpp HTTP 307: redirect not followed", wantCalls: map[string]int{"/completion": 1},
			reason: "httpx does not follow redirects; Go's client would, so the client refuses"},
		{name: "non-JSON body", faults: []judgmenttest.Fault{{Path: "/completion", Status: 200, Body: "not json"}},
			wantClass: "GenerationError", wantMsg: "llama.cpp returned non-JSON HTTP body"},
		{name: "missing top_logprobs", faults: []judgmenttest.Fault{{Path: "/completion", Status: 200, Body: `{"completion_probabilities":[{}]}`}},
			wantClass: "GenerationError", wantMsg: "llama.cpp /completion response missing completion_probabilities[0].top_logprobs"},
		{name: "malformed entry", faults: []judgmenttest.Fault{{Path: "/completion", Status: 200, Body: `{"completion_probabilities":[{"top_logprobs":[{"id":"x","logprob":-1}]}]}`}},
			wantClass: "GenerationError", wantMsg: "llama.cpp /completion response is malformed"},
		{name: "entry without logprob", faults: []judgmenttest.Fault{{Path: "/completion", Status: 200, Body: `{"completion_probabilities":[{"top_logprobs":[{"id":236771}]}]}`}},
			wantClass: "GenerationError", wantMsg: "llama.cpp /completion top_logprobs entry lacks"},
		{name: "HTML error page withheld", faults: []judgmenttest.Fault{{Path: "/completion", Status: 502, ContentType: "text/html", Body: "<html>proxy error sk-x</html>"}},
			wantClass: "BackendHttpError", wantMsg: "llama.cpp HTTP 502: HTML body withheld", wantCalls: map[string]int{"/completion": 1},
			reason: "on both backends an HTML page is never quoted"},
		{name: "body starting with < withheld", faults: []judgmenttest.Fault{{Path: "/completion", Status: 500, ContentType: "text/plain", Body: " <!doctype html>"}},
			wantClass: "BackendHttpError", wantMsg: "llama.cpp HTTP 500: HTML body withheld"},
		{name: "candidate missing", faults: []judgmenttest.Fault{{Path: "/completion", Tamper: judgmenttest.TamperMissingCandidate}},
			wantClass: "ScoringValidationError", wantMsg: "missing scores for requested candidates: ['False']", reason: "never imputed"},
		{name: "candidate duplicated", faults: []judgmenttest.Fault{{Path: "/completion", Tamper: judgmenttest.TamperDuplicateCandidate}},
			wantClass: "ScoringValidationError", wantMsg: "llama.cpp top_logprobs lists token id 236771 more than once"},
		{name: "positive logprob", faults: []judgmenttest.Fault{{Path: "/completion", Tamper: judgmenttest.TamperPositiveLogprob}},
			wantClass: "ScoringValidationError", wantMsg: "positive logprob for candidate 'False'"},
		{name: "non-finite logprob", faults: []judgmenttest.Fault{{Path: "/completion", Tamper: judgmenttest.TamperNonFiniteLogprob}},
			wantClass: "ScoringValidationError", wantMsg: "non-finite logprob for candidate 'False'", reason: "-1e400 is valid JSON Python reads as -inf"},
		{name: "NaN logprob", faults: []judgmenttest.Fault{{Path: "/completion", Tamper: judgmenttest.TamperNaNLogprob}},
			wantClass: "ScoringValidationError", wantMsg: "non-finite logprob for candidate 'False'", reason: "Python's json reads the NaN literal"},
		{name: "tokenize error status", faults: []judgmenttest.Fault{{Path: "/tokenize", Status: 503, Body: "loading model"}},
			wantClass: "BackendHttpError", wantMsg: "llama.cpp HTTP 503: loading model", wantCalls: map[string]int{"/tokenize": 1, "/completion": 0}},
		{name: "tokenize non-JSON", faults: []judgmenttest.Fault{{Path: "/tokenize", Status: 200, Body: "<html>"}},
			wantClass: "GenerationError", wantMsg: "llama.cpp returned non-JSON HTTP body"},
		{name: "tokenize without integers", faults: []judgmenttest.Fault{{Path: "/tokenize", Status: 200, Body: `{"tokens":[true]}`}},
			wantClass: "GenerationError", wantMsg: "llama.cpp /tokenize response missing a tokens list of integers", reason: "bools are not token ids"},

		// Retry rules.
		{name: "early close resent once", faults: []judgmenttest.Fault{{Path: "/completion", Nth: 1, Close: true}},
			wantCalls: map[string]int{"/completion": 5}, reason: "typevet #305: one resend on a fresh connection, then 3 more questions"},
		{name: "early close twice fails", faults: []judgmenttest.Fault{{Path: "/completion", Nth: 1, Close: true}, {Path: "/completion", Nth: 2, Close: true}},
			wantClass: "TransportError", wantMsg: "llama.cpp request failed: ", wantCalls: map[string]int{"/completion": 2}, reason: "once, not twice"},
		{name: "early close on tokenize resent", faults: []judgmenttest.Fault{{Path: "/tokenize", Nth: 1, Close: true}},
			wantCalls: map[string]int{"/tokenize": 4}, reason: "every read-only call gets the resend; 3 distinct controls + 1 resend"},
		{name: "stale marker repaired", media: true, afterOpen: func(s *judgmenttest.Server) { s.RotateMarker() },
			wantCalls: map[string]int{"/completion": 5, "/props": 1}, reason: "typevet #322: re-read /props once, resend once"},
		{name: "stale marker twice", media: true, faults: []judgmenttest.Fault{{Path: "/completion", Nth: 1, Status: 400, Body: stale}, {Path: "/completion", Nth: 2, Status: 400, Body: stale}},
			wantClass: "BackendHttpError", wantMsg: "media marker went stale again after the re-probe of /props (the router keeps reloading the model; start llama-server with LLAMA_MEDIA_MARKER set to pin the marker across reloads): llama.cpp HTTP 400: ",
			wantCalls: map[string]int{"/completion": 2, "/props": 1}, reason: "the stopped message says the marker went stale and how to pin it; the class stays"},
		{name: "stale marker re-probe fails", media: true, faults: []judgmenttest.Fault{{Path: "/completion", Nth: 1, Status: 400, Body: stale}, {Path: "/props", Nth: 1, Status: 502, Body: "bad gateway"}},
			wantClass: "BackendHttpError", wantMsg: "llama.cpp HTTP 400: " + stale, wantCalls: map[string]int{"/completion": 1, "/props": 1},
			reason: "the original 400 surfaces, not the probe's 502"},
		{name: "tokenize 400 on text not repaired", faults: []judgmenttest.Fault{{Path: "/completion", Nth: 1, Status: 400, Body: stale}},
			wantClass: "BackendHttpError", wantMsg: "llama.cpp HTTP 400: ", wantCalls: map[string]int{"/completion": 1, "/props": 0},
			reason: "the repair is for media requests only"},
	}
	pngBytes := judgmenttest.CheckPNG()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, judgmenttest.CheckModel(), nil)
			sess := openSession(t, srv, llamacpp.Settings{}, llamacpp.OpenOptions{})
			if tt.afterOpen != nil {
				tt.afterOpen(srv)
			}
			opened := map[string]int{"/props": srv.Count("/props")}
			for _, f := range tt.faults {
				srv.Inject(f)
			}
			req := judgmenttest.CheckRequest(pngBytes)
			if !tt.media {
				req.Media = nil
			}
			_, err := sess.Judge(context.Background(), req)
			if got := judgment.ErrorClass(err); got != tt.wantClass {
				t.Fatalf("error %v: class %q, want %q", err, got, tt.wantClass)
			}
			if err != nil && !strings.HasPrefix(err.Error(), tt.wantMsg) {
				t.Errorf("message %q, want prefix %q", err, tt.wantMsg)
			}
			var he *judgment.BackendHTTPError
			if errors.As(err, &he) && strings.HasSuffix(he.Msg, "withheld") && he.BodySnippet != "" {
				t.Errorf("withheld body has snippet %q", he.BodySnippet)
			}
			for path, want := range tt.wantCalls {
				if got := srv.Count(path) - opened[path]; got != want {
					t.Errorf("%s calls = %d, want %d (%s)", path, got, want, tt.reason)
				}
			}
		})
	}
}

// A router whose marker rotates mid-run: a multi-case run keeps going, each
// rotation costing one /props read and one resend (typevet #322).
func TestStaleMarkerRotationMidRun(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), func(s *judgmenttest.Server) { s.RotateMarkerEvery = 3 })
	sess := openSession(t, srv, llamacpp.Settings{}, llamacpp.OpenOptions{NVocab: 64})
	pngBytes := judgmenttest.CheckPNG()
	first := srv.CurrentMarker()
	for i := range 5 {
		if _, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(pngBytes)); err != nil {
			t.Fatalf("judgment %d: %v", i, err)
		}
	}
	if srv.CurrentMarker() == first {
		t.Fatal("the marker never moved")
	}
	// 20 media answers, a rotation after every 3rd: 6 rotations, each
	// followed by a request that carries the stale marker.
	const rotations = 20 / 3
	if got, want := srv.Count("/props"), 1+rotations; got != want {
		t.Errorf("/props reads = %d, want %d (open + one per rotation)", got, want)
	}
	if got, want := srv.Count("/completion"), 20+rotations; got != want {
		t.Errorf("/completion calls = %d, want %d (20 + one resend per rotation)", got, want)
	}
}

// Media on a model without image input is refused after one /props read,
// and the refusal is not cached (typevet #323).
func TestScoreMediaWithoutVision(t *testing.T) {
	m := judgmenttest.CheckModel()
	m.TextOnly = true
	srv := newServer(t, m, nil)
	c, err := llamacpp.NewClient(llamacpp.Settings{BaseURL: srv.URL}, llamacpp.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req := judgment.ScoringRequest{
		Model:      judgmenttest.DefaultModelID,
		Prefix:     judgment.MediaMarker + "\nstate",
		Candidates: []judgment.Candidate{{Label: "False", TokenID: 236771}, {Label: "True", TokenID: 236770}},
		Media:      []judgment.Image{{Data: []byte("png"), MIMEType: "image/png"}},
	}
	for range 2 {
		_, err = c.ScoreCandidates(context.Background(), req)
		var ue *judgment.ScoringUnsupportedCapabilityError
		if !errors.As(err, &ue) || ue.Msg != "llama.cpp model 'gemma-4-31b-it' does not declare image input support; scoring with media is refused" {
			t.Fatalf("err = %v", err)
		}
	}
	if srv.Count("/props") != 2 || srv.Count("/completion") != 0 {
		t.Errorf("/props = %d, /completion = %d; want 2 and 0", srv.Count("/props"), srv.Count("/completion"))
	}
	req.Prefix = "no marker"
	if _, err := c.ScoreCandidates(context.Background(), req); judgment.ErrorClass(err) != "ScoringValidationError" {
		t.Errorf("marker count mismatch: %v, want ScoringValidationError before any call", err)
	}
	if srv.Count("/props") != 2 {
		t.Error("a marker mismatch must be refused before any HTTP call")
	}
}

// Images need a native family; the refusal comes after the tokenize calls.
func TestMediaNeedsNativeFamily(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	c, err := llamacpp.NewClient(llamacpp.Settings{BaseURL: srv.URL}, llamacpp.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	j := judgment.NewJudge(c, judgment.JudgeOptions{Family: judgment.FamilyChatML})
	_, err = j.Judge(context.Background(), judgmenttest.CheckRequest(judgmenttest.CheckPNG()))
	if judgment.ErrorClass(err) != "JudgmentValidationError" {
		t.Fatalf("err = %v, want JudgmentValidationError", err)
	}
	if srv.Count("/tokenize") == 0 || srv.Count("/completion") != 0 {
		t.Errorf("tokenize = %d, completion = %d", srv.Count("/tokenize"), srv.Count("/completion"))
	}
}

func TestConnectFailure(t *testing.T) {
	srv := judgmenttest.NewLlamaCPP(nil)
	url := srv.URL
	srv.Close()
	_, err := llamacpp.Open(context.Background(), llamacpp.Settings{BaseURL: url, Auth: judgment.Auth{APIKey: "sk-secret"}}, llamacpp.OpenOptions{})
	var te *judgment.TransportError
	if !errors.As(err, &te) || !strings.HasPrefix(te.Msg, "llama.cpp request failed: ") {
		t.Fatalf("err = %v, want TransportError", err)
	}
}

// A transport error names the failure, never a request header, even before
// any masking (the client itself, not a session).
func TestTransportErrorHoldsNoHeader(t *testing.T) {
	srv := judgmenttest.NewLlamaCPP(nil)
	url := srv.URL
	srv.Close()
	c, err := llamacpp.NewClient(llamacpp.Settings{BaseURL: url, Auth: judgment.Auth{APIKey: "sk-live-SECRET",
		Headers: []judgment.Header{{Name: "X-Team", Value: "team-TOKEN"}}}}, llamacpp.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Tokenize(context.Background(), "m", "0")
	var te *judgment.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v", err)
	}
	if msg := err.Error(); strings.Contains(msg, "SECRET") || strings.Contains(msg, "TOKEN") || strings.Contains(strings.ToLower(msg), "authorization") {
		t.Errorf("transport error %q holds a header", msg)
	}
}

// TestEarlyCloseSendsTwice checks that a read-only call whose connection
// the server closes before answering reaches the server exactly twice
// (one resend), for GET as for POST, and that on a reused
// keep-alive connection Go's transport adds no resend of its own.
func TestEarlyCloseSendsTwice(t *testing.T) {
	tests := []struct {
		name, path string
		call       func(context.Context, *llamacpp.Client) error
	}{
		{name: "GET /props", path: "/props", call: func(ctx context.Context, c *llamacpp.Client) error {
			_, err := c.Props(ctx, judgmenttest.DefaultModelID)
			return err
		}},
		{name: "GET /v1/models", path: "/v1/models", call: func(ctx context.Context, c *llamacpp.Client) error {
			_, err := c.NVocab(ctx, judgmenttest.DefaultModelID)
			return err
		}},
		{name: "POST /tokenize", path: "/tokenize", call: func(ctx context.Context, c *llamacpp.Client) error {
			_, err := c.Tokenize(ctx, judgmenttest.DefaultModelID, "1")
			return err
		}},
	}
	for _, tt := range tests {
		for _, closes := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s closed %d", tt.name, closes), func(t *testing.T) {
				srv := newServer(t, judgmenttest.CheckModel(), nil)
				sess := openSession(t, srv, llamacpp.Settings{}, llamacpp.OpenOptions{})
				ctx := context.Background()
				// Warm the pool: the next call goes out on a reused connection.
				if err := tt.call(ctx, sess.Client()); err != nil {
					t.Fatal(err)
				}
				before := srv.Count(tt.path)
				for n := 1; n <= closes; n++ {
					srv.Inject(judgmenttest.Fault{Path: tt.path, Nth: n, Close: true})
				}
				err := tt.call(ctx, sess.Client())
				if got := srv.Count(tt.path) - before; got != 2 {
					t.Errorf("server saw %d sends, want 2", got)
				}
				last := srv.Requests()[len(srv.Requests())-1]
				if last.Method == "GET" && (len(last.Body) != 0 || last.Header.Get("Content-Length") != "") {
					t.Errorf("GET sent with a body: %q, Content-Length %q", last.Body, last.Header.Get("Content-Length"))
				}
				if (closes == 2) != (judgment.ErrorClass(err) == "TransportError") {
					t.Errorf("err = %v after %d closes", err, closes)
				}
			})
		}
	}
}
