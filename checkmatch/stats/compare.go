package stats

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/receipt"
)

// SliceError is the error of [Compare] for two receipts of different
// slices: a paired comparison needs the same cases rendered to the same
// images.
type SliceError struct {
	// Fields names the slice pins that differ, e.g. "pins.slice_sha256",
	// "pins.register_rows".
	Fields []string
}

// Error names the fields: "the receipts judge different slices
// (pins.slice_sha256 differs); a paired comparison needs two runs of one
// slice: the same pins.slice_sha256".
func (e *SliceError) Error() string {
	verb := "differs"
	if len(e.Fields) > 1 {
		verb = "differ"
	}
	return fmt.Sprintf("the receipts judge different slices (%s %s); a paired comparison needs two runs of one slice: the same pins.slice_sha256",
		strings.Join(e.Fields, ", "), verb)
}

// SliceDifferences names the slice pins that differ between a and b:
// pins.slice_sha256, pins.generator_seed, pins.register_rows and
// pins.variants_per_row, in that order. Empty when both judged one slice:
// the slice digest covers every case and every image, so only then are
// their cases the same cases, whatever else differs. The renderer's pins
// (its module version, a "+dirty" build of the same code) are not the
// slice: when they differ but the digest is the same, the images are the
// same, and [IdentityDifferences] names them as notes.
func SliceDifferences(a, b checkmatch.Receipt) []string {
	var out []string
	pa, pb := a.Pins, b.Pins
	add := func(differ bool, name string) {
		if differ {
			out = append(out, name)
		}
	}
	add(pa.SliceSHA256 != pb.SliceSHA256, "pins.slice_sha256")
	add(pa.GeneratorSeed != pb.GeneratorSeed, "pins.generator_seed")
	add(pa.RegisterRows != pb.RegisterRows, "pins.register_rows")
	add(pa.VariantsPerRow != pb.VariantsPerRow, "pins.variants_per_row")
	return out
}

// rendererDifferences names the renderer pins that differ:
// pins.renderer when one receipt has it and the other not, else
// pins.renderer.<field> per differing field, and pins.pillow_version.
func rendererDifferences(pa, pb checkmatch.Pins) []string {
	var out []string
	ra, rb := pa.Renderer, pb.Renderer
	switch {
	case (ra == nil) != (rb == nil):
		out = append(out, "pins.renderer")
	case ra != nil:
		for _, f := range []struct {
			name string
			a, b string
		}{
			{"module", ra.Module, rb.Module}, {"module_version", ra.ModuleVersion, rb.ModuleVersion},
			{"font", ra.Font, rb.Font}, {"font_sha256", ra.FontSHA256, rb.FontSHA256},
			{"x_image_version", ra.XImageVersion, rb.XImageVersion}, {"blur", ra.Blur, rb.Blur}, {"png", ra.PNG, rb.PNG},
		} {
			if f.a != f.b {
				out = append(out, "pins.renderer."+f.name)
			}
		}
	}
	if pa.PillowVersion != pb.PillowVersion {
		out = append(out, "pins.pillow_version")
	}
	return out
}

// IdentityDifferences names every field outside the slice that differs
// between a and b, so that a confound is visible: backend, model,
// pins.model_revision, pins.concurrency, the renderer's pins
// (pins.renderer.module_version and the other fields of
// pins.renderer, or pins.renderer on one side only, and
// pins.pillow_version), pins.server.build_info,
// pins.server.backend_pin, identity.baseline_commit,
// identity.working_tree, identity.runtime.<field>, and
// identity.prompt_digests.<name>, identity.code_path_digests.<name> and
// identity.fixture_digests.<name> for each digest that differs or is on
// one side only. Names only: never a value. identity.run_id always
// differs between runs and is not listed. Empty when the runs are the same
// experiment.
func IdentityDifferences(a, b checkmatch.Receipt) []string {
	var out []string
	add := func(differ bool, name string) {
		if differ {
			out = append(out, name)
		}
	}
	add(a.Backend != b.Backend, "backend")
	add(a.Model != b.Model, "model")
	add(a.Pins.ModelRevision != b.Pins.ModelRevision, "pins.model_revision")
	add(a.Pins.Concurrency != b.Pins.Concurrency, "pins.concurrency")
	out = append(out, rendererDifferences(a.Pins, b.Pins)...)
	sa, sb := a.Pins.Server, b.Pins.Server
	add((sa == nil) != (sb == nil) || (sa != nil && sa.BuildInfo != sb.BuildInfo), "pins.server.build_info")
	add(sa != nil && sb != nil && !bytes.Equal(sa.BackendPin, sb.BackendPin), "pins.server.backend_pin")
	ia, ib := a.Identity, b.Identity
	add(ia.BaselineCommit != ib.BaselineCommit, "identity.baseline_commit")
	add(ia.WorkingTree.Dirty != ib.WorkingTree.Dirty || ia.WorkingTree.DirtyDigest != ib.WorkingTree.DirtyDigest, "identity.working_tree")
	ra, rb := ia.Runtime, ib.Runtime
	add(ra.Model != rb.Model, "identity.runtime.model")
	add(ra.ServedTemplate != rb.ServedTemplate, "identity.runtime.served_template")
	add(ra.ServerBuild != rb.ServerBuild, "identity.runtime.server_build")
	add(ra.TemplateIdentity != rb.TemplateIdentity, "identity.runtime.template_identity")
	add(ra.ProjectorIdentity != rb.ProjectorIdentity, "identity.runtime.projector_identity")
	add(ra.ConfigIdentity != rb.ConfigIdentity, "identity.runtime.config_identity")
	for _, d := range []struct {
		block string
		a, b  receipt.Digests
	}{
		{"identity.prompt_digests", ia.PromptDigests, ib.PromptDigests},
		{"identity.code_path_digests", ia.CodePathDigests, ib.CodePathDigests},
		{"identity.fixture_digests", ia.FixtureDigests, ib.FixtureDigests},
	} {
		for _, name := range receipt.DifferingNames(d.a, d.b) {
			out = append(out, d.block+"."+name)
		}
	}
	return out
}

// Difference is a paired difference B − A with its paired bootstrap
// interval.
type Difference struct {
	// A and B are the statistic over the paired cases of each receipt;
	// null when undefined.
	A *float64 `json:"a"`
	B *float64 `json:"b"`
	// Difference is B − A; null when either is.
	Difference *float64 `json:"difference"`
	// Low and High bound the percentile interval of B − A over resamples
	// of the pairs (one draw takes a pair, or every pair of a register
	// row, from both receipts at once); null when no resample defines it.
	Low  *float64 `json:"low"`
	High *float64 `json:"high"`
	// Defined is the number of resamples on which both sides are
	// defined.
	Defined int `json:"defined"`
}

// NoulDifferences are one Noul's paired differences: an entry of
// "differences.nouls", keyed by the Noul's question name.
type NoulDifferences struct {
	// ECE is the difference in expected calibration error (negative: B is
	// better calibrated).
	ECE Difference `json:"ece"`
	// ROCAUC is the difference in ROC-AUC (positive: B separates better).
	ROCAUC Difference `json:"roc_auc"`
}

// Differences are a comparison's paired differences.
type Differences struct {
	// Accuracy is the difference in accuracy.
	Accuracy Difference `json:"accuracy"`
	// FalseClearRate is the difference in false-clear rate.
	FalseClearRate Difference `json:"false_clear_rate"`
	// Nouls holds each Noul's differences, payee_matches then
	// amounts_match.
	Nouls receipt.Ordered[NoulDifferences] `json:"nouls"`
}

// Flips counts, for one variant, the pairs whose correctness changed: an
// entry of "flips_by_variant".
type Flips struct {
	// Pairs is the number of paired cases of the variant.
	Pairs int `json:"pairs"`
	// RightToWrong counts the pairs A got right and B wrong.
	RightToWrong int `json:"right_to_wrong"`
	// WrongToRight counts the pairs A got wrong and B right.
	WrongToRight int `json:"wrong_to_right"`
}

// Discordant is one pair whose correctness differs: an entry of
// "discordant".
type Discordant struct {
	// CaseID is the case id.
	CaseID string `json:"case_id"`
	// Variant is the case's variant.
	Variant string `json:"variant"`
	// AVerdict and BVerdict are the two verdicts.
	AVerdict string `json:"a_verdict"`
	BVerdict string `json:"b_verdict"`
	// ACorrect is true when A was right (so B was wrong).
	ACorrect bool `json:"a_correct"`
}

// Comparison is the paired comparison document of two receipts of one
// slice ([Compare]), written by examples/compare. Its fields, in order,
// are the document's keys:
//
//	{"schema": "typevet-go/check-match-comparison", "version": 2,
//	 "a": {…}, "b": {…}, "identity_differences": […], "pairs": 140,
//	 "unpaired_a": [], "unpaired_b": [], "bootstrap": {…},
//	 "mcnemar": {"b": 3, "c": 11, "p_value": 0.0574…, "mid_p_value": 0.0352…, "assumption": …},
//	 "row_test": {"method": "sign_flip_register_row", "rows": 20, …},
//	 "differences": {…}, "flips_by_variant": {…}, "discordant": […]}
type Comparison struct {
	// Schema is always [ComparisonSchema].
	Schema string `json:"schema"`
	// Version is [ComparisonVersion] (2).
	Version int `json:"version"`
	// A and B name the two receipts ([Source]), in the order given.
	A Source `json:"a"`
	B Source `json:"b"`
	// IdentityDifferences names the fields that differ between the runs
	// ([IdentityDifferences]): names only, never values. Empty when A and
	// B are the same experiment.
	IdentityDifferences []string `json:"identity_differences"`
	// Pairs is the number of paired cases: same case id and same
	// render_sha256 in both receipts.
	Pairs int `json:"pairs"`
	// UnpairedA and UnpairedB list the case ids of each receipt without a
	// partner (a run stopped early, or a render digest that differs), in
	// slice order. They are left out of everything below.
	UnpairedA []string `json:"unpaired_a"`
	UnpairedB []string `json:"unpaired_b"`
	// Bootstrap says how the paired intervals were drawn; units counts
	// pairs (or register rows).
	Bootstrap Bootstrap `json:"bootstrap"`
	// McNemar is the exact and mid-p two-sided McNemar test on verdict
	// correctness, case pairs taken as independent.
	McNemar McNemar `json:"mcnemar"`
	// RowTest is the paired test on verdict correctness over register
	// rows, whatever the bootstrap's cluster: rows taken as independent,
	// the pairs within a row as possibly correlated.
	RowTest RowTest `json:"row_test"`
	// Differences are the paired differences B − A with their intervals.
	Differences Differences `json:"differences"`
	// FlipsByVariant counts the flips per variant, in enum order, for the
	// variants present.
	FlipsByVariant receipt.Ordered[Flips] `json:"flips_by_variant"`
	// Discordant lists the pairs whose correctness differs, in A's order.
	Discordant []Discordant `json:"discordant"`
}

// Compare compares two receipts of one slice case by case. Receipts of
// different slices (another pins.slice_sha256) are a *[SliceError] naming
// the pins that differ; other pins that differ, the renderer's module
// version among them, are listed in IdentityDifferences. Each receipt is
// first checked against the receipt's rules ([checkmatch.Receipt.Validate]).
// Cases pair by case id and render digest; with no pair at all, or a
// record with an unknown variant or a confidence outside [0, 1], it is an
// error. One set of paired resamples (opts) serves every difference.
// Compare(a, a) has no discordant pairs, p = 1 and every difference 0.
func Compare(a, b checkmatch.Receipt, opts Options) (Comparison, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return Comparison{}, err
	}
	for _, r := range []struct {
		name string
		r    checkmatch.Receipt
	}{{"a", a}, {"b", b}} {
		if err := r.r.Validate(); err != nil {
			return Comparison{}, fmt.Errorf("receipt %s: %w", r.name, err)
		}
	}
	if d := SliceDifferences(a, b); len(d) > 0 {
		return Comparison{}, &SliceError{Fields: d}
	}
	for _, r := range []checkmatch.Receipt{a, b} {
		if err := checkConfidences(r.Cases); err != nil {
			return Comparison{}, err
		}
	}
	cmp := Comparison{
		Schema:              ComparisonSchema,
		Version:             ComparisonVersion,
		A:                   NewSource(a),
		B:                   NewSource(b),
		IdentityDifferences: IdentityDifferences(a, b),
		UnpairedA:           []string{},
		UnpairedB:           []string{},
		FlipsByVariant:      receipt.Ordered[Flips]{},
		Discordant:          []Discordant{},
	}
	if cmp.IdentityDifferences == nil {
		cmp.IdentityDifferences = []string{}
	}
	// Pair by case id and render digest, in A's order.
	type key struct{ id, render string }
	inB := make(map[key]int, len(b.Cases))
	for i, c := range b.Cases {
		inB[key{c.CaseID, c.RenderSHA256}] = i
	}
	var ra, rb []checkmatch.CaseRecord
	paired := make(map[int]bool, len(b.Cases))
	for _, c := range a.Cases {
		j, ok := inB[key{c.CaseID, c.RenderSHA256}]
		if !ok || paired[j] {
			cmp.UnpairedA = append(cmp.UnpairedA, c.CaseID)
			continue
		}
		paired[j] = true
		ra, rb = append(ra, c), append(rb, b.Cases[j])
	}
	for j, c := range b.Cases {
		if !paired[j] {
			cmp.UnpairedB = append(cmp.UnpairedB, c.CaseID)
		}
	}
	if len(ra) == 0 {
		return Comparison{}, errors.New("compare: no case pairs with the same case id and render digest")
	}
	cmp.Pairs = len(ra)
	fa, err := recordFacts(ra)
	if err != nil {
		return Comparison{}, fmt.Errorf("receipt a: %w", err)
	}
	fb, err := recordFacts(rb)
	if err != nil {
		return Comparison{}, fmt.Errorf("receipt b: %w", err)
	}

	flips := map[string]*Flips{}
	for i := range ra {
		v := fa[i].variant
		if flips[v] == nil {
			flips[v] = &Flips{}
		}
		f := flips[v]
		f.Pairs++
		switch {
		case fa[i].correct && !fb[i].correct:
			cmp.McNemar.B++
			f.RightToWrong++
		case !fa[i].correct && fb[i].correct:
			cmp.McNemar.C++
			f.WrongToRight++
		default:
			continue
		}
		cmp.Discordant = append(cmp.Discordant, Discordant{
			CaseID: ra[i].CaseID, Variant: v, AVerdict: ra[i].Verdict, BVerdict: rb[i].Verdict, ACorrect: fa[i].correct,
		})
	}
	for _, v := range checkmatch.Variants() {
		if f := flips[string(v)]; f != nil {
			cmp.FlipsByVariant = append(cmp.FlipsByVariant, receipt.Entry[Flips]{Name: string(v), Value: *f})
		}
	}
	if cmp.McNemar.PValue, err = McNemarExact(cmp.McNemar.B, cmp.McNemar.C); err != nil {
		return Comparison{}, err
	}
	if cmp.McNemar.MidPValue, err = McNemarMidP(cmp.McNemar.B, cmp.McNemar.C); err != nil {
		return Comparison{}, err
	}
	cmp.McNemar.Assumption = AssumeCases
	cmp.RowTest = rowTest(fa, fb)

	us, err := units(caseIDs(ra), opts.Cluster)
	if err != nil {
		return Comparison{}, err
	}
	cmp.Bootstrap = newBootstrap(opts, len(us))
	// Statistics, each once for A and once for B: accuracy, false-clear
	// rate, then ECE and ROC-AUC of each Noul.
	k := 2 + 2*len(nouls)
	pairStats := func(sa, sb []*noulScorer, idx []int, out []*float64) {
		ta, tb := countShares(fa, idx), countShares(fb, idx)
		out[0] = diff(ta.accuracy(), tb.accuracy())
		out[1] = diff(ta.falseClear(), tb.falseClear())
		for n := range nouls {
			aucA, eceA := sa[n].score(idx)
			aucB, eceB := sb[n].score(idx)
			out[2+2*n], out[3+2*n] = diff(eceA, eceB), diff(aucA, aucB)
		}
	}
	boot, err := resampleUnits(us, k, opts, func() statFunc {
		sa, sb := scorers(ra), scorers(rb)
		return func(idx []int, out []*float64) { pairStats(sa, sb, idx, out) }
	})
	if err != nil {
		return Comparison{}, err
	}
	everything := all(len(ra))
	ta, tb := countShares(fa, everything), countShares(fb, everything)
	mk := func(s int, va, vb *float64) Difference {
		return Difference{A: va, B: vb, Difference: diff(va, vb), Low: boot[s].Low, High: boot[s].High, Defined: boot[s].Defined}
	}
	cmp.Differences.Accuracy = mk(0, ta.accuracy(), tb.accuracy())
	cmp.Differences.FalseClearRate = mk(1, ta.falseClear(), tb.falseClear())
	cmp.Differences.Nouls = receipt.Ordered[NoulDifferences]{}
	for n, nl := range nouls {
		sa, err := checkmatch.SummarizeNoul(noulValues(ra, n))
		if err != nil {
			return Comparison{}, err
		}
		sb, err := checkmatch.SummarizeNoul(noulValues(rb, n))
		if err != nil {
			return Comparison{}, err
		}
		cmp.Differences.Nouls = append(cmp.Differences.Nouls, receipt.Entry[NoulDifferences]{Name: nl.name, Value: NoulDifferences{
			ECE:    mk(2+2*n, sa.ECE, sb.ECE),
			ROCAUC: mk(3+2*n, sa.ROCAUC, sb.ROCAUC),
		}})
	}
	return cmp, nil
}

// diff is b − a, nil when either is.
func diff(a, b *float64) *float64 {
	if a == nil || b == nil {
		return nil
	}
	d := *b - *a
	return &d
}

// rowTest is the register-row paired test of the pairs (fa[i], fb[i]).
func rowTest(fa, fb []facts) RowTest {
	net := map[string]int{}
	var rows []string
	for i := range fa {
		row := fa[i].row
		if _, ok := net[row]; !ok {
			rows = append(rows, row)
		}
		net[row] += boolInt(fb[i].correct) - boolInt(fa[i].correct)
	}
	t := RowTest{Method: "sign_flip_register_row", Rows: len(rows), Assumption: AssumeRows}
	d := make([]int, len(rows))
	for k, row := range rows {
		d[k] = net[row]
		t.NetChange += d[k]
		if d[k] != 0 {
			t.DiscordantRows++
		}
	}
	t.PValue = SignFlipTest(d)
	return t
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
