package llamacpp_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/llamacpp"
)

func TestOpen(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv, llamacpp.Settings{}, llamacpp.OpenOptions{})
	if got := sess.ServedTemplate(); got != judgment.FamilyGemma4Turn {
		t.Errorf("ServedTemplate = %v, want native_gemma4_turn", got)
	}
	if sess.Model() != judgmenttest.DefaultModelID || sess.BaseURL() != srv.URL {
		t.Errorf("Model, BaseURL = %q, %q", sess.Model(), sess.BaseURL())
	}
	if p := sess.Props(); p.MediaMarker != srv.CurrentMarker() || p.BuildInfo == "unknown" || p.NCtx == nil {
		t.Errorf("Props = %+v, want the server's marker, build and n_ctx", p)
	}
	// /v1/models checks that the server serves the model: a single-model
	// llama-server ignores the request's model.
	if n := srv.Count("/props") + srv.Count("/v1/models") + srv.Count("/apply-template"); n != 3 || srv.Count("") != 3 {
		t.Errorf("open made %d requests, want one /props, one /v1/models and one /apply-template", srv.Count(""))
	}
}

func TestOpenRefusals(t *testing.T) {
	tests := []struct {
		name        string
		textOnly    bool
		template    judgmenttest.Template
		allowGemma3 bool
		want        string // "" = opens
		reason      string
	}{
		{name: "text-only model opens", textOnly: true, reason: "typevet #438: only image requests are refused"},
		{name: "gemma3 refused by default", template: judgmenttest.TemplateGemma3, want: "expected NATIVE_GEMMA4_TURN, got native_gemma3_turn" +
			" for model 'gemma-4-31b-it' from the model argument; name a Gemma 4 model whose template renders <|turn>"},
		{name: "chatml refused by default", template: judgmenttest.TemplateChatML, want: "expected NATIVE_GEMMA4_TURN, got degraded_chatml" +
			" for model 'gemma-4-31b-it' from the model argument; name a Gemma 4 model whose template renders <|turn>"},
		{name: "gemma3 allowed", template: judgmenttest.TemplateGemma3, allowGemma3: true},
		{name: "chatml not native", template: judgmenttest.TemplateChatML, allowGemma3: true, want: "unsupported served template for native vision: degraded_chatml"},
		{name: "mixed markers", template: judgmenttest.TemplateMixed, allowGemma3: true, want: "unsupported served template for native vision: unsupported",
			reason: "two marker sets classify as unsupported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := judgmenttest.CheckModel()
			m.TextOnly = tt.textOnly
			srv := newServer(t, m, func(s *judgmenttest.Server) { s.Template = tt.template })
			_, err := llamacpp.Open(context.Background(), llamacpp.Settings{BaseURL: srv.URL},
				llamacpp.OpenOptions{Model: judgmenttest.DefaultModelID, AllowGemma3: tt.allowGemma3})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				return
			}
			var pe *llamacpp.ProbeError
			if !errors.As(err, &pe) || pe.Msg != tt.want {
				t.Fatalf("Open error = %v, want ProbeError %q", err, tt.want)
			}
			if judgment.IsGenerationError(err) {
				t.Error("a probe refusal must not be a GenerationError (typevet raises ValueError)")
			}
		})
	}
}

// TestOpenRefusalWithKey checks that a configured key does not change the
// class of a probe refusal: its text is fixed, so it is not masked into a
// *judgment.MaskedError. Without a model argument the message names the
// setting and its variable (typevet #425).
func TestOpenRefusalWithKey(t *testing.T) {
	m := judgmenttest.CheckModel()
	m.ID = "gemma-3-custom-mm"
	srv := newServer(t, m, func(s *judgmenttest.Server) { s.Template = judgmenttest.TemplateGemma3 })
	s := llamacpp.Settings{BaseURL: srv.URL, MultimodalModel: "gemma-3-custom-mm", Auth: judgment.Auth{APIKey: "sk-live-SECRET",
		Headers: []judgment.Header{{Name: "X-Team", Value: "text"}}}}
	_, err := llamacpp.Open(context.Background(), s, llamacpp.OpenOptions{})
	var pe *llamacpp.ProbeError
	want := "expected NATIVE_GEMMA4_TURN, got native_gemma3_turn for model 'gemma-3-custom-mm' from settings.multimodal_model " +
		"(TYPEVET_LLAMA__MULTIMODAL_MODEL); name a Gemma 4 model whose template renders <|turn>"
	if !errors.As(err, &pe) || pe.Msg != want {
		t.Fatalf("Open error = %#v, want *ProbeError %q", err, want)
	}
}

// TestTextOnlyModel: a text-only model opens a session (typevet #438);
// a request with an image is refused as unsupported before any scoring
// call, and a request without one is judged.
func TestTextOnlyModel(t *testing.T) {
	m := judgmenttest.CheckModel()
	m.TextOnly = true
	srv := newServer(t, m, nil)
	sess := openSession(t, srv, llamacpp.Settings{}, llamacpp.OpenOptions{})
	_, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(judgmenttest.CheckPNG()))
	if got := judgment.ErrorClass(err); got != "ScoringUnsupportedCapabilityError" {
		t.Fatalf("image request: error %v (class %s), want ScoringUnsupportedCapabilityError", err, got)
	}
	if n := srv.Count("/completion"); n != 0 {
		t.Errorf("%d scoring calls for a refused image request", n)
	}
	if _, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(nil)); err != nil {
		t.Fatalf("text request: %v", err)
	}
}

// TestJudgeMasksOnce: the session masks its Judge errors, once, as they
// leave it (the key everywhere, a header value as a whole token, no cause
// chain); there is no option to leave that to the caller, and masking the
// result again changes nothing.
func TestJudgeMasksOnce(t *testing.T) {
	s := llamacpp.Settings{Auth: judgment.Auth{APIKey: "sk-live-SECRET", Headers: []judgment.Header{{Name: "X-Team", Value: "prod"}, {Name: "X-N", Value: "1"}}}}
	body := `{"error":{"code":429,"message":"team prod-1 over quota, key sk-live-SECRET, HTTP 501","type":"x"}}`
	want := `llama.cpp HTTP 429: {"error":{"code":429,"message":"team ***-*** over quota, key ***, HTTP 501","type":"x"}}`
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv, s, llamacpp.OpenOptions{})
	srv.Inject(judgmenttest.Fault{Path: "/completion", Nth: 1, Status: 429, Body: body})
	_, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(nil))
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	if again := sess.Secrets().Mask(err); again.Error() != err.Error() {
		t.Errorf("masking again changed %q to %q", err, again)
	}

	srv.Inject(judgmenttest.Fault{Path: "/completion", Close: true})
	_, err = sess.Judge(context.Background(), judgmenttest.CheckRequest(nil))
	var te *judgment.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want a TransportError", err)
	}
	if errors.Unwrap(err) != nil {
		t.Error("a masked transport error keeps a cause")
	}
	if got := sess.Secrets(); !slices.Equal(got.Keys, []string{"sk-live-SECRET"}) || !slices.Equal(got.HeaderValues, []string{"prod", "1"}) {
		t.Errorf("Secrets = %q", got)
	}
}

// A check judgment (four questions, one PNG) makes exactly four scoring
// calls, each with exactly one image and one marker, and no other call.
func TestJudgeCheckFourCallsOneImageEach(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv, llamacpp.Settings{}, llamacpp.OpenOptions{NVocab: 64})
	before := len(srv.Requests())
	resp, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(judgmenttest.CheckPNG()))
	if err != nil {
		t.Fatal(err)
	}
	var scoring int
	for _, r := range srv.Requests()[before:] {
		if r.Path != "/completion" {
			continue
		}
		scoring++
		if r.Images != 1 || r.Markers != 1 {
			t.Errorf("request %d: %d images, %d markers; want 1 and 1", r.Index, r.Images, r.Markers)
		}
		body := r.JSON.(map[string]any)
		prompt := body["prompt"].(map[string]any)
		if ps := prompt["prompt_string"].(string); !strings.Contains(ps, srv.CurrentMarker()) || strings.Contains(ps, judgment.MediaMarker) {
			t.Errorf("prompt_string must hold the router marker in place of <__media__>")
		}
		if _, top := body["multimodal_data"]; top {
			t.Error("multimodal_data must be nested in the prompt, never top-level")
		}
	}
	if scoring != 4 {
		t.Errorf("%d /completion calls, want 4", scoring)
	}
	if got := srv.Count("/tokenize"); got != 3 {
		t.Errorf("%d /tokenize calls, want one per distinct control (3: 0, 1, 2)", got)
	}
	if n, _ := resp.Noul("amounts_match"); math.Abs(n.Noul-0.7/0.9) > 1e-9 {
		t.Errorf("amounts_match = %v, want %v", n.Noul, 0.7/0.9)
	}
	if c, _ := resp.Choice("payee_legible"); c.Choice != "legible" {
		t.Errorf("payee_legible = %q, want legible", c.Choice)
	}
	if resp.Usage.InputTokens == nil || *resp.Usage.InputTokens < 4*judgmenttest.DefaultImageTokens {
		t.Errorf("input tokens %v must include four images' tokens", resp.Usage.InputTokens)
	}
	for _, o := range resp.OffOption {
		if o.OffOption.Mass == nil {
			t.Errorf("%s: off-option mass missing with n_vocab = 64 entries returned", o.Name)
		}
	}
}

// The /completion body is exactly typevet's, key for key in order.
func TestCompletionBodyExact(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv, llamacpp.Settings{}, llamacpp.OpenOptions{})
	req := judgmenttest.CheckRequest(nil)
	req.Media = nil
	req.Questions = judgmenttest.CheckQuestions()[:1]
	if _, err := sess.Judge(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var body []byte
	for _, r := range srv.Requests() {
		if r.Path == "/completion" {
			body = r.Body
		}
	}
	var prompt string
	var raw map[string]json.RawMessage
	json.Unmarshal(body, &raw)
	json.Unmarshal(raw["prompt"], &prompt)
	want := `{"prompt":` + string(raw["prompt"]) + `,"model":"gemma-4-31b-it","n_predict":0,"n_probs":262144,"temperature":0,"top_k":0,"top_p":1,"post_sampling_probs":false,"stream":false,"cache_prompt":false}`
	if string(body) != want {
		t.Errorf("body\n got %s\nwant %s", body, want)
	}
	if !strings.HasPrefix(prompt, "<|turn>user\n") || !strings.HasSuffix(prompt, "<turn|>\n<|turn>model\n<|channel>thought\n<channel|>") {
		t.Errorf("text prompt must be the Gemma 4 prefix string, got %q", prompt)
	}
}

// Off-option mass needs the full distribution.
func TestOffOptionMassAndVocabRead(t *testing.T) {
	tests := []struct {
		name       string
		nVocab     int
		hideVocab  bool
		judgments  int
		wantMass   bool
		wantModels int
		reason     string
	}{
		{name: "configured size matches", nVocab: 64, judgments: 2, wantMass: true, wantModels: 0, reason: "a given n_vocab never reads /v1/models"},
		{name: "default size mismatches", nVocab: 0, judgments: 1, wantMass: false, wantModels: 0, reason: "262144 assumed, 64 returned: not the full distribution"},
		{name: "discovered once and cached", nVocab: llamacpp.DiscoverNVocab, judgments: 3, wantMass: true, wantModels: 1, reason: "typevet #321: read after /completion, cached per model"},
		{name: "unknown size read at most three times", nVocab: llamacpp.DiscoverNVocab, hideVocab: true, judgments: 3, wantMass: false, wantModels: 3, reason: "_MAX_VOCAB_READS = 3; a failed read never fails scoring"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, judgmenttest.CheckModel(), func(s *judgmenttest.Server) { s.HideVocab = tt.hideVocab })
			sess := openSession(t, srv, llamacpp.Settings{}, llamacpp.OpenOptions{NVocab: tt.nVocab})
			opened := srv.Count("/v1/models") // Open's served-model check
			req := judgmenttest.CheckRequest(nil)
			req.Media = nil
			req.Questions = judgmenttest.CheckQuestions()[:2]
			for range tt.judgments {
				resp, err := sess.Judge(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if got := resp.OffOption[0].OffOption.Mass != nil; got != tt.wantMass {
					t.Fatalf("mass present = %v, want %v (%s)", got, tt.wantMass, tt.reason)
				}
			}
			if got := srv.Count("/v1/models") - opened; got != tt.wantModels {
				t.Errorf("/v1/models reads = %d, want %d (%s)", got, tt.wantModels, tt.reason)
			}
		})
	}
}

// One session shared by many goroutines (run with -race).
func TestSessionConcurrent(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv, llamacpp.Settings{}, llamacpp.OpenOptions{NVocab: llamacpp.DiscoverNVocab})
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
			if err == nil && len(resp.Answers) != 4 {
				err = errors.New("answers missing")
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
	if n := srv.Count("/completion"); n != 32 {
		t.Errorf("%d scoring calls, want 32", n)
	}
}

func TestTimeoutIsTransportError(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv, llamacpp.Settings{Timeout: 200 * time.Millisecond}, llamacpp.OpenOptions{})
	srv.Inject(judgmenttest.Fault{Path: "/completion", Delay: 2 * time.Second})
	req := judgmenttest.CheckRequest(nil)
	req.Media = nil
	_, err := sess.Judge(context.Background(), req)
	var te *judgment.TransportError
	if !errors.As(err, &te) || !strings.HasPrefix(te.Msg, "llama.cpp request failed: ") {
		t.Fatalf("err = %v, want TransportError", err)
	}
	if n := srv.Count("/completion"); n != 1 {
		t.Errorf("%d /completion requests; a timeout is never retried", n)
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
	sess := openSession(t, srv, llamacpp.Settings{}, llamacpp.OpenOptions{})
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
	srv.Inject(judgmenttest.Fault{Path: "/completion", Tamper: judgmenttest.TamperDropImage})
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
				c, err := llamacpp.NewClient(llamacpp.Settings{BaseURL: srv.URL}, llamacpp.ClientOptions{})
				if err != nil {
					t.Fatal(err)
				}
				port = judgment.NewJudge(c, judgment.JudgeOptions{Family: judgment.FamilyGemma4Turn, TokenizeEveryCall: true})
			} else {
				port = openSession(t, srv, llamacpp.Settings{}, llamacpp.OpenOptions{NVocab: 64})
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
