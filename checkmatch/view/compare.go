package view

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/stats"
)

// compareView is the side-by-side page of two receipts of one slice.
type compareView struct {
	Page, Title string
	A, B        *receiptView
	Metrics     []compareMetric
	Paired      []field
	Tests       []string        // the paired tests in words, each with its assumption; none when TestNote says why
	TestNote    string          // why there is no test
	Notes       string          // the pins and identity fields that differ, "" when none
	Differences []compareMetric // paired differences B − A with intervals
	SameSlice   string          // whether the two judged the same images
	Rows        []compareRow
	OnlyA       []string // case ids only the first receipt has
	OnlyB       []string
	Discordant  int
}

// compareMetric is one headline metric of both receipts.
type compareMetric struct {
	Name, A, B string
}

// compareRow is one case judged by both receipts.
type compareRow struct {
	ID, Variant, Expected string
	A, B                  *caseRow
	// Kind is "discordant" (right in one receipt only), "changed" (both
	// right or both wrong, with different verdicts) or "same".
	Kind string
	Flip string // e.g. "right → wrong"
	// Image is the shown image: the first receipt's, else the second's.
	Image         *imageView
	NotReproduced string
}

// compareView pairs the cases of a and b by case id.
func (b *builder) compareView(va, vb *receiptView, ia, ib Input, cs comparison) *compareView {
	c := &compareView{
		Page:  fmt.Sprintf("compare-%d-%d.html", va.Index, vb.Index),
		Title: fmt.Sprintf("%s vs %s", ia.Name, ib.Name),
		A:     va, B: vb,
	}
	for i := range va.Headline {
		if i < len(vb.Headline) && va.Headline[i].Name == vb.Headline[i].Name {
			c.Metrics = append(c.Metrics, compareMetric{Name: va.Headline[i].Name, A: metricText(va.Headline[i]), B: metricText(vb.Headline[i])})
		}
	}
	if ia.Receipt.Pins.SliceSHA256 == ib.Receipt.Pins.SliceSHA256 {
		c.SameSlice = "Both receipts have the same slice_sha256: they judged the same images."
	} else {
		c.SameSlice = "The slice_sha256 digests differ: the same cases were rendered differently (for example by typevet's Pillow and by the Go renderer), so the judges saw different pixels."
	}
	bothRight, bothWrong, onlyA, onlyB, changed := 0, 0, 0, 0, 0
	var discordant, verdictChanged, same []compareRow
	for i := range va.Cases {
		ra := &va.Cases[i]
		rb, ok := vb.byID[ra.ID]
		if !ok {
			c.OnlyA = append(c.OnlyA, ra.ID)
			continue
		}
		row := compareRow{ID: ra.ID, Variant: ra.Variant, Expected: ra.Expected, A: ra, B: rb}
		row.Image, row.NotReproduced = ra.Image, ra.NotReproduced
		if row.Image == nil && rb.Image != nil {
			row.Image, row.NotReproduced = rb.Image, ""
		}
		switch {
		case ra.Correct && rb.Correct:
			bothRight++
		case !ra.Correct && !rb.Correct:
			bothWrong++
		case ra.Correct:
			onlyA++
		default:
			onlyB++
		}
		switch {
		case ra.Correct != rb.Correct:
			row.Kind = "discordant"
			row.Flip = map[bool]string{true: "right → wrong", false: "wrong → right"}[ra.Correct]
			discordant = append(discordant, row)
		case ra.Verdict != rb.Verdict:
			changed++
			row.Kind = "changed"
			row.Flip = "verdict changed"
			verdictChanged = append(verdictChanged, row)
		default:
			row.Kind = "same"
			same = append(same, row)
		}
	}
	for i := range vb.Cases {
		if _, ok := va.byID[vb.Cases[i].ID]; !ok {
			c.OnlyB = append(c.OnlyB, vb.Cases[i].ID)
		}
	}
	// Right → wrong first, then wrong → right; slice order within each.
	slices.SortStableFunc(discordant, func(x, y compareRow) int {
		if x.A.Correct == y.A.Correct {
			return 0
		}
		if x.A.Correct {
			return -1
		}
		return 1
	})
	c.Rows = slices.Concat(discordant, verdictChanged, same)
	c.Discordant = len(discordant)
	paired := bothRight + bothWrong + onlyA + onlyB
	c.Paired = []field{
		{Label: "Cases in both", Value: fmt.Sprint(paired)},
		{Label: "Right in both", Value: fmt.Sprint(bothRight)},
		{Label: fmt.Sprintf("Right in %d only (right → wrong)", va.Index), Value: fmt.Sprint(onlyA)},
		{Label: fmt.Sprintf("Right in %d only (wrong → right)", vb.Index), Value: fmt.Sprint(onlyB)},
		{Label: "Wrong in both", Value: fmt.Sprint(bothWrong)},
		{Label: "Same correctness, other verdict", Value: fmt.Sprint(changed)},
	}
	if cs.err != nil {
		c.TestNote = "No paired statistics: " + cs.err.Error() + "."
		return c
	}
	d := cs.doc
	m, rt := d.McNemar, d.RowTest
	c.Tests = []string{
		fmt.Sprintf("Exact McNemar test over the %d pairs with the same case id and render: %d right → wrong, %d wrong → right, two-sided p = %s. Assumes %s.", d.Pairs, m.B, m.C, pValue(m.PValue), m.Assumption),
		fmt.Sprintf("Mid-p McNemar test (less conservative than the exact one at the same level): p = %s. Assumes %s.", pValue(m.MidPValue), m.Assumption),
		fmt.Sprintf("Register-row sign-flip test: net change %+d over %d rows, %d of them with a net change, exact two-sided p = %s. Assumes %s.", rt.NetChange, rt.Rows, rt.DiscordantRows, pValue(rt.PValue), rt.Assumption),
	}
	if len(d.IdentityDifferences) > 0 {
		c.Notes = "Same slice (pins.slice_sha256); these differ between the runs and may explain a difference: " + strings.Join(d.IdentityDifferences, ", ") + "."
	}
	level := levelText(d.Bootstrap.Level)
	add := func(name string, x stats.Difference, format func(float64) string) {
		c.Differences = append(c.Differences, compareMetric{Name: name, A: differenceText(x, format, level)})
	}
	add("Accuracy", d.Differences.Accuracy, signedPct)
	add("False-clear rate", d.Differences.FalseClearRate, signedPct)
	for _, e := range d.Differences.Nouls {
		add("ECE "+e.Name, e.Value.ECE, signed3)
		add("ROC-AUC "+e.Name, e.Value.ROCAUC, signed3)
	}
	return c
}

// comparison is the paired comparison of two receipts, or the error that
// prevented it (receipts of other renders: a *stats.SliceError).
type comparison struct {
	doc stats.Comparison
	err error
}

func compareStats(a, b checkmatch.Receipt, opts stats.Options) comparison {
	doc, err := stats.Compare(a, b, opts)
	return comparison{doc: doc, err: err}
}

// differenceText writes a paired difference with its bootstrap interval.
func differenceText(x stats.Difference, format func(float64) string, level string) string {
	if x.Difference == nil {
		return "none"
	}
	s := format(*x.Difference)
	if x.Low != nil && x.High != nil {
		s += fmt.Sprintf(", %s paired bootstrap [%s, %s]", level, format(*x.Low), format(*x.High))
	}
	return s
}

func signedPct(x float64) string { return fmt.Sprintf("%+.1f points", 100*x) }

func signed3(x float64) string { return fmt.Sprintf("%+.3f", x) }

// metricText is a headline metric with its count and interval, on one line.
func metricText(m metricView) string {
	s := m.Value
	if m.Count != "" {
		s += " (" + m.Count + ")"
	}
	if m.Interval != "" {
		s += ", " + m.Interval
	}
	return s
}

// pValue writes a p-value with 4 significant digits, "< 0.0001" below.
func pValue(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return strconv.FormatFloat(p, 'g', 4, 64)
}
