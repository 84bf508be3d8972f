package checkmatch

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"sync"

	"golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/math/f64"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"

	"github.com/typevet/typevet-go/internal/checkform"
)

// maxBlurRadius bounds the blur sigma [Render] accepts. Generated faces use
// 3.5 … 5.0; the bound keeps a hand-built face from asking for a blur whose
// kernel costs seconds.
const maxBlurRadius = 64.0

// Render draws case c as a check image and returns it PNG-encoded: 1000×440,
// 8-bit RGB, no metadata chunks (IHDR, IDAT, IEND only), Up-filtered rows at
// zlib best speed (see pngenc.go for why not level 6). The layout, colours, texts and marks are typevet's
// with the Go Regular font; see [RenderImage].
//
// Render is deterministic: one case gives the same bytes on every call
// within one build of this module. The bytes are never equal to typevet's
// Pillow renders, so a receipt records [RendererPin] instead of Pillow's
// version. Render is safe for concurrent use.
func Render(c Case) ([]byte, error) {
	img := canvases.Get().(*image.RGBA)
	defer canvases.Put(img)
	if err := renderInto(img, c); err != nil {
		return nil, err
	}
	return encodeRGBPNG(img)
}

// canvases recycles the canvases of [Render], which returns only the PNG.
var canvases = sync.Pool{New: func() any {
	return image.NewRGBA(image.Rect(0, 0, checkform.Width, checkform.Height))
}}

// RenderImage draws case c and returns the pixels (opaque RGBA, 1000×440).
// In order: the paper, the printed fields of [internal/checkform] in ink, the
// seeded signature strokes when the face is signed, the SPECIMEN and VOID
// marks (VOID on every render, including unsigned), then a Gaussian blur of
// sigma Face.BlurRadius when it is positive.
//
// The face must be printable: WrittenCents within 1 … 99,999,999,999 (the
// words line, [AmountInWords]), NumericCents not negative, BlurRadius from 0 to 64. Every face
// [Cases] makes is printable; a hand-built face that is not gets an error
// naming the field and the case id.
func RenderImage(c Case) (*image.RGBA, error) {
	img := image.NewRGBA(image.Rect(0, 0, checkform.Width, checkform.Height))
	if err := renderInto(img, c); err != nil {
		return nil, err
	}
	return img, nil
}

// renderInto draws c over every pixel of img, a Width×Height canvas.
func renderInto(img *image.RGBA, c Case) error {
	f := c.Face
	words, err := AmountInWords(f.WrittenCents)
	if err != nil {
		return fmt.Errorf("render %s: written %w", c.ID(), err)
	}
	if f.NumericCents < 0 {
		return fmt.Errorf("render %s: numeric cents must not be negative, got %d", c.ID(), f.NumericCents)
	}
	if !(f.BlurRadius >= 0 && f.BlurRadius <= maxBlurRadius) {
		return fmt.Errorf("render %s: blur radius must be from 0 to %v, got %v", c.ID(), maxBlurRadius, f.BlurRadius)
	}

	st := renderStates.Get().(*renderState)
	defer renderStates.Put(st)

	copy(img.Pix, stockLayer().Pix)
	st.text(img, checkform.CheckNumber, fmt.Sprint(f.CheckNumber))
	st.text(img, checkform.Date, checkform.DateText(f.Date.Year, f.Date.Month, f.Date.Day))
	st.text(img, checkform.Payee, f.Payee)
	st.text(img, checkform.NumericAmount, checkform.NumericText(f.NumericCents))
	st.text(img, checkform.WordsAmount, words+checkform.WordsSuffix)
	st.text(img, checkform.MICRLine, checkform.MICRText(f.RoutingNumber, f.AccountNumber, f.CheckNumber))
	if f.Signed {
		st.strokes(img, signatureStrokes(f.SignatureSeed))
	}
	compositeMarks(img)
	if f.BlurRadius > 0 {
		st.blurBuf = gaussianBlur(img, f.BlurRadius, st.blurBuf)
	}
	return nil
}

// renderState is the per-goroutine scratch of a render: font faces (an
// opentype face must not be shared between goroutines), the stroke
// rasterizer and the blur buffer.
type renderState struct {
	faces   checkform.Faces
	raster  vector.Rasterizer
	blurBuf []lanes // line buffer of the blur
}

var renderStates = sync.Pool{New: func() any { return new(renderState) }}

// inkSrc and penSrc are the uniform sources for text and strokes.
var (
	inkSrc = image.NewUniform(checkform.Ink)
	penSrc = image.NewUniform(checkform.Pen)
)

// text draws s in ink at field t (Pillow anchor "la": baseline = Y + ascent).
// It is font.Drawer.DrawString with the glyph masks taken from [glyphs]:
// the same kerning, advances, rectangles, masks and draw call.
func (st *renderState) text(dst draw.Image, t checkform.Text, s string) {
	face := st.faces.At(t.Size)
	dot := fixed.P(t.X, t.Baseline(checkform.Ascent(face)))
	prev := rune(-1)
	for _, c := range s {
		if prev >= 0 {
			dot.X += face.Kern(prev, c)
		}
		g := glyphAt(face, t.Size, dot, c)
		if !g.dr.Empty() {
			at := image.Pt(dot.X.Floor(), dot.Y.Floor())
			draw.DrawMask(dst, g.dr.Add(at), inkSrc, image.Point{}, g.mask, g.maskp, draw.Over)
		}
		dot.X += g.advance
		prev = c
	}
}

// glyphKey names a rasterized glyph: font size, rune and the sub-pixel
// part of the dot. An opentype face's mask depends on nothing else, and its
// rectangle moves with the dot's whole-pixel part.
type glyphKey struct {
	size   int
	r      rune
	fx, fy fixed.Int26_6
}

// glyph is a face's Glyph result with the rectangle relative to the dot's
// whole pixel and a mask of its own (a face reuses its mask buffer).
type glyph struct {
	dr      image.Rectangle
	mask    image.Image
	maskp   image.Point
	advance fixed.Int26_6
}

// glyphs caches [glyph] by [glyphKey] for every render: the check texts
// use a few dozen ASCII runes at three sizes (whole-pixel dots: the faces
// hint fully), and rasterizing them again for every render cost about a
// twentieth of a render.
var glyphs sync.Map

// glyphAt returns the glyph of rune r at dot from face (of the given size),
// rasterizing it on the first use.
func glyphAt(face font.Face, size int, dot fixed.Point26_6, r rune) *glyph {
	key := glyphKey{size: size, r: r, fx: dot.X & 63, fy: dot.Y & 63}
	if g, ok := glyphs.Load(key); ok {
		return g.(*glyph)
	}
	dr, mask, maskp, advance, _ := face.Glyph(dot, r)
	g := &glyph{dr: dr.Sub(image.Pt(dot.X.Floor(), dot.Y.Floor())), maskp: maskp, advance: advance}
	m, ok := mask.(*image.Alpha)
	if r >= 0x80 || (mask != nil && !ok) {
		// Only ASCII is cached, so a hand-built face's text cannot grow
		// the cache without bound; a mask of another type is used once.
		g.mask = mask
		return g
	}
	if ok {
		own := *m
		own.Pix = bytes.Clone(m.Pix)
		g.mask = &own
	}
	v, _ := glyphs.LoadOrStore(key, g)
	return v.(*glyph)
}

// strokeArea is the part of the canvas the signature rasterizer covers: the
// signature box with a margin for the pen width and the joins.
var strokeArea = checkform.SignatureBox.Rect().Inset(-12)

// strokes draws each stroke as a 3 px polyline in pen colour: every segment
// a quad of the pen width and every inner point a small octagon (a round
// join), anti-aliased by the vector rasterizer. Pillow draws no joins at
// width 3; the joins only fill the notches a Go quad-per-segment line would
// leave.
func (st *renderState) strokes(dst *image.RGBA, strokes []stroke) {
	z := &st.raster
	z.Reset(strokeArea.Dx(), strokeArea.Dy())
	ox, oy := float64(strokeArea.Min.X), float64(strokeArea.Min.Y)
	h := float64(checkform.StrokeWidth) / 2
	for _, s := range strokes {
		for i := 1; i < len(s.Points); i++ {
			x0, y0 := float64(s.Points[i-1].X)-ox, s.Points[i-1].Y-oy
			x1, y1 := float64(s.Points[i].X)-ox, s.Points[i].Y-oy
			dx, dy := x1-x0, y1-y0
			l := math.Hypot(dx, dy)
			nx, ny := -dy/l*h, dx/l*h
			polygon(z, [][2]float64{{x0 + nx, y0 + ny}, {x1 + nx, y1 + ny}, {x1 - nx, y1 - ny}, {x0 - nx, y0 - ny}})
			if i < len(s.Points)-1 {
				var oct [8][2]float64
				for k := range oct {
					a := float64(k) * math.Pi / 4
					oct[k] = [2]float64{x1 + h*math.Cos(a), y1 + h*math.Sin(a)}
				}
				polygon(z, oct[:])
			}
		}
	}
	z.DrawOp = draw.Over
	z.Draw(dst, strokeArea, penSrc, image.Point{})
}

// polygon adds a closed polygon to z, always with the same (clockwise on
// screen) orientation: the rasterizer sums signed coverage, so overlapping
// shapes of opposite orientation would cancel.
func polygon(z *vector.Rasterizer, pts [][2]float64) {
	area := 0.0
	for i := range pts {
		j := (i + 1) % len(pts)
		area += pts[i][0]*pts[j][1] - pts[j][0]*pts[i][1]
	}
	at := func(i int) [2]float64 {
		if area < 0 {
			return pts[len(pts)-1-i]
		}
		return pts[i]
	}
	p := at(0)
	z.MoveTo(float32(p[0]), float32(p[1]))
	for i := 1; i < len(pts); i++ {
		p = at(i)
		z.LineTo(float32(p[0]), float32(p[1]))
	}
	z.ClosePath()
}

// stockLayer is the paper with everything printed identically on every
// check (the fields without per-check text: border, drawer, bank,
// labels, rules, amount box, caption, footer), drawn once.
var stockLayer = sync.OnceValue(func() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, checkform.Width, checkform.Height))
	draw.Draw(img, img.Rect, image.NewUniform(checkform.Paper), image.Point{}, draw.Src)
	for _, fr := range checkform.Frames() {
		frame(img, fr)
	}
	for _, r := range checkform.Rules() {
		draw.Draw(img, r.Rect(), inkSrc, image.Point{}, draw.Src)
	}
	var st renderState
	for _, t := range checkform.Texts() {
		if t.Static != "" {
			st.text(img, t, t.Static)
		}
	}
	return img
})

// frame draws a rectangle outline covering fr.Box inclusive, its border
// growing inward by fr.Width pixels (Pillow's rectangle).
func frame(img *image.RGBA, fr checkform.Frame) {
	r := fr.Box.Inclusive()
	w := fr.Width
	for _, side := range []image.Rectangle{
		image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+w), // top
		image.Rect(r.Min.X, r.Max.Y-w, r.Max.X, r.Max.Y), // bottom
		image.Rect(r.Min.X, r.Min.Y, r.Min.X+w, r.Max.Y), // left
		image.Rect(r.Max.X-w, r.Min.Y, r.Max.X, r.Max.Y), // right
	} {
		draw.Draw(img, side, inkSrc, image.Point{}, draw.Src)
	}
}

// markOverlay is the transparent canvas-sized layer holding the rotated
// SPECIMEN with VOID pasted over it, premultiplied, cropped to
// the part that holds any mark. It is the same for every case, so it is
// built once and composited over each render.
var markOverlay = sync.OnceValue(func() *image.RGBA {
	var faces checkform.Faces
	spec := rotateCCW(markLayer(&faces, checkform.Specimen), checkform.SpecimenAngle)
	void := markLayer(&faces, checkform.Void)

	canvas := image.Rect(0, 0, checkform.Width, checkform.Height)
	ov := image.NewRGBA(canvas)
	sp := checkform.SpecimenOrigin(spec.Rect.Dx(), spec.Rect.Dy())
	draw.Draw(ov, spec.Rect.Sub(spec.Rect.Min).Add(sp), spec, spec.Rect.Min, draw.Src)
	vp := checkform.VoidOrigin(void.Rect.Dx(), void.Rect.Dy())
	draw.Draw(ov, void.Rect.Sub(void.Rect.Min).Add(vp), void, void.Rect.Min, draw.Src)

	// Crop to the pixels with any alpha so compositing touches only those.
	used := image.Rectangle{}
	for y := 0; y < checkform.Height; y++ {
		row := ov.Pix[y*ov.Stride : y*ov.Stride+checkform.Width*4]
		for x := 0; x < checkform.Width; x++ {
			if row[x*4+3] != 0 {
				used = used.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return ov.SubImage(used).(*image.RGBA)
})

// markSpan is a horizontal run of mark overlay pixels that are not fully
// transparent: premultiplied RGBA bytes starting at canvas pixel (X, Y).
type markSpan struct {
	X, Y int
	Pix  []byte
}

// markSpans lists the runs of [markOverlay] with any alpha; transparent
// pixels leave the canvas unchanged under Over, so compositing skips them.
var markSpans = sync.OnceValue(func() []markSpan {
	ov := markOverlay()
	var spans []markSpan
	for y := ov.Rect.Min.Y; y < ov.Rect.Max.Y; y++ {
		for x := ov.Rect.Min.X; x < ov.Rect.Max.X; {
			if ov.Pix[ov.PixOffset(x, y)+3] == 0 {
				x++
				continue
			}
			start := x
			for x < ov.Rect.Max.X && ov.Pix[ov.PixOffset(x, y)+3] != 0 {
				x++
			}
			i := ov.PixOffset(start, y)
			spans = append(spans, markSpan{X: start, Y: y, Pix: ov.Pix[i : i+4*(x-start) : i+4*(x-start)]})
		}
	}
	return spans
})

// compositeMarks draws the mark overlay over img, a canvas-sized image,
// with exactly image/draw's arithmetic for Over of a premultiplied *image.RGBA
// source (drawCopyOver), but only over the mark spans.
func compositeMarks(img *image.RGBA) {
	const m = 1<<16 - 1
	for _, sp := range markSpans() {
		i := img.PixOffset(sp.X, sp.Y)
		dst := img.Pix[i : i+len(sp.Pix)]
		for k := 0; k+4 <= len(sp.Pix); k += 4 {
			s := sp.Pix[k : k+4 : k+4]
			d := dst[k : k+4 : k+4]
			a := (m - uint32(s[3])*0x101) * 0x101
			d[0] = uint8((uint32(d[0])*a/m + uint32(s[0])*0x101) >> 8)
			d[1] = uint8((uint32(d[1])*a/m + uint32(s[1])*0x101) >> 8)
			d[2] = uint8((uint32(d[2])*a/m + uint32(s[2])*0x101) >> 8)
			d[3] = uint8((uint32(d[3])*a/m + uint32(s[3])*0x101) >> 8)
		}
	}
}

// markLayer draws mark m on a transparent layer: the
// layer is the ink bounding box of the text plus m.Pad on every side; every
// pixel the glyphs touch keeps the fill RGB with alpha = fill alpha ×
// coverage (straight alpha), returned premultiplied.
func markLayer(faces *checkform.Faces, m checkform.Mark) *image.RGBA {
	face := faces.At(m.Size)
	b, _ := font.BoundString(face, m.Text)
	left, top := b.Min.X.Floor(), b.Min.Y.Floor()
	right, bottom := b.Max.X.Ceil(), b.Max.Y.Ceil()
	w, h := right-left+2*m.Pad, bottom-top+2*m.Pad

	cov := image.NewAlpha(image.Rect(0, 0, w, h))
	d := font.Drawer{Dst: cov, Src: image.Opaque, Face: face, Dot: fixed.P(m.Pad-left, m.Pad-top)}
	d.DrawString(m.Text)

	layer := image.NewNRGBA(cov.Rect)
	for i, c := range cov.Pix {
		if c == 0 {
			continue
		}
		layer.Pix[4*i+0] = m.Fill.R
		layer.Pix[4*i+1] = m.Fill.G
		layer.Pix[4*i+2] = m.Fill.B
		layer.Pix[4*i+3] = uint8((uint32(m.Fill.A)*uint32(c) + 127) / 255)
	}
	out := image.NewRGBA(layer.Rect)
	draw.Draw(out, out.Rect, layer, image.Point{}, draw.Src)
	return out
}

// rotateCCW rotates the premultiplied layer src by deg degrees
// counter-clockwise about its centre with Pillow's expand rule: the result
// is ceil(max) - floor(min) of the rotated corners in each axis, the centre
// stays the centre, the outside is transparent. The resampling is
// Catmull-Rom bicubic (Pillow's bicubic kernel, a = -0.5) on premultiplied
// values, as Pillow does for RGBA.
func rotateCCW(src *image.RGBA, deg float64) *image.RGBA {
	w, h := float64(src.Rect.Dx()), float64(src.Rect.Dy())
	rad := deg * math.Pi / 180
	cos, sin := math.Cos(rad), math.Sin(rad)
	// Forward map about the centre, y down: a point at angle a moves to
	// angle a - deg on screen (counter-clockwise).
	fwd := func(x, y float64) (float64, float64) {
		dx, dy := x-w/2, y-h/2
		return dx*cos + dy*sin, -dx*sin + dy*cos
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range [][2]float64{{0, 0}, {w, 0}, {w, h}, {0, h}} {
		x, y := fwd(p[0], p[1])
		minX, maxX = math.Min(minX, x), math.Max(maxX, x)
		minY, maxY = math.Min(minY, y), math.Max(maxY, y)
	}
	nw := int(math.Ceil(maxX+w/2) - math.Floor(minX+w/2))
	nh := int(math.Ceil(maxY+h/2) - math.Floor(minY+h/2))
	dst := image.NewRGBA(image.Rect(0, 0, nw, nh))
	cx, cy := float64(nw)/2, float64(nh)/2
	// src point (x, y) → dst point centre + fwd(x, y).
	s2d := f64.Aff3{
		cos, sin, cx - (w/2)*cos - (h/2)*sin,
		-sin, cos, cy + (w/2)*sin - (h/2)*cos,
	}
	draw.CatmullRom.Transform(dst, s2d, src, src.Rect, draw.Src, nil)
	return dst
}
