// Package fake is the offline, deterministic judgment backend
// (TYPEVET_BACKEND=fake): it answers every question from configured
// distributions, through the same decoding code ([judgment.Decode]) as the
// real backends, without a model or a network.
package fake

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/typevet/typevet-go/judgment"
)

// port is the fake judgment.Port.
type port struct{ d Distributions }

// New returns a [judgment.Port] that answers from d. It copies d, so later
// changes to d do not affect it; the port is safe for concurrent use.
//
// A question named in d gets its configured distribution: a Noul's
// P(true), or a Choice's or Score's weights normalised (a label or level
// d does not name weighs 0). A question not named in d gets the uniform
// distribution. The fake turns the distribution into log-probabilities in
// [judgment.ScoringLabels] order and decodes them with [judgment.Decode].
//
// Requests are validated as a real backend validates them
// ([judgment.Request.Validate]); a distribution that does not fit its
// question (a number for a Choice, an object for a Noul, a label the
// question lacks, only zero weights on the question's labels) is a plain
// configuration error, not a [judgment.GenerationError]. Responses carry
// the requested model, unknown usage and off-option mass (the fake has no
// next-token distribution, so the guard never flags), default text parts
// and no request ids.
func New(d Distributions) judgment.Port {
	c := make(Distributions, len(d))
	for name, dist := range d {
		if dist.True != nil {
			v := *dist.True
			dist.True = &v
		}
		dist.Weights = maps.Clone(dist.Weights)
		c[name] = dist
	}
	return port{d: c}
}

// Judge answers req; see [New].
func (p port) Judge(ctx context.Context, req judgment.Request) (judgment.Response, error) {
	if err := ctx.Err(); err != nil {
		return judgment.Response{}, &judgment.TransportError{Msg: "judgment stopped: " + err.Error(), Err: err}
	}
	if err := req.Validate(); err != nil {
		return judgment.Response{}, err
	}
	return judgment.DecodeAll(req, p.logprobs)
}

// logprobs returns the log-probabilities of nq's candidates in scoring
// order.
func (p port) logprobs(nq judgment.NamedQuestion) ([]float64, error) {
	labels := judgment.ScoringLabels(nq.Question)
	lp := make([]float64, len(labels))
	d, named := p.d[nq.Name]
	if !named {
		for i := range lp {
			lp[i] = -math.Log(float64(len(labels)))
		}
		return lp, nil
	}
	if _, isNoul := nq.Question.(judgment.Noul); isNoul {
		if d.True == nil {
			return nil, fmt.Errorf("fake: question %q is a noul but its distribution is a weight object", nq.Name)
		}
		t := *d.True
		if math.IsNaN(t) || t < 0 || t > 1 {
			return nil, fmt.Errorf("fake: question %q: P(true) must be in [0, 1]", nq.Name)
		}
		return []float64{math.Log(1 - t), math.Log(t)}, nil
	}
	if d.Weights == nil {
		return nil, fmt.Errorf("fake: question %q is a %s but its distribution is a number", nq.Name, nq.Question.Kind())
	}
	known := make(map[string]bool, len(labels))
	total := 0.0
	for _, l := range labels {
		known[l] = true
		w := d.Weights[l]
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return nil, fmt.Errorf("fake: question %q: label %q: weight must be a finite non-negative number", nq.Name, l)
		}
		total += w
	}
	// Sorted, so the error names the same label on every run.
	for _, l := range slices.Sorted(maps.Keys(d.Weights)) {
		if !known[l] {
			return nil, fmt.Errorf("fake: question %q: distribution names label %q that the question does not have", nq.Name, l)
		}
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return nil, fmt.Errorf("fake: question %q: the weights of its labels must be finite with at least one positive", nq.Name)
	}
	for i, l := range labels {
		lp[i] = math.Log(d.Weights[l] / total)
	}
	return lp, nil
}
