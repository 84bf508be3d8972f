package orderings

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/internal/resample"
	"github.com/typevet/typevet-go/internal/pymath"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
)

// Option-order study constants (typevet #105).
const (
	// receiptIssue is the issue every option-order receipt records.
	receiptIssue = 105
	// PositionSpreadLimit is the largest position spread that still counts
	// as no position effect ([DecisionDoNotAdopt]).
	PositionSpreadLimit = 0.05
	// BootstrapResamples is the number of case resamples behind the
	// study's intervals, drawn with typevet's resample_indices under BootstrapSeed.
	BootstrapResamples = 1000
	// BootstrapSeed is the seed of the study's case resamples.
	BootstrapSeed = 0
	// intervalLevel is the level of the study's percentile intervals.
	intervalLevel = 0.95
)

// Decision is the option-order study's decision label, typevet's rule on
// the point estimates: a position spread of at most [PositionSpreadLimit]
// is [DecisionDoNotAdopt]; otherwise averaged accuracy at least the
// single-order accuracy is [DecisionAdoptOptIn], and anything else
// is [DecisionInconclusive]. The bootstrap intervals play no part.
type Decision string

// The three decisions, as the receipt writes them.
const (
	// DecisionDoNotAdopt: the position spread is within
	// PositionSpreadLimit, so the order of the options does not move the
	// answer enough to pay for six requests per question.
	DecisionDoNotAdopt Decision = "do_not_adopt"
	// DecisionAdoptOptIn: the spread is larger, and averaging over the
	// orderings is at least as accurate as the single order.
	DecisionAdoptOptIn Decision = "adopt_opt_in"
	// DecisionInconclusive: the spread is larger, but averaging is less
	// accurate than the single order.
	DecisionInconclusive Decision = "inconclusive"
)

// String returns the label, e.g. "adopt_opt_in".
func (d Decision) String() string { return string(d) }

// decisionLabel applies typevet's decision rule to the point
// estimates: a spread of at most PositionSpreadLimit is
// [DecisionDoNotAdopt]; otherwise averaged accuracy at least the
// single-order accuracy is DecisionAdoptOptIn, else
// DecisionInconclusive. The bootstrap intervals play no part.
func decisionLabel(spread, averaged, single float64) Decision {
	switch {
	case spread <= PositionSpreadLimit:
		return DecisionDoNotAdopt
	case averaged >= single:
		return DecisionAdoptOptIn
	default:
		return DecisionInconclusive
	}
}

// BalancedOrders returns the balanced Latin square of option orderings for
// k options (a Williams design): each row lists option indexes in
// position order, row 0 is the canonical order 0..k−1, every option appears
// once in every position, and for even k every ordered pair of neighbours
// appears exactly once. For odd k the k rows are followed by their reverses
// (2k rows), which balances the neighbour pairs. k = 1 gives two identical
// rows [[0] [0]], as typevet does. k < 1 is an error.
//
// For the six verdict labels the study asks six orderings:
//
//	[0 1 2 3 4 5] [1 3 0 5 2 4] [3 5 1 4 0 2] [5 4 3 2 1 0] [4 2 5 0 3 1] [2 0 4 1 5 3]
func BalancedOrders(k int) ([][]int, error) {
	if k < 1 {
		return nil, fmt.Errorf("k must be at least 1, got %d", k)
	}
	base := make([]int, k)
	for j := 1; j < k; j++ {
		if j%2 == 1 {
			base[j] = (j + 1) / 2
		} else {
			base[j] = k - j/2
		}
	}
	inverse := make([]int, k)
	for c, s := range base {
		inverse[s] = c
	}
	rows := make([][]int, 0, 2*k)
	for r := range k {
		row := make([]int, k)
		for c := range k {
			row[c] = inverse[(base[c]+r)%k]
		}
		rows = append(rows, row)
	}
	if k%2 == 1 {
		for r := range k {
			rev := slices.Clone(rows[r])
			slices.Reverse(rev)
			rows = append(rows, rev)
		}
	}
	return rows, nil
}

// orderLabels writes each ordering as label names: element [o][p] is
// labels[orders[o][p]], the label at position p of ordering o. The receipt's
// "orderings" pin and each case's "order" lists are written this way.
func orderLabels(labels []string, orders [][]int) [][]string {
	out := make([][]string, len(orders))
	for o, order := range orders {
		out[o] = make([]string, len(order))
		for p, i := range order {
			out[o][p] = labels[i]
		}
	}
	return out
}

// checkOrder reports whether order is a permutation of 0..k−1.
func checkOrder(order []int, k int) error {
	if len(order) != k {
		return fmt.Errorf("order has %d positions, want %d", len(order), k)
	}
	seen := make([]bool, k)
	for _, o := range order {
		if o < 0 || o >= k || seen[o] {
			return fmt.Errorf("order %v is not a permutation of 0..%d", order, k-1)
		}
		seen[o] = true
	}
	return nil
}

// reorderedChoice returns c with its options in the order given by order:
// position p lists c's option order[p], with its description.
// The instructions are unchanged. order must be a permutation of the option
// indexes (typevet does not check; a Go error is clearer than a prompt with
// a missing option).
func reorderedChoice(c judgment.Choice, order []int) (judgment.Choice, error) {
	if err := checkOrder(order, len(c.Criteria)); err != nil {
		return judgment.Choice{}, err
	}
	criteria := make([]judgment.Criterion, len(order))
	for p, o := range order {
		criteria[p] = c.Criteria[o]
	}
	return judgment.Choice{Instructions: c.Instructions, Criteria: criteria}, nil
}

// remapPositions turns probabilities listed by position into probabilities
// keyed by label, in canonical label order: label
// labels[order[p]] gets byPosition[p].
//
//	RemapPositions([a b c], [2 0 1], [0.5 0.3 0.2]) == {a: 0.3, b: 0.2, c: 0.5}
//
// order must be a permutation of the label indexes and byPosition as long
// as labels.
func remapPositions(labels []string, order []int, byPosition []float64) (judgment.Probabilities, error) {
	if err := checkOrder(order, len(labels)); err != nil {
		return nil, err
	}
	if len(byPosition) != len(labels) {
		return nil, &checkmatch.LengthError{A: len(byPosition), B: len(labels)}
	}
	byIndex := make([]float64, len(labels))
	for p, o := range order {
		byIndex[o] = byPosition[p]
	}
	out := make(judgment.Probabilities, len(labels))
	for i, l := range labels {
		out[i] = judgment.Probability{Label: l, P: byIndex[i]}
	}
	return out, nil
}

// positionProbabilities lists byLabel's probabilities in the position order
// of order: element p is the probability of labels[order[p]].
// It inverts remapPositions. A label missing from byLabel is an error.
func positionProbabilities(labels []string, order []int, byLabel judgment.Probabilities) ([]float64, error) {
	if err := checkOrder(order, len(labels)); err != nil {
		return nil, err
	}
	out := make([]float64, len(order))
	for p, o := range order {
		v, ok := byLabel.Get(labels[o])
		if !ok {
			return nil, fmt.Errorf("probabilities have no label %q", labels[o])
		}
		out[p] = v
	}
	return out, nil
}

// meanProbabilities returns the arithmetic mean of the post-softmax
// probabilities of several orderings, label by label, keyed in label order:
// math.fsum of the label's values divided by their number
// ([pymath.FSum]). This is the TypeLLM permutations="auto" rule: never an
// average of log-probabilities. No orderings is an error, and so is a label
// missing from one of them.
func meanProbabilities(probs []judgment.Probabilities, labels []string) (judgment.Probabilities, error) {
	if len(probs) == 0 {
		return nil, errors.New("mean needs at least one ordering")
	}
	out := make(judgment.Probabilities, len(labels))
	values := make([]float64, len(probs))
	for i, l := range labels {
		for j, p := range probs {
			v, ok := p.Get(l)
			if !ok {
				return nil, fmt.Errorf("ordering %d has no label %q", j, l)
			}
			values[j] = v
		}
		out[i] = judgment.Probability{Label: l, P: pymath.FSum(values) / float64(len(probs))}
	}
	return out, nil
}

// argmaxLabel returns the label of labels with the largest probability in
// probs; a tie goes to the first label in labels order. No
// labels, or a label missing from probs, is an error.
func argmaxLabel(probs judgment.Probabilities, labels []string) (string, error) {
	best, bestP := "", math.Inf(-1)
	for i, l := range labels {
		v, ok := probs.Get(l)
		if !ok {
			return "", fmt.Errorf("probabilities have no label %q", l)
		}
		if i == 0 || v > bestP {
			best, bestP = l, v
		}
	}
	if len(labels) == 0 {
		return "", errors.New("argmax needs at least one label")
	}
	return best, nil
}

// SingleOrder is what a single-order check-match receipt recorded for a case
// (the "single_order" key of an option-order case record): the verdict and
// its distribution with the options in canonical order.
type SingleOrder struct {
	// Verdict is the single-order verdict.
	Verdict string `json:"verdict"`
	// VerdictProbabilities is the single-order verdict distribution.
	VerdictProbabilities judgment.Probabilities `json:"verdict_probabilities"`
}

// Answer is the verdict distribution of one case under one
// option ordering.
type Answer struct {
	// Order lists the labels in the position order the prompt showed them.
	Order []string `json:"order"`
	// Probabilities is the answer's distribution keyed by label, in
	// canonical label order.
	Probabilities judgment.Probabilities `json:"probabilities"`
	// Argmax is the most probable label (ties to the first in canonical
	// order).
	Argmax string `json:"argmax"`
}

// Case is one case of an option-order receipt: its
// fields, in order, are the record's keys.
type Case struct {
	// CaseID is the case id, e.g. "r00:clean".
	CaseID string `json:"case_id"`
	// Variant is the case's variant.
	Variant checkmatch.Variant `json:"variant"`
	// ExpectedVerdicts is the sorted set of accepted verdicts.
	ExpectedVerdicts []string `json:"expected_verdicts"`
	// RenderSHA256 is the hex SHA-256 of the PNG the judge saw; it equals
	// the single-order receipt's ([SingleOrderCases] checks it).
	RenderSHA256 string `json:"render_sha256"`
	// SingleOrder is the single-order receipt's verdict for the case.
	SingleOrder SingleOrder `json:"single_order"`
	// Orderings holds one answer per ordering, in ordering order; ordering
	// 0 is the canonical order.
	Orderings []Answer `json:"orderings"`
	// PositionProbabilities lists, per ordering, the probabilities in
	// position order: element [o][p] is the probability of the label
	// ordering o put at position p.
	PositionProbabilities [][]float64 `json:"position_probabilities"`
	// MeanProbabilities is the mean over the orderings, in canonical
	// label order: the arithmetic mean of the post-softmax probabilities.
	MeanProbabilities judgment.Probabilities `json:"mean_probabilities"`
	// MeanVerdict is the most probable label of MeanProbabilities.
	MeanVerdict string `json:"mean_verdict"`
	// MeanCorrect is true when MeanVerdict is accepted.
	MeanCorrect bool `json:"mean_correct"`
	// ArgmaxStable is true when every ordering has the same argmax.
	ArgmaxStable bool `json:"argmax_stable"`
}

// NewCase builds the record of one case from its answers under
// each ordering. labels are the verdict labels in canonical
// order; orders[o] is ordering o as option indexes and probs[o] its answer
// keyed by label; single is the case's record in the single-order receipt.
func NewCase(req checkmatch.Request, labels []string, orders [][]int, probs []judgment.Probabilities, single checkmatch.CaseRecord) (Case, error) {
	return newCase(req.Case, req.ImageDigest(), labels, orders, probs, SingleOrder{
		Verdict:              single.Verdict,
		VerdictProbabilities: single.VerdictProbabilities,
	})
}

// newCase is [NewCase] from the case, the digest of its
// render and its single-order answer: what a journal line holds.
func newCase(c checkmatch.Case, digest string, labels []string, orders [][]int, probs []judgment.Probabilities, single SingleOrder) (Case, error) {
	id := c.ID()
	if len(orders) != len(probs) {
		return Case{}, fmt.Errorf("case %s: %w", id, &checkmatch.LengthError{A: len(orders), B: len(probs)})
	}
	rec := Case{
		CaseID:           id,
		Variant:          c.Variant,
		ExpectedVerdicts: slices.Clone(c.Expected.Verdicts),
		RenderSHA256:     digest,
		SingleOrder: SingleOrder{
			Verdict:              single.Verdict,
			VerdictProbabilities: slices.Clone(single.VerdictProbabilities),
		},
		Orderings:             make([]Answer, len(orders)),
		PositionProbabilities: make([][]float64, len(orders)),
		ArgmaxStable:          true,
	}
	for o, order := range orders {
		if err := checkOrder(order, len(labels)); err != nil {
			return Case{}, fmt.Errorf("case %s ordering %d: %w", id, o, err)
		}
		names := make([]string, len(order))
		for p, i := range order {
			names[p] = labels[i]
		}
		argmax, err := argmaxLabel(probs[o], labels)
		if err != nil {
			return Case{}, fmt.Errorf("case %s ordering %d: %w", id, o, err)
		}
		pos, err := positionProbabilities(labels, order, probs[o])
		if err != nil {
			return Case{}, fmt.Errorf("case %s ordering %d: %w", id, o, err)
		}
		rec.Orderings[o] = Answer{Order: names, Probabilities: slices.Clone(probs[o]), Argmax: argmax}
		rec.PositionProbabilities[o] = pos
		if argmax != rec.Orderings[0].Argmax {
			rec.ArgmaxStable = false
		}
	}
	mean, err := meanProbabilities(probs, labels)
	if err != nil {
		return Case{}, fmt.Errorf("case %s: %w", id, err)
	}
	rec.MeanProbabilities = mean
	if rec.MeanVerdict, err = argmaxLabel(mean, labels); err != nil {
		return Case{}, fmt.Errorf("case %s: %w", id, err)
	}
	rec.MeanCorrect = slices.Contains(rec.ExpectedVerdicts, rec.MeanVerdict)
	return rec, nil
}

// Stopped records the backend failure that stopped an option-order
// study. It has no discarded count: the study sends one call at
// a time.
type Stopped struct {
	// Index is the slice index of the case being scored.
	Index int `json:"index"`
	// CaseID is that case's id.
	CaseID string `json:"case_id"`
	// Ordering is the number of the ordering whose call failed.
	Ordering int `json:"ordering"`
	// ErrorClass is the Python class name of the error
	// ([judgment.ErrorClass]).
	ErrorClass string `json:"error_class"`
	// Message is the error text.
	Message string `json:"message"`
}

// Result is what an option-order study did.
type Result struct {
	// Cases are the fully scored cases, in slice order.
	Cases []Case
	// Stopped is the failure that ended the study early, or nil.
	Stopped *Stopped
	// Requests counts the successful verdict calls, including those of a
	// case dropped by the failure, and every ordering of each case taken
	// from the journal.
	Requests int
	// WallSeconds is the study's unrounded wall time; a resumed study adds
	// the earlier parts' ([checkmatch.Journal.PriorWallSeconds]).
	WallSeconds float64
}

// Run runs the option-order study: for each request in
// slice order and each ordering of orders (option indexes, normally
// BalancedOrders(6)), one call to port asking only the verdict question with
// its options in that ordering, with the request's state and image, one
// call at a time. single holds each case's record in the single-order
// receipt ([SingleOrderCases]).
//
// A backend failure ([judgment.IsGenerationError]), or ctx ending between
// calls, stops the study: Stopped names the case and ordering, the cases
// before it are kept and the partly scored case is dropped. A call that
// fails because ctx ended (Ctrl-C mid-call) is recorded with class
// "Canceled" ([judgment.StopClass], as [checkmatch.Run] records it), not
// as a network failure. Any other error (a request whose verdict question
// is not a Choice, an answer without the verdict, a journal that cannot
// be written) is returned and the study is lost, as in typevet, except
// the cases its journal holds.
//
// Unlike typevet, which fails on a missing single-order case only after
// scoring it, every request's case and every ordering are checked before
// the first call, so a bad pairing costs no model time.
//
// opts is read as by [checkmatch.Run], with the study's limits: Concurrency must be 0
// or 1 (the study sends one call at a time) and Metrics nil (the study
// reads no /metrics). With Retry, each verdict call is retried as [checkmatch.Run]
// retries a judgment ([checkmatch.RetryPolicy.Judge]). With a Journal
// (header [JournalHeader]; a journal of another kind is refused), the
// lines earlier parts finished are decoded and checked before the first
// call ([CheckJournal]), and every fully scored case is appended, all its orderings' answers at full
// precision with its attempt count, and synced before the next case is
// sent; cases the journal already holds are not scored again and join the
// cases in slice order, each counting its orderings in Requests, so a
// resumed study's receipt is the one an uninterrupted study would write
// (WallSeconds then adds [checkmatch.Journal.PriorWallSeconds]: the sum of the
// parts). With Shard, only that shard's cases are scored.
func Run(ctx context.Context, port judgment.Port, model string, reqs []checkmatch.Request, orders [][]int, single receipt.Ordered[checkmatch.CaseRecord], opts checkmatch.RunOptions) (Result, error) {
	if opts.Concurrency != 0 && opts.Concurrency != 1 {
		return Result{}, fmt.Errorf("the option-order study sends one call at a time: concurrency must be 1, got %d", opts.Concurrency)
	}
	if opts.Metrics != nil {
		return Result{}, errors.New("the option-order study reads no /metrics: Metrics must be nil")
	}
	if err := opts.Retry.Check(); err != nil {
		return Result{}, err
	}
	retry := opts.Retry.ForRun() // one retry budget for the whole study
	j := opts.Journal
	if k := j.Kind(); j != nil && k != JournalKind {
		return Result{}, fmt.Errorf("the journal is of a %s run, not of a %s run", k, JournalKind)
	}
	choices := make([]judgment.Choice, len(reqs))
	singles := make([]checkmatch.CaseRecord, len(reqs))
	for i, r := range reqs {
		c, err := verdictChoice(r)
		if err != nil {
			return Result{}, err
		}
		for _, order := range orders {
			if err := checkOrder(order, len(c.Criteria)); err != nil {
				return Result{}, fmt.Errorf("%s: %w", r.CaseID(), err)
			}
		}
		s, ok := single.Get(r.CaseID())
		if !ok {
			return Result{}, fmt.Errorf("case %s missing from the single-order cases", r.CaseID())
		}
		choices[i], singles[i] = c, s
	}
	if len(orders) == 0 {
		return Result{}, errors.New("the study needs at least one ordering")
	}
	journaled, err := journaledLines(j, reqs, orders, opts.Shard)
	if err != nil {
		return Result{}, err
	}

	clock := opts.Clock
	if clock == nil {
		start := time.Now()
		clock = func() float64 { return time.Since(start).Seconds() }
	}
	started := clock()
	run := Result{Cases: []Case{}}
	stop := func(i, o int, class, msg string) (Result, error) {
		run.Stopped = &Stopped{Index: i, CaseID: reqs[i].CaseID(), Ordering: o, ErrorClass: class, Message: msg}
		run.WallSeconds = clock() - started + j.PriorWallSeconds()
		return run, nil
	}
	for i, r := range reqs {
		if !opts.Shard.Has(r.CaseID()) {
			continue
		}
		labels := make([]string, len(choices[i].Criteria))
		for k, c := range choices[i].Criteria {
			labels[k] = c.Label
		}
		if line, ok := journaled[i]; ok {
			rec, err := line.record(r.Case, labels, orders)
			if err != nil {
				return Result{}, err
			}
			run.Cases = append(run.Cases, rec)
			run.Requests += len(orders)
			continue
		}
		probs := make([]judgment.Probabilities, len(orders))
		attempts := 0
		var end float64
		for o, order := range orders {
			if err := ctx.Err(); err != nil {
				return stop(i, o, judgment.StopClass(ctx, err), "run cancelled: "+err.Error())
			}
			reordered, _ := reorderedChoice(choices[i], order) // order checked above
			resp, n, _, t, err := retry.Judge(ctx, port, judgment.Request{
				State:     r.State,
				Questions: []judgment.NamedQuestion{{Name: checkmatch.QuestionVerdict, Question: reordered}},
				Model:     model,
				Media:     r.Media,
			}, clock)
			attempts += n
			if err != nil {
				if !judgment.IsGenerationError(err) {
					return Result{}, err
				}
				return stop(i, o, judgment.StopClass(ctx, err), err.Error())
			}
			end = t
			run.Requests++
			answer, ok := resp.Choice(checkmatch.QuestionVerdict)
			if !ok {
				return Result{}, &answerError{CaseID: r.CaseID(), Question: checkmatch.QuestionVerdict}
			}
			canonical := make(judgment.Probabilities, len(labels))
			for k, l := range labels {
				p, ok := answer.Probabilities.Get(l)
				if !ok {
					return Result{}, &answerError{CaseID: r.CaseID(), Question: checkmatch.QuestionVerdict}
				}
				canonical[k] = judgment.Probability{Label: l, P: p}
			}
			probs[o] = canonical
		}
		rec, err := NewCase(r, labels, orders, probs, singles[i])
		if err != nil {
			return Result{}, err
		}
		if j != nil {
			if err := j.Record(newOrderingsLine(i, rec, probs, attempts, j.Part(), end-started)); err != nil {
				return Result{}, err
			}
		}
		run.Cases = append(run.Cases, rec)
	}
	run.WallSeconds = clock() - started + j.PriorWallSeconds()
	return run, nil
}

// answerError reports a response that lacks the verdict answer or holds
// one of the wrong type or without every label: the port broke its
// contract.
type answerError struct {
	// CaseID is the judged case.
	CaseID string
	// Question is the missing answer's question id.
	Question string
}

// Error returns "case <id>: response has no valid answer <question>", as
// [checkmatch.Run] says it.
func (e *answerError) Error() string {
	return "case " + e.CaseID + ": response has no valid answer " + e.Question
}

// verdictChoice returns the request's verdict question, which must be a
// [judgment.Choice].
func verdictChoice(r checkmatch.Request) (judgment.Choice, error) {
	for _, q := range r.Questions {
		if q.Name == checkmatch.QuestionVerdict {
			if c, ok := q.Question.(judgment.Choice); ok {
				return c, nil
			}
			break
		}
	}
	return judgment.Choice{}, fmt.Errorf("%s: the verdict question is not a Choice", r.CaseID())
}

// SingleOrderCases pairs the study's requests with the cases of a
// single-order check-match receipt and returns those cases keyed
// by case id, in request order. The receipt must be of seed seed ("receipt
// seed differs from seed 1"), hold every request's case ("case r00:clean
// missing from the receipt"), and record for each the SHA-256 of the very
// image the request carries ("render of r00:clean differs from the
// receipt").
//
// Go renders never equal typevet's Pillow renders, so a typevet receipt
// always fails the render check: the study must be paired with a
// single-order receipt made by this module's renderer (the same
// [checkmatch.RendererPin]).
func SingleOrderCases(r checkmatch.Receipt, reqs []checkmatch.Request, seed uint64) (receipt.Ordered[checkmatch.CaseRecord], error) {
	if r.Pins.GeneratorSeed != seed {
		return nil, fmt.Errorf("receipt seed differs from seed %d", seed)
	}
	byID := make(map[string]checkmatch.CaseRecord, len(r.Cases))
	for _, c := range r.Cases {
		byID[c.CaseID] = c
	}
	out := make(receipt.Ordered[checkmatch.CaseRecord], 0, len(reqs))
	for _, req := range reqs {
		id := req.CaseID()
		c, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("case %s missing from the receipt", id)
		}
		if c.RenderSHA256 != req.ImageDigest() {
			return nil, fmt.Errorf("render of %s differs from the receipt", id)
		}
		out = append(out, receipt.Entry[checkmatch.CaseRecord]{Name: id, Value: c})
	}
	return out, nil
}

// Bootstrap records how an interval was resampled: the number of resamples
// and the seed of typevet's resample_indices.
type Bootstrap struct {
	// Resamples is the number of resamples.
	Resamples int `json:"resamples"`
	// Seed is the resampling seed.
	Seed int `json:"seed"`
}

// Stats is the "statistics" block of an option-order receipt:
// its fields, in order, are the block's keys. Every share is
// over the cases; the decision uses the point estimates only, and the
// intervals are reported beside them.
type Stats struct {
	// Cases is the number of cases.
	Cases int `json:"cases"`
	// PositionMeans is the mean probability at each position: the position
	// vectors of every ordering of every case pooled as rows, and each
	// column's math.fsum divided by the number of rows.
	PositionMeans []float64 `json:"position_means"`
	// PositionSpread is max(PositionMeans) − min(PositionMeans): how much
	// the position of an option moves its probability.
	PositionSpread float64 `json:"position_spread"`
	// ArgmaxStability is the share of cases whose argmax is the same under
	// every ordering.
	ArgmaxStability float64 `json:"argmax_stability"`
	// AveragedAccuracy is the share of cases whose mean-probability verdict
	// is accepted.
	AveragedAccuracy float64 `json:"averaged_accuracy"`
	// SingleOrderAccuracy is the share of cases whose single-order verdict
	// is accepted.
	SingleOrderAccuracy float64 `json:"single_order_accuracy"`
	// Ordering0Agreement is the share of cases whose canonical-order argmax
	// equals the single-order verdict: the study's canonical ordering
	// reproduces the single-order run.
	Ordering0Agreement float64 `json:"ordering0_agreement"`
	// Ordering0MaxAbsDifference is the largest difference, over cases and
	// labels, between the canonical ordering's probability and the
	// single-order receipt's (0.0 when the two runs are bit-equal).
	Ordering0MaxAbsDifference float64 `json:"ordering0_max_abs_difference"`
	// SpreadLimit is PositionSpreadLimit.
	SpreadLimit float64 `json:"spread_limit"`
	// Decision applies typevet's decision rule to the point estimates
	// (see [Decision]).
	Decision Decision `json:"decision"`
	// SpreadInterval is the 95% bootstrap percentile interval [low, high]
	// of the position spread.
	SpreadInterval [2]float64 `json:"spread_interval"`
	// AccuracyDifferenceInterval is the 95% bootstrap percentile interval
	// of averaged minus single-order accuracy.
	AccuracyDifferenceInterval [2]float64 `json:"accuracy_difference_interval"`
	// Bootstrap is {resamples: 1000, seed: 0}.
	Bootstrap Bootstrap `json:"bootstrap"`
}

// caseNumbers are the per-case numbers the statistics and their bootstrap
// are built from.
type caseNumbers struct {
	positions                          [][]float64 // per ordering, position order
	stable, meanCorrect, singleCorrect bool
	agree                              bool
	diff                               float64
}

// numbersOf computes a case record's numbers from its orderings, expected
// verdicts and single-order answer alone (the stored argmax, mean and
// position fields are not trusted), as typevet recomputes them from a
// receipt.
func numbersOf(c Case) (caseNumbers, error) {
	if len(c.Orderings) == 0 {
		return caseNumbers{}, fmt.Errorf("case %s has no orderings", c.CaseID)
	}
	labels := c.Orderings[0].Order
	probs := make([]judgment.Probabilities, len(c.Orderings))
	var n caseNumbers
	n.positions = make([][]float64, len(c.Orderings))
	var first string
	n.stable = true
	for o, ord := range c.Orderings {
		if len(ord.Order) != len(labels) {
			return caseNumbers{}, fmt.Errorf("case %s ordering %d has %d labels, ordering 0 has %d", c.CaseID, o, len(ord.Order), len(labels))
		}
		probs[o] = ord.Probabilities
		row := make([]float64, len(ord.Order))
		for p, l := range ord.Order {
			v, ok := ord.Probabilities.Get(l)
			if !ok {
				return caseNumbers{}, fmt.Errorf("case %s ordering %d: probabilities have no label %q", c.CaseID, o, l)
			}
			row[p] = v
		}
		n.positions[o] = row
		a, err := argmaxLabel(ord.Probabilities, labels)
		if err != nil {
			return caseNumbers{}, fmt.Errorf("case %s ordering %d: %w", c.CaseID, o, err)
		}
		if o == 0 {
			first = a
		} else if a != first {
			n.stable = false
		}
	}
	mean, err := meanProbabilities(probs, labels)
	if err != nil {
		return caseNumbers{}, fmt.Errorf("case %s: %w", c.CaseID, err)
	}
	mv, err := argmaxLabel(mean, labels)
	if err != nil {
		return caseNumbers{}, fmt.Errorf("case %s: %w", c.CaseID, err)
	}
	n.meanCorrect = slices.Contains(c.ExpectedVerdicts, mv)
	n.singleCorrect = slices.Contains(c.ExpectedVerdicts, c.SingleOrder.Verdict)
	n.agree = first == c.SingleOrder.Verdict
	for _, l := range labels {
		a, _ := probs[0].Get(l)
		b, ok := c.SingleOrder.VerdictProbabilities.Get(l)
		if !ok {
			return caseNumbers{}, fmt.Errorf("case %s: single-order probabilities have no label %q", c.CaseID, l)
		}
		n.diff = max(n.diff, math.Abs(a-b))
	}
	return n, nil
}

// spreadScratch is a reusable buffer for positionSpread.
type spreadScratch struct {
	column []float64
	means  []float64
}

// positionSpread returns the position means and spread of the cases at idx
// (duplicates counted), pooling every ordering of every case as a row.
func (s *spreadScratch) positionSpread(nums []caseNumbers, idx []int, width int) ([]float64, float64) {
	s.means = s.means[:0]
	for col := range width {
		s.column = s.column[:0]
		for _, i := range idx {
			for _, row := range nums[i].positions {
				s.column = append(s.column, row[col])
			}
		}
		s.means = append(s.means, pymath.FSum(s.column)/float64(len(s.column)))
	}
	return s.means, slices.Max(s.means) - slices.Min(s.means)
}

// accuracyDifference is share(mean_correct) − share(single_correct) over
// the cases at idx.
func accuracyDifference(nums []caseNumbers, idx []int) float64 {
	mean, single := 0, 0
	for _, i := range idx {
		if nums[i].meanCorrect {
			mean++
		}
		if nums[i].singleCorrect {
			single++
		}
	}
	return float64(mean)/float64(len(idx)) - float64(single)/float64(len(idx))
}

// share is the share of true values, count/n as Python's division rounds it.
func share(nums []caseNumbers, pick func(caseNumbers) bool) float64 {
	k := 0
	for _, n := range nums {
		if pick(n) {
			k++
		}
	}
	return float64(k) / float64(len(nums))
}

// Statistics computes the statistics block of an option-order study
// from its case records (typevet's orderings_statistics): a pure
// function of the receipt's cases, so it recomputes a receipt's block,
// ours or typevet's, to the last digit. Each case's numbers come from its
// orderings' probabilities, its expected verdicts and its single-order
// answer; the stored argmax, mean and position fields are not read.
//
// The intervals resample the cases BootstrapResamples times with
// typevet's resample_indices (seed BootstrapSeed) and take typevet's
// percentile_interval at level 0.95 (ranks 25 and 974). Resamples run in parallel; the result
// does not depend on the schedule.
//
// No cases is an error ("statistics need at least one case"), and so is a
// case whose orderings are empty, disagree in length with the first case's,
// or lack a label.
func Statistics(cases []Case) (Stats, error) {
	if len(cases) == 0 {
		return Stats{}, errors.New("statistics need at least one case")
	}
	nums := make([]caseNumbers, len(cases))
	width := len(cases[0].Orderings) // refined below
	for i, c := range cases {
		n, err := numbersOf(c)
		if err != nil {
			return Stats{}, err
		}
		if i == 0 {
			width = len(n.positions[0])
		} else if w := len(n.positions[0]); w != width {
			return Stats{}, fmt.Errorf("case %s has %d labels, case %s has %d", c.CaseID, w, cases[0].CaseID, width)
		}
		nums[i] = n
	}

	all := make([]int, len(nums))
	for i := range all {
		all[i] = i
	}
	var s spreadScratch
	means, spread := s.positionSpread(nums, all, width)
	st := Stats{
		Cases:               len(cases),
		PositionMeans:       slices.Clone(means),
		PositionSpread:      spread,
		ArgmaxStability:     share(nums, func(n caseNumbers) bool { return n.stable }),
		AveragedAccuracy:    share(nums, func(n caseNumbers) bool { return n.meanCorrect }),
		SingleOrderAccuracy: share(nums, func(n caseNumbers) bool { return n.singleCorrect }),
		Ordering0Agreement:  share(nums, func(n caseNumbers) bool { return n.agree }),
		SpreadLimit:         PositionSpreadLimit,
		Bootstrap:           Bootstrap{Resamples: BootstrapResamples, Seed: BootstrapSeed},
	}
	for _, n := range nums {
		st.Ordering0MaxAbsDifference = max(st.Ordering0MaxAbsDifference, n.diff)
	}
	st.Decision = decisionLabel(st.PositionSpread, st.AveragedAccuracy, st.SingleOrderAccuracy)

	spreads := make([]float64, BootstrapResamples)
	diffs := make([]float64, BootstrapResamples)
	resample.ForEach(len(nums), BootstrapSeed, BootstrapResamples, func() func(int, []int) {
		var s spreadScratch
		return func(b int, idx []int) {
			_, spreads[b] = s.positionSpread(nums, idx, width)
			diffs[b] = accuracyDifference(nums, idx)
		}
	})
	var err error
	if st.SpreadInterval[0], st.SpreadInterval[1], err = resample.PercentileInterval(spreads, intervalLevel); err != nil {
		return Stats{}, err
	}
	if st.AccuracyDifferenceInterval[0], st.AccuracyDifferenceInterval[1], err = resample.PercentileInterval(diffs, intervalLevel); err != nil {
		return Stats{}, err
	}
	return st, nil
}
