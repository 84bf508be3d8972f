package llamacpp

import (
	"bytes"
	"math"
	"strconv"
)

// massOK reports whether the current list's total mass is within 1e-2 of
// 1 (massSum).
func (d *decoder) massOK() bool { return d.mass.ok() }

// maxReplayBytes bounds the logprob text a massSum keeps for its replay;
// a list with more is summed exactly as it is read from then on. A
// 262144-entry answer needs about 5 MB.
const maxReplayBytes = 8 << 20

// replayLimit is maxReplayBytes; tests lower it.
var replayLimit = maxReplayBytes

// massSum decides whether a top_logprobs list's total mass, the
// compensated sum of exp(logprob) over its entries in order (kahan, as
// typevet's math.fsum), is within 1e-2 of 1, without parsing every
// logprob exactly. Each logprob is summed either exactly parsed
// (addExact) or as scanNumber's approximation (addNear), with a bound on
// the error that adds; the logprobs are kept as text. When the bounds put
// every sum they allow on one side of the rule, that is the answer;
// otherwise (a total within about 1e-9 of 0.99 or 1.01, a non-finite
// value) replay sums the kept text exactly, in order, as the decoder
// before issue 18 did. Either way the answer is the exact sum's.
type massSum struct {
	x, e   float64 // Σ exp of the values summed; Σ of their error bounds
	n      int     // values summed into x
	exact  bool    // every value so far is in total (the replay ran)
	total  kahan   // the exact sum, once exact
	replay []byte  // the logprobs' text, each followed by ','
}

func (m *massSum) reset() {
	m.x, m.e, m.n, m.exact, m.total, m.replay = 0, 0, 0, false, kahan{}, m.replay[:0]
}

// addExact adds exp(lp); text is lp as the body wrote it (nil: lp itself
// is kept).
func (m *massSum) addExact(lp float64, text []byte) {
	if m.exact {
		m.total.add(math.Exp(lp))
		return
	}
	m.x += math.Exp(lp)
	m.n++
	if text == nil {
		m.keep(strconv.AppendFloat(m.replay, lp, 'g', -1, 64))
	} else {
		m.keep(append(m.replay, text...))
	}
}

// addFar adds exp of the number text, a far logprob in the tenth k
// (scanFar).
func (m *massSum) addFar(k int, text []byte) {
	if m.exact {
		lp, _ := parseLogprob(text)
		m.total.add(math.Exp(lp))
		return
	}
	m.x += farMid[k]
	m.e += farHalf[k]
	m.n++
	m.keep(append(m.replay, text...))
}

// addNear adds exp(v), v being the approximation of the number text.
func (m *massSum) addNear(v float64, text []byte) {
	if m.exact {
		lp, _ := parseLogprob(text)
		m.total.add(math.Exp(lp))
		return
	}
	x := math.Exp(v)
	m.x += x
	// exp(v(1+r)) = exp(v)·exp(v·r), |r| ≤ nearRelErr; plus an ulp of Exp.
	m.e += x * (1.01*nearRelErr*math.Abs(v) + 4.5e-16)
	m.n++
	m.keep(append(m.replay, text...))
}

// keep stores the grown replay text, or, past maxReplayBytes, replays it
// and goes exact.
func (m *massSum) keep(b []byte) {
	m.replay = append(b, ',')
	if len(m.replay) > replayLimit {
		m.sumReplay()
	}
}

// sumReplay sums the kept text exactly, in order, and goes exact.
func (m *massSum) sumReplay() {
	m.total = kahan{}
	for t := range bytes.SplitSeq(m.replay, []byte{','}) {
		if len(t) > 0 {
			lp, _ := parseLogprob(t)
			m.total.add(math.Exp(lp))
		}
	}
	m.exact, m.replay = true, m.replay[:0]
}

// ok reports whether the exact total is within 1e-2 of 1.
func (m *massSum) ok() bool {
	if !m.exact {
		// Recursive summation of n non-negative terms errs by at most
		// (n−1)·2^-53 of their sum; the compensated sum by less. The
		// tiny absolute term covers results near underflow.
		n := float64(m.n)
		slack := m.e + (n+10)*2.3e-16*(m.x+m.e) + n*1e-300
		lo, hi := m.x-slack, m.x+slack
		if !math.IsInf(hi, 0) && !math.IsNaN(hi) {
			// On [0.5, 2] t−1 is exact, so these hold for every t in
			// [lo, hi] exactly when they hold at the ends.
			switch {
			case lo-1 >= -1e-2 && hi-1 <= 1e-2:
				return true
			case hi-1 < -1e-2 || lo-1 > 1e-2:
				return false
			}
		}
		m.sumReplay()
	}
	return math.Abs(m.total.sum()-1) <= 1e-2
}

// kahan is a Neumaier compensated sum, standing in for Python's math.fsum.
type kahan struct{ s, c float64 }

func (k *kahan) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k *kahan) sum() float64 { return k.s + k.c }
