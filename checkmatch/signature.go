package checkmatch

import (
	"math"
	"strconv"

	"github.com/typevet/typevet-go/internal/checkform"
)

// strokePoint is one polyline point of a signature stroke: integer x, float y.
type strokePoint struct {
	X int
	Y float64
}

// stroke is one seeded signature stroke with the draws that shaped it.
type stroke struct {
	X         int // x of the first point
	Span      int
	Amplitude float64
	Frequency float64
	Phase     float64
	Base      float64
	Points    []strokePoint
}

// signatureStrokes draws the strokes of signature seed from the stream
// check-match:signature:{seed} exactly as typevet draws them: the start x, the
// stroke count, then per stroke span, amplitude, frequency, phase, base and
// the gap (drawn after every stroke, including the last).
func signatureStrokes(seed uint64) []stroke {
	box := checkform.SignatureBox
	d := newDraws("check-match:signature:" + strconv.FormatUint(seed, 10))
	x := box.Left + checkform.StrokeIndent + int(d.integer(0, 30))
	n := int(d.integer(2, 4))
	out := make([]stroke, 0, n)
	for range n {
		s := stroke{X: x, Span: int(d.integer(60, 110))}
		s.Amplitude = d.uniform(6.0, 16.0)
		s.Frequency = d.uniform(0.08, 0.2)
		s.Phase = d.uniform(0.0, 2*math.Pi)
		s.Base = checkform.StrokeCentreY + d.uniform(-6.0, 6.0)
		s.Points = make([]strokePoint, 0, (s.Span+checkform.StrokeStep-1)/checkform.StrokeStep)
		for off := 0; off < s.Span; off += checkform.StrokeStep {
			// Explicit float64 conversions keep the compiler from fusing
			// multiply and add (FMA), so y is Python's value on every GOARCH
			// up to the last bit of sin.
			arg := float64(s.Frequency*float64(off)) + s.Phase
			y := s.Base + float64(s.Amplitude*math.Sin(arg))
			s.Points = append(s.Points, strokePoint{x + off, y})
		}
		out = append(out, s)
		x = min(x+s.Span+int(d.integer(5, 20)), box.Right-checkform.StrokeMaxSpan)
	}
	return out
}
