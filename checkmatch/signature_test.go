package checkmatch

import (
	"math"
	"testing"
)

func TestSignatureStrokesSeed0(t *testing.T) {
	// typevet's strokes for signature seed 0.
	want := []struct {
		x, span, points      int
		amp, freq, phs, base float64
	}{
		{628, 80, 27, 14.790414708747004, 0.15100766681138078, 2.679054341983778, 323.33076120283397},
		{713, 105, 35, 10.105558411439691, 0.19156306085784966, 5.196606875974584, 319.2013312230752},
		{824, 98, 33, 6.619276475520813, 0.10374363463126118, 0.6766449814339608, 326.43435219339955},
	}
	got := signatureStrokes(0)
	if len(got) != len(want) {
		t.Fatalf("%d strokes, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.X != w.x || g.Span != w.span || len(g.Points) != w.points {
			t.Errorf("stroke %d: x %d span %d points %d, want %d %d %d", i, g.X, g.Span, len(g.Points), w.x, w.span, w.points)
		}
		// The uniform draws are exact (no transcendental function).
		if g.Amplitude != w.amp || g.Frequency != w.freq || g.Phase != w.phs || g.Base != w.base {
			t.Errorf("stroke %d: amp %v freq %v phase %v base %v", i, g.Amplitude, g.Frequency, g.Phase, g.Base)
		}
		for j, p := range g.Points {
			if p.X != w.x+3*j {
				t.Errorf("stroke %d point %d x = %d", i, j, p.X)
			}
		}
	}
	// Point y uses sin, which may differ from libm in the last ulp.
	points := []struct {
		name   string
		got    strokePoint
		x      int
		y      float64
		stroke int
	}{
		{"first of stroke 0", got[0].Points[0], 628, 329.93055683823604, 0},
		{"last of stroke 0", got[0].Points[26], 706, 337.36808662475545, 0},
		{"last of stroke 2", got[2].Points[32], 920, 320.2383212806905, 2},
	}
	for _, p := range points {
		if p.got.X != p.x || math.Abs(p.got.Y-p.y) > 1e-9 {
			t.Errorf("%s = (%d, %.15g), want (%d, %.15g)", p.name, p.got.X, p.got.Y, p.x, p.y)
		}
	}
}

func TestSignatureStrokesRowSeed(t *testing.T) {
	// typevet's strokes for signature seed 2045550346 (seed 0, row r00): the third
	// stroke's x is clamped to 940 - 110.
	got := signatureStrokes(2045550346)
	want := [][2]int{{629, 105}, {753, 73}, {830, 65}}
	if len(got) != len(want) {
		t.Fatalf("%d strokes, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].X != w[0] || got[i].Span != w[1] {
			t.Errorf("stroke %d: x %d span %d, want %v", i, got[i].X, got[i].Span, w)
		}
	}
}

func TestSignatureStrokesStayInBox(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2, 3} {
		cases, err := Cases(seed, RowCount)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(cases); i += VariantsPerRow {
			strokes := signatureStrokes(cases[i].Face.SignatureSeed)
			if n := len(strokes); n < 2 || n > 3 {
				t.Errorf("seed %d %s: %d strokes", seed, cases[i].ID(), n)
			}
			for _, s := range strokes {
				for _, p := range s.Points {
					// Half the 3 px pen width must stay inside the box.
					if p.X < 620 || p.X > 938 || p.Y < 301.5 || p.Y > 348.5 {
						t.Errorf("seed %d %s: point (%d, %v) outside the signature box", seed, cases[i].ID(), p.X, p.Y)
					}
				}
			}
		}
	}
}
