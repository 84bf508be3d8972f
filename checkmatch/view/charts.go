package view

import (
	"fmt"
	"slices"
	"strings"

	"github.com/typevet/typevet-go/checkmatch"
)

// The reliability diagram's plot area inside its SVG viewBox.
const (
	relX0, relY0 = 44.0, 12.0
	relW, relH   = 240.0, 200.0
)

// reliabilityChart is one Noul's reliability diagram: a bar per bin at the
// share of true cases, a dot at the bin's mean confidence, the diagonal of
// perfect calibration, and each bin's count under the axis.
type reliabilityChart struct {
	ID, Name, Axis string
	ECE            string
	Cases          int
	Bins           []relBin
	Ticks          []relTick
	Desc           string // the diagram in words
	X0, Y0, X1, Y1 float64
}

// relBin is one bin of a reliability diagram.
type relBin struct {
	Range                string // "0.9–1.0"
	Count                int
	Mean, Frac           string // "0.953", "95.0%"; "" for an empty bin
	X, Y, W, H           float64
	DotX, DotY           float64
	LabelX, LabelY       float64
	Empty                bool
	MeanValue, FracValue float64
}

// relTick is one axis tick of a reliability diagram.
type relTick struct {
	Text           string
	X, Y, LX, LY   float64 // the x tick's position and its label's
	YX, YY, YLX    float64 // the y tick's position and its label's x
	GridX0, GridX1 float64
}

func reliability(id, axis string, s checkmatch.NoulSummary) reliabilityChart {
	ch := reliabilityChart{
		ID: "rel-" + id, Name: id, Axis: axis,
		ECE: numOrNone(s.ECE, 3),
		X0:  relX0, Y0: relY0 + relH, X1: relX0 + relW, Y1: relY0,
	}
	var words []string
	for _, b := range s.Reliability {
		ch.Cases += b.Count
		w := (b.Upper - b.Lower) * relW
		bin := relBin{
			Range:  fmt.Sprintf("%.1f–%.1f", b.Lower, b.Upper),
			Count:  b.Count,
			X:      round2(relX0 + b.Lower*relW + 1),
			W:      round2(max(w-2, 1)),
			LabelX: round2(relX0 + (b.Lower+b.Upper)/2*relW),
			LabelY: relY0 + relH + 13,
			Empty:  b.Count == 0 || b.MeanConfidence == nil || b.FractionTrue == nil,
		}
		if !bin.Empty {
			bin.MeanValue, bin.FracValue = *b.MeanConfidence, *b.FractionTrue
			bin.Mean = fmt.Sprintf("%.3f", bin.MeanValue)
			bin.Frac = pct(bin.FracValue)
			bin.H = round2(bin.FracValue * relH)
			bin.Y = round2(relY0 + relH - bin.H)
			bin.DotX = round2(relX0 + bin.MeanValue*relW)
			bin.DotY = bin.Y
			words = append(words, fmt.Sprintf("%s: %d cases, mean confidence %s, %s true", bin.Range, bin.Count, bin.Mean, bin.Frac))
		}
		ch.Bins = append(ch.Bins, bin)
	}
	for i := 0; i <= 4; i++ {
		f := float64(i) / 4
		ch.Ticks = append(ch.Ticks, relTick{
			Text: strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), "."),
			X:    round2(relX0 + f*relW), Y: relY0 + relH, LX: round2(relX0 + f*relW), LY: relY0 + relH + 27,
			YX: relX0, YY: round2(relY0 + relH - f*relH), YLX: relX0 - 5,
			GridX0: relX0, GridX1: relX0 + relW,
		})
	}
	if len(words) == 0 {
		words = []string{"no cases"}
	}
	ch.Desc = fmt.Sprintf("Reliability of %s over %d cases, ECE %s. Non-empty bins: %s.", id, ch.Cases, ch.ECE, strings.Join(words, "; "))
	return ch
}

// confusionView is the verdict × variant count table.
type confusionView struct {
	Variants []string
	Rows     []confusionRow
	Totals   []int
	Total    int
}

type confusionRow struct {
	Verdict string
	Cells   []confusionCell
	Total   int
}

// confusionCell is one count; Accepted marks a verdict the variant accepts,
// Level (0..4) its shade by its share of the column.
type confusionCell struct {
	Count    int
	Accepted bool
	Level    int
	Label    string // the cell in words, for screen readers
}

func confusion(cases []checkmatch.CaseRecord, variants []string) confusionView {
	verdicts := slices.Clone(checkmatch.VerdictLabels[:])
	for _, c := range cases {
		if !slices.Contains(verdicts, c.Verdict) {
			verdicts = append(verdicts, c.Verdict)
		}
	}
	counts := map[[2]string]int{}
	totals := map[string]int{}
	for _, c := range cases {
		counts[[2]string{c.Verdict, string(c.Variant)}]++
		totals[string(c.Variant)]++
	}
	cv := confusionView{Variants: variants, Total: len(cases)}
	for _, v := range variants {
		cv.Totals = append(cv.Totals, totals[v])
	}
	for _, verdict := range verdicts {
		row := confusionRow{Verdict: verdict}
		for _, v := range variants {
			n := counts[[2]string{verdict, v}]
			accepted := slices.Contains(checkmatch.ExpectedLabels(checkmatch.Variant(v)).Verdicts, verdict)
			level := 0
			if t := totals[v]; n > 0 && t > 0 {
				level = 1 + min(3, 4*n/t)
			}
			label := fmt.Sprintf("%d %s checks answered %s", n, v, verdict)
			if accepted {
				label += " (accepted)"
			}
			row.Cells = append(row.Cells, confusionCell{Count: n, Accepted: accepted, Level: level, Label: label})
			row.Total += n
		}
		cv.Rows = append(cv.Rows, row)
	}
	return cv
}

// barChart is accuracy by variant: one bar per variant with its interval.
type barChart struct {
	Rows []barRow
}

type barRow struct {
	Label       string
	Right, N    int
	Value       string  // "95.0%"
	Width       float64 // percent of the track
	HasInterval bool
	Lo, Hi      float64 // interval edges, percent of the track
	Span        float64 // Hi - Lo
	Interval    string  // "[76.4%, 99.1%]"
}

func accuracyChart(cases []checkmatch.CaseRecord, variants []string, iv intervals) barChart {
	var ch barChart
	for _, v := range variants {
		right, n := 0, 0
		for _, c := range cases {
			if string(c.Variant) == v {
				n++
				if c.Correct {
					right++
				}
			}
		}
		acc := float64(right) / float64(n)
		row := barRow{Label: v, Right: right, N: n, Value: pct(acc), Width: round2(100 * acc)}
		if rates, ok := iv.variant(v); ok && iv.err == nil && rates.Accuracy.Low != nil && rates.Accuracy.High != nil {
			lo, hi := *rates.Accuracy.Low, *rates.Accuracy.High
			row.HasInterval = true
			row.Lo, row.Hi = round2(100*lo), round2(100*hi)
			row.Span = round2(row.Hi - row.Lo)
			row.Interval = proportionText(rates.Accuracy, iv.level)
		}
		ch.Rows = append(ch.Rows, row)
	}
	return ch
}

// legibilityChart is the distribution of the most probable legibility
// level by variant, as stacked bars.
type legibilityChart struct {
	Levels []int
	Rows   []legRow
}

type legRow struct {
	Label    string
	Count    int
	Mean     string
	Segments []legSegment
	Counts   []int  // per level
	Text     string // the row in words
}

type legSegment struct {
	Level, Count int
	Left, Width  float64 // percent of the track
	Wide         bool    // wide enough to print its count inside
}

func legibility(m checkmatch.MetricsBlock, cases []checkmatch.CaseRecord, variants []string) legibilityChart {
	ch := legibilityChart{}
	for l := range checkmatch.LegibilityLevels {
		ch.Levels = append(ch.Levels, l)
	}
	recorded := map[string]checkmatch.ScoreSummary{}
	for _, e := range m.ScoreByVariant {
		recorded[e.Name] = e.Value
	}
	for _, v := range variants {
		s, ok := recorded[v]
		if !ok {
			// Not in the metrics block: count the cases' levels.
			s = checkmatch.ScoreSummary{Distribution: make(checkmatch.ByLevel[int], checkmatch.LegibilityLevels)}
			for _, c := range cases {
				if string(c.Variant) == v && c.LegibilityLevel >= 0 && c.LegibilityLevel < len(s.Distribution) {
					s.Distribution[c.LegibilityLevel]++
					s.Count++
				}
			}
		}
		row := legRow{Label: v, Count: s.Count, Mean: numOrNone(s.Mean, 2)}
		left := 0.0
		var words []string
		row.Counts = slices.Clone([]int(s.Distribution))
		for level, n := range s.Distribution {
			w := 0.0
			if s.Count > 0 {
				w = 100 * float64(n) / float64(s.Count)
			}
			if n > 0 {
				row.Segments = append(row.Segments, legSegment{Level: level, Count: n, Left: round2(left), Width: round2(w), Wide: w >= 9})
			}
			left += w
			words = append(words, fmt.Sprintf("level %d: %d", level, n))
		}
		row.Text = fmt.Sprintf("%s, %d checks: %s", v, s.Count, strings.Join(words, ", "))
		ch.Rows = append(ch.Rows, row)
	}
	return ch
}
