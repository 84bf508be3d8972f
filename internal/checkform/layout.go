// Package checkform is the one source of the synthetic check stock's
// geometry: canvas size, colours, the position and font size of every printed
// field, rules and boxes, the signature box, the SPECIMEN and VOID marks, the
// bundled font and the text formats of the printed fields, as typevet's
// renderer lays them out.
//
// The renderer in package checkmatch draws checks from this layout, and a
// reader that judges rendered checks locates fields with it. It deliberately
// holds no generator types (no Case, no Face): a reader that imports it
// learns where the check stock prints things, never what a case holds.
//
// Coordinates are pixels on the [Width]×[Height] canvas, x to the right and
// y down. Text positions follow Pillow's "la" anchor: X is the pen origin of
// the first glyph and Y the font's ascender line, so the Go baseline is
// Y + ascent ([Text.Baseline]). Rules and frames are inclusive of both end
// pixels, as Pillow draws them.
package checkform

import (
	"image"
	"image/color"
)

// Canvas size of one check render.
const (
	Width  = 1000
	Height = 440
)

// Colours of the check stock.
var (
	Paper = color.RGBA{246, 243, 232, 255} // background
	Ink   = color.RGBA{25, 25, 30, 255}    // printed text, rules and boxes
	Pen   = color.RGBA{20, 40, 120, 255}   // signature strokes
)

// Font sizes in pixels (the em size, Pillow's load_default(size=N)).
const (
	SizeSmall    = 14
	SizeLabel    = 16
	SizeBody     = 22
	SizeSpecimen = 120
	SizeVoid     = 60
)

// Box is a pixel rectangle given by its edges, as Pillow writes boxes.
type Box struct{ Left, Top, Right, Bottom int }

// Rect returns b as an image.Rectangle with Right and Bottom exclusive, the
// meaning of a Pillow crop box.
func (b Box) Rect() image.Rectangle { return image.Rect(b.Left, b.Top, b.Right, b.Bottom) }

// Inclusive returns the rectangle covering b with Right and Bottom
// included, the meaning of a Pillow rectangle outline.
func (b Box) Inclusive() image.Rectangle {
	return image.Rect(b.Left, b.Top, b.Right+1, b.Bottom+1)
}

// SignatureBox is where the signature strokes go; its bottom edge is the
// signature line.
var SignatureBox = Box{Left: 600, Top: 300, Right: 940, Bottom: 350}

// Text is one printed text field.
type Text struct {
	Name string // field name, e.g. "payee"
	X, Y int    // pen origin x and ascender line y (Pillow anchor "la")
	Size int    // font size in pixels
	// Static is the text printed on every check, or "" when the text comes
	// from the check (see the formats in this package).
	Static string
}

// Baseline returns the baseline y of t for a face whose ascent is ascent
// pixels.
func (t Text) Baseline(ascent int) int { return t.Y + ascent }

// Rule is a horizontal line from X0 to X1 inclusive on row Y, Width pixels
// thick growing downward (every rule on the stock is 1 pixel).
type Rule struct {
	Name   string
	X0, X1 int
	Y      int
	Width  int
}

// Rect returns the pixels the rule covers.
func (r Rule) Rect() image.Rectangle { return image.Rect(r.X0, r.Y, r.X1+1, r.Y+r.Width) }

// Frame is a rectangle outline covering Box inclusive; its border is Width
// pixels thick and grows inward from the box edge.
type Frame struct {
	Name  string
	Box   Box
	Width int
}

// The printed text fields, in print order.
var (
	DrawerName       = Text{Name: "drawer_name", X: 30, Y: 24, Size: SizeBody, Static: "Sample Holder"}
	DrawerAddress    = Text{Name: "drawer_address", X: 30, Y: 52, Size: SizeSmall, Static: "100 Example Road, Testville"}
	BankName         = Text{Name: "bank_name", X: 330, Y: 24, Size: SizeLabel, Static: "SYNTHETIC TEST BANK - NOT A REAL BANK"}
	CheckNumber      = Text{Name: "check_number", X: 880, Y: 24, Size: SizeBody}
	DateLabel        = Text{Name: "date_label", X: 640, Y: 90, Size: SizeLabel, Static: "DATE"}
	Date             = Text{Name: "date", X: 700, Y: 84, Size: SizeBody}
	PayLabel1        = Text{Name: "pay_label_1", X: 30, Y: 150, Size: SizeSmall, Static: "PAY TO THE"}
	PayLabel2        = Text{Name: "pay_label_2", X: 30, Y: 166, Size: SizeSmall, Static: "ORDER OF"}
	Payee            = Text{Name: "payee", X: 130, Y: 152, Size: SizeBody}
	NumericAmount    = Text{Name: "numeric_amount", X: 780, Y: 154, Size: SizeBody}
	WordsAmount      = Text{Name: "words_amount", X: 40, Y: 212, Size: SizeBody}
	MemoLabel        = Text{Name: "memo_label", X: 30, Y: 330, Size: SizeLabel, Static: "MEMO"}
	SignatureCaption = Text{Name: "signature_caption", X: 600, Y: 354, Size: SizeSmall, Static: "AUTHORIZED SIGNATURE"}
	MICRLine         = Text{Name: "micr_line", X: 30, Y: 392, Size: SizeLabel}
	Footer           = Text{Name: "footer", X: 640, Y: 392, Size: SizeSmall, Static: "NON-NEGOTIABLE TEST IMAGE"}
)

// The rules (underlines), in print order.
var (
	DateUnderline  = Rule{Name: "date_underline", X0: 695, X1: 940, Y: 112, Width: 1}
	PayeeUnderline = Rule{Name: "payee_underline", X0: 125, X1: 740, Y: 182, Width: 1}
	WordsUnderline = Rule{Name: "words_underline", X0: 30, X1: 940, Y: 242, Width: 1}
	MemoLine       = Rule{Name: "memo_line", X0: 85, X1: 420, Y: 348, Width: 1}
	SignatureLine  = Rule{Name: "signature_line", X0: 600, X1: 940, Y: 350, Width: 1}
)

// The frames, in print order.
var (
	Border    = Frame{Name: "border", Box: Box{6, 6, 993, 433}, Width: 2}
	AmountBox = Frame{Name: "amount_box", Box: Box{770, 146, 940, 186}, Width: 2}
)

// Texts returns every printed text field in print order.
func Texts() []Text {
	return []Text{
		DrawerName, DrawerAddress, BankName, CheckNumber, DateLabel, Date,
		PayLabel1, PayLabel2, Payee, NumericAmount, WordsAmount, MemoLabel,
		SignatureCaption, MICRLine, Footer,
	}
}

// Rules returns every rule in print order.
func Rules() []Rule {
	return []Rule{DateUnderline, PayeeUnderline, WordsUnderline, MemoLine, SignatureLine}
}

// Frames returns every frame in print order.
func Frames() []Frame { return []Frame{Border, AmountBox} }

// Signature stroke geometry. The strokes are seeded; these are
// the fixed parts.
const (
	StrokeWidth   = 3    // polyline width in pixels
	StrokeStep    = 3    // x distance between polyline points
	StrokeIndent  = 20   // first stroke starts at SignatureBox.Left + StrokeIndent + draw
	StrokeMaxSpan = 110  // strokes never start right of SignatureBox.Right - StrokeMaxSpan
	StrokeCentreY = 325. // (SignatureBox.Top + SignatureBox.Bottom) / 2
)

// Mark is one of the two marks pasted over every check.
type Mark struct {
	Text string
	Size int
	Fill color.NRGBA // straight-alpha fill; alpha scales with glyph coverage
	// Pad is the transparent margin around the ink bounding box of the
	// mark's layer.
	Pad int
}

// The two marks.
var (
	// Specimen crosses the face, rotated by SpecimenAngle degrees
	// counter-clockwise and centred on the canvas.
	Specimen = Mark{Text: "SPECIMEN", Size: SizeSpecimen, Fill: color.NRGBA{120, 120, 120, 70}, Pad: 4}
	// Void sits over the signature line on every render, centred on the
	// signature box horizontally and VoidLift pixels above the line.
	Void = Mark{Text: "VOID", Size: SizeVoid, Fill: color.NRGBA{190, 30, 30, 90}, Pad: 4}
)

// SpecimenAngle is the SPECIMEN mark's counter-clockwise rotation in
// degrees; VoidLift is how far above the signature line the VOID layer's
// centre sits.
const (
	SpecimenAngle = 12.0
	VoidLift      = 8
)

// SpecimenOrigin returns where a rotated SPECIMEN layer of size w×h is pasted:
// centred on the canvas, Python floor division.
func SpecimenOrigin(w, h int) image.Point {
	return image.Pt((Width-w)/2, (Height-h)/2)
}

// VoidOrigin returns where a VOID layer of size w×h is pasted: centred on the
// signature box horizontally, its middle VoidLift pixels above the signature
// line.
func VoidOrigin(w, h int) image.Point {
	return image.Pt((SignatureBox.Left+SignatureBox.Right-w)/2, SignatureBox.Bottom-h/2-VoidLift)
}
