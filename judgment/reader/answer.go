package reader

import (
	"math"

	"github.com/typevet/typevet-go/internal/checkform"
)

// The check-match verdict labels the reader weighs (typevet's
// VERDICT_LABELS).
const (
	labelConsistent     = "consistent"
	labelPayeeMismatch  = "payee_mismatch"
	labelAmountMismatch = "amount_mismatch"
	labelDateMismatch   = "date_mismatch"
	labelUnsigned       = "unsigned"
	labelCannotTell     = "cannot_tell"
)

// verdictLabels are the six labels, in typevet's order.
var verdictLabels = [...]string{labelConsistent, labelPayeeMismatch, labelAmountMismatch,
	labelDateMismatch, labelUnsigned, labelCannotTell}

// legibilityLevels is the number of legibility levels (0..4).
const legibilityLevels = 5

// Evidence is what the reader concludes from one reading against one
// register row, before any question is asked: the probabilities the
// answers are made of.
type Evidence struct {
	// Payee is P(the check names the register payee).
	Payee float64 `json:"payee"`
	// Numeric and Words are P(the amount equals the register amount) for
	// the amount box and the words line.
	Numeric float64 `json:"numeric"`
	Words   float64 `json:"words"`
	// Date is P(the check's date is the register date).
	Date float64 `json:"date"`
	// Signed is P(the signature box holds pen strokes).
	Signed float64 `json:"signed"`
	// Legible is P(the check can be read well enough to decide).
	Legible float64 `json:"legible"`
	// Confidence is the reading's confidence ([Reading.Confidence]).
	Confidence float64 `json:"confidence"`
}

// Weigh compares reading with reg under c (see the package documentation
// for the mapping).
func (c Constants) Weigh(rd Reading, reg Register) Evidence {
	regDollars := checkform.Dollars(reg.AmountCents)
	amount := func(f Field, parse func(string) (int64, error)) float64 {
		d := 1.0
		if cents, err := parse(f.Text); err == nil && cents >= 0 {
			d = distance(checkform.Dollars(cents), regDollars)
		}
		return c.match(d, c.AmountTolerance, c.AmountSlope, f.Confidence)
	}
	conf := rd.Confidence()
	return Evidence{
		Payee:      c.match(distance(rd.Payee.Text, reg.Payee), c.PayeeTolerance, c.PayeeSlope, rd.Payee.Confidence),
		Numeric:    amount(rd.Numeric, ParseNumeric),
		Words:      amount(rd.Words, ParseWords),
		Date:       c.match(distance(rd.Date.Text, checkform.DateText(reg.Year, reg.Month, reg.Day)), c.DateTolerance, c.DateSlope, rd.Date.Confidence),
		Signed:     sigmoid(c.SignatureSlope * (rd.PenMass - c.SignatureMass)),
		Legible:    sigmoid(c.LegibleSlope * (conf - c.LegibleThreshold)),
		Confidence: conf,
	}
}

// match is σ(trust·slope·(tolerance − d)), trust from the field's read
// confidence q.
func (c Constants) match(d, tolerance, slope, q float64) float64 {
	trust := clamp01((q - c.TrustLow) / (c.TrustHigh - c.TrustLow))
	return sigmoid(trust * slope * (tolerance - d))
}

// Amounts is P(both amounts equal the register amount): the smaller of
// the two amount probabilities, so both must match, and two amounts the
// reader cannot read give 0.5 (not 0.25: ignorance does not compound).
func (e Evidence) Amounts() float64 { return min(e.Numeric, e.Words) }

// verdictWeights returns the unnormalised weight of each verdict label,
// in verdictLabels order.
func (c Constants) verdictWeights(e Evidence) [len(verdictLabels)]float64 {
	a := e.Amounts()
	w := [...]float64{
		e.Legible * e.Payee * a * e.Date * e.Signed,
		e.Legible * (1 - e.Payee),
		e.Legible * (1 - a),
		e.Legible * (1 - e.Date),
		e.Legible * (1 - e.Signed),
		1 - e.Legible,
	}
	for i := range w {
		w[i] += c.WeightFloor
	}
	return w
}

// legibilityWeights returns the weight of each legibility level: a
// Gaussian of standard deviation LegibilitySpread around 4·confidence.
func (c Constants) legibilityWeights(e Evidence) [legibilityLevels]float64 {
	var w [legibilityLevels]float64
	mu := float64(legibilityLevels-1) * e.Confidence
	for k := range w {
		z := (float64(k) - mu) / c.LegibilitySpread
		w[k] = math.Exp(-z*z/2) + c.WeightFloor
	}
	return w
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// distance is the Levenshtein distance between a and b (bytes; every
// check text is ASCII) over the longer length; 0 for two empty strings.
func distance(a, b string) float64 {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a) == 0 {
		return 0
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(b)]) / float64(len(a))
}
