package reader

import (
	"image"
	"image/draw"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"

	"github.com/typevet/typevet-go/internal/checkform"
)

// The alphabets the reader tries on each field: what the check stock can
// print there. The payee line holds names, the numeric box a dollar
// amount, the words line an amount in words with its "NN/100" cents and
// DOLLARS, the date line an English date.
const (
	letters         = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	digits          = "0123456789"
	payeeAlphabet   = letters + " .,'&-"
	numericAlphabet = digits + "$ ,."
	wordsAlphabet   = letters + digits + " -/"
	dateAlphabet    = letters + digits + " ,"
)

// glyph is one candidate glyph of a field: its advance and its ink
// template over the field band, clipped to the columns it owns (from its
// pen position up to the next pen position). The bundled font has no
// kerning, so pen positions are sums of advances.
type glyph struct {
	r     rune
	adv   int
	sumSq float32 // Σ t² over the template
	// cols[c] is the template's ink summed over the band rows of owned
	// column c: the lower bound Σ_c (o_c − cols[c])²/rows of the squared
	// error skips most candidates without touching their pixels.
	cols []float32
	// pix lists the template's non-zero pixels: offset row*bandStride+col
	// into the band (col relative to the pen) and ink value.
	off []int32
	ink []float32
}

// field is one printed text field the reader reads.
type field struct {
	name   string
	text   checkform.Text
	right  int // exclusive right edge of the area the text may use
	top    int // first band row (the ascender line)
	height int // band rows: ascent + descent
	glyphs []glyph
	maxAdv int // the widest advance of glyphs
}

// stockText is a static text of the check stock, rendered once: how
// clearly it shows says how legible the check is.
type stockText struct {
	rect image.Rectangle
	ink  []float32 // template ink over rect, row-major
}

// form is everything the reader knows about the check stock, built once
// from package checkform: the fields with their glyph templates and the
// static texts.
type form struct {
	c       Constants
	payee   field
	numeric field
	words   field
	date    field
	stock   []stockText
}

// bandStride is the row stride of every field band: wider than the canvas,
// so a template offset never depends on the field.
const bandStride = checkform.Width + 64

// forms caches the form per constants (the ink map shapes the templates).
var forms sync.Map // Constants → *form

// formFor returns the form of c, built on first use.
func formFor(c Constants) *form {
	if f, ok := forms.Load(c); ok {
		return f.(*form)
	}
	f, _ := forms.LoadOrStore(c, buildForm(c))
	return f.(*form)
}

func buildForm(c Constants) *form {
	var faces checkform.Faces
	numRight := checkform.AmountBox.Box.Right - checkform.AmountBox.Width + 1
	f := &form{
		c:       c,
		payee:   newField(&faces, c, checkform.Payee, checkform.PayeeUnderline.X1+1, payeeAlphabet),
		numeric: newField(&faces, c, checkform.NumericAmount, numRight, numericAlphabet),
		words:   newField(&faces, c, checkform.WordsAmount, checkform.WordsUnderline.X1+1, wordsAlphabet),
		date:    newField(&faces, c, checkform.Date, checkform.DateUnderline.X1+1, dateAlphabet),
	}
	for _, t := range checkform.Texts() {
		if t.Static != "" {
			f.stock = append(f.stock, newStockText(&faces, c, t))
		}
	}
	return f
}

func newField(faces *checkform.Faces, c Constants, t checkform.Text, right int, alphabet string) field {
	face := faces.At(t.Size)
	m := face.Metrics()
	asc, desc := checkform.Ascent(face), m.Descent.Ceil()
	fd := field{name: t.Name, text: t, right: right, top: t.Y, height: asc + desc}
	for _, r := range alphabet {
		g := newGlyph(face, c, r, asc, fd.height)
		fd.glyphs = append(fd.glyphs, g)
		fd.maxAdv = max(fd.maxAdv, g.adv)
	}
	return fd
}

// newGlyph renders r at pen (0, ascent) of a band of height rows and keeps
// the ink in the columns the glyph owns, [0, advance).
func newGlyph(face font.Face, c Constants, r rune, ascent, height int) glyph {
	adv, _ := face.GlyphAdvance(r)
	g := glyph{r: r, adv: adv.Round()}
	g.cols = make([]float32, g.adv)
	dr, mask, mp, _, ok := face.Glyph(fixed.P(0, ascent), r)
	if !ok {
		return g
	}
	for y := dr.Min.Y; y < dr.Max.Y; y++ {
		for x := dr.Min.X; x < dr.Max.X; x++ {
			if x < 0 || x >= g.adv || y < 0 || y >= height {
				continue
			}
			_, _, _, a := mask.At(mp.X+x-dr.Min.X, mp.Y+y-dr.Min.Y).RGBA()
			v := inkOf(float64(a)/0xffff, c)
			if v == 0 {
				continue
			}
			g.off = append(g.off, int32(y*bandStride+x))
			g.ink = append(g.ink, v)
			g.sumSq += v * v
			g.cols[x] += v
		}
	}
	return g
}

func newStockText(faces *checkform.Faces, c Constants, t checkform.Text) stockText {
	face := faces.At(t.Size)
	asc := checkform.Ascent(face)
	b, _ := font.BoundString(face, t.Static)
	rect := image.Rect(t.X+b.Min.X.Floor(), t.Y+asc+b.Min.Y.Floor(), t.X+b.Max.X.Ceil(), t.Y+asc+b.Max.Y.Ceil())
	cov := image.NewAlpha(rect)
	d := font.Drawer{Dst: cov, Src: image.Opaque, Face: face, Dot: fixed.P(t.X, t.Y+asc)}
	d.DrawString(t.Static)
	st := stockText{rect: rect, ink: make([]float32, rect.Dx()*rect.Dy())}
	for i, a := range cov.Pix {
		st.ink[i] = inkOf(float64(a)/255, c)
	}
	return st
}

// inkOf maps a darkness (0 paper, 1 ink) to ink with the constants' ink
// map.
func inkOf(d float64, c Constants) float32 {
	v := (d - c.InkLow) / (c.InkHigh - c.InkLow)
	switch {
	case v <= 0:
		return 0
	case v >= 1:
		return 1
	}
	return float32(v)
}

// Luma of paper and ink (ITU-R 601 weights), the ends of the darkness
// scale.
var (
	paperLuma = luma(checkform.Paper.R, checkform.Paper.G, checkform.Paper.B)
	inkLuma   = luma(checkform.Ink.R, checkform.Ink.G, checkform.Ink.B)
)

func luma(r, g, b uint8) float64 {
	return (299*float64(r) + 587*float64(g) + 114*float64(b)) / 1000
}

// rgbaOf returns img as an *image.RGBA of the canvas size, converting when
// it is another type (a decoded RGB PNG already is one).
func rgbaOf(img image.Image) *image.RGBA {
	if m, ok := img.(*image.RGBA); ok && m.Rect.Min == (image.Point{}) {
		return m
	}
	m := image.NewRGBA(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
	draw.Draw(m, m.Rect, img, img.Bounds().Min, draw.Src)
	return m
}
