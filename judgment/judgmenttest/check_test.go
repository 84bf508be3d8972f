package judgmenttest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/typevet/typevet-go/internal/golden"
)

// renderCheckPNG draws the image of testdata/check.png.
func renderCheckPNG(tb testing.TB) []byte {
	img := image.NewGray(image.Rect(0, 0, 1000, 440))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	r := rand.New(rand.NewPCG(1, 2))
	for y := 40; y < 400; y += 36 {
		for x := 40; x < 960; x++ {
			for dy := 0; dy < 14; dy++ {
				if r.IntN(3) == 0 {
					img.SetGray(x, y+dy, color.Gray{Y: uint8(r.IntN(120))})
				}
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// TestCheckPNG checks that CheckPNG has the size of a rendered check and
// is a copy; with -update it first renders testdata/check.png again.
func TestCheckPNG(t *testing.T) {
	if golden.Update() {
		if err := os.WriteFile("testdata/check.png", renderCheckPNG(t), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := CheckPNG()
	cfg, err := png.DecodeConfig(bytes.NewReader(got))
	if err != nil || cfg.Width != 1000 || cfg.Height != 440 || len(got) < 60_000 || len(got) > 100_000 {
		t.Errorf("check.png: %dx%d, %d bytes, %v; want 1000×440, 60–100 KB", cfg.Width, cfg.Height, len(got), err)
	}
	got[0] ^= 0xff
	if CheckPNG()[0] == got[0] {
		t.Error("CheckPNG returns the package's own bytes, not a copy")
	}
	if n := len(CheckRequest(nil).Media); n != 0 {
		t.Errorf("CheckRequest(nil) has %d images, want the text path", n)
	}
	if q := CheckRequest(got).Questions; len(q) != 4 {
		t.Errorf("CheckRequest has %d questions, want 4", len(q))
	}
}
