package reader

import "github.com/typevet/typevet-go/internal/checkform"

// Version names the reader's algorithm and its default constants. It
// changes whenever a change to the reading or to the answer mapping can
// change an answer, so two receipts with equal versions and constants got
// their answers the same way.
const Version = "typevet-go-reader/1"

// BackendName is the receipt's backend name of the reader
// (TYPEVET_BACKEND=reader).
const BackendName = "reader"

// Constants are every tunable number of the reader: how pixels become ink,
// and how the read fields become probabilities (see the package
// documentation for the mapping). They are kept in this one struct so a
// receipt can record all of them ([Options.Pin]).
type Constants struct {
	// InkLow and InkHigh map darkness to ink: a pixel's darkness d (0 on
	// paper, 1 on ink, from its luma) counts as ink
	// clamp((d-InkLow)/(InkHigh-InkLow), 0, 1). The glyph templates go
	// through the same map. The band hides the grey SPECIMEN mark (about
	// 0.15 darkness over paper, 0.88 over ink) from the glyph matcher.
	InkLow  float64 `json:"ink_low"`
	InkHigh float64 `json:"ink_high"`

	// PayeeTolerance and PayeeSlope turn the payee distance d (Levenshtein
	// distance between the read payee and the register payee over the
	// longer length) into the logit PayeeSlope·(PayeeTolerance − d).
	PayeeTolerance float64 `json:"payee_tolerance"`
	PayeeSlope     float64 `json:"payee_slope"`
	// AmountTolerance and AmountSlope do the same for each amount: d is
	// the normalised distance between the read amount, printed as
	// "1,188.15", and the register amount printed the same way; an amount
	// that does not parse has d = 1.
	AmountTolerance float64 `json:"amount_tolerance"`
	AmountSlope     float64 `json:"amount_slope"`
	// DateTolerance and DateSlope do the same for the date: d is the
	// normalised distance between the read date text and the register
	// date printed as the check prints it ("April 21, 2025").
	DateTolerance float64 `json:"date_tolerance"`
	DateSlope     float64 `json:"date_slope"`

	// TrustLow and TrustHigh scale a field's logit by its read confidence
	// q: trust = clamp((q-TrustLow)/(TrustHigh-TrustLow), 0, 1), so a
	// field read badly leans toward 0.5 instead of claiming a mismatch.
	TrustLow  float64 `json:"trust_low"`
	TrustHigh float64 `json:"trust_high"`

	// PenMinShare is the least pen share a pixel of the signature box
	// needs to add to the pen mass: share = (b − b_paper)/(b_pen −
	// b_paper) with b = B − (R+G)/2, so paper, ink, the grey SPECIMEN and
	// the red VOID add nothing. The pen mass is Σ (share − PenMinShare)
	// over the pixels above it.
	PenMinShare float64 `json:"pen_min_share"`
	// SignatureMass and SignatureSlope give P(signed) =
	// σ(SignatureSlope·(mass − SignatureMass)).
	SignatureMass  float64 `json:"signature_mass"`
	SignatureSlope float64 `json:"signature_slope"`

	// LegibleThreshold and LegibleSlope give P(legible) =
	// σ(LegibleSlope·(c − LegibleThreshold)) from the check confidence c;
	// 1 − P(legible) is the weight of cannot_tell.
	LegibleThreshold float64 `json:"legible_threshold"`
	LegibleSlope     float64 `json:"legible_slope"`
	// LegibilitySpread is the standard deviation, in levels, of the
	// legibility distribution around 4·c.
	LegibilitySpread float64 `json:"legibility_spread"`
	// WeightFloor is added to every verdict weight, so no label is ever
	// certain to be wrong.
	WeightFloor float64 `json:"weight_floor"`
}

// DefaultConstants are the constants of [Version], the ones the zero
// [Options] uses.
var DefaultConstants = Constants{
	InkLow:  0.2,
	InkHigh: 0.8,

	PayeeTolerance:  0.025,
	PayeeSlope:      200,
	AmountTolerance: 0.025,
	AmountSlope:     200,
	DateTolerance:   0.025,
	DateSlope:       200,

	TrustLow:  0.6,
	TrustHigh: 0.9,

	PenMinShare:    0.1,
	SignatureMass:  60,
	SignatureSlope: 0.1,

	LegibleThreshold: 0.75,
	LegibleSlope:     25,
	LegibilitySpread: 0.5,
	WeightFloor:      1e-6,
}

// Pin is what a receipt records about the reader (pins.server of a
// reader run): the algorithm version, the font it reads and every
// constant.
type Pin struct {
	// Name is always [BackendName].
	Name string `json:"name"`
	// Version is [Version].
	Version string `json:"version"`
	// Font names the font whose glyphs are matched
	// ([checkform.FontName]).
	Font string `json:"font"`
	// FontSHA256 is the SHA-256 of that font's bytes.
	FontSHA256 string `json:"font_sha256"`
	// Constants are the constants the port uses.
	Constants Constants `json:"constants"`
}

// Pin returns the pin of a port made with o.
func (o Options) Pin() Pin {
	return Pin{
		Name:       BackendName,
		Version:    Version,
		Font:       checkform.FontName,
		FontSHA256: checkform.FontDigest(),
		Constants:  o.constants(),
	}
}
