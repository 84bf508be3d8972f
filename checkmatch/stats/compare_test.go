package stats

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/internal/resample"
	"github.com/typevet/typevet-go/receipt"
)

// cloneReceipt copies r deeply enough to change case verdicts, pins and
// digests without touching r.
func cloneReceipt(r checkmatch.Receipt) checkmatch.Receipt {
	c := r
	c.Cases = slices.Clone(r.Cases)
	c.Identity.PromptDigests = slices.Clone(r.Identity.PromptDigests)
	c.Identity.CodePathDigests = slices.Clone(r.Identity.CodePathDigests)
	return c
}

// setCorrect gives case i a verdict that is right (the first accepted) or
// wrong (a label not accepted).
func setCorrect(c *checkmatch.CaseRecord, right bool) {
	if right {
		c.Verdict = c.ExpectedVerdicts[0]
	} else {
		for _, v := range checkmatch.VerdictLabels {
			if !slices.Contains(c.ExpectedVerdicts, v) {
				c.Verdict = v
				break
			}
		}
	}
	c.Correct = right
	// noul_choice_agreement as a run records it for the new verdict (a
	// Noul below 0.5 says mismatch; cannot_tell is not counted).
	payeeNo, amountsNo := c.PayeeConfidence < 0.5, c.AmountsConfidence < 0.5
	var agree bool
	switch c.Verdict {
	case checkmatch.VerdictCannotTell:
		c.NoulChoiceAgreement = nil
		return
	case checkmatch.VerdictPayeeMismatch:
		agree = payeeNo
	case checkmatch.VerdictAmountMismatch:
		agree = amountsNo
	default:
		agree = !payeeNo && !amountsNo
	}
	c.NoulChoiceAgreement = &agree
}

func TestCompareWithItself(t *testing.T) {
	r := readFixture(t)
	cmp, err := Compare(r, r, Options{Resamples: 300})
	require.NoError(t, err)
	assert.Equal(t, ComparisonSchema, cmp.Schema)
	assert.Equal(t, 140, cmp.Pairs)
	assert.Empty(t, cmp.Discordant)
	assert.Empty(t, cmp.IdentityDifferences)
	assert.Equal(t, McNemar{B: 0, C: 0, PValue: 1, MidPValue: 1, Assumption: AssumeCases}, cmp.McNemar)
	assert.Equal(t, RowTest{Method: "sign_flip_register_row", Rows: 20, PValue: 1, Assumption: AssumeRows}, cmp.RowTest)
	for _, d := range []Difference{cmp.Differences.Accuracy, cmp.Differences.FalseClearRate,
		cmp.Differences.Nouls[0].Value.ECE, cmp.Differences.Nouls[1].Value.ROCAUC} {
		assert.Equal(t, 0.0, *d.Difference)
		assert.Equal(t, 0.0, *d.Low)
		assert.Equal(t, 0.0, *d.High)
	}
	for _, f := range cmp.FlipsByVariant {
		assert.Equal(t, Flips{Pairs: 20}, f.Value, f.Name)
	}
	b, err := Marshal(cmp)
	require.NoError(t, err)
	back, err := ReadComparison(bytes.NewReader(b))
	require.NoError(t, err)
	again, _ := Marshal(back)
	assert.Equal(t, string(b), string(again))
}

// TestCompareFlips makes B from typevet's receipt with 3 right cases made
// wrong and 11 wrong made right (after A had one more case made wrong), so
// b = 3, c = 11: p = 0.0574.
func TestCompareFlips(t *testing.T) {
	a := cloneReceipt(readFixture(t))
	// A has 10 wrong cases; make r00:clean wrong too (11).
	setCorrect(&a.Cases[0], false)
	b := cloneReceipt(a)
	var wrong, right []int
	for i, c := range a.Cases {
		if c.Correct {
			right = append(right, i)
		} else {
			wrong = append(wrong, i)
		}
	}
	require.Len(t, wrong, 11)
	for _, i := range wrong {
		setCorrect(&b.Cases[i], true)
	}
	// Three right cases of payee_changed become wrong.
	var made []string
	for _, i := range right {
		if a.Cases[i].Variant == checkmatch.Variant("payee_changed") && len(made) < 3 {
			setCorrect(&b.Cases[i], false)
			made = append(made, a.Cases[i].CaseID)
		}
	}
	b.Model = "other/model"
	b.Identity.PromptDigests[2].Value = "changed"

	cmp, err := Compare(a, b, Options{Resamples: 400, Cluster: ClusterCase})
	require.NoError(t, err)
	assert.Equal(t, 3, cmp.McNemar.B)
	assert.Equal(t, 11, cmp.McNemar.C)
	assert.InDelta(t, 0.0574, cmp.McNemar.PValue, 5e-5)
	assert.Len(t, cmp.Discordant, 14)
	assert.Equal(t, []string{"model", "identity.prompt_digests.verdict"}, cmp.IdentityDifferences)

	pc, _ := cmp.FlipsByVariant.Get("payee_changed")
	assert.Equal(t, Flips{Pairs: 20, RightToWrong: 3}, pc)
	low, _ := cmp.FlipsByVariant.Get("low_legibility")
	assert.Equal(t, 9, low.WrongToRight)
	var rightToWrong []string
	for _, d := range cmp.Discordant {
		if d.ACorrect {
			rightToWrong = append(rightToWrong, d.CaseID)
		}
	}
	assert.Equal(t, made, rightToWrong)

	acc := cmp.Differences.Accuracy
	assert.InDelta(t, 8.0/140, *acc.Difference, 1e-15, "(11 − 3)/140")
	assert.InDelta(t, *acc.B-*acc.A, *acc.Difference, 0)
	assert.Less(t, *acc.Low, *acc.Difference)
	assert.Greater(t, *acc.High, *acc.Difference)
	assert.Equal(t, 400, acc.Defined)

	// The paired interval from a plain loop over the same draws.
	var ds []float64
	for r := range 400 {
		k := 0
		for _, i := range resample.Indices(140, 0, r) {
			k += boolInt(b.Cases[i].Correct) - boolInt(a.Cases[i].Correct)
		}
		ds = append(ds, float64(k)/140)
	}
	lo, hi, err := resample.PercentileInterval(ds, 0.95)
	require.NoError(t, err)
	assert.InDelta(t, lo, *acc.Low, 1e-15)
	assert.InDelta(t, hi, *acc.High, 1e-15)
}

func TestCompareRefusesAnotherSlice(t *testing.T) {
	a := readFixture(t)
	b := cloneReceipt(a)
	b.Pins.SliceSHA256 = "00" + a.Pins.SliceSHA256[2:]
	b.Pins.GeneratorSeed = 1
	_, err := Compare(a, b, Options{Resamples: 10})
	var se *SliceError
	require.True(t, errors.As(err, &se))
	assert.Equal(t, []string{"pins.slice_sha256", "pins.generator_seed"}, se.Fields)
	assert.Contains(t, err.Error(), "pins.slice_sha256")
	assert.NotContains(t, err.Error(), b.Pins.SliceSHA256, "names, never values")

}

// TestCompareRendererPinsAreNotes: the slice digest decides the slice;
// renderer pins that differ while it is the same (the same code built
// "+dirty", Pillow against a pinned Go renderer) are named in
// identity_differences, not refused.
func TestCompareRendererPinsAreNotes(t *testing.T) {
	a := cloneReceipt(readFixture(t))
	a.Pins.PillowVersion = ""
	a.Pins.Renderer = &checkmatch.RendererInfo{Module: "github.com/typevet/typevet-go", ModuleVersion: "v0.0.0-20261204-abc123", Font: "Go Regular"}
	b := cloneReceipt(a)
	dirty := *a.Pins.Renderer
	dirty.ModuleVersion += "+dirty"
	b.Pins.Renderer = &dirty
	cmp, err := Compare(a, b, Options{Resamples: 10})
	require.NoError(t, err)
	assert.Equal(t, []string{"pins.renderer.module_version"}, cmp.IdentityDifferences)
	assert.Equal(t, 140, cmp.Pairs)

	typevet := readFixture(t)
	cmp, err = Compare(typevet, a, Options{Resamples: 10})
	require.NoError(t, err)
	assert.Equal(t, []string{"pins.renderer", "pins.pillow_version"}, cmp.IdentityDifferences)
}

func TestCompareUnpaired(t *testing.T) {
	a := readFixture(t)
	b := cloneReceipt(a)
	b.Cases = b.Cases[:100]                           // stopped early
	b.Cases[5].RenderSHA256 = strings.Repeat("0", 64) // another render
	cmp, err := Compare(a, b, Options{Resamples: 10})
	require.NoError(t, err)
	assert.Equal(t, 99, cmp.Pairs)
	assert.Len(t, cmp.UnpairedA, 41)
	assert.Equal(t, []string{b.Cases[5].CaseID}, cmp.UnpairedB)

	b.Cases = nil
	_, err = Compare(a, b, Options{Resamples: 10})
	assert.ErrorContains(t, err, "no case pairs")
}

func TestIdentityDifferencesNamesEach(t *testing.T) {
	a := readFixture(t)
	b := cloneReceipt(a)
	b.Backend = "llama_cpp"
	b.Pins.ModelRevision = "x"
	b.Pins.Server = nil
	b.Identity.BaselineCommit = "unknown"
	b.Identity.Runtime.ServerBuild = "y"
	b.Identity.CodePathDigests = append(b.Identity.CodePathDigests, receipt.Entry[string]{Name: "extra", Value: "z"})
	b.Identity.CodePathDigests[0].Value = "w"
	got := IdentityDifferences(a, b)
	assert.Equal(t, []string{"backend", "pins.model_revision", "pins.server.build_info", "identity.baseline_commit",
		"identity.runtime.server_build", "identity.code_path_digests." + a.Identity.CodePathDigests[0].Name,
		"identity.code_path_digests.extra"}, got)
}

func TestReadDocumentRefuses(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`{"schema": "typevet-go/check-match-comparison", "version": 1}`, `want "typevet-go/check-match-intervals"`},
		{`{"schema": "typevet-go/check-match-intervals", "version": 3}`, "newer than this reader's 2"},
		{`{"issue": 316}`, "no schema and version"},
		{`{"schema": "typevet-go/check-match-intervals", "version": 1} {}`, "data after"},
		{`[]`, "cannot unmarshal"},
	} {
		_, err := ReadIntervals(bytes.NewReader([]byte(tc.text)))
		assert.ErrorContains(t, err, tc.want, tc.text)
	}
}
