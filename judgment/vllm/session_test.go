package vllm_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/vllm"
)

func TestOpenMakesNoCall(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv, vllm.Settings{})
	if srv.Count("") != 0 {
		t.Errorf("Open made %d requests, want none", srv.Count(""))
	}
	if sess.ServedTemplate().String() != "vllm_chat" || sess.Model() != judgmenttest.DefaultModelID || sess.BaseURL() != srv.URL {
		t.Errorf("session = %v %q %q", sess.ServedTemplate(), sess.Model(), sess.BaseURL())
	}
}

// A check judgment (four questions, one PNG) makes exactly four scoring
// calls, each with exactly one image block and no marker left in the text.
func TestJudgeCheckFourCallsOneImageEach(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv, vllm.Settings{})
	resp, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(judgmenttest.CheckPNG()))
	if err != nil {
		t.Fatal(err)
	}
	var scoring int
	for _, r := range srv.Requests() {
		if r.Path != "/v1/chat/completions" {
			continue
		}
		scoring++
		if r.Images != 1 || r.Markers != 0 {
			t.Errorf("request %d: %d images, %d markers; want one image block, no marker text", r.Index, r.Images, r.Markers)
		}
		var body vllm.ChatRequest
		var blocks []vllm.ContentBlock
		var raw struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(r.Body, &body)
		json.Unmarshal(r.Body, &raw)
		json.Unmarshal(raw.Messages[0].Content, &blocks)
		if len(blocks) != 2 || blocks[0].Type != "image_url" || !strings.HasPrefix(blocks[0].ImageURL.URL, "data:image/png;base64,iVBOR") ||
			blocks[1].Type != "text" || !strings.HasPrefix(blocks[1].Text, `{"case_id": "c-001"}`+"\n\n") {
			t.Errorf("content blocks = %.200s, want [image_url, text state+field block]", raw.Messages[0].Content)
		}
	}
	if scoring != 4 {
		t.Errorf("%d scoring calls, want 4", scoring)
	}
	if n, _ := resp.Noul("amounts_match"); math.Abs(n.Noul-0.7/0.9) > 1e-9 {
		t.Errorf("amounts_match = %v, want %v", n.Noul, 0.7/0.9)
	}
	for _, o := range resp.OffOption {
		if o.OffOption.Mass != nil {
			t.Errorf("%s: vLLM off-option mass must be null", o.Name)
		}
	}
	if len(resp.RequestIDs) != 0 {
		t.Errorf("request ids %v without a request-id header", resp.RequestIDs)
	}
}

// The scoring body is exactly typevet's, key for key in order.
func TestChatBodyExact(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv, vllm.Settings{})
	req := judgmenttest.CheckRequest(nil)
	req.Questions = req.Questions[2:3] // three options
	if _, err := sess.Judge(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var body string
	for _, r := range srv.Requests() {
		if r.Path == "/v1/chat/completions" {
			body = string(r.Body)
		}
	}
	re := regexp.MustCompile(`^\{"model":"gemma-4-31b-it","messages":\[\{"role":"user","content":"[^"]*(\\.[^"]*)*"\}\],"max_tokens":1,"temperature":0,"logprobs":true,"logprob_token_ids":\[236771,236770,236778\],"return_tokens_as_token_ids":true,"add_generation_prompt":true,"chat_template_kwargs":\{"enable_thinking":false\}\}$`)
	if !re.MatchString(body) {
		t.Errorf("body does not match typevet's scoring body:\n%s", body)
	}
	var tok map[string]any
	for _, r := range srv.Requests() {
		if r.Path == "/tokenize" {
			json.Unmarshal(r.Body, &tok)
		}
	}
	if tok["add_special_tokens"] != false || tok["model"] != judgmenttest.DefaultModelID {
		t.Errorf("tokenize body = %v", tok)
	}
}

// Request ids: a fresh UUID4 hex per request; the judge records each
// question's scoring id, never a /tokenize id (typevet #356/#411).
func TestRequestIDs(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv, vllm.Settings{RequestIDHeader: "X-Request-Id"})
	resp, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(nil))
	if err != nil {
		t.Fatal(err)
	}
	uuid4 := regexp.MustCompile(`^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$`)
	seen := map[string]bool{}
	var scoring []string
	for _, r := range srv.Requests() {
		id := r.Header.Get("X-Request-Id")
		if !uuid4.MatchString(id) || seen[id] {
			t.Errorf("request %d id %q: want a fresh UUID4 hex", r.Index, id)
		}
		seen[id] = true
		if r.Path == "/v1/chat/completions" {
			scoring = append(scoring, id)
		}
	}
	if len(resp.RequestIDs) != 4 {
		t.Fatalf("RequestIDs = %v, want one per question", resp.RequestIDs)
	}
	for i, rid := range resp.RequestIDs {
		if rid.Name != judgmenttest.CheckQuestions()[i].Name || rid.ID != scoring[i] {
			t.Errorf("RequestIDs[%d] = %+v, want %s %s", i, rid, judgmenttest.CheckQuestions()[i].Name, scoring[i])
		}
	}
}

// More than 128 candidates are refused before any HTTP call.
func TestTooManyCandidates(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	c, err := vllm.NewClient(vllm.Settings{BaseURL: srv.URL, Model: "m"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := judgment.ScoringRequest{Model: "m", Prefix: "p"}
	for i := range 129 {
		req.Candidates = append(req.Candidates, judgment.Candidate{Label: string(rune('a' + i)), TokenID: i})
	}
	_, err = c.ScoreCandidates(context.Background(), req)
	var ue *judgment.ScoringUnsupportedCapabilityError
	if !errors.As(err, &ue) || ue.Msg != "vLLM accepts at most 128 logprob_token_ids; got 129 candidates" {
		t.Fatalf("err = %v", err)
	}
	if srv.Count("") != 0 {
		t.Error("refusal must come before any HTTP call")
	}
}

// One session shared by many goroutines (run with -race).
func TestSessionConcurrent(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv, vllm.Settings{RequestIDHeader: "X-Request-Id"})
	pngBytes := judgmenttest.CheckPNG()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := judgmenttest.CheckRequest(pngBytes)
			if i%2 == 0 {
				req.Media = nil
			}
			resp, err := sess.Judge(context.Background(), req)
			if err == nil && (len(resp.Answers) != 4 || len(resp.RequestIDs) != 4) {
				err = errors.New("answers or request ids missing")
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := srv.Count("/v1/chat/completions"); n != 32 {
		t.Errorf("%d scoring calls, want 32", n)
	}
}

// A request id fixed by the extra headers is kept, not replaced ("unless
// already set", typevet #411).
func TestRequestIDFixedByHeaders(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv, vllm.Settings{RequestIDHeader: "X-Request-Id",
		Auth: judgment.Auth{Headers: []judgment.Header{{Name: "X-Request-Id", Value: "run-42"}}}})
	resp, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests() {
		if got := r.Header.Values("X-Request-Id"); len(got) != 1 || got[0] != "run-42" {
			t.Errorf("request %d sent ids %v", r.Index, got)
		}
	}
	if len(resp.RequestIDs) != 4 || resp.RequestIDs[3].ID != "run-42" {
		t.Errorf("RequestIDs = %v", resp.RequestIDs)
	}
}

// TestDroppedImageShowsInUsage checks the one signal of a dropped image:
// a server that silently ignores the image still answers validly (the
// text-only answers), and only the prompt-token count gives it away. The
// dropped-image judgment reports the text baseline of its own prompts: the
// imaged count less the four images' tokens, below the imaged count. That
// baseline is the text-only request's count plus the text that frames each
// image in the prompt, so it lies within one image's cost of the text-only
// count rather than equal to it.
func TestDroppedImageShowsInUsage(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv, vllm.Settings{})
	judge := func(req judgment.Request) judgment.Response {
		t.Helper()
		resp, err := sess.Judge(context.Background(), req)
		if err != nil {
			t.Fatalf("Judge: %v", err)
		}
		if resp.Usage.InputTokens == nil {
			t.Fatal("Usage.InputTokens is nil; the server reports prompt tokens")
		}
		return resp
	}
	text := judge(judgmenttest.CheckRequest(nil))
	imaged := judge(judgmenttest.CheckRequest(judgmenttest.CheckPNG()))
	srv.Inject(judgmenttest.Fault{Path: "/v1/chat/completions", Tamper: judgmenttest.TamperDropImage})
	dropped := judge(judgmenttest.CheckRequest(judgmenttest.CheckPNG()))

	d, i, x := *dropped.Usage.InputTokens, *imaged.Usage.InputTokens, *text.Usage.InputTokens
	if want := i - len(judgmenttest.CheckQuestions())*judgmenttest.DefaultImageTokens; d != want {
		t.Errorf("dropped-image InputTokens = %d, want %d (imaged %d less %d images' tokens)", d, want, i, len(judgmenttest.CheckQuestions()))
	}
	if d >= i {
		t.Errorf("dropped-image InputTokens = %d, want below the imaged count %d", d, i)
	}
	if d < x || d-x >= judgmenttest.DefaultImageTokens {
		t.Errorf("dropped-image InputTokens = %d, want the text-only count %d plus framing only (less than one image, %d)", d, x, judgmenttest.DefaultImageTokens)
	}
	for _, name := range []string{"amounts_match", "signature_present"} {
		got, ok1 := dropped.Noul(name)
		want, ok2 := text.Noul(name)
		if !ok1 || !ok2 || got.Noul != want.Noul {
			t.Errorf("%s: dropped-image answer %v (found %t), want the text-only answer %v (found %t)", name, got.Noul, ok1, want.Noul, ok2)
		}
	}
	gotC, ok1 := dropped.Choice("payee_legible")
	wantC, ok2 := text.Choice("payee_legible")
	if !ok1 || !ok2 || gotC.Choice != wantC.Choice {
		t.Errorf("payee_legible: dropped-image answer %q (found %t), want the text-only answer %q (found %t)", gotC.Choice, ok1, wantC.Choice, ok2)
	}
	gotS, ok1 := dropped.Score("image_quality")
	wantS, ok2 := text.Score("image_quality")
	if !ok1 || !ok2 || gotS.Score != wantS.Score {
		t.Errorf("image_quality: dropped-image answer %v (found %t), want the text-only answer %v (found %t)", gotS.Score, ok1, wantS.Score, ok2)
	}
}

// /tokenize traffic over several check judgments: a session's Judge
// tokenizes each distinct control once (3: "0", "1", "2"), then never; a
// Judge with TokenizeEveryCall makes typevet's 2+2+3+3 calls every time.
func TestTokenizeCallsPerJudgment(t *testing.T) {
	tests := []struct {
		name  string
		every bool
		want  []int
	}{
		{name: "session cache", want: []int{3, 0, 0}},
		{name: "tokenize every call", every: true, want: []int{10, 10, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, judgmenttest.CheckModel(), nil)
			var port judgment.Port
			if tt.every {
				c, err := vllm.NewClient(vllm.Settings{BaseURL: srv.URL, Model: judgmenttest.DefaultModelID}, nil)
				if err != nil {
					t.Fatal(err)
				}
				port = judgment.NewJudge(c, judgment.JudgeOptions{Family: judgment.FamilyChat, TokenizeEveryCall: true})
			} else {
				port = openSession(t, srv, vllm.Settings{})
			}
			for i, want := range tt.want {
				before := srv.Count("/tokenize")
				resp, err := port.Judge(context.Background(), judgmenttest.CheckRequest(nil))
				if err != nil {
					t.Fatal(err)
				}
				if got := srv.Count("/tokenize") - before; got != want {
					t.Errorf("judgment %d: %d /tokenize calls, want %d", i+1, got, want)
				}
				if n, _ := resp.Noul("amounts_match"); math.Abs(n.Noul-0.7/0.9) > 1e-9 {
					t.Errorf("judgment %d: amounts_match = %v, want %v", i+1, n.Noul, 0.7/0.9)
				}
			}
		})
	}
}
