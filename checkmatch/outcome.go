package checkmatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
)

// Outcome is one judged case of a check-match run: the case, its
// expected labels and the judge's four answers. Runs keep outcomes in slice
// order; [Outcome.Record] turns one into its receipt record.
type Outcome struct {
	// CaseID is the case id, e.g. "r00:clean" ([Case.ID]).
	CaseID string
	// Variant is the case's variant.
	Variant Variant
	// Expected holds the labels the answers are scored against
	// ([ExpectedLabels] of Variant).
	Expected Expected
	// Verdict is the chosen label of the verdict question, one of
	// [VerdictLabels].
	Verdict string
	// VerdictProbabilities is the verdict question's label → probability
	// distribution, in the order the backend returned it.
	VerdictProbabilities judgment.Probabilities
	// PayeeConfidence is the payee_matches Noul: P(payee matches) in [0, 1].
	PayeeConfidence float64
	// AmountsConfidence is the amounts_match Noul: P(amounts match) in [0, 1].
	AmountsConfidence float64
	// LegibilityScore is the legibility Score: the probability-weighted level.
	LegibilityScore float64
	// LegibilityLevel is the most probable legibility level, ties to the
	// lowest level ([judgment.ScoreAnswer.Level]).
	LegibilityLevel int
	// LegibilityProbabilities[i] is the probability of legibility level i.
	LegibilityProbabilities []float64
	// RenderSHA256 is the lower-case hex SHA-256 of the PNG bytes sent.
	RenderSHA256 string
	// Latency is the call's wall time in seconds, unrounded; the record
	// rounds it to 3 decimals, and the metrics block's
	// mean_latency_seconds averages the unrounded values.
	Latency float64
	// InputTokens is the prompt token count the server reported; nil when
	// it reported none (a real tri-state: unknown is not zero).
	InputTokens *int
}

// unknownVerdictError is returned for a verdict that is not one of the six
// [VerdictLabels]. Its message is typevet's: "unknown verdict label: maybe".
type unknownVerdictError struct {
	// Verdict is the label that was not recognised.
	Verdict string
}

// Error returns "unknown verdict label: <label>", typevet's message.
func (e *unknownVerdictError) Error() string { return "unknown verdict label: " + e.Verdict }

// checkVerdict returns an *UnknownVerdictError unless v is a verdict label.
func checkVerdict(v string) error {
	if !slices.Contains(VerdictLabels[:], v) {
		return &unknownVerdictError{Verdict: v}
	}
	return nil
}

// verdictCorrect reports whether verdict is one of expected's accepted
// verdicts. A verdict that is not one of the six labels is an
// *UnknownVerdictError, even when no expected set could accept it.
func verdictCorrect(verdict string, expected Expected) (bool, error) {
	if err := checkVerdict(verdict); err != nil {
		return false, err
	}
	return slices.Contains(expected.Verdicts, verdict), nil
}

// ClassKey returns the class of a case for accuracy_by_class: its accepted
// verdicts sorted ascending and joined with "|", e.g. "consistent" or
// "cannot_tell|consistent".
func ClassKey(expected Expected) string {
	v := expected.Verdicts
	if !slices.IsSorted(v) {
		v = slices.Sorted(slices.Values(v))
	}
	return strings.Join(v, "|")
}

// agreementThreshold is the Noul value below which a Noul "says mismatch";
// the threshold itself counts as a match.
const agreementThreshold = 0.5

// noulChoiceAgreement reports whether the verdict agrees with the two Nouls.
// A Noul says mismatch when its value is below 0.5 (0.5 itself
// is a match). payee_mismatch agrees when the payee Noul says mismatch,
// amount_mismatch when the amounts Noul does, and consistent, date_mismatch
// and unsigned when neither does. For cannot_tell the result is nil: the case
// is not counted. An unknown verdict is an *UnknownVerdictError.
func noulChoiceAgreement(verdict string, payee, amounts float64) (*bool, error) {
	if err := checkVerdict(verdict); err != nil {
		return nil, err
	}
	payeeNo, amountsNo := payee < agreementThreshold, amounts < agreementThreshold
	var agree bool
	switch verdict {
	case VerdictCannotTell:
		return nil, nil
	case VerdictPayeeMismatch:
		agree = payeeNo
	case VerdictAmountMismatch:
		agree = amountsNo
	default: // consistent, date_mismatch, unsigned
		agree = !payeeNo && !amountsNo
	}
	return &agree, nil
}

// CaseRecord is one case of a check-match receipt's "cases" list.
// Its fields, in order, are the record's keys; it reads typevet's records as
// well as ours. No image bytes are recorded, only their digest.
type CaseRecord struct {
	// CaseID is the case id, e.g. "r00:clean".
	CaseID string `json:"case_id"`
	// Variant is the case's variant, e.g. "payee_changed".
	Variant Variant `json:"variant"`
	// ExpectedVerdicts is the set of accepted verdicts, sorted ascending,
	// e.g. ["cannot_tell", "consistent"].
	ExpectedVerdicts []string `json:"expected_verdicts"`
	// PayeeTruth is true when the check's payee is the register payee: the
	// truth the payee_matches Noul is scored against.
	PayeeTruth bool `json:"payee_truth"`
	// AmountsTruth is true when both check amounts equal the register
	// amount: the truth the amounts_match Noul is scored against.
	AmountsTruth bool `json:"amounts_truth"`
	// Verdict is the judge's verdict label.
	Verdict string `json:"verdict"`
	// Correct is true when Verdict is one of ExpectedVerdicts.
	Correct bool `json:"correct"`
	// VerdictProbabilities is the verdict distribution as the backend
	// returned it (label order kept).
	VerdictProbabilities judgment.Probabilities `json:"verdict_probabilities"`
	// PayeeConfidence is the judge's P(payee matches): model confidence,
	// not a calibrated match percentage.
	PayeeConfidence float64 `json:"payee_confidence"`
	// AmountsConfidence is the judge's P(amounts match).
	AmountsConfidence float64 `json:"amounts_confidence"`
	// NoulChoiceAgreement says whether the verdict agrees with the two
	// Nouls (typevet's noul_choice_agreement); null (nil) for a
	// cannot_tell verdict,
	// which is not counted.
	NoulChoiceAgreement *bool `json:"noul_choice_agreement"`
	// LegibilityScore is the probability-weighted legibility level (0..4).
	LegibilityScore float64 `json:"legibility_score"`
	// LegibilityLevel is the most probable legibility level.
	LegibilityLevel int `json:"legibility_level"`
	// LegibilityProbabilities is the probability of each legibility level,
	// written as {"0": p0, …, "4": p4}.
	LegibilityProbabilities ByLevel[float64] `json:"legibility_probabilities"`
	// RenderSHA256 is the hex SHA-256 of the PNG the judge saw.
	RenderSHA256 string `json:"render_sha256"`
	// LatencySeconds is the call's wall time rounded to 3 decimals (Python
	// round, half to even on the exact binary value).
	LatencySeconds float64 `json:"latency_seconds"`
	// InputTokens is the prompt token count, or null (nil) when the server
	// did not report it.
	InputTokens *int `json:"input_tokens"`
}

// Record returns the receipt record of o. It fails, naming the
// case, when the verdict is not one of the six labels.
func (o Outcome) Record() (CaseRecord, error) {
	correct, err := verdictCorrect(o.Verdict, o.Expected)
	if err != nil {
		return CaseRecord{}, fmt.Errorf("case %s: %w", o.CaseID, err)
	}
	agree, err := noulChoiceAgreement(o.Verdict, o.PayeeConfidence, o.AmountsConfidence)
	if err != nil {
		return CaseRecord{}, fmt.Errorf("case %s: %w", o.CaseID, err)
	}
	expected := slices.Clone(o.Expected.Verdicts)
	if expected == nil {
		expected = []string{}
	}
	slices.Sort(expected)
	var tokens *int
	if o.InputTokens != nil {
		n := *o.InputTokens
		tokens = &n
	}
	return CaseRecord{
		CaseID:                  o.CaseID,
		Variant:                 o.Variant,
		ExpectedVerdicts:        expected,
		PayeeTruth:              o.Expected.PayeeTruth,
		AmountsTruth:            o.Expected.AmountsTruth,
		Verdict:                 o.Verdict,
		Correct:                 correct,
		VerdictProbabilities:    slices.Clone(o.VerdictProbabilities),
		PayeeConfidence:         o.PayeeConfidence,
		AmountsConfidence:       o.AmountsConfidence,
		NoulChoiceAgreement:     agree,
		LegibilityScore:         o.LegibilityScore,
		LegibilityLevel:         o.LegibilityLevel,
		LegibilityProbabilities: slices.Clone(o.LegibilityProbabilities),
		RenderSHA256:            o.RenderSHA256,
		LatencySeconds:          receipt.Round(o.Latency, 3),
		InputTokens:             tokens,
	}, nil
}

// records returns the receipt records of outcomes, in order.
func records(outcomes []Outcome) ([]CaseRecord, error) {
	out := make([]CaseRecord, len(outcomes))
	for i, o := range outcomes {
		r, err := o.Record()
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// ByLevel holds one value per Score level: element i belongs to level i. It
// is written as a JSON object keyed by the level in decimal, in level order
// ({"0": …, "1": …}), as typevet writes legibility probabilities and score
// distributions.
//
// Every key must be a level written as Python writes an int ("0", "12"; not
// "01" or "+1"), at most 23 (a Score has at most 24 levels), each at most once, in any order. A
// ByLevel[int] (a distribution) must hold every level 0..n-1. A
// ByLevel[float64] (probabilities) may be sparse, as typevet's repeat
// summary accepts: {"0": 0.1, "4": 0.9} holds only the levels that were
// seen. It reads as a slice up to the highest level given, with NaN filled
// in for every level not given ([0.1, NaN, NaN, NaN, 0.9]), so a missing
// level stays distinguishable from a recorded 0.0; MarshalJSON leaves NaN
// levels out, so a sparse object is written back as it was read. null
// reads as nil and nil writes as {}.
type ByLevel[T int | float64] []T

// maxLevel is the highest level key [ByLevel] reads: a Score question has
// at most 24 levels.
const maxLevel = 23

// MarshalJSON writes {"0": v0, "1": v1, …} through [receipt.Ordered], so
// float values are Python's float text (0.0, 1.0, 1e-07), as typevet
// writes them. A NaN level (one a sparse object did not give) is left out.
func (b ByLevel[T]) MarshalJSON() ([]byte, error) {
	o := make(receipt.Ordered[T], 0, len(b))
	for i, v := range b {
		if v != v { // NaN: a level the object read did not give
			continue
		}
		o = append(o, receipt.Entry[T]{Name: strconv.Itoa(i), Value: v})
	}
	return o.MarshalJSON()
}

// UnmarshalJSON reads an object keyed by level; see [ByLevel].
func (b *ByLevel[T]) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		*b = nil
		return nil
	}
	var o receipt.Ordered[T]
	if err := json.Unmarshal(data, &o); err != nil {
		return err
	}
	var zero T
	_, sparse := any(zero).(float64)
	n := len(o)
	if sparse {
		n = 0
		for _, e := range o {
			level, err := strconv.Atoi(e.Name)
			if err != nil || level < 0 || level > maxLevel || strconv.Itoa(level) != e.Name {
				return fmt.Errorf("level key %q is not one of 0..%d", e.Name, maxLevel)
			}
			n = max(n, level+1)
		}
	}
	out := make(ByLevel[T], n)
	if sparse {
		nan := T(math.NaN())
		for i := range out {
			out[i] = nan
		}
	}
	for _, e := range o {
		level, err := strconv.Atoi(e.Name)
		if err != nil || level < 0 || level >= n || strconv.Itoa(level) != e.Name {
			return fmt.Errorf("level key %q is not one of 0..%d", e.Name, n-1)
		}
		// Ordered refuses a key given twice, so n distinct keys in 0..n-1
		// fill every level of a distribution once.
		out[level] = e.Value
	}
	*b = out
	return nil
}
