package reader_test

import (
	"fmt"
	"image"
	"testing"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/internal/checkform"
	"github.com/typevet/typevet-go/judgment/reader"
)

// sharpSeeds are the seeds whose sharp renders must read exactly: the two
// reference seeds and three others. The extra seeds are left out in
// -short mode and under the race detector, where rendering is slow (and
// only testRows rows are read). The readings are the cached ones of
// [rendersOf], shared with the judge tests.
func sharpSeeds() []uint64 {
	if testing.Short() || raceEnabled {
		return []uint64{0, 1}
	}
	return []uint64{0, 1, 2, 3, 7}
}

// exactRates tallies exact reads per field.
type exactRates struct {
	cases                                  int
	payee, numeric, words, date, signature int
}

func (r exactRates) String() string {
	pct := func(n int) string { return fmt.Sprintf("%d/%d (%.1f%%)", n, r.cases, 100*float64(n)/float64(r.cases)) }
	return fmt.Sprintf("payee %s, numeric %s, words %s, date %s, signature %s",
		pct(r.payee), pct(r.numeric), pct(r.words), pct(r.date), pct(r.signature))
}

// TestSharpRendersReadExactly renders every sharp case (all variants but
// low_legibility) of the sharp seeds and requires the reader to recover
// the payee, both amounts (as text and as cents) and the date exactly, and
// to find the signature exactly when the face is signed. It logs the
// per-field exact-read rate.
func TestSharpRendersReadExactly(t *testing.T) {
	var total exactRates
	for _, seed := range sharpSeeds() {
		set := rendersOf(t, seed)
		for i, c := range set.Cases {
			if c.Variant == checkmatch.VariantLowLegibility {
				continue
			}
			if !set.Rendered[i] {
				t.Fatalf("seed %d %s was not rendered", seed, c.ID())
			}
			r := set.Readings[i]
			total.cases++
			f := c.Face
			words, err := checkmatch.AmountInWords(f.WrittenCents)
			if err != nil {
				t.Fatal(err)
			}
			id := fmt.Sprintf("seed %d %s", seed, c.ID())
			check := func(n *int, field, got, want string) {
				if got == want {
					*n++
				} else {
					t.Errorf("%s: %s read %q, want %q", id, field, got, want)
				}
			}
			check(&total.payee, "payee", r.Payee.Text, f.Payee)
			check(&total.numeric, "numeric", r.Numeric.Text, checkform.NumericText(f.NumericCents))
			check(&total.words, "words", r.Words.Text, words+checkform.WordsSuffix)
			check(&total.date, "date", r.Date.Text, checkform.DateText(f.Date.Year, f.Date.Month, f.Date.Day))
			if num, err := reader.ParseNumeric(r.Numeric.Text); err != nil || num != f.NumericCents {
				t.Errorf("%s: numeric parses to %d (%v), want %d", id, num, err, f.NumericCents)
			}
			if w, err := reader.ParseWords(r.Words.Text); err != nil || w != f.WrittenCents {
				t.Errorf("%s: words parse to %d (%v), want %d", id, w, err, f.WrittenCents)
			}
			signed := reader.DefaultConstants.Weigh(r, reader.Register{}).Signed > 0.5
			if signed == f.Signed {
				total.signature++
			} else {
				t.Errorf("%s: signed %v (pen mass %.0f), want %v", id, signed, r.PenMass, f.Signed)
			}
			for _, fd := range []reader.Field{r.Payee, r.Numeric, r.Words, r.Date} {
				if fd.Confidence < 0.95 {
					t.Errorf("%s: %q read with confidence %.3f, want ≥ 0.95 on a sharp render", id, fd.Text, fd.Confidence)
				}
			}
		}
	}
	t.Logf("exact reads over %d sharp cases of seeds %v: %v", total.cases, sharpSeeds(), total)
}

// TestBlurredRendersReadAsIllegible: every low_legibility render of seed 0
// has a check confidence far below every sharp render's.
func TestBlurredRendersReadAsIllegible(t *testing.T) {
	set := rendersOf(t, 0)
	for i, c := range set.Cases {
		conf := set.Readings[i].Confidence()
		switch blurred := c.Face.BlurRadius > 0; {
		case blurred && conf > 0.5:
			t.Errorf("%s (blur %.2f): confidence %.3f, want ≤ 0.5", c.ID(), c.Face.BlurRadius, conf)
		case !blurred && conf < 0.95:
			t.Errorf("%s: confidence %.3f, want ≥ 0.95", c.ID(), conf)
		}
	}
}

// TestReadOtherSize: an image that is not a check render reads as
// nothing.
func TestReadOtherSize(t *testing.T) {
	r := reader.Read(image.NewRGBA(image.Rect(0, 0, 500, 220)))
	if r != (reader.Reading{}) {
		t.Errorf("Read(500×220) = %+v, want the zero Reading", r)
	}
}
