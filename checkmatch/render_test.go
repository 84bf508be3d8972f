package checkmatch

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/disintegration/imaging"
	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"

	"github.com/typevet/typevet-go/internal/checkform"
	"github.com/typevet/typevet-go/internal/golden"
)

// slice0 caches the seed-0 slice and its renders for the tests.
var slice0 = sync.OnceValues(func() ([]Case, error) { return Cases(0, RowCount) })

func seed0Cases(t testing.TB) []Case {
	t.Helper()
	cases, err := slice0()
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// renders0 caches the PNG bytes of the first 14 cases of seed 0 (rows 0
// and 1), each rendered at most once per test binary.
var renders0 [14]struct {
	once sync.Once
	png  []byte
	err  error
}

// rendered returns the cached PNG of seed-0 case i (i < 14).
func rendered(t testing.TB, i int) []byte {
	t.Helper()
	r := &renders0[i]
	r.once.Do(func() {
		cases, err := slice0()
		if err != nil {
			r.err = err
			return
		}
		r.png, r.err = Render(cases[i])
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.png
}

func mustRender(t testing.TB, c Case) []byte {
	t.Helper()
	b, err := Render(c)
	if err != nil {
		t.Fatalf("Render(%s): %v", c.ID(), err)
	}
	return b
}

// decode decodes an 8-bit RGB PNG, which image/png returns as *image.RGBA.
func decode(t testing.TB, b []byte) *image.RGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode PNG: %v", err)
	}
	rgba, ok := img.(*image.RGBA)
	if !ok {
		t.Fatalf("decoded as %T, want *image.RGBA (8-bit RGB)", img)
	}
	return rgba
}

// chunkTypes lists the chunk types of a PNG file in order.
func chunkTypes(t testing.TB, b []byte) []string {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("no PNG signature: % x", b[:min(8, len(b))])
	}
	var types []string
	for p := 8; p < len(b); {
		if p+12 > len(b) {
			t.Fatalf("truncated chunk at %d", p)
		}
		n := int(binary.BigEndian.Uint32(b[p:]))
		types = append(types, string(b[p+4:p+8]))
		p += 12 + n
	}
	return types
}

// luma is Pillow's RGB to "L" conversion.
func luma(r, g, b uint8) uint8 {
	return uint8((uint32(r)*19595 + uint32(g)*38470 + uint32(b)*7471 + 0x8000) >> 16)
}

func rgbAt(img *image.RGBA, x, y int) (uint8, uint8, uint8) {
	i := img.PixOffset(x, y)
	return img.Pix[i], img.Pix[i+1], img.Pix[i+2]
}

// count counts pixels of box (Pillow crop box) for which keep is true.
func count(img *image.RGBA, box image.Rectangle, keep func(r, g, b uint8) bool) int {
	n := 0
	box = box.Intersect(img.Rect)
	for y := box.Min.Y; y < box.Max.Y; y++ {
		row := img.Pix[img.PixOffset(box.Min.X, y):img.PixOffset(box.Max.X, y)]
		for i := 0; i < len(row); i += 4 {
			if keep(row[i], row[i+1], row[i+2]) {
				n++
			}
		}
	}
	return n
}

func notPaper(r, g, b uint8) bool {
	return r != checkform.Paper.R || g != checkform.Paper.G || b != checkform.Paper.B
}

func redVoid(r, g, b uint8) bool { return int(r)-int(g) > 40 && int(r)-int(b) > 40 }

// penBlue matches anti-aliased pen strokes and no other colour on the check.
func penBlue(r, g, b uint8) bool { return int(b)-int(r) > 40 && int(b)-int(g) > 30 }

func TestRenderPNGFormat(t *testing.T) {
	cases := seed0Cases(t)[:7]
	if raceEnabled || testing.Short() {
		cases = cases[5:7] // one unsigned, one blurred
	}
	for _, c := range cases {
		t.Run(c.ID(), func(t *testing.T) {
			b := rendered(t, indexOf(c.Variant))
			types := chunkTypes(t, b)
			if types[0] != "IHDR" || types[len(types)-1] != "IEND" {
				t.Errorf("chunks %v: want IHDR first and IEND last", types)
			}
			for _, typ := range types {
				switch typ {
				case "IHDR", "IDAT", "IEND":
				default:
					t.Errorf("unexpected chunk %q (metadata must not be written)", typ)
				}
			}
			// IHDR: 1000×440, bit depth 8, colour type 2 (RGB), no interlace.
			ihdr := b[16:29]
			if w, h := binary.BigEndian.Uint32(ihdr), binary.BigEndian.Uint32(ihdr[4:]); w != 1000 || h != 440 {
				t.Errorf("IHDR size %d×%d", w, h)
			}
			if ihdr[8] != 8 || ihdr[9] != 2 || ihdr[12] != 0 {
				t.Errorf("IHDR depth %d colour type %d interlace %d, want 8 2 0", ihdr[8], ihdr[9], ihdr[12])
			}
			img := decode(t, b)
			if img.Bounds() != image.Rect(0, 0, 1000, 440) {
				t.Errorf("decoded bounds %v", img.Bounds())
			}
			// The PNG holds exactly the pixels RenderImage returns.
			want, err := RenderImage(c)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(img.Pix, want.Pix) {
				t.Error("decoded PNG differs from RenderImage")
			}
			if !want.Opaque() {
				t.Error("render is not opaque")
			}
		})
	}
}

func TestRenderDeterministicAndDistinct(t *testing.T) {
	cases := seed0Cases(t)
	seen := map[[32]byte]string{}
	for i, c := range cases[:7] {
		a := rendered(t, i)
		if raceEnabled && i != 0 && i != 6 {
			// Distinctness only; a second render of one sharp and the
			// blurred case shows determinism.
			seen[sha256.Sum256(a)] = c.ID()
			continue
		}
		b := mustRender(t, c)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two renders differ", c.ID())
		}
		sum := sha256.Sum256(a)
		if prev, ok := seen[sum]; ok {
			t.Errorf("%s renders the same bytes as %s", c.ID(), prev)
		}
		seen[sum] = c.ID()
	}
}

func TestRenderConcurrent(t *testing.T) {
	idx := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}
	if raceEnabled || testing.Short() {
		idx = []int{0, 5, 6, 8}
	}
	all := seed0Cases(t)
	cases := make([]Case, len(idx))
	want := make([][]byte, len(idx))
	for i, k := range idx {
		cases[i], want[i] = all[k], rendered(t, k)
	}
	var wg sync.WaitGroup
	got := make([][]byte, len(cases))
	for i, c := range cases {
		wg.Go(func() {
			b, err := Render(c)
			if err != nil {
				t.Error(err)
			}
			got[i] = b
		})
	}
	wg.Wait()
	for i := range cases {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("%s: concurrent render differs", cases[i].ID())
		}
	}
}

func TestRenderInvariants(t *testing.T) {
	cases := seed0Cases(t)
	clean := decode(t, rendered(t, 0))
	low := decode(t, rendered(t, 6))
	minL := func(img *image.RGBA) uint8 {
		m := uint8(255)
		count(img, img.Bounds(), func(r, g, b uint8) bool { m = min(m, luma(r, g, b)); return false })
		return m
	}
	if cl, ll := minL(clean), minL(low); ll <= cl {
		t.Errorf("min luma: low_legibility %d, clean %d; blur must lift the darkest pixel", ll, cl)
	}

	specimenOnly := image.Rect(440, 250, 590, 320)
	sig := checkform.SignatureBox.Rect()
	n := 14
	if raceEnabled || testing.Short() {
		n = 7 // row 0 only
	}
	for i, c := range cases[:n] {
		if c.Face.BlurRadius > 0 {
			continue
		}
		t.Run(c.ID(), func(t *testing.T) {
			img := decode(t, rendered(t, i))
			if n := count(img, specimenOnly, notPaper); n < 200 {
				t.Errorf("SPECIMEN region holds %d non-paper pixels, want >= 200", n)
			}
			if n := count(img, sig, redVoid); n < 200 {
				t.Errorf("signature region holds %d red VOID pixels, want >= 200", n)
			}
			pen := count(img, sig, penBlue)
			if c.Face.Signed && pen < 300 {
				t.Errorf("signed face has %d pen pixels in the signature box", pen)
			}
			if !c.Face.Signed && pen != 0 {
				t.Errorf("unsigned face has %d pen pixels", pen)
			}
			// Outside the signature box there is no pen colour at all.
			if n := count(img, image.Rect(0, 0, 1000, 290), penBlue); n != 0 {
				t.Errorf("%d pen pixels above the signature box", n)
			}
		})
	}
}

// TestRenderLayout checks printed geometry pixel by pixel on a clean render.
func TestRenderLayout(t *testing.T) {
	img := decode(t, rendered(t, 0))
	ink := func(x, y int) bool {
		r, g, b := rgbAt(img, x, y)
		return r == checkform.Ink.R && g == checkform.Ink.G && b == checkform.Ink.B
	}
	paper := func(x, y int) bool { return !notPaper(rgbAt(img, x, y)) }
	tests := []struct {
		name   string
		x, y   int
		want   func(x, y int) bool
		reason string
	}{
		{"border top-left outer", 6, 6, ink, "rectangle is inclusive of (6,6)"},
		{"border inner edge", 7, 7, ink, "width 2 grows inward"},
		{"inside border", 8, 8, paper, ""},
		{"outside border", 5, 5, paper, ""},
		{"border bottom-right", 993, 433, ink, "inclusive of (993,433)"},
		{"border right inner", 992, 200, ink, ""},
		{"past border", 994, 200, paper, ""},
		{"date underline start", 695, 112, ink, ""},
		{"date underline end", 940, 112, ink, "line is inclusive of x1"},
		{"date underline past end", 941, 112, paper, ""},
		{"payee underline", 400, 182, ink, ""},
		{"words underline", 35, 242, ink, ""},
		{"memo line", 300, 348, ink, ""},
		{"amount box corner", 770, 146, ink, ""},
		{"amount box inner", 771, 147, ink, ""},
		{"amount box inside", 772, 148, paper, ""},
		{"amount box far corner", 940, 186, ink, ""},
		{"signature line", 610, 350, ink, "left of the strokes and VOID"},
		{"below underline", 400, 183, paper, ""},
	}
	for _, tt := range tests {
		if !tt.want(tt.x, tt.y) {
			r, g, b := rgbAt(img, tt.x, tt.y)
			t.Errorf("%s (%d,%d) = (%d,%d,%d) %s", tt.name, tt.x, tt.y, r, g, b, tt.reason)
		}
	}
	// Every text field prints ink in its band, from its x on.
	var faces checkform.Faces
	for _, f := range checkform.Texts() {
		face := faces.At(f.Size)
		band := image.Rect(f.X, f.Y, f.X+40, f.Baseline(checkform.Ascent(face))+1)
		dark := count(img, band, func(r, g, b uint8) bool { return luma(r, g, b) < 100 })
		if dark == 0 {
			t.Errorf("field %s: no ink in %v", f.Name, band)
		}
		// Nothing prints left of the field's x in its band (the pen
		// origin is the ink's left edge within a pixel or two).
		left := image.Rect(f.X-6, f.Y+2, f.X-2, f.Baseline(checkform.Ascent(face))-2)
		if f.X > 30 && f.Name != "numeric_amount" {
			if n := count(img, left, func(r, g, b uint8) bool { return luma(r, g, b) < 100 }); n != 0 {
				t.Errorf("field %s: %d ink pixels left of x=%d", f.Name, n, f.X)
			}
		}
	}
}

// TestRenderVariantRegions checks that each variant changes only its own
// field: the pixels that differ from the clean render lie in the field's
// band.
func TestRenderVariantRegions(t *testing.T) {
	cases := seed0Cases(t)
	clean, err := RenderImage(cases[0])
	if err != nil {
		t.Fatal(err)
	}
	band := func(f checkform.Text, right int) image.Rectangle {
		return image.Rect(f.X-2, f.Y-4, right, f.Y+f.Size+8)
	}
	tests := []struct {
		v      Variant
		region image.Rectangle
	}{
		{variantPayeeChanged, band(checkform.Payee, 760)},
		{variantWrittenAmountChanged, band(checkform.WordsAmount, 940)},
		{variantWrongDate, band(checkform.Date, 940)},
		{variantUnsigned, checkform.SignatureBox.Rect().Inset(-4)},
	}
	for _, tt := range tests {
		t.Run(tt.v.String(), func(t *testing.T) {
			c := cases[indexOf(tt.v)]
			img, err := RenderImage(c)
			if err != nil {
				t.Fatal(err)
			}
			var diff image.Rectangle
			for y := 0; y < checkform.Height; y++ {
				for x := 0; x < checkform.Width; x++ {
					i := img.PixOffset(x, y)
					if !bytes.Equal(img.Pix[i:i+3], clean.Pix[i:i+3]) {
						diff = diff.Union(image.Rect(x, y, x+1, y+1))
					}
				}
			}
			if diff.Empty() {
				t.Fatal("render equals the clean render")
			}
			if !diff.In(tt.region) {
				t.Errorf("changed pixels span %v, outside the field region %v", diff, tt.region)
			}
		})
	}
	// both_amounts_changed changes the numeric box and the words line.
	both, err := RenderImage(cases[indexOf(variantBothAmountsChanged)])
	if err != nil {
		t.Fatal(err)
	}
	box := checkform.AmountBox.Box.Rect()
	if bytes.Equal(cropRGB(both, box), cropRGB(clean, box)) {
		t.Error("both_amounts_changed: numeric box unchanged")
	}
}

func indexOf(v Variant) int {
	for i, w := range Variants() {
		if w == v {
			return i
		}
	}
	panic("unknown variant " + string(v))
}

func cropRGB(img *image.RGBA, r image.Rectangle) []byte {
	var out []byte
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			i := img.PixOffset(x, y)
			out = append(out, img.Pix[i:i+3]...)
		}
	}
	return out
}

func TestRenderErrors(t *testing.T) {
	base := seed0Cases(t)[0]
	tests := []struct {
		name string
		edit func(f *Face)
		want string
	}{
		{"written zero", func(f *Face) { f.WrittenCents = 0 }, "render r00:clean: written cents must be from 1 to 99999999999, got 0"},
		{"written too large", func(f *Face) { f.WrittenCents = maxCents + 1 }, "got 100000000000"},
		{"numeric negative", func(f *Face) { f.NumericCents = -1 }, "render r00:clean: numeric cents must not be negative, got -1"},
		{"blur NaN", func(f *Face) { f.BlurRadius = math.NaN() }, "blur radius must be from 0 to 64, got NaN"},
		{"blur negative", func(f *Face) { f.BlurRadius = -1 }, "blur radius must be from 0 to 64, got -1"},
		{"blur huge", func(f *Face) { f.BlurRadius = 1e6 }, "blur radius must be from 0 to 64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.edit(&c.Face)
			if _, err := Render(c); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Render error = %v, want %q", err, tt.want)
			}
			if _, err := RenderImage(c); err == nil {
				t.Error("RenderImage accepted the face")
			}
		})
	}
}

func TestRotateCCWSlope(t *testing.T) {
	// A horizontal bar rotated 12° counter-clockwise rises to the right
	// with slope tan(12°), keeps its centre, and the layer grows per
	// Pillow's expand rule.
	src := image.NewRGBA(image.Rect(0, 0, 400, 40))
	for y := 18; y < 22; y++ {
		for x := 20; x < 380; x++ {
			src.SetRGBA(x, y, color.RGBA{0, 0, 0, 255})
		}
	}
	dst := rotateCCW(src, 12)
	rad := 12 * math.Pi / 180
	corners := func(half, other float64) float64 { return half*math.Cos(rad) + other*math.Sin(rad) }
	wantW := int(math.Ceil(200+corners(200, 20)) - math.Floor(200-corners(200, 20)))
	wantH := int(math.Ceil(20+corners(20, 200)) - math.Floor(20-corners(20, 200)))
	if dst.Rect.Dx() != wantW || dst.Rect.Dy() != wantH {
		t.Fatalf("rotated size %v, want %d×%d", dst.Rect.Size(), wantW, wantH)
	}
	centroid := func(x int) float64 {
		var s, n float64
		for y := 0; y < dst.Rect.Dy(); y++ {
			a := float64(dst.Pix[dst.PixOffset(x, y)+3])
			s += a * (float64(y) + 0.5)
			n += a
		}
		return s / n
	}
	x0, x1 := dst.Rect.Dx()/2-120, dst.Rect.Dx()/2+120
	slope := (centroid(x0) - centroid(x1)) / float64(x1-x0)
	if math.Abs(slope-math.Tan(rad)) > 0.01 {
		t.Errorf("bar slope %.4f, want tan(12°) = %.4f (rising to the right)", slope, math.Tan(rad))
	}
	if mid := centroid(dst.Rect.Dx() / 2); math.Abs(mid-float64(dst.Rect.Dy())/2) > 0.6 {
		t.Errorf("centre row %.2f, want %.2f", mid, float64(dst.Rect.Dy())/2)
	}
}

func TestBlurMatchesGaussian(t *testing.T) {
	// Pillow's three extended box passes approximate a Gaussian; compare
	// with imaging.Blur's true Gaussian of the same sigma.
	if raceEnabled || testing.Short() {
		t.Skip("numeric comparison only; too slow for -race and -short")
	}
	for _, sigma := range []float64{3.5, 4.04, 5.0} {
		t.Run(fmt.Sprint(sigma), func(t *testing.T) {
			img, err := RenderImage(seed0Cases(t)[0])
			if err != nil {
				t.Fatal(err)
			}
			ref := imaging.Blur(img, sigma)
			gaussianBlur(img, sigma, nil)
			maxd, sum := 0, 0
			for i := range img.Pix {
				if i%4 == 3 {
					continue
				}
				d := int(img.Pix[i]) - int(ref.Pix[i])
				maxd, sum = max(maxd, d, -d), sum+max(d, -d)
			}
			mean := float64(sum) / float64(len(img.Pix)/4*3)
			if maxd > 12 || mean > 1 {
				t.Errorf("box blur vs Gaussian: max diff %d, mean %.3f", maxd, mean)
			}
		})
	}
}

func TestBoxBlurVariance(t *testing.T) {
	// Each extended box pass has variance sigma²/3, so three passes of an
	// impulse give variance sigma² (up to 8-bit rounding).
	for _, sigma := range []float64{1, 3.5, 5} {
		const n = 201
		pix := make([]byte, 4*n)
		pix[4*100] = 255
		newBoxKernel(boxRadius(float32(sigma), blurPasses)).line(pix, 0, 4, n, nil)
		var s, m, v float64
		for x := range n {
			s += float64(pix[4*x])
		}
		for x := range n {
			m += float64(x) * float64(pix[4*x]) / s
		}
		for x := range n {
			v += (float64(x) - m) * (float64(x) - m) * float64(pix[4*x]) / s
		}
		if math.Abs(m-100) > 1e-9 || math.Abs(v-sigma*sigma)/(sigma*sigma) > 0.05 {
			t.Errorf("sigma %v: impulse mean %.3f variance %.3f, want 100 and %.3f", sigma, m, v, sigma*sigma)
		}
	}
	// A flat line stays flat (weights sum to one, edges repeat).
	pix := bytes.Repeat([]byte{200, 100, 50, 255}, 30)
	newBoxKernel(boxRadius(40, 3)).line(pix, 0, 4, 30, nil)
	for x := range 30 {
		if pix[4*x] != 200 || pix[4*x+1] != 100 || pix[4*x+2] != 50 || pix[4*x+3] != 255 {
			t.Fatalf("flat line changed at %d: %v", x, pix[4*x:4*x+4])
		}
	}
}

// Golden renders: SHA-256 of the decoded pixels on linux/amd64 (exact), and
// on every GOARCH a 4× downsampled reference compared with a tolerance.
var goldenIDs = []string{"r00:clean", "r00:unsigned", "r00:low_legibility", "r01:both_amounts_changed"}

// pixelDigest hashes the RGB bytes of img row by row.
func pixelDigest(img *image.RGBA) string {
	h := sha256.New()
	for y := 0; y < img.Rect.Dy(); y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+4*img.Rect.Dx()]
		for x := 0; x < len(row); x += 4 {
			h.Write(row[x : x+3])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// downsample4 box-averages img 4× in each direction.
func downsample4(img *image.RGBA) *image.RGBA {
	w, h := img.Rect.Dx()/4, img.Rect.Dy()/4
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			for c := range 3 {
				s := 0
				for dy := range 4 {
					for dx := range 4 {
						s += int(img.Pix[img.PixOffset(4*x+dx, 4*y+dy)+c])
					}
				}
				out.Pix[out.PixOffset(x, y)+c] = uint8((s + 8) / 16)
			}
			out.Pix[out.PixOffset(x, y)+3] = 255
		}
	}
	return out
}

func goldenSmallName(id string) string {
	return "render_" + strings.ReplaceAll(id, ":", "_") + "_small.png"
}

func TestRenderGolden(t *testing.T) {
	byID := map[string]Case{}
	for _, c := range seed0Cases(t) {
		byID[c.ID()] = c
	}
	exact := runtime.GOOS == "linux" && runtime.GOARCH == "amd64"
	digestPath := filepath.Join("testdata", "render_golden.txt")
	var lines []string
	want := map[string]string{}
	if !golden.Update() {
		f, err := os.Open(digestPath)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if id, sum, ok := strings.Cut(sc.Text(), " "); ok {
				want[id] = sum
			}
		}
	}
	for _, id := range goldenIDs {
		img, err := RenderImage(byID[id])
		if err != nil {
			t.Fatal(err)
		}
		got := pixelDigest(img)
		small := downsample4(img)
		smallPath := filepath.Join("testdata", goldenSmallName(id))
		if golden.Update() {
			lines = append(lines, id+" "+got)
			var buf bytes.Buffer
			if err := png.Encode(&buf, small); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(smallPath, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if exact && got != want[id] {
			t.Errorf("%s: pixel SHA-256 %s, golden %s (rerun with -update after an intended change)", id, got, want[id])
		}
		b, err := os.ReadFile(smallPath)
		if err != nil {
			t.Fatal(err)
		}
		ref := decode(t, b)
		// Tolerance: anti-aliasing and sin/cos may differ in the last bits
		// between architectures; a 4× average of such pixels moves by at
		// most a few levels, and only near edges.
		maxd, off := 0, 0
		for i := range ref.Pix {
			d := int(ref.Pix[i]) - int(small.Pix[i])
			d = max(d, -d)
			maxd = max(maxd, d)
			if d > 2 {
				off++
			}
		}
		if maxd > 24 || off > 50 {
			t.Errorf("%s: differs from the reference: max %d levels, %d values off by more than 2", id, maxd, off)
			if err := os.WriteFile(smallPath+".got", encodeForGot(t, small), 0o644); err == nil {
				t.Logf("wrote %s.got", smallPath)
			}
		}
	}
	if golden.Update() {
		content := "# SHA-256 of decoded RGB pixels, linux/amd64; go test ./checkmatch -run TestRenderGolden -update\n" +
			strings.Join(lines, "\n") + "\n"
		if err := os.WriteFile(digestPath, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func encodeForGot(t testing.TB, img image.Image) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func BenchmarkRender(b *testing.B) {
	cases := seed0Cases(b)
	for _, bc := range []struct {
		name string
		c    Case
	}{{"clean", cases[0]}, {"blurred", cases[6]}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b)()
			var n int
			for b.Loop() {
				out, err := Render(bc.c)
				if err != nil {
					b.Fatal(err)
				}
				n = len(out)
			}
			b.SetBytes(int64(n))
		})
	}
}

func BenchmarkRenderSlice(b *testing.B) {
	cases := seed0Cases(b)
	b.ReportAllocs()
	defer reportCPU(b)()
	var total int64
	for b.Loop() {
		total = 0
		for _, c := range cases {
			out, err := Render(c)
			if err != nil {
				b.Fatal(err)
			}
			total += int64(len(out))
		}
	}
	b.SetBytes(total)
}

// reportCPU starts a CPU-time measurement; the returned func reports CPU
// nanoseconds per op. Call it as defer reportCPU(b)() after setup.
func reportCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		if cpu := processCPU() - start; cpu > 0 && b.N > 0 {
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}

// TestMarkOverlay checks the mark placement of typevet's renderer on the overlay
// itself: VOID centred on the signature box 8 px above the line, SPECIMEN
// centred on the canvas, both with their fill colours and alphas.
func TestMarkOverlay(t *testing.T) {
	ov := markOverlay()
	var faces checkform.Faces
	void := markLayer(&faces, checkform.Void)
	// VOID is pasted over SPECIMEN, replacing the whole layer rectangle.
	voidRect := void.Rect.Add(checkform.VoidOrigin(void.Rect.Dx(), void.Rect.Dy()))
	var voidBox, specBox image.Rectangle
	for y := ov.Rect.Min.Y; y < ov.Rect.Max.Y; y++ {
		for x := ov.Rect.Min.X; x < ov.Rect.Max.X; x++ {
			i := ov.PixOffset(x, y)
			r, g, b, a := ov.Pix[i], ov.Pix[i+1], ov.Pix[i+2], ov.Pix[i+3]
			if a == 0 {
				continue
			}
			px := image.Rect(x, y, x+1, y+1)
			if px.In(voidRect) {
				// Premultiplied (190,30,30) at alpha <= 90.
				if a > 90 || r < g || g != b || int(r) > 190*int(a)/255+1 {
					t.Fatalf("VOID pixel (%d,%d) = %v", x, y, ov.Pix[i:i+4])
				}
				voidBox = voidBox.Union(px)
				continue
			}
			// Premultiplied grey 120 at alpha 70 (plus bicubic overshoot).
			if r != g || g != b || a > 80 {
				t.Fatalf("SPECIMEN pixel (%d,%d) = %v", x, y, ov.Pix[i:i+4])
			}
			specBox = specBox.Union(px)
		}
	}
	centre := func(r image.Rectangle) (float64, float64) {
		return float64(r.Min.X+r.Max.X) / 2, float64(r.Min.Y+r.Max.Y) / 2
	}
	vx, vy := centre(voidBox)
	if math.Abs(vx-770) > 2 || math.Abs(vy-342) > 2 {
		t.Errorf("VOID ink %v centred at (%.1f, %.1f), want (770, 342)", voidBox, vx, vy)
	}
	sx, sy := centre(specBox)
	if math.Abs(sx-500) > 2 || math.Abs(sy-220) > 2 {
		t.Errorf("SPECIMEN ink %v centred at (%.1f, %.1f), want (500, 220)", specBox, sx, sy)
	}
	// Rotated 12°: the ink box is much taller than the 120 px text.
	if specBox.Dy() < 180 || specBox.Dx() < 500 {
		t.Errorf("SPECIMEN ink box %v is not a rotated 120 px word", specBox)
	}
}

// TestCompositeMarks checks that compositing only the mark spans gives
// exactly image/draw's Over of the whole overlay, on a noise canvas (so
// every source alpha meets many destination values), and that the spans
// cover every overlay pixel with any alpha.
func TestCompositeMarks(t *testing.T) {
	canvas := image.Rect(0, 0, checkform.Width, checkform.Height)
	got := image.NewRGBA(canvas)
	for i := range got.Pix {
		got.Pix[i] = uint8(i*7919>>3 ^ i>>11)
	}
	want := image.NewRGBA(canvas)
	copy(want.Pix, got.Pix)
	ov := markOverlay()
	draw.Draw(want, ov.Rect, ov, ov.Rect.Min, draw.Over)
	compositeMarks(got)
	if !bytes.Equal(got.Pix, want.Pix) {
		t.Fatal("compositeMarks differs from draw.Draw Over")
	}
	covered := 0
	for _, sp := range markSpans() {
		covered += len(sp.Pix) / 4
	}
	opaque := 0
	for y := ov.Rect.Min.Y; y < ov.Rect.Max.Y; y++ {
		for x := ov.Rect.Min.X; x < ov.Rect.Max.X; x++ {
			if ov.Pix[ov.PixOffset(x, y)+3] != 0 {
				opaque++
			}
		}
	}
	if covered != opaque || covered == 0 {
		t.Errorf("spans cover %d pixels, overlay has %d with alpha", covered, opaque)
	}
	t.Logf("%d of %d overlay pixels have alpha", covered, ov.Rect.Dx()*ov.Rect.Dy())
}

// TestTextMatchesDrawer checks the cached-glyph text drawing against
// font.Drawer.DrawString, twice over (cold and warm cache), for every text
// field at every size with texts that use kerning pairs, digits,
// punctuation and every register payee's letters.
func TestTextMatchesDrawer(t *testing.T) {
	samples := []string{
		"AVAWAY To. LT Wa Ya 0123456789 $ ,.-:",
		"One Thousand One Hundred Eighty-Eight and 15/100 DOLLARS",
		"ROUTING 069490182   ACCOUNT 000000000000   CHECK 1001",
		"Café Ünïcode ☃ (uncached)",
	}
	for _, c := range seed0Cases(t)[:14] {
		samples = append(samples, c.Face.Payee)
	}
	var st renderState
	var faces checkform.Faces
	got := image.NewRGBA(image.Rect(0, 0, checkform.Width, checkform.Height))
	want := image.NewRGBA(got.Rect)
	for _, field := range checkform.Texts() {
		for _, s := range samples {
			for pass := range 2 {
				clear(got.Pix)
				clear(want.Pix)
				st.text(got, field, s)
				face := faces.At(field.Size)
				d := font.Drawer{Dst: want, Src: inkSrc, Face: face, Dot: fixed.P(field.X, field.Baseline(checkform.Ascent(face)))}
				d.DrawString(s)
				if !bytes.Equal(got.Pix, want.Pix) {
					t.Fatalf("field %s, pass %d, %q: cached text differs from font.Drawer", field.Name, pass, s)
				}
			}
		}
	}
}
