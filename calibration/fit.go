package calibration

import (
	"crypto/sha256"
	"errors"
	"math"
	"sort"

	"github.com/typevet/typevet-go/internal/pymath"
)

// InCalibrationHalf reports whether a row id falls in the calibration
// half: int(sha256(id).hexdigest(), 16) is even, that is the digest's last
// byte is even.
func InCalibrationHalf(id string) bool {
	sum := sha256.Sum256([]byte(id))
	return sum[len(sum)-1]%2 == 0
}

// Split returns the row positions of the calibration and evaluation
// halves, each ascending.
func Split(ids []string) (calibration, evaluation []int) {
	for i, id := range ids {
		if InCalibrationHalf(id) {
			calibration = append(calibration, i)
		} else {
			evaluation = append(evaluation, i)
		}
	}
	return calibration, evaluation
}

// Calibrator is a fitted function as typevet's study applies it: input
// clipped, output not (the map file's [Map.Apply] clips both).
type Calibrator struct {
	// Method is the fitted function.
	Method Method
	// Parameters are its parameters.
	Parameters Parameters
}

// Apply returns the calibrated probability of p.
func (c Calibrator) Apply(p float64) float64 { return c.Parameters.mapped(c.Method, clip(p)) }

// ErrSingular is returned by [FitPlatt] where typevet's Newton step divides
// by a zero determinant (Python raises ZeroDivisionError): every clipped
// probability of the calibration half is the same.
var ErrSingular = errors.New("calibration: platt fit: the calibration half's probabilities are all equal")

// nll is typevet's _nll: the summed log-loss of sigmoid(a·x + b), added
// left to right.
func nll(xs []float64, labels []bool, a, b float64) float64 {
	total := 0.0
	for i, x := range xs {
		z := float64(a*x) + b
		term := max0(z) + pymath.Log1p(pymath.Exp(-math.Abs(z)))
		if labels[i] {
			term -= z
		} else {
			term -= 0
		}
		total += term
	}
	return total
}

// max0 is Python's max(z, 0.0): z unless 0.0 > z.
func max0(z float64) float64 {
	if 0 > z {
		return 0
	}
	return z
}

func logits(ps []float64) []float64 {
	xs := make([]float64, len(ps))
	for i, p := range ps {
		xs[i] = logit(clip(p))
	}
	return xs
}

// FitTemperature fits T by 100 golden-section steps on log T in [-3, 3].
func FitTemperature(ps []float64, labels []bool) Calibrator {
	xs := logits(ps)
	ratio := (math.Sqrt(5) - 1) / 2
	low, high := -3.0, 3.0
	for range 100 {
		left := high - float64(ratio*(high-low))
		right := low + float64(ratio*(high-low))
		if nll(xs, labels, pymath.Exp(-left), 0) <= nll(xs, labels, pymath.Exp(-right), 0) {
			high = right
		} else {
			low = left
		}
	}
	return Calibrator{Method: Temperature, Parameters: Parameters{Temperature: pymath.Exp((low + high) / 2)}}
}

// FitPlatt fits a and b by at most 200 Newton steps from (1, 0), each
// halved up to 40 times until the loss drops; a step that never lowers
// the loss ends the fit, so separable data gives a large but finite slope.
func FitPlatt(ps []float64, labels []bool) (Calibrator, error) {
	xs := logits(ps)
	a, b := 1.0, 0.0
	loss := nll(xs, labels, a, b)
	for range 200 {
		var ga, gb, haa, hab, hbb float64
		for i, x := range xs {
			s := sigmoid(float64(a*x) + b)
			w := float64(s*(1-s)) + 1e-12
			y := 0.0
			if labels[i] {
				y = 1
			}
			ga += float64((s - y) * x)
			gb += s - y
			haa, hab, hbb = haa+float64(float64(w*x)*x), hab+float64(w*x), hbb+w
		}
		det := float64(haa*hbb) - float64(hab*hab)
		if det == 0 {
			return Calibrator{}, ErrSingular
		}
		da := (float64(hbb*ga) - float64(hab*gb)) / det
		db := (float64(haa*gb) - float64(hab*ga)) / det
		step := 1.0
		var trial float64
		lowered := false
		for range 40 {
			trial = nll(xs, labels, a-float64(step*da), b-float64(step*db))
			if trial < loss {
				lowered = true
				break
			}
			step /= 2
		}
		if !lowered {
			break
		}
		a, b = a-float64(step*da), b-float64(step*db)
		if loss-trial < 1e-12 {
			break
		}
		loss = trial
	}
	return Calibrator{Method: Platt, Parameters: Parameters{Slope: a, Intercept: b}}, nil
}

// FitIsotonic fits a non-decreasing step map by pool-adjacent-violators
// over the distinct clipped probabilities; tied probabilities share one
// block.
func FitIsotonic(ps []float64, labels []bool) Calibrator {
	type group struct{ pos, n float64 }
	groups := map[float64]*group{}
	for i, p := range ps {
		k := clip(p)
		g := groups[k]
		if g == nil {
			g = &group{}
			groups[k] = g
		}
		g.n++
		if labels[i] {
			g.pos++
		}
	}
	knots := make([]float64, 0, len(groups))
	for k := range groups {
		knots = append(knots, k)
	}
	sort.Float64s(knots)
	type block struct{ sum, n, knots float64 }
	var blocks []block
	for _, k := range knots {
		blocks = append(blocks, block{groups[k].pos, groups[k].n, 1})
		for len(blocks) > 1 {
			p, l := blocks[len(blocks)-2], blocks[len(blocks)-1]
			if !(p.sum/p.n > l.sum/l.n) {
				break
			}
			blocks = blocks[:len(blocks)-1]
			blocks[len(blocks)-1] = block{p.sum + l.sum, p.n + l.n, p.knots + l.knots}
		}
	}
	values := make([]float64, 0, len(knots))
	for _, b := range blocks {
		for range int(b.knots) {
			values = append(values, b.sum/b.n)
		}
	}
	return Calibrator{Method: Isotonic, Parameters: Parameters{Knots: knots, Values: values}}
}

// Fit fits one method on the calibration-half rows.
func Fit(method Method, ps []float64, labels []bool) (Calibrator, error) {
	switch method {
	case Temperature:
		return FitTemperature(ps, labels), nil
	case Platt:
		return FitPlatt(ps, labels)
	case Isotonic:
		return FitIsotonic(ps, labels), nil
	}
	return Calibrator{}, &MapError{Field: "method"}
}
