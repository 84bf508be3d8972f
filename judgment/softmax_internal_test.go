package judgment

import (
	"math"
	"testing"
)

// softmaxLoop is the softmax typevet-go had before it matched typevet's
// arithmetic: math.Exp and left-to-right sums. Kept as the baseline of
// BenchmarkSoftmax and as a witness that the two differ.
func softmaxLoop(logprobs []float64) []float64 {
	m := math.Inf(-1)
	for _, l := range logprobs {
		m = max(m, l)
	}
	p := make([]float64, len(logprobs))
	var z float64
	for i, l := range logprobs {
		p[i] = math.Exp(l - m)
		z += p[i]
	}
	for i := range p {
		p[i] /= z
	}
	return p
}

// softmaxInputs are 64 six-candidate log-probability rows on the
// 4-decimal grid typevet's recording server answers with.
func softmaxInputs() [][]float64 {
	rows := make([][]float64, 64)
	for r := range rows {
		rows[r] = make([]float64, 6)
		for k := range rows[r] {
			rows[r][k] = -0.0001 - float64((r*7919+k*104729)%120000)/10000
		}
	}
	return rows
}

// TestSoftmaxDiffersFromLoop: on these rows typevet's arithmetic (glibc exp,
// CPython 3.12 sum) and the plain loop disagree in the last bits of some
// probabilities; the wire test (checkmatch TestTypevetWire) shows which one
// is typevet's.
func TestSoftmaxDiffersFromLoop(t *testing.T) {
	differ, total := 0, 0
	for _, row := range softmaxInputs() {
		p, err := softmax(row)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range softmaxLoop(row) {
			total++
			if p[i] != q {
				differ++
				if d := math.Abs(p[i]-q) / q; d > 1e-15 {
					t.Errorf("row %v: p[%d] = %v, loop %v (relative %g)", row, i, p[i], q, d)
				}
			}
		}
	}
	t.Logf("%d of %d probabilities differ in the last bits", differ, total)
	if differ == 0 {
		t.Error("no probability differs: the inputs do not exercise the change")
	}
}

// BenchmarkSoftmax compares the softmax of the scoring path with the old
// loop it replaced (the baseline).
func BenchmarkSoftmax(b *testing.B) {
	rows := softmaxInputs()
	b.Run("typevet", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := softmax(rows[i%len(rows)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("loop-math.Exp", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			softmaxLoop(rows[i%len(rows)])
		}
	})
}

// TestSeenSet: the list of a seenSet and its map past smallSeenSet keys
// answer as a map does, for sets of up to three times the list.
func TestSeenSet(t *testing.T) {
	for _, n := range []int{0, 1, smallSeenSet - 1, smallSeenSet, smallSeenSet + 1, 3 * smallSeenSet} {
		for _, hint := range []int{0, n} {
			s, ref := newSeenSet[int](hint), map[int]bool{}
			for i := range 4 * n {
				k := (i * 7919) % (n + 1)
				if got := s.add(k); got != ref[k] {
					t.Fatalf("n %d hint %d: add(%d) = %v, want %v", n, hint, k, got, ref[k])
				}
				ref[k] = true
				if !s.has(k) || s.has(n+1+i) {
					t.Fatalf("n %d hint %d: has wrong after add(%d)", n, hint, k)
				}
			}
		}
	}
}
