package stats

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMcNemarMidP checks the mid-p value against the binomial sums worked
// by hand: b = 3, c = 11 is 2·(470 − 364/2)/16384.
func TestMcNemarMidP(t *testing.T) {
	for _, tc := range []struct {
		b, c int
		want float64
	}{
		{3, 11, 2 * (470 - 364.0/2) / 16384},
		{11, 3, 2 * (470 - 364.0/2) / 16384},
		{0, 1, 2 * (0.5 - 0.25)}, // P(X ≤ 0) = ½, P(X = 0) = ½
		{0, 0, 1},
		{5, 5, 1},
		{0, 10, 2 * (1.0/1024 - 0.5/1024)},
	} {
		got, err := McNemarMidP(tc.b, tc.c)
		require.NoError(t, err)
		assert.InDelta(t, tc.want, got, 1e-12, "b=%d c=%d", tc.b, tc.c)
		exact, err := McNemarExact(tc.b, tc.c)
		require.NoError(t, err)
		assert.LessOrEqual(t, got, exact, "mid-p is never above the exact value")
	}
	_, err := McNemarMidP(-1, 2)
	assert.Error(t, err)
}

// TestSignFlipTest checks the randomisation test by enumeration and its
// reduction to the exact McNemar test with one pair per cluster.
func TestSignFlipTest(t *testing.T) {
	// ±3 ±1 ±2: the eight sums are ±6, ±2, ±4, 0, 0; the observed 3−1+2
	// = 4 is matched or passed in absolute value by 6, 4, −4, −6.
	assert.InDelta(t, 0.5, SignFlipTest([]int{3, -1, 2}), 1e-15)
	assert.InDelta(t, 1.0, SignFlipTest([]int{0, 0}), 0)
	assert.InDelta(t, 1.0, SignFlipTest(nil), 0)
	assert.InDelta(t, 0.5, SignFlipTest([]int{2, 0, 1}), 1e-15, "±2 ±1 is 3, 1, −1, −3: two of four reach 3")
	for _, bc := range [][2]int{{3, 11}, {0, 7}, {12, 12}, {40, 25}, {1, 0}} {
		d := make([]int, 0, bc[0]+bc[1]+5)
		for range bc[0] {
			d = append(d, -1)
		}
		for range bc[1] {
			d = append(d, 1)
		}
		d = append(d, 0, 0, 0, 0, 0) // concordant pairs change nothing
		exact, err := McNemarExact(bc[0], bc[1])
		require.NoError(t, err)
		assert.InDelta(t, exact, SignFlipTest(d), 1e-12, "b=%d c=%d", bc[0], bc[1])
	}
}

// TestEffectiveN checks the Korn–Graubard effective size by hand: singleton
// clusters give n exactly; two homogeneous clusters of two (design effect
// 3) give 4/3; a share of 0 or 1 and a single cluster fall back to n.
func TestEffectiveN(t *testing.T) {
	y := []bool{true, true, false, false}
	n, err := EffectiveN(y, []string{"a", "b", "c", "d"})
	require.NoError(t, err)
	assert.InDelta(t, 4, n, 1e-12)
	// p = ½, v_srs = ¼/3, cluster sums ±1, v_cl = 2/1 · 2/16 = ¼.
	n, err = EffectiveN(y, []string{"a", "a", "b", "b"})
	require.NoError(t, err)
	assert.InDelta(t, 4.0/3, n, 1e-12)
	// Each cluster half right: the clusters cancel, v_cl = 0 → n.
	n, err = EffectiveN(y, []string{"a", "b", "a", "b"})
	require.NoError(t, err)
	assert.InDelta(t, 4, n, 0)
	n, err = EffectiveN([]bool{true, true, true}, []string{"a", "a", "b"})
	require.NoError(t, err)
	assert.InDelta(t, 3, n, 0)
	n, err = EffectiveN(y, []string{"a", "a", "a", "a"})
	require.NoError(t, err)
	assert.InDelta(t, 4, n, 0)
	_, err = EffectiveN(y, []string{"a"})
	assert.Error(t, err)
	_, err = EffectiveN(nil, nil)
	assert.Error(t, err)

	// The interval widens with the design effect and keeps its center
	// estimate.
	wide, err := newProportionAt(2, 4, 4.0/3, 0.95)
	require.NoError(t, err)
	narrow, err := NewProportion(2, 4, 0.95)
	require.NoError(t, err)
	assert.Equal(t, *wide.Estimate, *narrow.Estimate)
	assert.Less(t, *wide.Low, *narrow.Low)
	assert.Greater(t, *wide.High, *narrow.High)
	assert.Equal(t, 4.0, narrow.EffectiveN)
}

// TestRowTestHoldsSizeUnderRowCorrelatedChanges simulates two runs of a
// 20-row slice that are equally good (the null hypothesis) but whose
// changes hit whole register rows: each row leans towards A or towards B
// with equal chance, and each of its seven pairs flips with probability
// 0.3, in the row's direction 95% of the time. The exact McNemar test over
// cases then rejects the true null far more often than its level, as
// issue #28's simulation found (20.3%); the register-row sign-flip test
// holds its level. Seeded: the same counts on every run.
func TestRowTestHoldsSizeUnderRowCorrelatedChanges(t *testing.T) {
	const (
		reps, rows, perRow = 4000, 20, 7
		flip, lean, alpha  = 0.3, 0.95, 0.05
	)
	rng := rand.New(rand.NewPCG(28, 2026))
	var caseRejects, midRejects, rowRejects int
	d := make([]int, rows)
	for range reps {
		b, c := 0, 0
		for r := range d {
			dir := 1
			if rng.IntN(2) == 0 {
				dir = -1
			}
			d[r] = 0
			for range perRow {
				if rng.Float64() >= flip {
					continue
				}
				step := dir
				if rng.Float64() >= lean {
					step = -dir
				}
				d[r] += step
				if step > 0 {
					c++
				} else {
					b++
				}
			}
		}
		exact, err := McNemarExact(b, c)
		require.NoError(t, err)
		mid, err := McNemarMidP(b, c)
		require.NoError(t, err)
		if exact <= alpha {
			caseRejects++
		}
		if mid <= alpha {
			midRejects++
		}
		if SignFlipTest(d) <= alpha {
			rowRejects++
		}
	}
	caseRate, midRate, rowRate := float64(caseRejects)/reps, float64(midRejects)/reps, float64(rowRejects)/reps
	t.Logf("type-I error at α = %.2f over %d null runs: exact McNemar %.3f, mid-p McNemar %.3f, register-row sign-flip %.3f",
		alpha, reps, caseRate, midRate, rowRate)
	// Binomial standard error at 0.05 over 4,000 runs is 0.0034.
	assert.LessOrEqual(t, rowRate, alpha+0.01, "the row test holds its size")
	assert.Greater(t, caseRate, 2*alpha, "the case-level test does not")
	assert.GreaterOrEqual(t, midRate, caseRate)
}
