package judgmenttest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// The suite runs here against three minimal Ports written from typevet's wire
// format in this file: a llama.cpp and a vLLM scorer under judgment.NewJudge over the
// fake servers, and an offline port decoding ConformanceDistributions. They
// prove the suite can be passed by every kind of backend; the real
// backends run Run in their own tests.

func TestConformanceLlamaCPP(t *testing.T) {
	judgmenttest.Run(t, func(t *testing.T) judgment.Port {
		srv := judgmenttest.NewLlamaCPP(judgmenttest.ConformanceModel())
		t.Cleanup(srv.Close)
		return judgment.NewJudge(newLlamaScorer(t, srv), judgment.JudgeOptions{
			Model: judgmenttest.ConformanceModelID, Family: judgment.FamilyGemma4Turn})
	})
}

func TestConformanceVLLM(t *testing.T) {
	judgmenttest.Run(t, func(t *testing.T) judgment.Port {
		srv := judgmenttest.NewVLLM(judgmenttest.ConformanceModel())
		t.Cleanup(srv.Close)
		return judgment.NewJudge(&vllmScorer{http: srv.Client(), base: srv.URL}, judgment.JudgeOptions{
			Model: judgmenttest.ConformanceModelID, Family: judgment.FamilyChat})
	})
}

func TestConformanceOffline(t *testing.T) {
	var dists map[string]json.RawMessage
	if err := json.Unmarshal(judgmenttest.ConformanceDistributions(), &dists); err != nil {
		t.Fatalf("ConformanceDistributions is not a JSON object: %v", err)
	}
	judgmenttest.Run(t, func(t *testing.T) judgment.Port { return offlinePort(dists) })
}

// post sends a JSON body and decodes a JSON answer, mapping failures to
// typevet's error classes.
func post(ctx context.Context, c *http.Client, backend, url string, body, out any) error {
	raw, _ := json.Marshal(body)
	method := http.MethodPost
	if body == nil {
		method, raw = http.MethodGet, nil
	}
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return &judgment.TransportError{Msg: backend + " request failed", Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return &judgment.TransportError{Msg: backend + " request failed", Err: err}
	}
	if resp.StatusCode >= 400 {
		return &judgment.BackendHTTPError{Backend: backend, StatusCode: resp.StatusCode,
			Msg: fmt.Sprintf("%s HTTP %d: %s", backend, resp.StatusCode, data)}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &judgment.GenerationError{Msg: backend + " returned non-JSON HTTP body"}
	}
	return nil
}

func singleToken(ids []int, text string) ([]int, error) {
	if ids == nil {
		return nil, &judgment.GenerationError{Msg: "tokenize response missing a tokens list for " + strconv.Quote(text)}
	}
	return ids, nil
}

// result builds a ScoringResult from an id -> logprob map.
func result(req judgment.ScoringRequest, lp map[int]float64, usage judgment.Usage, mass *float64) (judgment.ScoringResult, error) {
	res := judgment.ScoringResult{Model: req.Model, Usage: usage, OffOptionMass: mass}
	for _, c := range req.Candidates {
		v, ok := lp[c.TokenID]
		if !ok {
			return res, &judgment.ScoringValidationError{Msg: "missing scores for requested candidates: " + c.Label}
		}
		res.Candidates = append(res.Candidates, judgment.ScoredCandidate{Label: c.Label, TokenID: c.TokenID, Logprob: v})
	}
	return res, req.ValidateResult(res)
}

type llamaScorer struct {
	http   *http.Client
	base   string
	marker string
	nVocab int
}

func newLlamaScorer(t *testing.T, srv *judgmenttest.Server) *llamaScorer {
	s := &llamaScorer{http: srv.Client(), base: srv.URL}
	var props struct {
		Marker string `json:"media_marker"`
	}
	if err := post(context.Background(), s.http, "llama.cpp", s.base+"/props", nil, &props); err != nil {
		t.Fatal(err)
	}
	var models struct {
		Data []struct {
			Meta struct {
				NVocab int `json:"n_vocab"`
			} `json:"meta"`
		} `json:"data"`
	}
	if err := post(context.Background(), s.http, "llama.cpp", s.base+"/v1/models", nil, &models); err != nil {
		t.Fatal(err)
	}
	s.marker, s.nVocab = props.Marker, models.Data[0].Meta.NVocab
	return s
}

func (s *llamaScorer) Tokenize(ctx context.Context, model, text string) ([]int, error) {
	var out struct{ Tokens []int }
	if err := post(ctx, s.http, "llama.cpp", s.base+"/tokenize", map[string]any{"model": model, "content": text, "add_special": false}, &out); err != nil {
		return nil, err
	}
	return singleToken(out.Tokens, text)
}

func (s *llamaScorer) ScoreCandidates(ctx context.Context, req judgment.ScoringRequest) (judgment.ScoringResult, error) {
	var prompt any = req.Prefix
	if len(req.Media) > 0 {
		var data []string
		for _, m := range req.Media {
			data = append(data, base64.StdEncoding.EncodeToString(m.Data))
		}
		prompt = map[string]any{"prompt_string": strings.ReplaceAll(req.Prefix, judgment.MediaMarker, s.marker), "multimodal_data": data}
	}
	var out struct {
		TokensEvaluated int `json:"tokens_evaluated"`
		TokensPredicted int `json:"tokens_predicted"`
		Probs           []struct {
			Top []struct {
				ID      int     `json:"id"`
				Logprob float64 `json:"logprob"`
			} `json:"top_logprobs"`
		} `json:"completion_probabilities"`
	}
	err := post(ctx, s.http, "llama.cpp", s.base+"/completion", map[string]any{
		"prompt": prompt, "model": req.Model, "n_predict": 0, "n_probs": s.nVocab, "temperature": 0,
		"top_k": 0, "top_p": 1, "post_sampling_probs": false, "stream": false, "cache_prompt": false,
	}, &out)
	if err != nil {
		return judgment.ScoringResult{}, err
	}
	if len(out.Probs) == 0 {
		return judgment.ScoringResult{}, &judgment.GenerationError{Msg: "missing completion_probabilities[0].top_logprobs"}
	}
	lp := map[int]float64{}
	total := 0.0
	for _, e := range out.Probs[0].Top {
		lp[e.ID] = e.Logprob
		total += math.Exp(e.Logprob)
	}
	var mass *float64
	if len(out.Probs[0].Top) == s.nVocab && math.Abs(total-1) <= 1e-2 {
		m := 1.0
		for _, c := range req.Candidates {
			m -= math.Exp(lp[c.TokenID])
		}
		m = min(max(m, 0), 1)
		mass = &m
	}
	in, o := out.TokensEvaluated, out.TokensPredicted
	return result(req, lp, judgment.Usage{InputTokens: &in, OutputTokens: &o}, mass)
}

type vllmScorer struct {
	http *http.Client
	base string
}

func (s *vllmScorer) Tokenize(ctx context.Context, model, text string) ([]int, error) {
	var out struct{ Tokens []int }
	if err := post(ctx, s.http, "vLLM", s.base+"/tokenize", map[string]any{"model": model, "prompt": text, "add_special_tokens": false}, &out); err != nil {
		return nil, err
	}
	return singleToken(out.Tokens, text)
}

func (s *vllmScorer) ScoreCandidates(ctx context.Context, req judgment.ScoringRequest) (judgment.ScoringResult, error) {
	var content any = req.Prefix
	if len(req.Media) > 0 {
		pieces := strings.Split(req.Prefix, judgment.MediaMarker)
		var blocks []any
		text := func(s string) {
			if s != "" {
				blocks = append(blocks, map[string]any{"type": "text", "text": s})
			}
		}
		text(pieces[0])
		for i, m := range req.Media {
			blocks = append(blocks, map[string]any{"type": "image_url", "image_url": map[string]any{
				"url": "data:" + m.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(m.Data)}})
			text(strings.TrimPrefix(pieces[i+1], "\n"))
		}
		content = blocks
	}
	var ids []int
	for _, c := range req.Candidates {
		ids = append(ids, c.TokenID)
	}
	var out struct {
		Choices []struct {
			Logprobs struct {
				Content []struct {
					Top []struct {
						Token   string  `json:"token"`
						Logprob float64 `json:"logprob"`
					} `json:"top_logprobs"`
				} `json:"content"`
			} `json:"logprobs"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	err := post(ctx, s.http, "vLLM", s.base+"/v1/chat/completions", map[string]any{
		"model": req.Model, "messages": []any{map[string]any{"role": "user", "content": content}},
		"max_tokens": 1, "temperature": 0, "logprobs": true, "logprob_token_ids": ids,
		"return_tokens_as_token_ids": true, "add_generation_prompt": true,
		"chat_template_kwargs": map[string]any{"enable_thinking": false},
	}, &out)
	if err != nil {
		return judgment.ScoringResult{}, err
	}
	if len(out.Choices) == 0 || len(out.Choices[0].Logprobs.Content) == 0 {
		return judgment.ScoringResult{}, &judgment.GenerationError{Msg: "missing top_logprobs"}
	}
	lp := map[int]float64{}
	for _, e := range out.Choices[0].Logprobs.Content[0].Top {
		id, err := strconv.Atoi(strings.TrimPrefix(e.Token, "token_id:"))
		if err != nil {
			return judgment.ScoringResult{}, &judgment.GenerationError{Msg: "token not in token_id:N form"}
		}
		lp[id] = e.Logprob
	}
	in, o := out.Usage.PromptTokens, out.Usage.CompletionTokens
	return result(req, lp, judgment.Usage{InputTokens: &in, OutputTokens: &o}, nil)
}

// offlinePort answers from ConformanceDistributions without HTTP: uniform
// for unnamed questions, no usage, no off-option mass.
func offlinePort(dists map[string]json.RawMessage) judgment.Port {
	return judgment.PortFunc(func(ctx context.Context, req judgment.Request) (judgment.Response, error) {
		if err := req.Validate(); err != nil {
			return judgment.Response{}, err
		}
		if err := ctx.Err(); err != nil {
			return judgment.Response{}, &judgment.TransportError{Msg: "fake: " + err.Error(), Err: err}
		}
		resp := judgment.Response{Model: req.Model,
			TextParts: judgment.TextPartsReceipt{OptionBlock: "default", ContextTemplate: "default"}}
		for _, nq := range req.Questions {
			labels := judgment.ScoringLabels(nq.Question)
			weights := map[string]float64{}
			if raw, ok := dists[nq.Name]; ok {
				var p float64
				if json.Unmarshal(raw, &p) == nil {
					weights = map[string]float64{"False": 1 - p, "True": p}
				} else if err := json.Unmarshal(raw, &weights); err != nil {
					return judgment.Response{}, err
				}
			}
			lp := make([]float64, len(labels))
			for i, l := range labels {
				if w, ok := weights[l]; ok {
					lp[i] = math.Log(w)
				} else if len(weights) > 0 {
					lp[i] = math.Inf(-1)
				}
			}
			a, err := judgment.Decode(nq.Question, lp)
			if err != nil {
				return judgment.Response{}, err
			}
			resp.Answers = append(resp.Answers, judgment.NamedAnswer{Name: nq.Name, Answer: a})
			resp.OffOption = append(resp.OffOption, judgment.NamedOffOption{Name: nq.Name,
				OffOption: judgment.OffOption{Threshold: req.OffOptionThreshold}})
		}
		return resp, nil
	})
}

// brokenPort breaks three rules on purpose: it flips every Noul, reverses
// the answer order of multi-question requests and drops the threshold from
// the receipts.
func brokenPort(p judgment.Port) judgment.Port {
	return judgment.PortFunc(func(ctx context.Context, req judgment.Request) (judgment.Response, error) {
		resp, err := p.Judge(ctx, req)
		if err != nil {
			return resp, err
		}
		for i, a := range resp.Answers {
			if n, ok := a.Answer.(judgment.NoulAnswer); ok {
				n.Noul = 1 - n.Noul
				resp.Answers[i].Answer = n
			}
			resp.OffOption[i].OffOption.Threshold = nil
		}
		slices.Reverse(resp.Answers)
		return resp, nil
	})
}

// TestBrokenPortHelper runs the suite on brokenPort; it only runs as the
// child process of TestRunCatchesBrokenPorts.
func TestBrokenPortHelper(t *testing.T) {
	if os.Getenv("JUDGMENTTEST_BROKEN_PORT") == "" {
		t.Skip("runs as the child of TestRunCatchesBrokenPorts")
	}
	var dists map[string]json.RawMessage
	json.Unmarshal(judgmenttest.ConformanceDistributions(), &dists)
	judgmenttest.Run(t, func(t *testing.T) judgment.Port { return brokenPort(offlinePort(dists)) })
}

// The suite is no rubber stamp: a Port breaking the Noul, order and
// threshold rules fails exactly the cases that check them.
func TestRunCatchesBrokenPorts(t *testing.T) {
	if os.Getenv("JUDGMENTTEST_BROKEN_PORT") != "" {
		t.Skip("child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenPortHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "JUDGMENTTEST_BROKEN_PORT=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the suite passed a broken port:\n%s", out)
	}
	for _, c := range []struct {
		verdict string
		cases   []string
	}{
		{"FAIL", []string{"NoulIsPTrue", "AnswersInQuestionOrder", "ImageRequest", "OffOptionGuard"}},
		{"PASS", []string{"ChoiceArgmax", "ScoreExpectedLevel", "UnscriptedIsUniform", "DefaultTextParts",
			"ValidationErrors", "CancelledContext", "Deterministic", "ConcurrentUse"}},
	} {
		for _, name := range c.cases {
			if !strings.Contains(string(out), "--- "+c.verdict+": TestBrokenPortHelper/"+name+" ") {
				t.Errorf("case %s did not %s", name, c.verdict)
			}
		}
	}
	if t.Failed() {
		t.Logf("child output:\n%s", out)
	}
}
