package checkmatch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/typevet/typevet-go/internal/checkform"
	"github.com/typevet/typevet-go/internal/pymath"
)

// Generator constants.
const (
	// RowCount is the number of register rows of the default slice, and the
	// largest row count [Cases] accepts.
	RowCount = 20
	// VariantsPerRow is the number of cases generated from each register row.
	VariantsPerRow = 7
	// DefaultSeed is the generator seed of the default slice (typevet #316).
	DefaultSeed = 0
	// accountNumber is the account number printed on every check: 12 zeros.
	accountNumber = "000000000000"
	// blurMin and BlurMax bound the blur radius of a low-legibility face.
	blurMin = 3.5
	blurMax = 5.0
)

// Variant names how a case's check face differs from its register row. The
// value is typevet's snake_case variant value; it appears in case ids, in
// draw-stream keys and in receipts.
type Variant string

// The seven variants, in enum order ([Variants]).
const (
	VariantClean                Variant = "clean"
	variantPayeeChanged         Variant = "payee_changed"
	variantWrittenAmountChanged Variant = "written_amount_changed"
	variantBothAmountsChanged   Variant = "both_amounts_changed"
	variantWrongDate            Variant = "wrong_date"
	variantUnsigned             Variant = "unsigned"
	VariantLowLegibility        Variant = "low_legibility"
)

// Variants returns the seven variants in enum order: the order of the cases
// of one row and of the per-variant groups in metrics.
func Variants() []Variant {
	return []Variant{
		VariantClean, variantPayeeChanged, variantWrittenAmountChanged,
		variantBothAmountsChanged, variantWrongDate, variantUnsigned, VariantLowLegibility,
	}
}

// String returns the variant value, e.g. "payee_changed".
func (v Variant) String() string { return string(v) }

// ParseVariant returns the variant whose value is s, or an error naming the
// unknown value.
func ParseVariant(s string) (Variant, error) {
	for _, v := range Variants() {
		if string(v) == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("unknown check-match variant: %q", s)
}

// The six verdict labels a judge may answer (the options of the verdict
// question), in typevet's option order.
const (
	VerdictConsistent     = "consistent"
	VerdictPayeeMismatch  = "payee_mismatch"
	VerdictAmountMismatch = "amount_mismatch"
	VerdictDateMismatch   = "date_mismatch"
	VerdictUnsigned       = "unsigned"
	VerdictCannotTell     = "cannot_tell"
)

// VerdictLabels lists the six verdict labels in option order. It is an array
// so that assigning it copies it.
var VerdictLabels = [6]string{
	VerdictConsistent, VerdictPayeeMismatch, VerdictAmountMismatch,
	VerdictDateMismatch, VerdictUnsigned, VerdictCannotTell,
}

// Expected holds the labels a case is scored against (typevet amendment
// A1).
type Expected struct {
	// Verdicts is the set of accepted verdict labels, sorted ascending.
	Verdicts []string
	// PayeeTruth is true when the check's payee equals the register payee.
	PayeeTruth bool
	// AmountsTruth is true when both check amounts equal the register amount.
	AmountsTruth bool
	// CountsForFalseClear is true when a "consistent" answer on this case
	// counts toward the false-clear rate; false only for low_legibility.
	CountsForFalseClear bool
}

// ExpectedLabels returns the expected labels of variant v. Each call returns
// a fresh Verdicts slice. An unknown variant gets the zero Expected (no
// accepted verdict).
func ExpectedLabels(v Variant) Expected {
	e := Expected{PayeeTruth: true, AmountsTruth: true, CountsForFalseClear: true}
	switch v {
	case VariantClean:
		e.Verdicts = []string{VerdictConsistent}
	case variantPayeeChanged:
		e.Verdicts = []string{VerdictPayeeMismatch}
		e.PayeeTruth = false
	case variantWrittenAmountChanged, variantBothAmountsChanged:
		e.Verdicts = []string{VerdictAmountMismatch}
		e.AmountsTruth = false
	case variantWrongDate:
		e.Verdicts = []string{VerdictDateMismatch}
	case variantUnsigned:
		e.Verdicts = []string{VerdictUnsigned}
	case VariantLowLegibility:
		e.Verdicts = []string{VerdictCannotTell, VerdictConsistent}
		e.CountsForFalseClear = false
	default:
		return Expected{}
	}
	return e
}

// Date is a civil (calendar) date without time of day or zone.
type Date struct {
	Year  int        // e.g. 2025
	Month time.Month // January … December
	Day   int        // 1 … 31
}

// String returns the ISO form YYYY-MM-DD used in register text and receipts.
func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// AddDays returns the date n days after d (before d when n < 0).
func (d Date) AddDays(n int) Date {
	t := time.Date(d.Year, d.Month, d.Day+n, 0, 0, 0, 0, time.UTC)
	return Date{Year: t.Year(), Month: t.Month(), Day: t.Day()}
}

// firstRegisterDay is the date that register day offsets count from.
var firstRegisterDay = Date{Year: 2025, Month: time.January, Day: 1}

// RegisterRow is one row of the synthetic check register: what the drawer
// recorded, which the check face is compared against.
type RegisterRow struct {
	Index       int    // row index, 0-based; case ids print it as r00, r01, …
	CheckNumber int    // 1001 + Index
	Date        Date   // within 2025
	Payee       string // one of the 24 invented payee names
	AmountCents int64  // 1500 … 499999 ($15.00 … $4,999.99)
}

// Text returns the exact register text the judge is shown, e.g.
// "check number 1001; date 2025-04-21; payee Lanternfield Electric; amount $1,188.15".
func (r RegisterRow) Text() string {
	return fmt.Sprintf("check number %d; date %s; payee %s; amount $%s",
		r.CheckNumber, r.Date, r.Payee, checkform.Dollars(r.AmountCents))
}

// Face is what one rendered check shows.
type Face struct {
	CheckNumber   int     // printed top right and in the MICR line; the row's
	Date          Date    // the row's date, or shifted 3 … 45 days for wrong_date
	Payee         string  // the row's payee, or another list payee for payee_changed
	NumericCents  int64   // amount in the numeric box
	WrittenCents  int64   // amount on the words line
	Signed        bool    // false only for the unsigned variant
	RoutingNumber string  // 9 digits that always fail the ABA check
	AccountNumber string  // always twelve zeros
	SignatureSeed uint64  // seeds the signature strokes; same for a row's variants
	BlurRadius    float64 // Gaussian sigma in pixels; 0 except low_legibility
}

// Case is one check of the slice: a register row, a variant, the face built
// from them and the labels a judge's answers are scored against.
type Case struct {
	// Row is the register row the judge is shown as text; every variant
	// of a row shares it.
	Row RegisterRow
	// Variant is the change made to the face (clean when none).
	Variant Variant
	// Face is what the rendered check shows: the row's values with the
	// variant's change applied.
	Face Face
	// Expected holds the labels the answers are scored against: the
	// accepted verdicts, the payee and amounts truths, and whether a
	// "consistent" answer counts as a false clear ([ExpectedLabels] of
	// the variant).
	Expected Expected
}

// ID returns the case id "r{index:02d}:{variant}", e.g. "r00:clean".
func (c Case) ID() string {
	return fmt.Sprintf("r%02d:%s", c.Row.Index, c.Variant)
}

// payees is the fixed list of invented payee names, in typevet's order (the
// order matters for payee_changed).
var payees = [24]string{
	"Northwind Supply Co.",
	"Bluefin Paper Works",
	"Copperleaf Landscaping",
	"Quillmore Office Goods",
	"Harborview Plumbing LLC",
	"Maple Hollow Bakery",
	"Stonebridge Tutoring",
	"Pinecrest Auto Repair",
	"Lanternfield Electric",
	"Redwick Garden Center",
	"Silverbrook Catering",
	"Oakmere Print Shop",
	"Foxglove Cleaning Service",
	"Tidewater Moving Co.",
	"Brightmoor Music School",
	"Juniper Lane Florist",
	"Cobalt Ridge Roofing",
	"Willowmere Pet Clinic",
	"Amberfield Hardware",
	"Kestrel Bay Surveying",
	"Marigold Street Deli",
	"Ironvale Tool Rental",
	"Seabright Window Washers",
	"Thistledown Book Binding",
}

// checkRows returns an error unless 1 <= rows <= RowCount.
func checkRows(rows int) error {
	if rows < 1 || rows > RowCount {
		return fmt.Errorf("rows must be 1 to %d: %d", RowCount, rows)
	}
	return nil
}

// RegisterRows returns the first rows register rows of seed.
// rows outside 1..[RowCount] is an error (typevet's generator silently
// caps at 24 instead; its callers bound rows to 1..20, as this does).
func RegisterRows(seed uint64, rows int) ([]RegisterRow, error) {
	if err := checkRows(rows); err != nil {
		return nil, err
	}
	type keyed struct{ key, name string }
	order := make([]keyed, len(payees))
	for i, name := range payees {
		sum := sha256.Sum256([]byte(strconv.FormatUint(seed, 10) + ":" + name))
		order[i] = keyed{hex.EncodeToString(sum[:]), name}
	}
	slices.SortFunc(order, func(a, b keyed) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	d := newDraws("check-match:register:" + strconv.FormatUint(seed, 10))
	out := make([]RegisterRow, rows)
	for i := range out {
		day := d.integer(0, 365)
		amount := d.integer(1500, 500000)
		out[i] = RegisterRow{
			Index:       i,
			CheckNumber: 1001 + i,
			Date:        firstRegisterDay.AddDays(int(day)),
			Payee:       order[i].name,
			AmountCents: amount,
		}
	}
	return out, nil
}

// Cases returns the slice of seed: for each of the first rows register rows,
// in order, its seven cases in variant order (rows × 7 cases). rows outside
// 1..[RowCount] is an error. The same seed always gives the same cases, equal
// case for case to typevet's check_cases.
func Cases(seed uint64, rows int) ([]Case, error) {
	regs, err := RegisterRows(seed, rows)
	if err != nil {
		return nil, err
	}
	out := make([]Case, 0, rows*VariantsPerRow)
	for _, row := range regs {
		routing, sigSeed := faceDraws(seed, row.Index)
		for _, v := range Variants() {
			out = append(out, Case{
				Row:      row,
				Variant:  v,
				Face:     buildFace(seed, row, v, routing, sigSeed),
				Expected: ExpectedLabels(v),
			})
		}
	}
	return out, nil
}

// abaWeights are the ABA routing-number check-digit weights.
var abaWeights = [9]int{3, 7, 1, 3, 7, 1, 3, 7, 1}

// abaValid reports whether s is a routing number with a valid ABA check
// digit: exactly nine ASCII digits whose weighted sum (weights 3, 7, 1
// repeated) is a multiple of 10. typevet's check also accepts non-ASCII
// digits; no generated value is affected by the stricter rule.
func abaValid(s string) bool {
	if len(s) != 9 {
		return false
	}
	sum := 0
	for i := range 9 {
		c := s[i]
		if c < '0' || c > '9' {
			return false
		}
		sum += int(c-'0') * abaWeights[i]
	}
	return sum%10 == 0
}

// faceDraws returns the failing routing number and the signature seed of a
// row, from the stream check-match:face:{seed}:{index}.
func faceDraws(seed uint64, index int) (string, uint64) {
	d := newDraws(fmt.Sprintf("check-match:face:%d:%d", seed, index))
	var digits [9]byte
	partial := 0
	for i := range 8 {
		v := int(d.integer(0, 10))
		digits[i] = byte('0' + v)
		partial += v * abaWeights[i]
	}
	valid := (10 - partial%10) % 10
	digits[8] = byte('0' + (valid+int(d.integer(1, 10)))%10)
	sig := uint64(d.integer(0, 1<<31))
	return string(digits[:]), sig
}

// buildFace applies variant v to row.
func buildFace(seed uint64, row RegisterRow, v Variant, routing string, sigSeed uint64) Face {
	f := Face{
		CheckNumber:   row.CheckNumber,
		Date:          row.Date,
		Payee:         row.Payee,
		NumericCents:  row.AmountCents,
		WrittenCents:  row.AmountCents,
		Signed:        v != variantUnsigned,
		RoutingNumber: routing,
		AccountNumber: accountNumber,
		SignatureSeed: sigSeed,
	}
	d := newDraws(fmt.Sprintf("check-match:variant:%d:%d:%s", seed, row.Index, v))
	switch v {
	case variantPayeeChanged:
		others := make([]string, 0, len(payees)-1)
		for _, p := range payees {
			if p != row.Payee {
				others = append(others, p)
			}
		}
		f.Payee = others[d.integer(0, int64(len(others)))]
	case variantWrittenAmountChanged:
		f.WrittenCents = changedAmount(d, row.AmountCents)
	case variantBothAmountsChanged:
		f.NumericCents = changedAmount(d, row.AmountCents)
		f.WrittenCents = f.NumericCents
	case variantWrongDate:
		mag := int(d.integer(3, 46))
		if d.integer(0, 2) != 1 {
			mag = -mag
		}
		f.Date = row.Date.AddDays(mag)
	case VariantLowLegibility:
		f.BlurRadius = pymath.Round(d.uniform(blurMin, blurMax), 2)
	}
	return f
}

// changedAmount returns an amount that differs from cents by 5.00 … 499.99
// dollars: lower when the coin says so and the result stays >= 100 cents,
// else higher. It always makes exactly two draws.
func changedAmount(d *draws, cents int64) int64 {
	delta := d.integer(500, 50000)
	lower := cents - delta
	if d.integer(0, 2) == 1 && lower >= 100 {
		return lower
	}
	return cents + delta
}
