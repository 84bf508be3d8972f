package llamacpp

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strconv"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/backend/backendhttp"
)

// Props is what a session needs from GET /props?model=.
type Props struct {
	// Vision is true when modalities.vision is JSON true.
	Vision bool
	// MediaMarker is the server's media marker; "<__media__>" when the
	// server names none.
	MediaMarker string
	// BuildInfo is the server build, "unknown" when absent (receipts).
	BuildInfo string
	// ModelAlias is the served alias, "" when absent (receipts).
	ModelAlias string
	// NCtx is default_generation_settings.n_ctx, nil when absent (receipts).
	NCtx *int
}

// decodeProps reads a /props body.
func decodeProps(body []byte) (Props, error) {
	var w PropsResponse
	if err := json.Unmarshal(body, &w); err != nil {
		return Props{}, errNonJSON()
	}
	p := Props{
		Vision:      bytes.Equal(w.Modalities.Vision, []byte("true")),
		MediaMarker: judgment.MediaMarker,
		BuildInfo:   "unknown",
	}
	if s, ok := jsonString(w.MediaMarker); ok && s != "" {
		p.MediaMarker = s
	}
	if s, ok := jsonString(w.BuildInfo); ok {
		p.BuildInfo = s
	}
	p.ModelAlias, _ = jsonString(w.ModelAlias)
	p.NCtx = backendhttp.Count(w.DefaultGenerationSettings.NCtx)
	return p, nil
}

// jsonString decodes raw when it is a JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// decodeApplyTemplate reads an /apply-template body.
func decodeApplyTemplate(body []byte) (string, error) {
	if !json.Valid(body) {
		return "", errNonJSON()
	}
	var w ApplyTemplateResponse
	if err := json.Unmarshal(body, &w); err != nil || w.Prompt == nil {
		return "", &judgment.GenerationError{Msg: "llama.cpp /apply-template response missing a prompt string"}
	}
	return *w.Prompt, nil
}

// decodeTokenize reads a /tokenize body.
func decodeTokenize(body []byte) ([]int, error) {
	if !json.Valid(body) {
		return nil, errNonJSON()
	}
	var w TokenizeResponse
	if err := json.Unmarshal(body, &w); err != nil || w.Tokens == nil {
		return nil, &judgment.GenerationError{Msg: "llama.cpp /tokenize response missing a tokens list of integers"}
	}
	return *w.Tokens, nil
}

// decodeNVocab reads the vocabulary size of model from a /v1/models body;
// 0 when absent.
func decodeNVocab(body []byte, model string) int {
	var w ModelsResponse
	if json.Unmarshal(body, &w) != nil {
		return 0
	}
	var entry *ModelEntry
	for i := range w.Data {
		e := &w.Data[i]
		if e.ID == model || containsString(e.Aliases, model) {
			entry = e
			break
		}
	}
	if entry == nil && len(w.Data) == 1 {
		entry = &w.Data[0]
	}
	if entry == nil {
		return 0
	}
	if n := backendhttp.Count(entry.Meta.NVocab); n != nil && *n > 0 {
		return *n
	}
	return 0
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// completion is a decoded /completion answer.
type completion struct {
	entries []TopLogprob
	usage   judgment.Usage
}

// decodeCompletion parses a /completion body (spec §4.4). The root must be
// an object with completion_probabilities[0].top_logprobs, a list of
// {id, logprob} objects; anything else is a [judgment.GenerationError].
func decodeCompletion(body []byte) (completion, error) {
	if d, ok := scanCompletion(body); ok {
		return d, nil
	}
	var w CompletionResponse
	err := json.Unmarshal(body, &w)
	if _, syntax := err.(*json.SyntaxError); syntax {
		if fixed, ok := backendhttp.PythonLiterals(body); ok {
			w = CompletionResponse{}
			err = json.Unmarshal(fixed, &w)
		}
	}
	if err != nil {
		if _, syntax := err.(*json.SyntaxError); syntax {
			return completion{}, errNonJSON()
		}
		return completion{}, &judgment.GenerationError{Msg: "llama.cpp /completion response is malformed: top_logprobs must be a list of objects with an integer id and a numeric logprob"}
	}
	if len(w.CompletionProbabilities) == 0 || w.CompletionProbabilities[0].TopLogprobs == nil {
		return completion{}, &judgment.GenerationError{Msg: "llama.cpp /completion response missing completion_probabilities[0].top_logprobs"}
	}
	entries := *w.CompletionProbabilities[0].TopLogprobs
	for _, e := range entries {
		if !e.ID.Valid || !e.Logprob.Valid {
			return completion{}, &judgment.GenerationError{Msg: "llama.cpp /completion top_logprobs entry lacks an integer id or a numeric logprob"}
		}
	}
	return completion{
		entries: entries,
		usage: judgment.Usage{
			InputTokens:  backendhttp.Count(w.TokensEvaluated),
			OutputTokens: backendhttp.Count(w.TokensPredicted),
		},
	}, nil
}

// candidates maps the requested candidates to their logprobs, in request
// order. A token id listed twice is a [judgment.ScoringValidationError];
// ids that were not requested are ignored, and a requested id that is
// absent is left out, for [judgment.ScoringRequest.ValidateResult] to
// report as missing (never imputed).
func (d completion) candidates(req judgment.ScoringRequest) ([]judgment.ScoredCandidate, error) {
	if dup, ok := duplicateID(d.entries); ok {
		return nil, &judgment.ScoringValidationError{Msg: "llama.cpp top_logprobs lists token id " + strconv.Itoa(dup) + " more than once"}
	}
	want := make(map[int]int, len(req.Candidates))
	for i, c := range req.Candidates {
		want[c.TokenID] = i
	}
	rows := make([]judgment.ScoredCandidate, len(req.Candidates))
	found := make([]bool, len(req.Candidates))
	for _, e := range d.entries {
		if i, ok := want[e.ID.Value]; ok {
			c := req.Candidates[i]
			rows[i] = judgment.ScoredCandidate{Label: c.Label, TokenID: c.TokenID, Logprob: e.Logprob.Value}
			found[i] = true
		}
	}
	out := rows[:0]
	for i, r := range rows {
		if found[i] {
			out = append(out, r)
		}
	}
	return out, nil
}

// duplicateID returns a token id that appears twice in entries. Ids are
// tracked in a bitset when they are small, as vocabulary ids are.
func duplicateID(entries []TopLogprob) (int, bool) {
	const maxBitset = 1 << 24
	maxID := 0
	for _, e := range entries {
		if e.ID.Value < 0 || e.ID.Value >= maxBitset {
			maxID = -1
			break
		}
		maxID = max(maxID, e.ID.Value)
	}
	if maxID >= 0 {
		seen := make([]uint64, maxID/64+1)
		for _, e := range entries {
			w, bit := e.ID.Value/64, uint64(1)<<(e.ID.Value%64)
			if seen[w]&bit != 0 {
				return e.ID.Value, true
			}
			seen[w] |= bit
		}
		return 0, false
	}
	seen := make(map[int]bool, len(entries))
	for _, e := range entries {
		if seen[e.ID.Value] {
			return e.ID.Value, true
		}
		seen[e.ID.Value] = true
	}
	return 0, false
}

// offOptionMass returns 1 − Σexp(candidate logprobs), clamped to [0, 1],
// when the answer is the full next-token distribution: exactly nVocab
// entries whose total mass (compensated sum) is within 1e-2 of 1 (spec
// §2.8). Otherwise nil.
func (d completion) offOptionMass(cands []judgment.ScoredCandidate, nVocab int) *float64 {
	if nVocab <= 0 || len(d.entries) != nVocab {
		return nil
	}
	var total kahan
	for _, e := range d.entries {
		total.add(math.Exp(e.Logprob.Value))
	}
	if t := total.sum(); !(math.Abs(t-1) <= 1e-2) {
		return nil
	}
	var in kahan
	for _, c := range cands {
		in.add(math.Exp(c.Logprob))
	}
	mass := min(max(1-in.sum(), 0), 1)
	if math.IsNaN(mass) {
		return nil
	}
	return &mass
}

// kahan is a Neumaier compensated sum, standing in for Python's math.fsum.
type kahan struct{ s, c float64 }

func (k *kahan) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k *kahan) sum() float64 { return k.s + k.c }

// result turns a /completion body into the validated result of req:
// candidates in request order, usage, and the off-option mass (which may
// read /v1/models, spec §4.6).
func (c *Client) result(ctx context.Context, req judgment.ScoringRequest, body []byte) (judgment.ScoringResult, error) {
	d, err := decodeCompletion(body)
	if err != nil {
		return judgment.ScoringResult{}, err
	}
	cands, err := d.candidates(req)
	if err != nil {
		return judgment.ScoringResult{}, err
	}
	res := judgment.ScoringResult{Model: req.Model, Candidates: cands, Usage: d.usage}
	if err := req.ValidateResult(res); err != nil {
		return judgment.ScoringResult{}, err
	}
	res.OffOptionMass = d.offOptionMass(cands, c.knownNVocab(ctx, req.Model))
	return res, nil
}
