package checkmatch

import (
	"bytes"
	"errors"
	"image"
	"strings"
	"testing"
)

func TestCaption(t *testing.T) {
	seed1, err := Cases(1, RowCount)
	if err != nil {
		t.Fatal(err)
	}
	cases := seed0Cases(t)
	tests := []struct {
		name string
		c    Case
		want string
	}{
		{"seed0 r00 clean", cases[0], "r00:clean  expect consistent  payee=True amounts=True\n" +
			"register: check number 1001; date 2025-04-21; payee Lanternfield Electric;\namount $1,188.15"},
		{"seed0 r00 payee", cases[1], "r00:payee_changed  expect payee_mismatch  payee=False amounts=True\n" +
			"register: check number 1001; date 2025-04-21; payee Lanternfield Electric;\namount $1,188.15"},
		{"seed0 r00 written", cases[2], "r00:written_amount_changed  expect amount_mismatch  payee=True amounts=False\n" +
			"register: check number 1001; date 2025-04-21; payee Lanternfield Electric;\namount $1,188.15"},
		{"seed0 r00 low", cases[6], "r00:low_legibility  expect cannot_tell/consistent  payee=True amounts=True  blur=4.04\n" +
			"register: check number 1001; date 2025-04-21; payee Lanternfield Electric;\namount $1,188.15"},
		{"seed1 r07 low, integral blur keeps .0", seed1[7*7+6], "r07:low_legibility  expect cannot_tell/consistent  payee=True amounts=True  blur=5.0\n" +
			"register: check number 1008; date 2025-04-04; payee Juniper Lane Florist;\namount $720.47"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := caption(tt.c); got != tt.want {
				t.Errorf("Caption =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	// Sorting is the caption's job, not the caller's.
	c := cases[6]
	c.Expected.Verdicts = []string{"consistent", "cannot_tell"}
	if !strings.Contains(caption(c), "expect cannot_tell/consistent ") {
		t.Errorf("unsorted verdicts: %q", caption(c))
	}
	// Every caption of the slice fits the 64 px strip: a head line and at
	// most two register lines.
	for _, c := range append(cases, seed1...) {
		if n := strings.Count(caption(c), "\n") + 1; n > 3 {
			t.Errorf("%s: caption has %d lines", c.ID(), n)
		}
	}
}

func TestWrapText(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		width int
		want  []string
	}{
		{"fits", "a bb ccc", 10, []string{"a bb ccc"}},
		{"exact width", "aaaa bbbb", 9, []string{"aaaa bbbb"}},
		{"greedy", "aaaa bbbb cc", 9, []string{"aaaa bbbb", "cc"}},
		{"whitespace collapsed", "  a \t b  ", 10, []string{"a b"}},
		{"long word cut", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"empty", "", 5, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wrapText(tt.text, tt.width)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("wrapText(%q, %d) = %q, want %q", tt.text, tt.width, got, tt.want)
			}
		})
	}
}

func TestContactSheet(t *testing.T) {
	cases := seed0Cases(t)
	cells := 7
	if raceEnabled || testing.Short() {
		cells = 2
	}
	var buf bytes.Buffer
	if err := WriteContactSheet(&buf, cases[:cells], SheetOptions{}); err != nil {
		t.Fatal(err)
	}
	types := chunkTypes(t, buf.Bytes())
	if types[0] != "IHDR" || types[len(types)-1] != "IEND" || len(types) != 3 {
		t.Errorf("chunks %v", types)
	}
	img := decode(t, buf.Bytes())
	if got := img.Bounds(); got != image.Rect(0, 0, cells*500, 284) {
		t.Fatalf("sheet bounds %v, want %d×284", got, cells*500)
	}
	white := func(r, g, b uint8) bool { return r == 255 && g == 255 && b == 255 }
	dark := func(r, g, b uint8) bool { return luma(r, g, b) < 128 }
	for p := range cells {
		x := p * 500
		// Thumbnail: paper colour in the middle of its empty lower left,
		// never white.
		if n := count(img, image.Rect(x+20, 130, x+180, 150), white); n != 0 {
			t.Errorf("cell %d: %d white pixels in the thumbnail", p, n)
		}
		// Caption strip: black text on white, three lines.
		for line := range 3 {
			y := 220 + 4 + line*16
			if n := count(img, image.Rect(x+4, y, x+400, y+12), dark); n < 20 {
				t.Errorf("cell %d caption line %d: %d dark pixels", p, line, n)
			}
		}
		if n := count(img, image.Rect(x, 220+60, x+500, 284), dark); n != 0 {
			t.Errorf("cell %d: text below the three caption lines", p)
		}
	}
	// Layout of a partial grid: 5 cases, 2 columns → 3 rows, 2 columns
	// wide; the unused cell stays white and the last case sits in row 3.
	n := 5
	if raceEnabled || testing.Short() {
		n = 3 // 2 rows
	}
	sheet, err := contactSheet(cases[:n], SheetOptions{Columns: 2, Scale: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	rows := (n + 1) / 2
	if got := sheet.Rect; got != image.Rect(0, 0, 500, rows*(110+64)) {
		t.Errorf("2-column sheet bounds %v", got)
	}
	last := image.Rect(250, (rows-1)*174, 500, (rows-1)*174+110)
	if got := count(sheet, last, white); got != 250*110 {
		t.Errorf("empty cell holds %d white pixels of %d", got, 250*110)
	}
	// (Lanczos overshoot next to ink may clip a few pixels to white.)
	if got := count(sheet, last.Sub(image.Pt(250, 0)), white); got > 250*110/100 {
		t.Errorf("last thumbnail holds %d white pixels", got)
	}
	// One case: the sheet is one cell wide.
	one, err := contactSheet(cases[:1], SheetOptions{})
	if err != nil || one.Rect != image.Rect(0, 0, 500, 284) {
		t.Errorf("one-case sheet %v, %v", one.Rect, err)
	}
}

func TestContactSheetDeterministic(t *testing.T) {
	cases := seed0Cases(t)[7:14]
	if raceEnabled || testing.Short() {
		cases = cases[:1]
	}
	var a, b bytes.Buffer
	if err := WriteContactSheet(&a, cases, SheetOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteContactSheet(&b, cases, SheetOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two sheets of the same cases differ")
	}
}

type failWriter struct{}

var errDisk = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDisk }

func TestContactSheetErrors(t *testing.T) {
	cases := seed0Cases(t)[:1]
	bad := cases[0]
	bad.Face.WrittenCents = 0
	tests := []struct {
		name  string
		cases []Case
		opts  SheetOptions
		w     func() *bytes.Buffer
		want  string
	}{
		{"empty", nil, SheetOptions{}, nil, "contact sheet needs at least one case"},
		{"negative columns", cases, SheetOptions{Columns: -1}, nil, "contact sheet columns must be positive, got -1"},
		{"scale too large", cases, SheetOptions{Scale: 2}, nil, "contact sheet scale must be from 0.01 to 1, got 2"},
		{"scale negative", cases, SheetOptions{Scale: -0.5}, nil, "contact sheet scale must be from 0.01 to 1, got -0.5"},
		{"bad face", []Case{bad}, SheetOptions{}, nil, "contact sheet: render r00:clean: written cents"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := WriteContactSheet(&buf, tt.cases, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes on error", buf.Len())
			}
		})
	}
	if err := WriteContactSheet(failWriter{}, cases, SheetOptions{}); !errors.Is(err, errDisk) {
		t.Errorf("writer error = %v, want %v", err, errDisk)
	}
}

func BenchmarkContactSheet(b *testing.B) {
	cases := seed0Cases(b)[:7]
	b.ReportAllocs()
	defer reportCPU(b)()
	var n int
	for b.Loop() {
		var buf bytes.Buffer
		if err := WriteContactSheet(&buf, cases, SheetOptions{}); err != nil {
			b.Fatal(err)
		}
		n = buf.Len()
	}
	b.SetBytes(int64(n))
}
