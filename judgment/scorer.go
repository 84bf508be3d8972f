package judgment

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/typevet/typevet-go/internal/pyjson"
	"github.com/typevet/typevet-go/internal/pymath"
	"github.com/typevet/typevet-go/internal/pytext"
)

// Candidate is one option of a scoring request: its label and the single
// token id its control string binds to.
type Candidate struct {
	// Label is the option's scoring label (see [ScoringLabels]): "false"
	// or "true" for a Noul, the Choice label, the Score level.
	Label string
	// TokenID is the id of the single token the option's control string
	// tokenizes to; non-negative and unique within a request.
	TokenID int
}

// ScoringRequest asks a [Scorer] for the pre-sampling log-probabilities of
// the candidate tokens at the first generated position after Prefix.
type ScoringRequest struct {
	// Model is the model id.
	Model string
	// Prefix ends exactly at the answer position. It holds one
	// [MediaMarker] per image, one per line before the state.
	Prefix string
	// Candidates are in request order; labels and token ids are unique.
	Candidates []Candidate
	// Media holds the images, in marker order.
	Media []Image
}

// ScoredCandidate is one candidate with its raw log-probability.
type ScoredCandidate struct {
	// Label is the requested [Candidate]'s label.
	Label string
	// TokenID is the requested candidate's token id; it must match the
	// request.
	TokenID int
	// Logprob is the raw (pre-sampling) natural-log probability of the
	// token at the answer position: finite and not above 1e-6 (rounding
	// above 0 is accepted; a probability sent in its place fails).
	Logprob float64
}

// ScoringResult is a [Scorer]'s answer to one [ScoringRequest].
type ScoringResult struct {
	// Model is provenance only; backends set it to the requested id.
	Model string
	// Candidates are in request order, one per requested candidate.
	Candidates []ScoredCandidate
	// Usage is this call's token usage.
	Usage Usage
	// OffOptionMass is the next-token mass outside the candidates; nil
	// when the backend did not return the full distribution.
	OffOptionMass *float64
	// RequestID is the id sent in the configured request-id header, ""
	// when none is configured.
	RequestID string
}

// Scorer is what an HTTP backend implements. [NewJudge] turns a
// Scorer into a [Port]. Implementations must be safe for concurrent use and
// honour ctx; their errors should be [GenerationError] subclasses.
type Scorer interface {
	// Tokenize returns the token ids of text without special tokens.
	Tokenize(ctx context.Context, model, text string) ([]int, error)
	// ScoreCandidates scores one request. It must return one row per
	// requested candidate, in request order, or an error: a candidate the
	// server did not score is an error, never imputed.
	ScoreCandidates(ctx context.Context, req ScoringRequest) (ScoringResult, error)
}

// positiveLogprobTolerance is _POSITIVE_LOGPROB_TOLERANCE: the largest
// logprob accepted (a probability sent in place of a logprob fails).
const positiveLogprobTolerance = 1e-6

// offOptionMassTolerance bounds Σexp(candidate logprobs) + mass - 1.
const offOptionMassTolerance = 1e-2

// Validate applies the construction checks of a scoring request:
// non-blank model and prefix, at least one candidate, unique labels
// and token ids, non-negative ids, valid images, and one [MediaMarker] in
// the prefix per image. Violations are [ScoringValidationError]s. Backends
// may call it before sending.
func (r ScoringRequest) Validate() error {
	if pytext.Strip(r.Model) == "" {
		return scoringErr("model must be non-empty")
	}
	if r.Prefix == "" {
		return scoringErr("prefix must be non-empty")
	}
	if len(r.Candidates) == 0 {
		return scoringErr("at least one candidate is required")
	}
	labels := newSeenSet[string](len(r.Candidates))
	ids := newSeenSet[int](len(r.Candidates))
	var dup []string
	for _, c := range r.Candidates {
		if labels.add(c.Label) {
			dup = append(dup, c.Label)
		}
	}
	if dup != nil {
		return scoringErr("duplicate candidate labels: " + pytext.ReprList(dup))
	}
	for _, c := range r.Candidates {
		if c.TokenID < 0 {
			return scoringErr("candidate token ids must be non-negative")
		}
		if ids.add(c.TokenID) {
			return scoringErr("duplicate candidate token-id sequences are not allowed")
		}
	}
	for _, im := range r.Media {
		if err := im.validate(); err != nil {
			return err
		}
	}
	if n := strings.Count(r.Prefix, MediaMarker); n != len(r.Media) {
		return scoringErr(fmt.Sprintf("prefix holds %d media marker(s) but %d image(s) were supplied", n, len(r.Media)))
	}
	return nil
}

// ValidateResult checks res against the exact request it answers, failing
// closed: the same candidates with the same token ids in
// request order, every logprob finite and not above 1e-6, and a present
// off-option mass finite, in [0, 1] and consistent with the candidate mass.
// Violations are [ScoringValidationError]s.
func (r ScoringRequest) ValidateResult(res ScoringResult) error {
	want := newSeenSet[string](len(r.Candidates))
	for _, c := range r.Candidates {
		want.add(c.Label)
	}
	got := newSeenSet[string](len(res.Candidates))
	var dup, unexpected []string
	for _, c := range res.Candidates {
		if got.add(c.Label) {
			dup = append(dup, c.Label)
		}
		if !want.has(c.Label) {
			unexpected = append(unexpected, c.Label)
		}
	}
	if dup != nil {
		return scoringErr("duplicate candidate labels in scoring result: " + pytext.ReprList(dup))
	}
	if unexpected != nil {
		return scoringErr("unexpected candidate labels in scoring result: " + pytext.ReprList(unexpected))
	}
	var missing []string
	for _, c := range r.Candidates {
		if !got.has(c.Label) {
			missing = append(missing, c.Label)
		}
	}
	if missing != nil {
		return scoringErr("missing scores for requested candidates: " + pytext.ReprList(missing))
	}
	// Same label sets and no duplicates, so the row counts are equal.
	for i, c := range res.Candidates {
		req := r.Candidates[i]
		if c.Label != req.Label {
			return scoringErr("scoring result candidates are not in request order")
		}
		if c.TokenID != req.TokenID {
			return scoringErr(fmt.Sprintf("scoring result token ids for %s do not match the request", pytext.Repr(c.Label)))
		}
		if math.IsNaN(c.Logprob) || math.IsInf(c.Logprob, 0) {
			return scoringErr(fmt.Sprintf("non-finite logprob for candidate %s", pytext.Repr(c.Label)))
		}
		if c.Logprob > positiveLogprobTolerance {
			return scoringErr(fmt.Sprintf("positive logprob for candidate %s: %s", pytext.Repr(c.Label), pyjson.FormatFloat(c.Logprob)))
		}
	}
	if m := res.OffOptionMass; m != nil {
		if math.IsNaN(*m) || *m < 0 || *m > 1 {
			return scoringErr("off_option_mass must be finite and in [0, 1], got " + pyjson.FormatFloat(*m))
		}
		// typevet: math.fsum(math.exp(logprob) for logprob in logprobs).
		var buf [maxEnumChoices]float64
		masses := buf[:0]
		for _, c := range res.Candidates {
			masses = append(masses, pymath.Exp(c.Logprob))
		}
		total := pymath.FSum(masses)
		if total+*m > 1+offOptionMassTolerance {
			return scoringErr(fmt.Sprintf("candidate mass %s plus off_option_mass %s exceeds 1", pyjson.FormatFloat(total), pyjson.FormatFloat(*m)))
		}
	}
	return nil
}

// smallSeenSet is the size up to which a seenSet is a list: more than
// the 36 control strings a question can have.
const smallSeenSet = 40

// seenSet is a set of the few labels or ids of one scoring request: a
// list scanned in place (no allocation for a request's handful of
// candidates), a map past smallSeenSet keys.
type seenSet[K comparable] struct {
	list [smallSeenSet]K
	n    int
	m    map[K]bool
}

// newSeenSet returns a set for up to n keys.
func newSeenSet[K comparable](n int) seenSet[K] {
	if n > smallSeenSet {
		return seenSet[K]{m: make(map[K]bool, n)}
	}
	return seenSet[K]{}
}

// add adds k and reports whether it was there already.
func (s *seenSet[K]) add(k K) bool {
	if s.has(k) {
		return true
	}
	if s.m != nil {
		s.m[k] = true
	} else if s.n < smallSeenSet {
		s.list[s.n] = k
		s.n++
	} else {
		s.m = make(map[K]bool, 2*smallSeenSet)
		for _, v := range s.list {
			s.m[v] = true
		}
		s.m[k] = true
	}
	return false
}

// has reports whether k was added.
func (s *seenSet[K]) has(k K) bool {
	if s.m != nil {
		return s.m[k]
	}
	return slices.Contains(s.list[:s.n], k)
}
