package llamacpp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/internal/pymath"
	"github.com/typevet/typevet-go/judgment"
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

// offOptionMass returns 1 − Σexp(candidate logprobs), clamped to [0, 1],
// when the answer is the full next-token distribution: exactly nVocab
// entries whose total mass (compensated sum) is within 1e-2 of 1.
// Otherwise nil.
func (d completion) offOptionMass(cands []judgment.ScoredCandidate, nVocab int) *float64 {
	if nVocab <= 0 || d.entries != nVocab || !d.massOK {
		return nil
	}
	// typevet's _off_option_mass: math.fsum(math.exp(lp) for each candidate).
	in := make([]float64, len(cands))
	for i, c := range cands {
		in[i] = pymath.Exp(c.Logprob)
	}
	mass := min(max(1-pymath.FSum(in), 0), 1)
	if math.IsNaN(mass) {
		return nil
	}
	return &mass
}

// result decodes the /completion answer resp of req in one streaming pass
// and returns the validated result: candidates in request order, usage,
// and the off-option mass (which may read /v1/models). nProbs
// is the n_probs sent. The body is read at most to
// [backendhttp.MaxBodyBytes] and closed.
func (c *Client) result(ctx context.Context, req judgment.ScoringRequest, resp *http.Response, nProbs int) (judgment.ScoringResult, error) {
	d, err := decodeCompletion(io.LimitReader(resp.Body, backendhttp.MaxBodyBytes), req, nProbs)
	resp.Body.Close()
	var re *readError
	if errors.As(err, &re) {
		return judgment.ScoringResult{}, transportError(ctx, re.err)
	}
	if err != nil {
		return judgment.ScoringResult{}, err
	}
	res := judgment.ScoringResult{Model: req.Model, Candidates: d.cands, Usage: d.usage}
	if err := req.ValidateResult(res); err != nil {
		return judgment.ScoringResult{}, err
	}
	res.OffOptionMass = d.offOptionMass(d.cands, c.knownNVocab(ctx, req.Model))
	return res, nil
}
