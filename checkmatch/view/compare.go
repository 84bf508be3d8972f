package view

import (
	"fmt"
	"slices"
)

// compareView is the side-by-side page of two receipts of one slice.
type compareView struct {
	Page, Title string
	A, B        *receiptView
	Metrics     []compareMetric
	Paired      []field
	Test        string // the paired test in words, "" when none
	TestNote    string // why there is no test
	SameSlice   string // whether the two judged the same images
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
func (b *builder) compareView(va, vb *receiptView, ia, ib Input) *compareView {
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
	if t := pairedResult(onlyA, onlyB); t != nil {
		c.Test = t.Text
	} else {
		c.TestNote = "The paired test arrives with package checkmatch/stats (#14)."
	}
	return c
}

// pairedResult is the paired test of the discordant counts.
func pairedResult(onlyA, onlyB int) *pairedTest { return paired(onlyA, onlyB) }

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
