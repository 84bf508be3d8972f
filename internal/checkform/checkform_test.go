package checkform

import (
	"image"
	"testing"
	"time"

	"golang.org/x/image/font"
)

func TestFontPinned(t *testing.T) {
	if got := FontDigest(); got != FontSHA256 {
		t.Fatalf("bundled font SHA-256 = %s, pinned %s: update FontSHA256 and the render goldens together", got, FontSHA256)
	}
}

func TestFacesCacheAndMetrics(t *testing.T) {
	var f Faces
	a := f.At(SizeBody)
	if f.At(SizeBody) != a {
		t.Error("At(22) returned a new face on the second call")
	}
	if f.At(SizeSmall) == a {
		t.Error("At(14) returned the 22 px face")
	}
	prev := 0
	for _, size := range []int{SizeSmall, SizeLabel, SizeBody, SizeVoid, SizeSpecimen} {
		asc := Ascent(f.At(size))
		// Go Regular's ascent is 0.93 em; hinted, it rounds to whole pixels.
		if asc <= prev || asc < size*8/10 || asc > size {
			t.Errorf("ascent at %d px = %d", size, asc)
		}
		prev = asc
	}
	if _, err := NewFace(0); err == nil {
		t.Error("NewFace(0) succeeded")
	}
}

func TestLayoutInsideCanvas(t *testing.T) {
	canvas := image.Rect(0, 0, Width, Height)
	var faces Faces
	// Widest per-check texts the generator can produce (amounts up to
	// $5,499.99, the longest payee and month).
	worst := map[string]string{
		CheckNumber.Name:   "1020",
		Date.Name:          DateText(2025, time.September, 30),
		Payee.Name:         "Seabright Window Washers",
		NumericAmount.Name: NumericText(549999),
		WordsAmount.Name:   "Four thousand seven hundred seventy-seven and 77/100" + WordsSuffix,
		MICRLine.Name:      MICRText("069490182", "000000000000", 1020),
	}
	// Right limits: the next thing printed on the same band.
	limit := map[string]int{
		BankName.Name:      CheckNumber.X,
		Date.Name:          DateUnderline.X1,
		Payee.Name:         PayeeUnderline.X1,
		NumericAmount.Name: AmountBox.Box.Right - AmountBox.Width,
		WordsAmount.Name:   WordsUnderline.X1,
		MICRLine.Name:      Footer.X,
	}
	seen := map[string]bool{}
	for _, tx := range Texts() {
		if seen[tx.Name] {
			t.Errorf("duplicate field name %q", tx.Name)
		}
		seen[tx.Name] = true
		text := tx.Static
		if text == "" {
			text = worst[tx.Name]
		}
		if text == "" {
			t.Errorf("%s: no static text and no per-check example", tx.Name)
			continue
		}
		face := faces.At(tx.Size)
		w := font.MeasureString(face, text).Ceil()
		box := image.Rect(tx.X, tx.Y, tx.X+w, tx.Baseline(Ascent(face))+face.Metrics().Descent.Ceil())
		if !box.In(canvas) {
			t.Errorf("%s %q spans %v, outside the canvas", tx.Name, text, box)
		}
		if l, ok := limit[tx.Name]; ok && box.Max.X > l {
			t.Errorf("%s %q ends at x=%d, past %d", tx.Name, text, box.Max.X, l)
		}
	}
	for _, r := range Rules() {
		if !r.Rect().In(canvas) || r.Width != 1 {
			t.Errorf("rule %s %v", r.Name, r.Rect())
		}
	}
	for _, fr := range Frames() {
		if !fr.Box.Inclusive().In(canvas) {
			t.Errorf("frame %s %v", fr.Name, fr.Box)
		}
	}
	if got := SignatureLine.Y; got != SignatureBox.Bottom {
		t.Errorf("signature line y %d, box bottom %d", got, SignatureBox.Bottom)
	}
	if StrokeCentreY != float64(SignatureBox.Top+SignatureBox.Bottom)/2 {
		t.Errorf("stroke centre %v", StrokeCentreY)
	}
}

func TestBoxes(t *testing.T) {
	b := Box{600, 300, 940, 350}
	if got := b.Rect(); got != image.Rect(600, 300, 940, 350) || got.Dx() != 340 {
		t.Errorf("Rect = %v", got)
	}
	if got := b.Inclusive(); got.Dx() != 341 || got.Dy() != 51 {
		t.Errorf("Inclusive = %v", got)
	}
}

func TestOrigins(t *testing.T) {
	tests := []struct {
		name string
		got  image.Point
		want image.Point
	}{
		{"specimen even", SpecimenOrigin(600, 240), image.Pt(200, 100)},
		{"specimen odd floors", SpecimenOrigin(601, 241), image.Pt(199, 99)},
		{"void", VoidOrigin(140, 52), image.Pt(700, 316)},
		{"void odd", VoidOrigin(141, 53), image.Pt(699, 316)},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestFormats(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"dollars small", Dollars(5), "0.05"},
		{"dollars", Dollars(118815), "1,188.15"},
		{"dollars exact thousand", Dollars(100000), "1,000.00"},
		{"dollars millions", Dollars(123456789), "1,234,567.89"},
		{"numeric", NumericText(118815), "$ 1,188.15"},
		{"date", DateText(2025, time.April, 21), "April 21, 2025"},
		{"date no padding", DateText(2026, time.January, 2), "January 2, 2026"},
		{"micr", MICRText("069490182", "000000000000", 1001), "ROUTING 069490182   ACCOUNT 000000000000   CHECK 1001"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
