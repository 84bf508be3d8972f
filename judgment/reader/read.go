package reader

import (
	"image"
	"math"
	"strings"
	"sync"

	"github.com/typevet/typevet-go/internal/checkform"
)

// Field is one read text field.
type Field struct {
	// Text is what the reader read, without leading or trailing spaces;
	// "" when the field shows no ink.
	Text string `json:"text"`
	// Confidence is the read quality in [0, 1]: 1 − Σ (o − t)² / Σ t²
	// over the field's band, where o is the band's ink and t the ink of
	// Text drawn in the bundled font at the field's position; 1 when the
	// pixels are exactly the font's glyphs, 0 when nothing was read or
	// the error is as large as the text's own ink.
	Confidence float64 `json:"confidence"`
}

// Reading is what the reader sees on one check image.
type Reading struct {
	// Payee is the payee line.
	Payee Field `json:"payee"`
	// Numeric is the amount box, e.g. "$ 1,188.15".
	Numeric Field `json:"numeric"`
	// Words is the words line, e.g. "One thousand one hundred eighty-eight
	// and 15/100 DOLLARS".
	Words Field `json:"words"`
	// Date is the date line, e.g. "April 21, 2025".
	Date Field `json:"date"`
	// Stock is how clearly the check stock's static texts (drawer, bank,
	// labels, caption, footer) show, the same measure as a field's
	// confidence over all of them; it is near 1 on any sharp render and
	// low on a blurred, blank or foreign image.
	Stock float64 `json:"stock"`
	// PenMass is the pen ink in the signature box, in pixels (see
	// [Constants.PenMinShare]); the red VOID and the grey SPECIMEN add
	// nothing to it.
	PenMass float64 `json:"pen_mass"`
}

// Confidence is the check's read confidence: the mean of the stock and
// the four fields' confidences.
func (r Reading) Confidence() float64 {
	return (r.Stock + r.Payee.Confidence + r.Numeric.Confidence + r.Words.Confidence + r.Date.Confidence) / 5
}

// Read reads a check image with the default constants. The image must be
// a render of the check stock of package checkform, 1000×440; another
// size reads as nothing (every confidence 0). Read is safe for concurrent
// use.
func Read(img image.Image) Reading {
	return read(formFor(DefaultConstants), img)
}

func read(f *form, img image.Image) Reading {
	if img.Bounds().Dx() != checkform.Width || img.Bounds().Dy() != checkform.Height {
		return Reading{}
	}
	m := rgbaOf(img)
	s := scratches.Get().(*scratch)
	defer scratches.Put(s)
	return Reading{
		Payee:   s.readField(f, &f.payee, m),
		Numeric: s.readField(f, &f.numeric, m),
		Words:   s.readField(f, &f.words, m),
		Date:    s.readField(f, &f.date, m),
		Stock:   stockConfidence(f, m),
		PenMass: penMass(f.c, m),
	}
}

// inkAt returns the ink of canvas pixel (x, y) under c's ink map.
func inkAt(m *image.RGBA, x, y int, c Constants) float32 {
	i := m.PixOffset(x, y)
	p := m.Pix[i : i+3 : i+3]
	d := (paperLuma - luma(p[0], p[1], p[2])) / (paperLuma - inkLuma)
	return inkOf(d, c)
}

// scratch holds one reading's buffers.
type scratch struct {
	band []float32 // field band, bandStride columns per row
	col  []float32 // prefix sums of Σ ink² per column
	ink  []float32 // Σ ink per column
	cost []float32 // best cost to explain columns [0, x)
	from []int32   // glyph index that ends the best path at x, -1 none
	rows float32   // 1 / band rows
}

// glyphCost returns cx plus the squared error of g's template at pen x
// over the columns g owns, and whether it is below bound; a column-sum
// lower bound rejects most candidates before the pixel sum.
func (s *scratch) glyphCost(g *glyph, x int, cx, bound float32) (float32, bool) {
	lb := float32(0)
	for c, t := range g.cols {
		d := s.ink[x+c] - t
		lb += d * d
	}
	if cx+lb*s.rows >= bound {
		return 0, false
	}
	base := s.band[x:]
	cross := float32(0)
	for k, o := range g.off {
		cross += base[o] * g.ink[k]
	}
	c := cx + s.col[x+g.adv] - s.col[x] - 2*cross + g.sumSq
	return c, c < bound
}

// greedy reads the band left to right taking, at each pen position, the
// glyph with the least squared error per owned column, and records the
// string's costs in s.cost as a path of the program. It returns the
// string's total cost with a blank rest of the band, an upper bound on
// the best total, and its end.
func (s *scratch) greedy(fd *field, n int) (float32, int) {
	inf := float32(math.Inf(1))
	x, cx := 0, float32(0)
	for s.col[n]-s.col[x] > 0 {
		bestG, bestC, bestRate := -1, inf, inf
		for gi := range fd.glyphs {
			g := &fd.glyphs[gi]
			if x+g.adv > n || g.adv == 0 {
				continue
			}
			c, _ := s.glyphCost(g, x, 0, inf)
			if rate := c / float32(g.adv); rate < bestRate {
				bestG, bestC, bestRate = gi, c, rate
			}
		}
		if bestG < 0 {
			break
		}
		x += fd.glyphs[bestG].adv
		cx += bestC
		if cx < s.cost[x] {
			s.cost[x], s.from[x] = cx, int32(bestG)
		}
	}
	return cx + s.col[n] - s.col[x], x
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// readField reads fd from m by analysis by synthesis: a dynamic program
// over pen positions finds the glyph string whose templates, placed at
// successive advances from the field's pen origin, explain the band's ink
// with the least squared error; the columns after the string must be
// blank. Every column of the band is explained exactly once, so strings of
// different lengths compare fairly.
func (s *scratch) readField(f *form, fd *field, m *image.RGBA) Field {
	x0, h := fd.text.X, fd.height
	// Fill the band and find its last inked column.
	width := fd.right - x0
	s.band = grow(s.band, h*bandStride)
	last := -1
	for y := range h {
		row := s.band[y*bandStride : y*bandStride+bandStride]
		clear(row)
		for x := range width {
			v := inkAt(m, x0+x, fd.top+y, f.c)
			row[x] = v
			if v > 0.5 && x > last {
				last = x
			}
		}
	}
	if last < 0 {
		return Field{}
	}
	// The program explains the columns up to the last ink plus the widest
	// advance, so a last glyph's right bearing fits.
	n := min(last+1+fd.maxAdv, width)
	s.col = grow(s.col, n+1)
	s.ink = grow(s.ink, n)
	s.col[0] = 0
	for x := range n {
		sq, sum := float32(0), float32(0)
		for y := range h {
			v := s.band[y*bandStride+x]
			sq += v * v
			sum += v
		}
		s.col[x+1] = s.col[x] + sq
		s.ink[x] = sum
	}
	s.rows = 1 / float32(h)
	s.cost = grow(s.cost, n+1)
	s.from = growInt(s.from, n+1)
	inf := float32(math.Inf(1))
	for i := range s.cost {
		s.cost[i], s.from[i] = inf, -1
	}
	s.cost[0] = 0
	// A greedy pass gives an upper bound on the best total cost; the
	// program then drops every partial string that already costs more.
	best, bestX := s.greedy(fd, n)
	for x := 0; x <= n; x++ {
		cx := s.cost[x]
		if cx >= best {
			continue
		}
		// End here: the rest of the band must be paper.
		if t := cx + s.col[n] - s.col[x]; t <= best {
			best, bestX = t, x
		}
		for gi := range fd.glyphs {
			g := &fd.glyphs[gi]
			nx := x + g.adv
			if nx > n {
				continue
			}
			bound := min(s.cost[nx], best)
			if c, ok := s.glyphCost(g, x, cx, bound); ok {
				s.cost[nx], s.from[nx] = c, int32(gi)
			}
		}
	}
	// Walk back from the best end.
	var rs []rune
	tmpl := float32(0)
	for x := bestX; x > 0; {
		g := &fd.glyphs[s.from[x]]
		rs = append(rs, g.r)
		tmpl += g.sumSq
		x -= g.adv
	}
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	text := strings.TrimSpace(string(rs))
	if text == "" || tmpl <= 0 {
		return Field{}
	}
	q := 1 - float64(best)/float64(tmpl)
	return Field{Text: text, Confidence: clamp01(q)}
}

// stockConfidence is 1 − Σ (o − t)² / Σ t² between the image's ink o and
// the static texts' ink t over their boxes.
func stockConfidence(f *form, m *image.RGBA) float64 {
	var sse, tt float64
	for _, st := range f.stock {
		i := 0
		for y := st.rect.Min.Y; y < st.rect.Max.Y; y++ {
			for x := st.rect.Min.X; x < st.rect.Max.X; x++ {
				o, t := float64(inkAt(m, x, y, f.c)), float64(st.ink[i])
				sse += (o - t) * (o - t)
				tt += t * t
				i++
			}
		}
	}
	return clamp01(1 - sse/tt)
}

// Pen chroma: b = B − (R+G)/2 of paper and pen.
var (
	paperChroma = chroma(checkform.Paper.R, checkform.Paper.G, checkform.Paper.B)
	penChroma   = chroma(checkform.Pen.R, checkform.Pen.G, checkform.Pen.B)
)

func chroma(r, g, b uint8) float64 { return float64(b) - (float64(r)+float64(g))/2 }

// penMass sums the pen share above c.PenMinShare over the signature box.
func penMass(c Constants, m *image.RGBA) float64 {
	mass := 0.0
	box := checkform.SignatureBox.Rect()
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			i := m.PixOffset(x, y)
			share := (chroma(m.Pix[i], m.Pix[i+1], m.Pix[i+2]) - paperChroma) / (penChroma - paperChroma)
			if share > c.PenMinShare {
				mass += min(share, 1) - c.PenMinShare
			}
		}
	}
	return mass
}

func clamp01(v float64) float64 {
	switch {
	case v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}

func grow(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

func growInt(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n)
	}
	return b[:n]
}
