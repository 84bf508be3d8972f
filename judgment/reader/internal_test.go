package reader

import (
	"testing"

	"github.com/typevet/typevet-go/internal/checkform"
)

// TestFontHasNoKerning: the reader advances the pen by glyph advances
// alone, which is right only while the bundled font kerns no pair of any
// field's alphabet.
func TestFontHasNoKerning(t *testing.T) {
	var faces checkform.Faces
	face := faces.At(checkform.SizeBody) // every field the reader reads
	alphabet := payeeAlphabet + wordsAlphabet + numericAlphabet + dateAlphabet
	for _, a := range alphabet {
		for _, b := range alphabet {
			if k := face.Kern(a, b); k != 0 {
				t.Fatalf("the body face kerns %q%q by %v", a, b, k)
			}
		}
	}
}

// TestTemplatesDistinct: within a field no two glyphs have the same
// advance and template, or the reader could not tell them apart.
func TestTemplatesDistinct(t *testing.T) {
	f := formFor(DefaultConstants)
	for _, fd := range []*field{&f.payee, &f.numeric, &f.words, &f.date} {
		for i, a := range fd.glyphs {
			for _, b := range fd.glyphs[i+1:] {
				if a.adv == b.adv && equalTemplates(a, b) {
					t.Errorf("%s: %q and %q render alike", fd.name, a.r, b.r)
				}
			}
		}
	}
}

func equalTemplates(a, b glyph) bool {
	if len(a.off) != len(b.off) {
		return false
	}
	for i := range a.off {
		if a.off[i] != b.off[i] || a.ink[i] != b.ink[i] {
			return false
		}
	}
	return true
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"", "", 0},
		{"abc", "abc", 0},
		{"abc", "", 1},
		{"kitten", "sitting", 3.0 / 7},
		{"1,188.15", "1,188.16", 1.0 / 8},
	}
	for _, tt := range tests {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("distance(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
