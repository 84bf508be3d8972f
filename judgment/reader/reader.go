package reader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"math"
	"slices"

	"github.com/typevet/typevet-go/internal/checkform"
	"github.com/typevet/typevet-go/judgment"
)

// The check-match question ids the reader answers.
const (
	QuestionPayeeMatches = "payee_matches"
	QuestionAmountsMatch = "amounts_match"
	QuestionVerdict      = "verdict"
	QuestionLegibility   = "legibility"
)

// Options configures [New]. The zero value means the defaults.
type Options struct {
	// Constants tune the reading and the answer mapping; the zero value
	// means [DefaultConstants]. Start from DefaultConstants to change one.
	Constants Constants
}

func (o Options) constants() Constants {
	if o.Constants == (Constants{}) {
		return DefaultConstants
	}
	return o.Constants
}

// Validate reports constants the reader cannot use: a non-finite value,
// InkHigh not above InkLow, TrustHigh not above TrustLow, a
// LegibilitySpread that is not positive or a negative WeightFloor.
func (c Constants) Validate() error {
	for _, v := range []float64{c.InkLow, c.InkHigh, c.PayeeTolerance, c.PayeeSlope, c.AmountTolerance,
		c.AmountSlope, c.DateTolerance, c.DateSlope, c.TrustLow, c.TrustHigh, c.PenMinShare,
		c.SignatureMass, c.SignatureSlope, c.LegibleThreshold, c.LegibleSlope, c.LegibilitySpread, c.WeightFloor} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.New("reader: constants must be finite")
		}
	}
	switch {
	case !(c.InkHigh > c.InkLow):
		return errors.New("reader: constants: ink_high must be above ink_low")
	case !(c.TrustHigh > c.TrustLow):
		return errors.New("reader: constants: trust_high must be above trust_low")
	case !(c.LegibilitySpread > 0):
		return errors.New("reader: constants: legibility_spread must be positive")
	case c.WeightFloor < 0:
		return errors.New("reader: constants: weight_floor must not be negative")
	}
	return nil
}

// port is the reader's judgment.Port.
type port struct {
	c   Constants
	err error // from Constants.Validate, returned by every call
}

// New returns the reader as a [judgment.Port]: a judge that answers the
// check-match questions by reading the check image's pixels against the
// register row in the state text (see the package documentation). It is
// safe for concurrent use and holds no model; a judgment takes a few
// milliseconds of one core, most of it PNG decoding.
//
// A call checks, in order: ctx (a *judgment.TransportError wrapping
// ctx.Err()); the request shape ([judgment.Request.Validate]); that every
// question is one of the four check-match questions by name, kind and
// options — payee_matches and amounts_match Nouls, verdict a Choice of the
// six verdict labels in any order, legibility a Score of 5 levels (else a
// *judgment.ScoringUnsupportedCapabilityError naming the first other
// question); exactly one image/png image whose header says 1000×440 (the
// same class; the size is read before any pixel is decoded); the register
// row of the state ([ParseState]: a *StateError, which errors.As also
// matches as a *judgment.JudgmentValidationError); the PNG's pixels (a
// *judgment.ScoringValidationError). Every one of these errors satisfies
// [judgment.IsGenerationError], so a run stops cleanly.
//
// Answers come in question order, decoded by [judgment.Decode] from
// log-probabilities the reader computes; the response carries the
// requested model, unknown usage, no off-option mass (the threshold is
// copied, the guard never flags) and the default text parts.
//
// Constants that fail [Constants.Validate] make every call fail with that
// (plain, not generation) error: a misconfigured reader is a bug.
func New(opts Options) judgment.Port {
	c := opts.constants()
	return &port{c: c, err: c.Validate()}
}

// Judge answers req; see [New].
func (p *port) Judge(ctx context.Context, req judgment.Request) (judgment.Response, error) {
	if p.err != nil {
		return judgment.Response{}, p.err
	}
	if err := ctx.Err(); err != nil {
		return judgment.Response{}, &judgment.TransportError{Msg: "judgment stopped: " + err.Error(), Err: err}
	}
	if err := req.Validate(); err != nil {
		return judgment.Response{}, err
	}
	for _, nq := range req.Questions {
		if !supported(nq) {
			return judgment.Response{}, &judgment.ScoringUnsupportedCapabilityError{Msg: fmt.Sprintf(
				"reader: cannot answer question %q: the reader answers only the check-match questions "+
					"payee_matches and amounts_match (noul), verdict (choice of the six verdict labels) "+
					"and legibility (score of 5 levels)", nq.Name)}
		}
	}
	if len(req.Media) != 1 || req.Media[0].MIMEType != "image/png" {
		return judgment.Response{}, &judgment.ScoringUnsupportedCapabilityError{Msg: fmt.Sprintf(
			"reader: needs exactly one image/png check image, got %d images", len(req.Media))}
	}
	reg, err := ParseState(req.State)
	if err != nil {
		return judgment.Response{}, err
	}
	// The header first: a PNG claiming a huge canvas is refused before
	// any pixel memory is allocated.
	data := req.Media[0].Data
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return judgment.Response{}, &judgment.ScoringValidationError{Msg: "reader: image 0 is not a readable PNG: " + err.Error()}
	}
	if cfg.Width != checkform.Width || cfg.Height != checkform.Height {
		return judgment.Response{}, &judgment.ScoringUnsupportedCapabilityError{Msg: fmt.Sprintf(
			"reader: reads only %d×%d check images, got %d×%d", checkform.Width, checkform.Height, cfg.Width, cfg.Height)}
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return judgment.Response{}, &judgment.ScoringValidationError{Msg: "reader: image 0 is not a readable PNG: " + err.Error()}
	}
	e := p.c.Weigh(read(formFor(p.c), img), reg)
	if err := ctx.Err(); err != nil {
		return judgment.Response{}, &judgment.TransportError{Msg: "judgment stopped: " + err.Error(), Err: err}
	}
	return p.c.respond(req, e)
}

// respond turns the evidence into the answers of req's questions.
func (c Constants) respond(req judgment.Request, e Evidence) (judgment.Response, error) {
	return judgment.DecodeAll(req, func(nq judgment.NamedQuestion) ([]float64, error) {
		return c.logprobs(nq, e), nil
	})
}

// logprobs returns the log-probabilities of nq's candidates in
// [judgment.ScoringLabels] order; nq is supported.
func (c Constants) logprobs(nq judgment.NamedQuestion, e Evidence) []float64 {
	switch nq.Name {
	case QuestionPayeeMatches:
		return noulLogprobs(e.Payee)
	case QuestionAmountsMatch:
		return noulLogprobs(e.Amounts())
	case QuestionVerdict:
		w := c.verdictWeights(e)
		labels := judgment.ScoringLabels(nq.Question)
		out := make([]float64, len(labels))
		for i, l := range labels {
			out[i] = math.Log(w[slices.Index(verdictLabels[:], l)])
		}
		return out
	default: // QuestionLegibility
		w := c.legibilityWeights(e)
		out := make([]float64, len(w))
		for i, v := range w {
			out[i] = math.Log(v)
		}
		return out
	}
}

// noulLogprobs returns [log P(false), log P(true)].
func noulLogprobs(p float64) []float64 { return []float64{math.Log1p(-p), math.Log(p)} }

// supported reports whether nq is one of the four check-match questions:
// the right name with the right kind and options.
func supported(nq judgment.NamedQuestion) bool {
	switch nq.Name {
	case QuestionPayeeMatches, QuestionAmountsMatch:
		_, ok := nq.Question.(judgment.Noul)
		return ok
	case QuestionVerdict:
		q, ok := nq.Question.(judgment.Choice)
		if !ok || len(q.Criteria) != len(verdictLabels) {
			return false
		}
		for _, l := range q.Labels() {
			if !slices.Contains(verdictLabels[:], l) {
				return false
			}
		}
		return true // labels are unique (Validate), so all six are there
	case QuestionLegibility:
		q, ok := nq.Question.(judgment.Score)
		return ok && len(q.Criteria) == legibilityLevels
	}
	return false
}
