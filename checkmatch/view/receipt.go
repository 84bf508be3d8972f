package view

import (
	"bytes"
	"fmt"
	"image/png"
	"slices"
	"strconv"
	"strings"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/stats"
)

// receiptView is everything the page of one receipt shows.
type receiptView struct {
	Index       int
	Page, Title string
	Name        string
	SHA256      string
	Model       string
	Backend     string
	Summary     []field
	Stopped     []field
	Headline    []metricView
	Intervals   string // the intervals note, "" when intervals are shown
	Reliability []reliabilityChart
	Confusion   confusionView
	Accuracy    barChart
	Legibility  legibilityChart
	Variants    []string
	Cases       []caseRow
	Images      string // how many images were reproduced, and why not
	Reason      string // why images were not reproducible; "" when all were
	Questions   []questionView
	// The case table is paged: PageCases are the cases of the page being
	// written, the First-th case on; CasePages link every page.
	PageCases   []caseRow
	First, Last int
	CasePages   []link
	report      ReceiptReport
	byID        map[string]*caseRow
}

// field is one labelled value of a summary list. Code values are shown in
// a monospace font; Title, when set, is the full value of a shortened one.
type field struct {
	Label, Value, Title string
	Code                bool
}

// metricView is one headline metric.
type metricView struct {
	Name     string
	Value    string // the recorded value, e.g. "92.9%"
	Count    string // e.g. "130 of 140"
	Interval string // e.g. "95% Wilson [87.4%, 96.1%]", "" when none
	Note     string // what the metric counts
}

// caseRow is one row of the case table.
type caseRow struct {
	ID, Variant   string
	Expected      string
	Verdict       string
	Correct       bool
	FalseClear    bool
	CannotTell    bool
	Verdicts      []probBar
	Payee         string
	PayeeTruth    bool
	Amounts       string
	AmountsTruth  bool
	Legibility    string // "4 (3.99)"
	Latency       string
	Tokens        string
	Agreement     string
	LegibilityPs  string
	RenderSHA256  string
	Image         *imageView
	NotReproduced string // the reason, when the image is not shown
	// Register is the register row the case was judged against and State
	// the request's state text about it; nil and "" for a case outside
	// the slice.
	Register *registerView
	State    string
}

// imageView is a shown check image.
type imageView struct {
	Src, Alt string
	W, H     int
	Note     string // e.g. "half-scale view of the judged PNG"
	// Full is the judged PNG at full resolution (Src itself with
	// Options.FullImages); FullW and FullH are its size.
	Full         string
	FullW, FullH int
}

// probBar is one bar of a verdict distribution.
type probBar struct {
	Label    string
	P        string  // e.g. "0.9871"
	Width    float64 // the bar's width in percent of its track
	Chosen   bool
	Accepted bool
}

// receiptView builds the view of input in, the index-th receipt of the
// site, whose page is page.
func (b *builder) receiptView(index int, page string, in Input, iv intervals) *receiptView {
	r := in.Receipt
	v := &receiptView{
		Index:     index,
		Page:      page,
		Name:      in.Name,
		SHA256:    in.SHA256,
		Model:     r.Model,
		Backend:   string(r.Backend),
		byID:      map[string]*caseRow{},
		Questions: b.questions,
	}
	v.Title = fmt.Sprintf("%s: %s on %s", in.Name, r.Model, r.Backend)
	v.Summary = summary(in)
	if s := r.Stopped; s != nil {
		v.Stopped = []field{
			{Label: "Failed case", Value: fmt.Sprintf("%s (index %d)", s.CaseID, s.Index), Code: true},
			{Label: "Error class", Value: s.ErrorClass, Code: true},
			{Label: "Message", Value: s.Message},
			{Label: "Discarded in flight", Value: strconv.Itoa(s.Discarded)},
		}
	}
	v.Headline = headline(r, iv)
	v.Intervals = iv.note()
	v.Reliability = []reliabilityChart{
		reliability("payee_matches", "P(payee matches)", r.Metrics.Nouls.PayeeMatches),
		reliability("amounts_match", "P(amounts match)", r.Metrics.Nouls.AmountsMatch),
	}
	if in.Calibration != nil {
		v.Reliability = calibratedReliability(r, in.Calibration, v.Reliability)
	}
	v.Variants = variantsOf(r.Cases)
	v.Confusion = confusion(r.Cases, v.Variants)
	v.Accuracy = accuracyChart(r.Cases, v.Variants, iv)
	v.Legibility = legibility(r.Metrics, r.Cases, v.Variants)

	slice := b.renders[sliceKey{r.Pins.GeneratorSeed, r.Pins.RegisterRows}]
	reason := ""
	v.report = ReceiptReport{Name: in.Name, Page: page, Cases: len(r.Cases)}
	// One register view and state text per row, shared by its cases.
	type registerOf struct {
		view  *registerView
		state string
	}
	regs := map[int]registerOf{}
	for _, rec := range r.Cases {
		row := caseView(rec)
		if !rec.Correct {
			v.report.Wrong++
		}
		rend, ok := slice[rec.CaseID]
		if ok {
			reg, seen := regs[rend.c.Row.Index]
			if !seen {
				reg = registerOf{newRegisterView(rend.c.Row), checkmatch.State(rend.c.Row)}
				regs[rend.c.Row.Index] = reg
			}
			row.Register, row.State = reg.view, reg.state
		}
		if ok && rend.sha256 == rec.RenderSHA256 {
			f := b.image(rend)
			row.Image = b.imageView(f, rec)
			v.report.Reproduced++
		} else {
			v.report.NotReproducible++
			switch {
			case !ok:
				row.NotReproduced = fmt.Sprintf("case %s is not in the slice of seed %d with %d rows", rec.CaseID, r.Pins.GeneratorSeed, r.Pins.RegisterRows)
			default:
				if reason == "" {
					reason = rendererReason(r.Pins)
				}
				row.NotReproduced = "the render made here has SHA-256 " + rend.sha256[:12] + "…, the receipt " + short(rec.RenderSHA256)
			}
		}
		v.Cases = append(v.Cases, row)
	}
	for i := range v.Cases {
		v.byID[v.Cases[i].ID] = &v.Cases[i]
	}
	v.Reason = reason
	v.report.Reason = reason
	v.Images = imagesNote(v.report, b.opts)
	return v
}

// imagesNote says how many images are shown and how.
func imagesNote(rep ReceiptReport, opts Options) string {
	var s string
	switch {
	case rep.Reproduced == rep.Cases:
		s = fmt.Sprintf("Every one of the %d check images was re-rendered here from the seed and case id, and its SHA-256 equals the receipt's render_sha256.", rep.Cases)
	case rep.Reproduced == 0:
		s = fmt.Sprintf("None of the %d check images could be re-rendered here with the receipt's render_sha256, so none is shown.", rep.Cases)
	default:
		s = fmt.Sprintf("%d of the %d check images were re-rendered here with the receipt's render_sha256; the other %d are not shown.", rep.Reproduced, rep.Cases, rep.NotReproducible)
	}
	if rep.Reproduced > 0 {
		if opts.FullImages {
			s += " Each image file is the judged PNG byte for byte."
		} else {
			s += " Each is shown at half scale, every pixel the mean of 2×2 judged pixels (lossless PNG)."
		}
	}
	return s
}

// imageView returns the view of a reproduced image of rec.
func (b *builder) imageView(f *imageFile, rec checkmatch.CaseRecord) *imageView {
	if f.w == 0 {
		if cfg, err := png.DecodeConfig(bytes.NewReader(f.png)); err == nil {
			f.w, f.h = cfg.Width, cfg.Height
		}
	}
	iv := &imageView{Src: f.path, W: f.w, H: f.h, Note: "judged PNG", Full: f.fullPath, FullW: f.w, FullH: f.h}
	if !b.opts.FullImages {
		iv.W, iv.H, iv.Note = f.w/2, f.h/2, "half-scale view of the judged PNG"
	}
	iv.Alt = fmt.Sprintf("Check %s as judged (re-rendered, SHA-256 verified)", rec.CaseID)
	return iv
}

// summary is the receipt's summary list.
func summary(in Input) []field {
	r := in.Receipt
	p := r.Pins
	var fs []field
	add := func(label, value string, code bool) {
		fs = append(fs, field{Label: label, Value: value, Code: code})
	}
	addShort := func(label, value string) {
		fs = append(fs, field{Label: label, Value: short(value), Title: value, Code: true})
	}
	if in.SHA256 != "" {
		addShort("Receipt SHA-256", in.SHA256)
	}
	add("Model", r.Model, true)
	add("Backend", string(r.Backend), true)
	add("Server", serverText(p), false)
	if p.ModelRevision != "" {
		addShort("Model revision", p.ModelRevision)
	}
	add("Slice", fmt.Sprintf("%s, seed %d, %d rows × %d variants", p.Dataset, p.GeneratorSeed, p.RegisterRows, p.VariantsPerRow), false)
	addShort("Slice SHA-256", p.SliceSHA256)
	add("Renderer", rendererText(p), false)
	id := r.Identity
	tree := "clean"
	if id.WorkingTree.Dirty {
		tree = fmt.Sprintf("dirty (%d paths)", len(id.WorkingTree.DirtyPaths))
	}
	fs = append(fs, field{Label: "Git baseline", Value: short(id.BaselineCommit) + ", working tree " + tree, Title: id.BaselineCommit, Code: true})
	addShort("Identity digest", id.IdentityDigest)
	add("Finished", p.FinishedUTC, true)
	add("Wall time", duration(r.WallSeconds), false)
	add("Throughput", throughputText(r), false)
	if tp := r.Throughput; tp != nil {
		l := tp.LatencySeconds
		add("Latency per judgment", fmt.Sprintf("p50 %s, p95 %s, p99 %s over %d", secondsOrNone(l.P50), secondsOrNone(l.P95), secondsOrNone(l.P99), l.N), false)
	}
	if r.ServerArgs != nil && r.ServerArgs.CallerStated != nil {
		add("Stated server args", *r.ServerArgs.CallerStated, true)
	}
	return fs
}

func serverText(p checkmatch.Pins) string {
	s := p.Server
	if s == nil {
		return "none (no server was asked)"
	}
	var ids []string
	for _, m := range s.Served {
		ids = append(ids, m.ID)
	}
	text := "build " + s.BuildInfo
	if len(ids) > 0 {
		text += ", serving " + strings.Join(ids, ", ")
	}
	if len(s.BackendPin) > 0 {
		text += " (offline backend, pinned)"
	}
	return text
}

func rendererText(p checkmatch.Pins) string {
	switch {
	case p.Renderer != nil:
		r := p.Renderer
		v := r.ModuleVersion
		if v == "" {
			v = "no version"
		}
		return fmt.Sprintf("Go renderer %s %s, %s, golang.org/x/image %s", r.Module, v, r.Font, r.XImageVersion)
	case p.PillowVersion != "":
		return "Pillow " + p.PillowVersion + " (typevet)"
	}
	return "not pinned"
}

func throughputText(r checkmatch.Receipt) string {
	if tp := r.Throughput; tp != nil {
		if tp.JudgmentsPerSecond == nil {
			return fmt.Sprintf("%d judgments at concurrency %d", tp.Judgments, tp.Concurrency)
		}
		return fmt.Sprintf("%.3g judgments/s, %d judgments at concurrency %d", *tp.JudgmentsPerSecond, tp.Judgments, tp.Concurrency)
	}
	if r.WallSeconds > 0 {
		return fmt.Sprintf("not recorded; %d cases in %s is %.3g cases/s", len(r.Cases), duration(r.WallSeconds), float64(len(r.Cases))/r.WallSeconds)
	}
	return "not recorded"
}

// headline returns the headline metrics: the recorded values with the
// counts behind them and their intervals (package checkmatch/stats).
func headline(r checkmatch.Receipt, iv intervals) []metricView {
	m := r.Metrics
	n := len(r.Cases)
	right, cannot, cleared, counted := 0, 0, 0, 0
	agree, agreeCounted := 0, 0
	for _, c := range r.Cases {
		if c.Correct {
			right++
		}
		if c.Verdict == checkmatch.VerdictCannotTell {
			cannot++
		}
		if countsForFalseClear(c) {
			counted++
			if c.Verdict == checkmatch.VerdictConsistent {
				cleared++
			}
		}
		if a := c.NoulChoiceAgreement; a != nil {
			agreeCounted++
			if *a {
				agree++
			}
		}
	}
	level := iv.level
	share := func(name string, value *float64, k, n int, p stats.Proportion, note string) metricView {
		mv := metricView{Name: name, Value: pctOrNone(value), Count: fmt.Sprintf("%d of %d", k, n), Note: note}
		if iv.err == nil {
			mv.Interval = proportionText(p, level)
		}
		return mv
	}
	o := iv.doc.Overall
	out := []metricView{
		share("Accuracy", m.Accuracy, right, n, o.Accuracy, "verdicts among the accepted ones"),
		share("False-clear rate", m.FalseClearRate, cleared, counted, o.FalseClearRate, "mismatch and unsigned checks answered consistent"),
		share("cannot_tell rate", m.CannotTellRate, cannot, n, o.CannotTellRate, "verdicts that were cannot_tell"),
	}
	agreement := metricView{Name: "Noul–Choice agreement", Value: pctOrNone(m.NoulChoiceAgreement.Rate), Count: fmt.Sprintf("%d of %d", agree, agreeCounted), Note: "verdicts agreeing with both Nouls (cannot_tell not counted)"}
	if iv.err == nil {
		agreement.Interval = wilsonText(agree, agreeCounted, level)
	}
	out = append(out, agreement)
	for _, nl := range []struct {
		name string
		s    checkmatch.NoulSummary
	}{{"payee_matches", m.Nouls.PayeeMatches}, {"amounts_match", m.Nouls.AmountsMatch}} {
		auc := metricView{Name: "ROC-AUC " + nl.name, Value: numOrNone(nl.s.ROCAUC, 3), Count: fmt.Sprintf("%d true, %d false", nl.s.Positives, nl.s.Negatives), Note: "ranking of the Noul confidence against the truth"}
		ece := metricView{Name: "ECE " + nl.name, Value: numOrNone(nl.s.ECE, 3), Count: fmt.Sprintf("%d cases, %d bins", nl.s.Positives+nl.s.Negatives, len(nl.s.Reliability)), Note: "expected calibration error over the reliability bins"}
		if ni, ok := iv.noul(nl.name); ok && iv.err == nil {
			auc.Interval = estimateText(ni.ROCAUC, level, iv.doc.Bootstrap.Resamples)
			ece.Interval = estimateText(ni.ECE, level, iv.doc.Bootstrap.Resamples)
		}
		out = append(out, auc, ece)
	}
	out = append(out,
		metricView{Name: "Legibility gap", Value: numOrNone(m.LegibilityGapCleanMinusLow, 2), Note: "mean legibility score of clean minus low_legibility checks"},
		metricView{Name: "Mean latency", Value: secondsOrNone(m.MeanLatencySeconds), Count: fmt.Sprintf("%d judgments", n), Note: "client wall time per judgment"},
	)
	return out
}

// countsForFalseClear reports whether a case counts for the false-clear
// rate: its variant's flag is set and consistent is not accepted.
func countsForFalseClear(c checkmatch.CaseRecord) bool {
	return checkmatch.ExpectedLabels(c.Variant).CountsForFalseClear && !slices.Contains(c.ExpectedVerdicts, checkmatch.VerdictConsistent)
}

// variantsOf returns the variants of cases: the known ones in enum order,
// then any others in order of first appearance.
func variantsOf(cases []checkmatch.CaseRecord) []string {
	seen := map[string]bool{}
	for _, c := range cases {
		seen[string(c.Variant)] = true
	}
	var out []string
	for _, v := range checkmatch.Variants() {
		if seen[string(v)] {
			out = append(out, string(v))
			delete(seen, string(v))
		}
	}
	for _, c := range cases {
		if seen[string(c.Variant)] {
			out = append(out, string(c.Variant))
			delete(seen, string(c.Variant))
		}
	}
	return out
}

// caseView is the table row of one case record (image not yet set).
func caseView(c checkmatch.CaseRecord) caseRow {
	row := caseRow{
		ID:           c.CaseID,
		Variant:      string(c.Variant),
		Expected:     strings.Join(c.ExpectedVerdicts, " or "),
		Verdict:      c.Verdict,
		Correct:      c.Correct,
		FalseClear:   countsForFalseClear(c) && c.Verdict == checkmatch.VerdictConsistent,
		CannotTell:   c.Verdict == checkmatch.VerdictCannotTell,
		Payee:        fmt.Sprintf("%.4f", c.PayeeConfidence),
		PayeeTruth:   c.PayeeTruth,
		Amounts:      fmt.Sprintf("%.4f", c.AmountsConfidence),
		AmountsTruth: c.AmountsTruth,
		Legibility:   fmt.Sprintf("%d (%.2f)", c.LegibilityLevel, c.LegibilityScore),
		Latency:      seconds(c.LatencySeconds),
		Tokens:       "not reported",
		Agreement:    "not counted (cannot_tell)",
		RenderSHA256: c.RenderSHA256,
	}
	if c.InputTokens != nil {
		row.Tokens = strconv.Itoa(*c.InputTokens)
	}
	if a := c.NoulChoiceAgreement; a != nil {
		row.Agreement = map[bool]string{true: "agrees", false: "disagrees"}[*a]
	}
	var ps []string
	for i, p := range c.LegibilityProbabilities {
		ps = append(ps, fmt.Sprintf("%d: %.4f", i, p))
	}
	row.LegibilityPs = strings.Join(ps, ", ")
	row.Verdicts = verdictBars(c)
	return row
}

// verdictBars lists the verdict distribution in the six labels' option
// order (labels a backend returned outside them follow).
func verdictBars(c checkmatch.CaseRecord) []probBar {
	probs := map[string]float64{}
	var order []string
	order = append(order, checkmatch.VerdictLabels[:]...)
	for _, e := range c.VerdictProbabilities {
		probs[e.Label] = e.P
		if !slices.Contains(order, e.Label) {
			order = append(order, e.Label)
		}
	}
	bars := make([]probBar, 0, len(order))
	for _, l := range order {
		p := probs[l]
		bars = append(bars, probBar{
			Label:    l,
			P:        fmt.Sprintf("%.4f", p),
			Width:    round2(max(p*100, 0)),
			Chosen:   l == c.Verdict,
			Accepted: slices.Contains(c.ExpectedVerdicts, l),
		})
	}
	return bars
}
