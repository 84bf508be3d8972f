package judgment

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/singleflight"

	"github.com/typevet/typevet-go/internal/pyjson"
	"github.com/typevet/typevet-go/internal/pymath"
	"github.com/typevet/typevet-go/internal/pytext"
)

// JudgeOptions configures [NewJudge]. The zero value means: no model pin,
// [FamilyUnknown] (text framed as ChatML, media refused) and the default
// text parts.
type JudgeOptions struct {
	// Model pins the session's model; "" = no pin. When set, every request
	// must name exactly this model.
	Model string
	// Family is the served-template family prefixes are composed for.
	Family Family
	// TextParts substitutes the prompt templates; zero = defaults.
	TextParts TextParts
	// TokenizeEveryCall is the parity switch for tokenizer traffic: true
	// calls [Scorer.Tokenize] once per control string per question on
	// every [Judge.Judge] call, as typevet does. false (the
	// default) caches each control string's single token id per (model,
	// control string) for the Judge's life. Answers, errors and receipts
	// are the same either way (receipts record no tokenize counts); only
	// the number of tokenize requests, and their latency, differ.
	TokenizeEveryCall bool
}

// Judge is the backend-independent judgment algorithm over a
// [Scorer]. It implements [Port] and is safe for concurrent use: its only
// mutable state is the control-token cache, guarded by a lock.
//
// One call validates the request, then prepares every question (binding
// each control string to a single token), then sends one
// [Scorer.ScoreCandidates] request per question, in order.
//
// Control binding goes through [Scorer.Tokenize]. By default a Judge
// remembers, for its whole life, the token id of every control string
// that tokenized to exactly one id, keyed by (model, control string):
// the first judgment tokenizes each distinct control once per model
// ("0" to "5" for the four check questions: 6 calls instead of 15), later
// judgments not at all. A failed or multi-token result is never cached,
// so its error (same class and message as without the cache) is raised
// again, with a fresh tokenize call, on every judgment. Concurrent first
// judgments share one tokenize call per control string (and its result or
// error), so a session makes one call per distinct control however many
// judgments run at once. The cache
// holds at most 36 entries per model name. A server that changes its
// tokenizer under the same model name needs a new Judge (a new session).
// Set [JudgeOptions.TokenizeEveryCall] for typevet's pattern: once per
// control per question per call, no cache.
// Option-count and scoring-request checks run for all questions after
// preparation and before the first scoring request. Every
// [ScoringRequest] of a call carries req.Media itself (the same slice), so
// a backend can recognise the images of one judgment; a [Scorer] must not
// modify it.
type Judge struct {
	scorer   Scorer
	opts     JudgeOptions
	parts    compiledParts
	partsErr error
	receipt  TextPartsReceipt
	tokens   controlCache
	blocks   blockCache
}

// blockCache holds, by question name, the scoring labels and the rendered
// option block of the questions a Judge has asked: a run asks the same
// questions of every case, and a block depends only on the question, its
// name and the Judge's text parts, so each is rendered once per Judge
// instead of once per judgment (issue 18). An entry holds a copy of its
// question and is used only for a question equal to it (sameQuestion), so
// a caller that changes a question, or reuses a name, gets a fresh
// rendering; a name may hold several questions (the option-order study
// asks "verdict" with its options in each of its orderings). At most
// maxCachedBlocks entries are kept; later questions are rendered every
// time.
type blockCache struct {
	mu sync.RWMutex
	m  map[string][]*blockEntry
	n  int // entries over all names
}

// blockEntry is one cached question.
type blockEntry struct {
	q      Question // a copy owning its slices
	labels []string // ScoringLabels(q), shared read-only
	block  string
}

// maxCachedBlocks bounds a blockCache.
const maxCachedBlocks = 256

// get returns the scoring labels (not to be modified) and the option
// block of nq, rendered with parts on a miss.
func (c *blockCache) get(parts compiledParts, nq NamedQuestion) ([]string, string) {
	c.mu.RLock()
	for _, e := range c.m[nq.Name] {
		if sameQuestion(e.q, nq.Question) {
			c.mu.RUnlock()
			return e.labels, e.block
		}
	}
	c.mu.RUnlock()
	e := &blockEntry{q: cloneQuestion(nq.Question), labels: ScoringLabels(nq.Question), block: parts.optionBlock(nq.Name, nq.Question)}
	if e.q != nil {
		c.mu.Lock()
		if c.m == nil {
			c.m = make(map[string][]*blockEntry)
		}
		if c.n < maxCachedBlocks && !slices.ContainsFunc(c.m[nq.Name], func(o *blockEntry) bool { return sameQuestion(o.q, e.q) }) {
			c.m[nq.Name] = append(c.m[nq.Name], e)
			c.n++
		}
		c.mu.Unlock()
	}
	return e.labels, e.block
}

// sameQuestion reports whether a and b are the same question value: same
// type and equal fields, element by element.
func sameQuestion(a, b Question) bool {
	switch a := a.(type) {
	case Noul:
		b, ok := b.(Noul)
		return ok && a == b
	case Choice:
		b, ok := b.(Choice)
		return ok && a.Instructions == b.Instructions && slices.Equal(a.Criteria, b.Criteria)
	case Score:
		b, ok := b.(Score)
		return ok && a.Instructions == b.Instructions && slices.Equal(a.Criteria, b.Criteria)
	}
	return false
}

// cloneQuestion returns a copy of q that shares no slice with it, or nil
// for a type sameQuestion does not compare.
func cloneQuestion(q Question) Question {
	switch q := q.(type) {
	case Noul:
		return q
	case Choice:
		q.Criteria = slices.Clone(q.Criteria)
		return q
	case Score:
		q.Criteria = slices.Clone(q.Criteria)
		return q
	}
	return nil
}

// controlKey names one cached control binding.
type controlKey struct{ model, control string }

// controlCache is a Judge's cache of single-token control bindings.
type controlCache struct {
	mu     sync.RWMutex
	ids    map[controlKey]int
	flight singleflight.Group // the tokenize calls in flight, by key
}

func (c *controlCache) get(k controlKey) (int, bool) {
	c.mu.RLock()
	id, ok := c.ids[k]
	c.mu.RUnlock()
	return id, ok
}

func (c *controlCache) put(k controlKey, id int) {
	c.mu.Lock()
	if c.ids == nil {
		c.ids = make(map[controlKey]int)
	}
	c.ids[k] = id
	c.mu.Unlock()
}

// controlToken binds control string ctl for model: its token id and
// true when it is exactly one token, false when it is not. It reads the
// cache unless opts.TokenizeEveryCall, and caches only a single-token
// success; a Tokenize error is returned as is and not cached.
func (j *Judge) controlToken(ctx context.Context, model, ctl string) (int, bool, error) {
	k := controlKey{model: model, control: ctl}
	if !j.opts.TokenizeEveryCall {
		if id, ok := j.tokens.get(k); ok {
			return id, true, nil
		}
	}
	if j.opts.TokenizeEveryCall {
		ids, err := j.scorer.Tokenize(ctx, model, ctl)
		if err != nil || len(ids) != 1 {
			return 0, false, err
		}
		return ids[0], true, nil
	}
	return j.sharedControlToken(ctx, k)
}

// NewJudge returns a Judge that scores through s. A refused
// opts.TextParts template is reported by every call to [Judge.Judge]
// (check it up front with [TextParts.Validate]).
func NewJudge(s Scorer, opts JudgeOptions) *Judge {
	j := &Judge{scorer: s, opts: opts, receipt: opts.TextParts.Receipt()}
	j.parts, j.partsErr = opts.TextParts.compile()
	return j
}

// prepared is one question ready to score.
type prepared struct {
	name string
	q    Question
	req  ScoringRequest
}

// Judge judges req (see [Port] for the contract). Validation order: text
// parts, model, threshold, model pin, images, question shapes; then
// control binding, prefix composition and the thinking guard per question;
// then option counts and scoring-request checks for every question; then
// scoring.
func (j *Judge) Judge(ctx context.Context, req Request) (Response, error) {
	if j.partsErr != nil {
		return Response{}, j.partsErr
	}
	if err := req.validateHead(); err != nil {
		return Response{}, err
	}
	if j.opts.Model != "" && req.Model != j.opts.Model {
		return Response{}, judgmentErr(fmt.Sprintf("model %s does not match pinned model %s", pytext.Repr(req.Model), pytext.Repr(j.opts.Model)))
	}
	if err := req.validateBody(); err != nil {
		return Response{}, err
	}
	if err := ctx.Err(); err != nil {
		return Response{}, stopped(err)
	}
	context := buildContext(req.State, len(req.Media))
	preps := make([]prepared, len(req.Questions))
	for i, nq := range req.Questions {
		p, err := j.prepare(ctx, req, context, nq)
		if err != nil {
			return Response{}, err
		}
		preps[i] = p
	}
	for _, p := range preps {
		if err := checkExecuteCount(len(p.req.Candidates)); err != nil {
			return Response{}, err
		}
		if err := p.req.Validate(); err != nil {
			return Response{}, err
		}
	}
	resp := Response{
		Model:     req.Model,
		Answers:   make([]NamedAnswer, 0, len(preps)),
		OffOption: make([]NamedOffOption, 0, len(preps)),
		TextParts: j.receipt,
	}
	ids := make([]NamedRequestID, 0, len(preps))
	anyID := false
	for _, p := range preps {
		if err := ctx.Err(); err != nil {
			return Response{}, stopped(err)
		}
		res, err := j.scorer.ScoreCandidates(ctx, p.req)
		if err != nil {
			return Response{}, err
		}
		if err := p.req.ValidateResult(res); err != nil {
			return Response{}, err
		}
		logprobs := make([]float64, len(res.Candidates))
		for k, c := range res.Candidates {
			logprobs[k] = c.Logprob
		}
		off := OffOption{Mass: copyFloat(res.OffOptionMass), Threshold: copyFloat(req.OffOptionThreshold)}
		off.Flag = off.Mass != nil && off.Threshold != nil && *off.Mass > *off.Threshold
		ans, err := decode(p.q, logprobs, off.Flag)
		if err != nil {
			return Response{}, err
		}
		resp.Answers = append(resp.Answers, NamedAnswer{Name: p.name, Answer: ans})
		resp.OffOption = append(resp.OffOption, NamedOffOption{Name: p.name, OffOption: off})
		resp.Usage = MergeUsage(resp.Usage, res.Usage)
		if res.Model != "" {
			resp.Model = res.Model
		}
		ids = append(ids, NamedRequestID{Name: p.name, ID: res.RequestID})
		anyID = anyID || res.RequestID != ""
	}
	if anyID {
		resp.RequestIDs = ids
	}
	return resp, nil
}

// stopped wraps a context error as the TransportError a Port returns when
// ctx ends between requests.
func stopped(err error) error {
	return &TransportError{Msg: "judgment stopped: " + err.Error(), Err: err}
}

func copyFloat(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// prepare binds the controls of one question and composes its prefix.
func (j *Judge) prepare(ctx context.Context, req Request, context string, nq NamedQuestion) (prepared, error) {
	labels, block := j.blocks.get(j.parts, nq)
	cands := make([]Candidate, len(labels))
	for i, label := range labels {
		id, single, err := j.controlToken(ctx, req.Model, control(i))
		if err != nil {
			return prepared{}, err
		}
		if !single {
			if i == 0 {
				return prepared{}, judgmentErr(fmt.Sprintf("control string '0' for label %s must tokenize to exactly one token", pytext.Repr(originalLabels(nq.Question)[0])))
			}
			return prepared{}, judgmentErr(fmt.Sprintf("native Choice supports %d options on this tokenizer; got %d", i, len(labels)))
		}
		cands[i] = Candidate{Label: label, TokenID: id}
	}
	user := j.parts.renderContext(context, block)
	prefix, err := composePrefix(j.opts.Family, user, len(req.Media))
	if err != nil {
		return prepared{}, err
	}
	if err := checkThinkingGuard(j.opts.Family, prefix, block); err != nil {
		return prepared{}, err
	}
	if n := strings.Count(prefix, MediaMarker); n != len(req.Media) {
		return prepared{}, judgmentErr(fmt.Sprintf("framing prefix holds %d %s media marker(s) but %d image(s) were supplied", n, MediaMarker, len(req.Media)))
	}
	return prepared{
		name: nq.Name,
		q:    nq.Question,
		req:  ScoringRequest{Model: req.Model, Prefix: prefix, Candidates: cands, Media: req.Media},
	}, nil
}

// optionBlock renders the field block of one question. All
// caller text is neutralised (#433). A Noul's option lines carry the
// question's own labels, lower case ("Control 0 → false: …",
// "Control 1 → true: …"), as typevet's render_field_instructions writes
// them; the scoring labels "False"/"True" appear only in the decision.
func (c compiledParts) optionBlock(name string, q Question) string {
	labels := originalLabels(q)
	letters := len(labels) > 10
	prefix := "Control "
	var instructions string
	var describe func(i int, label string) string
	switch q := q.(type) {
	case Noul:
		instructions = q.Instructions
		crit := map[string]string{"true": q.Criteria.True, "false": q.Criteria.False}
		describe = func(_ int, label string) string { return lookupDescription(crit, label) }
	case Choice:
		instructions = q.Instructions
		crit := make(map[string]string, len(q.Criteria))
		for _, cr := range q.Criteria {
			crit[cr.Label] = cr.Description
		}
		describe = func(_ int, label string) string { return lookupDescription(crit, label) }
		if labelsCollide(labels) {
			prefix = "Control "
		} else {
			prefix = ""
		}
	case Score:
		instructions = q.Instructions
		describe = func(i int, _ string) string { return q.Criteria[i] }
	}
	opts := make([]option, len(labels))
	for i, label := range labels {
		o := option{control: prefix + control(i), label: neutralize(label)}
		if d := describe(i, label); d != "" {
			o.description = ": " + neutralize(d)
		}
		opts[i] = o
	}
	var b strings.Builder
	c.renderOptionBlock(&b, fieldValues{name: neutralize(name), question: neutralize(instructions), answerRule: answerRule(letters)}, opts)
	return b.String()
}

// lookupDescription finds a label's description, then its lower-cased
// label's; "" means none.
func lookupDescription(crit map[string]string, label string) string {
	if d := crit[label]; d != "" {
		return d
	}
	return crit[strings.ToLower(label)]
}

// labelsCollide reports whether any Choice label could be read as a
// control: its trimmed text is all digits, or its upper-cased trimmed text
// is one of the active controls. "All digits" is Python's str.isdigit
// ([pytext.IsDigit]), so superscript and circled digits such as "²" and
// "①" collide as they do in typevet, though Go's unicode.IsDigit (category
// Nd) does not count them.
func labelsCollide(labels []string) bool {
	active := controlAlphabet[:len(labels)]
	for _, l := range labels {
		t := pytext.Strip(l)
		if t != "" && strings.IndexFunc(t, func(r rune) bool { return !pytext.IsDigit(r) }) < 0 {
			return true
		}
		if u := strings.ToUpper(t); len(u) == 1 && strings.Contains(active, u) {
			return true
		}
	}
	return false
}

// Decode turns raw candidate logprobs (scoring order, see [ScoringLabels]:
// Noul false then true; Choice option order; Score level order) into a
// typed answer through the same softmax and decoding as [Judge]. A logprob
// of -Inf is probability 0. The question must pass the request shape
// rules and have 2 to 24 options; errors are [GenerationError] subclasses.
// The offline fake uses it.
func Decode(q Question, logprobs []float64) (Answer, error) {
	if err := validateQuestion("", q); err != nil {
		return nil, err
	}
	n := len(ScoringLabels(q))
	if err := checkExecuteCount(n); err != nil {
		return nil, err
	}
	if len(logprobs) != n {
		return nil, &DecisionExecutionError{Msg: fmt.Sprintf("got %d logprobs for %d candidates", len(logprobs), n)}
	}
	return decode(q, logprobs, false)
}

// DecodeAll answers every question of req from the candidate logprobs
// that logprobs gives for it (in [ScoringLabels] order), through [Decode]:
// the response an offline Port gives, with no usage, no off-option mass
// (each receipt carries req's threshold and no flag) and the default text
// parts. The first error stops it. judgment/fake and judgment/reader
// answer through it.
func DecodeAll(req Request, logprobs func(NamedQuestion) ([]float64, error)) (Response, error) {
	resp := Response{
		Model:     req.Model,
		Answers:   make([]NamedAnswer, 0, len(req.Questions)),
		OffOption: make([]NamedOffOption, 0, len(req.Questions)),
		TextParts: TextParts{}.Receipt(),
	}
	for _, nq := range req.Questions {
		lp, err := logprobs(nq)
		if err != nil {
			return Response{}, err
		}
		a, err := Decode(nq.Question, lp)
		if err != nil {
			return Response{}, err
		}
		off := OffOption{}
		if t := req.OffOptionThreshold; t != nil {
			v := *t
			off.Threshold = &v
		}
		resp.Answers = append(resp.Answers, NamedAnswer{Name: nq.Name, Answer: a})
		resp.OffOption = append(resp.OffOption, NamedOffOption{Name: nq.Name, OffOption: off})
	}
	return resp, nil
}

// decode applies the softmax and builds the answer of q.
func decode(q Question, logprobs []float64, flag bool) (Answer, error) {
	p, err := softmax(logprobs)
	if err != nil {
		return nil, err
	}
	switch q := q.(type) {
	case Noul:
		return NoulAnswer{Noul: p[1], OffOptionFlag: flag}, nil
	case Choice:
		probs := make(Probabilities, len(p))
		for i, c := range q.Criteria {
			probs[i] = Probability{Label: c.Label, P: p[i]}
		}
		g := argmax(p)
		return ChoiceAnswer{Choice: probs[g].Label, Confidence: p[g], Probabilities: probs, OffOptionFlag: flag}, nil
	case Score:
		// typevet: sum(index * p for index, p in enumerate(probs)),
		// CPython 3.12's compensated sum.
		var buf [maxEnumChoices]float64
		terms := buf[:0]
		for i, pi := range p {
			terms = append(terms, float64(i)*pi)
		}
		return ScoreAnswer{
			Score:         pymath.Sum(terms),
			Confidence:    p[argmax(p)],
			Legend:        append([]string(nil), q.Criteria...),
			Probabilities: p,
			OffOptionFlag: flag,
		}, nil
	}
	return nil, judgmentErr("unsupported wire question for ''")
}

// probabilitySumTolerance bounds |Σp - 1| after the softmax.
const probabilitySumTolerance = 1e-6

// softmax returns the conditional distribution over the candidates
// (temperature 1), failing on degenerate input, with typevet's _softmax
// arithmetic: exp(l - max) through [pymath.Exp] (glibc's exp, which
// CPython's math.exp is), the normaliser and the check sum through
// [pymath.Sum] (CPython 3.12's sum), so the probabilities are typevet's bit
// for bit.
func softmax(logprobs []float64) ([]float64, error) {
	m := math.Inf(-1)
	for _, l := range logprobs {
		if l > m {
			m = l
		}
	}
	p := make([]float64, len(logprobs))
	for i, l := range logprobs {
		p[i] = pymath.Exp(l - m)
	}
	z := pymath.Sum(p)
	if z == 0 || math.IsNaN(z) || math.IsInf(z, 0) {
		return nil, &DecisionExecutionError{Msg: "softmax normalization produced non-finite total mass"}
	}
	for i := range p {
		p[i] /= z
		if math.IsNaN(p[i]) || math.IsInf(p[i], 0) {
			return nil, &DecisionExecutionError{Msg: "softmax produced non-finite probabilities"}
		}
	}
	if sum := pymath.Sum(p); math.Abs(sum-1) > probabilitySumTolerance {
		return nil, &DecisionExecutionError{Msg: "probabilities sum to " + pyjson.FormatFloat(sum) + ", expected 1 within 1e-06"}
	}
	return p, nil
}

// argmax returns the first index of the strictly largest value, or -1.
func argmax(p []float64) int {
	best := -1
	for i, v := range p {
		if best < 0 || v > p[best] {
			best = i
		}
	}
	return best
}
