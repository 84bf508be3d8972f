package checkform

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
)

// The bundled font: Go Regular from golang.org/x/image/font/gofont
// (BSD-licensed). typevet uses Pillow's bundled default font (an Aileron
// Regular subset); a Go port picks its own and pins it. All check text is
// ASCII.
const (
	FontName = "Go Regular"
	// FontSHA256 is the SHA-256 of the TrueType bytes of [FontBytes]; a test
	// fails if a golang.org/x/image upgrade changes the font.
	FontSHA256 = "197d9f3703b4c00af609178876a8d73e396f64fe438b2c871778566632374be3"
)

// FontBytes returns the TrueType bytes of the bundled font. The slice is
// shared; do not modify it.
func FontBytes() []byte { return goregular.TTF }

// FontDigest returns the hex SHA-256 of [FontBytes].
func FontDigest() string {
	sum := sha256.Sum256(goregular.TTF)
	return hex.EncodeToString(sum[:])
}

// parsed is the bundled font, parsed once. An *opentype.Font is safe for
// concurrent use; the faces made from it are not.
var parsed = sync.OnceValues(func() (*opentype.Font, error) {
	return opentype.Parse(goregular.TTF)
})

// Faces caches one font.Face per pixel size. A Faces value, and the faces it
// returns, must not be used by more than one goroutine at a time (an
// opentype face reuses its glyph buffer); give each goroutine its own, e.g.
// from a sync.Pool. The zero value is ready to use.
type Faces struct {
	bySize map[int]font.Face
}

// At returns the face of the bundled font at size pixels per em (Pillow's
// load_default(size=N)), created on first use. Faces use full hinting, so
// ascent and advances are whole pixels and text lands on the pixel grid.
func (f *Faces) At(size int) font.Face {
	if face, ok := f.bySize[size]; ok {
		return face
	}
	face, err := NewFace(size)
	if err != nil {
		// The font is compiled in and its digest is tested; failing to
		// parse it is a broken build, not bad input.
		panic(err)
	}
	if f.bySize == nil {
		f.bySize = make(map[int]font.Face)
	}
	f.bySize[size] = face
	return face
}

// NewFace returns a new face of the bundled font at size pixels per em.
func NewFace(size int) (font.Face, error) {
	if size <= 0 {
		return nil, fmt.Errorf("checkform: font size must be positive, got %d", size)
	}
	fnt, err := parsed()
	if err != nil {
		return nil, fmt.Errorf("checkform: parse bundled font: %w", err)
	}
	return opentype.NewFace(fnt, &opentype.FaceOptions{
		Size:    float64(size),
		DPI:     72, // points = pixels
		Hinting: font.HintingFull,
	})
}

// Ascent returns the ascent of face in whole pixels (rounded), the distance
// from Pillow's "la" anchor line down to the baseline.
func Ascent(face font.Face) int { return face.Metrics().Ascent.Round() }
