package checkmatch

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"slices"
	"strings"

	"github.com/disintegration/imaging"
	"golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"

	"github.com/typevet/typevet-go/internal/checkform"
	"github.com/typevet/typevet-go/internal/pyjson"
)

// Contact-sheet geometry.
const (
	// captionHeight is the height of the caption strip under each thumbnail.
	captionHeight = 64
	// captionSize is the caption font size in pixels.
	captionSize = 12
	// captionWrap is the width at which the register line wraps, in
	// characters (Python textwrap).
	captionWrap = 78
	// captionSpacing is Pillow's default extra space between caption lines.
	captionSpacing = 4
	// captionInset is the caption's offset from the thumbnail's left edge
	// and bottom.
	captionInset = 4
)

// defaultSheetOptions are the options the zero [SheetOptions] stands for:
// typevet's write_contact_sheet defaults.
var defaultSheetOptions = SheetOptions{Columns: 7, Scale: 0.5}

// SheetOptions set the grid of a contact sheet. A zero field takes
// typevet's write_contact_sheet default (7 columns, scale 0.5).
type SheetOptions struct {
	// Columns is the number of thumbnails per grid row (default 7).
	Columns int
	// Scale is the thumbnail size relative to a 1000×440 render (default
	// 0.5, i.e. 500×220 thumbnails); from 0.01 to 1.
	Scale float64
}

// errEmptySheet is typevet's message for a contact sheet without cases.
var errEmptySheet = errors.New("contact sheet needs at least one case")

// WriteContactSheet writes a PNG contact sheet of cases to w: a white grid,
// opts.Columns thumbnails wide, of each case's render (after marks and blur)
// resized with Lanczos, in case order, each with its caption in black
// under it. The PNG is encoded like [Render]'s. An empty case list is an
// error, and so are negative columns or a scale outside 0.01 … 1.
//
// For 7 cases at the defaults the sheet is 3500×284 pixels.
func WriteContactSheet(w io.Writer, cases []Case, opts SheetOptions) error {
	sheet, err := contactSheet(cases, opts)
	if err != nil {
		return err
	}
	b, err := encodeRGBPNG(sheet)
	if err != nil {
		return fmt.Errorf("contact sheet: %w", err)
	}
	_, err = w.Write(b)
	return err
}

// contactSheet draws the sheet of WriteContactSheet.
func contactSheet(cases []Case, opts SheetOptions) (*image.RGBA, error) {
	if len(cases) == 0 {
		return nil, errEmptySheet
	}
	if opts.Columns == 0 {
		opts.Columns = defaultSheetOptions.Columns
	}
	if opts.Scale == 0 {
		opts.Scale = defaultSheetOptions.Scale
	}
	if opts.Columns < 0 {
		return nil, fmt.Errorf("contact sheet columns must be positive, got %d", opts.Columns)
	}
	if !(opts.Scale >= 0.01 && opts.Scale <= 1) {
		return nil, fmt.Errorf("contact sheet scale must be from 0.01 to 1, got %v", opts.Scale)
	}
	cellW := int(checkform.Width * opts.Scale)
	cellH := int(checkform.Height * opts.Scale)
	rows := (len(cases) + opts.Columns - 1) / opts.Columns
	sheet := image.NewRGBA(image.Rect(0, 0, min(opts.Columns, len(cases))*cellW, rows*(cellH+captionHeight)))
	draw.Draw(sheet, sheet.Rect, image.White, image.Point{}, draw.Src)

	face, err := checkform.NewFace(captionSize)
	if err != nil {
		return nil, err
	}
	ascent := checkform.Ascent(face)
	// Pillow's multiline pitch: bottom of the bbox of "A" at anchor "la"
	// (the baseline, as A has no descender) plus the line spacing.
	pitch := ascent + captionSpacing
	img := canvases.Get().(*image.RGBA)
	defer canvases.Put(img)
	for p, c := range cases {
		if err := renderInto(img, c); err != nil {
			return nil, fmt.Errorf("contact sheet: %w", err)
		}
		x, y := (p%opts.Columns)*cellW, (p/opts.Columns)*(cellH+captionHeight)
		thumb := imaging.Resize(img, cellW, cellH, imaging.Lanczos)
		draw.Draw(sheet, image.Rect(x, y, x+cellW, y+cellH), thumb, image.Point{}, draw.Src)
		// Clip the caption to its cell so a long line never runs into the
		// next thumbnail's caption.
		cell := sheet.SubImage(image.Rect(x, y+cellH, x+cellW, y+cellH+captionHeight)).(*image.RGBA)
		d := font.Drawer{Dst: cell, Src: image.NewUniform(color.Black), Face: face}
		for i, line := range strings.Split(caption(c), "\n") {
			d.Dot = fixed.P(x+captionInset, y+cellH+captionInset+i*pitch+ascent)
			d.DrawString(line)
		}
	}
	return sheet, nil
}

// caption returns the caption typevet prints under a case on a contact
// sheet, lines joined by "\n":
//
//	r00:clean  expect consistent  payee=True amounts=True
//	register: check number 1001; date 2025-04-21; payee Lanternfield Electric;
//	amount $1,188.15
//
// The first line holds the case id, the accepted verdicts (sorted, joined by
// "/"), the truths as Python prints booleans and, for a blurred face,
// "  blur=" and the radius as Python prints a float (4.04, 5.0). The
// register text follows, word-wrapped at 78 characters like Python's
// textwrap.wrap.
func caption(c Case) string {
	verdicts := slices.Sorted(slices.Values(c.Expected.Verdicts))
	head := fmt.Sprintf("%s  expect %s  payee=%s amounts=%s", c.ID(), strings.Join(verdicts, "/"),
		pyBool(c.Expected.PayeeTruth), pyBool(c.Expected.AmountsTruth))
	if c.Face.BlurRadius != 0 {
		head += "  blur=" + pyjson.FormatFloat(c.Face.BlurRadius)
	}
	lines := append([]string{head}, wrapText("register: "+c.Row.Text(), captionWrap)...)
	return strings.Join(lines, "\n")
}

// pyBool prints a boolean as Python's str(bool) does.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// wrapText is Python's textwrap.wrap(text, width) for text whose words hold
// no hyphen between letters: whitespace runs separate words; lines are
// filled greedily; a word longer than width is cut to fill the line it
// starts on (break_long_words).
func wrapText(text string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(text) {
		for word != "" {
			sep := 0
			if cur.Len() > 0 {
				sep = 1
			}
			if cur.Len()+sep+len(word) <= width {
				if sep == 1 {
					cur.WriteByte(' ')
				}
				cur.WriteString(word)
				word = ""
				continue
			}
			if len(word) > width {
				// Cut the long word to what is left of this line.
				room := width - cur.Len() - sep
				if room < 1 {
					lines = append(lines, cur.String())
					cur.Reset()
					continue
				}
				if sep == 1 {
					cur.WriteByte(' ')
				}
				cur.WriteString(word[:room])
				word = word[room:]
			}
			lines = append(lines, cur.String())
			cur.Reset()
		}
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
