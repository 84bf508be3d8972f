package checkmatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/typevet/typevet-go/checkmatch/internal/lines"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/evalrun"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
)

// journalKind is the [journal.Header] kind of a check-match run.
const journalKind = "check_match"

// journalCase is one line of a check-match run's journal: a finished case
// at full precision (the unrounded latency and probabilities its receipt
// record is built from), how many attempts it took, and when it finished.
// The case's variant and expected labels are not stored: they follow from
// the slice, which the journal header pins.
type journalCase struct {
	// Index is the case's slice index.
	Index int `json:"index"`
	// CaseID is the case id, checked against the slice on resume.
	CaseID string `json:"case_id"`
	// Attempts is the number of judgment calls the case took (1 without a
	// retry).
	Attempts int `json:"attempts"`
	// Part numbers the run that judged the case: 1 for the first, one
	// more for each resume.
	Part int `json:"part"`
	// FinishedSeconds is the part's wall clock when the case finished,
	// from the part's start: the latest one is the part's wall time as far
	// as its finished cases show (a killed part writes nothing at its end).
	FinishedSeconds float64 `json:"finished_seconds"`
	// Verdict and the fields after it are [Outcome]'s, unrounded.
	Verdict                 string                 `json:"verdict"`
	VerdictProbabilities    judgment.Probabilities `json:"verdict_probabilities"`
	PayeeConfidence         float64                `json:"payee_confidence"`
	AmountsConfidence       float64                `json:"amounts_confidence"`
	LegibilityScore         float64                `json:"legibility_score"`
	LegibilityLevel         int                    `json:"legibility_level"`
	LegibilityProbabilities []float64              `json:"legibility_probabilities"`
	RenderSHA256            string                 `json:"render_sha256"`
	Latency                 float64                `json:"latency"`
	InputTokens             *int                   `json:"input_tokens"`
}

// newJournalCase returns the journal line of outcome o of case index i.
func newJournalCase(i int, o Outcome, attempts, part int, finished float64) journalCase {
	return journalCase{
		Index: i, CaseID: o.CaseID, Attempts: attempts, Part: part, FinishedSeconds: finished,
		Verdict: o.Verdict, VerdictProbabilities: o.VerdictProbabilities,
		PayeeConfidence: o.PayeeConfidence, AmountsConfidence: o.AmountsConfidence,
		LegibilityScore: o.LegibilityScore, LegibilityLevel: o.LegibilityLevel,
		LegibilityProbabilities: o.LegibilityProbabilities, RenderSHA256: o.RenderSHA256,
		Latency: o.Latency, InputTokens: o.InputTokens,
	}
}

// outcome rebuilds the case's [Outcome] from the slice's request.
func (c journalCase) outcome(req Request) Outcome {
	return Outcome{
		CaseID: c.CaseID, Variant: req.Case.Variant, Expected: req.Case.Expected,
		Verdict: c.Verdict, VerdictProbabilities: c.VerdictProbabilities,
		PayeeConfidence: c.PayeeConfidence, AmountsConfidence: c.AmountsConfidence,
		LegibilityScore: c.LegibilityScore, LegibilityLevel: c.LegibilityLevel,
		LegibilityProbabilities: c.LegibilityProbabilities, RenderSHA256: c.RenderSHA256,
		Latency: c.Latency, InputTokens: c.InputTokens,
	}
}

// journalHeader returns the identity line of a check-match run of slice at
// concurrency with c: everything its receipt pins that decides the
// answers, in this order: backend, model, served_template,
// generator_seed, register_rows, variants_per_row, slice_sha256,
// renderer, pins.server, model_revision, each prompt_digests.<question>,
// each code_path_digests.<path>, baseline_commit, working_tree,
// concurrency and identity_digest (the receipt's identity digest with
// arm_call_counts {"judgments": every case of the slice}, so it does not
// change as cases finish). [journal.Header.Check] names the first that
// differs, so the specific pin comes before the digest over them all.
func journalHeader(c RunContext, slice Slice, concurrency int) (journal.Header, error) {
	pins := c.Pins(slice, concurrency)
	id := c.Identity(receipt.Counts{{Name: "judgments", Value: len(slice.Requests)}}, nil)
	named := pinList{
		{"backend", c.Backend}, {"model", c.Model}, {"served_template", c.ServedTemplate},
		{"generator_seed", pins.GeneratorSeed}, {"register_rows", pins.RegisterRows},
		{"variants_per_row", pins.VariantsPerRow}, {"slice_sha256", pins.SliceSHA256},
		{"renderer", pins.Renderer}, {"pins.server", pins.Server}, {"model_revision", pins.ModelRevision},
	}
	named = named.identity(id)
	named = append(named, namedPin{"concurrency", concurrency}, namedPin{"identity_digest", id.IdentityDigest})
	return named.header(journalKind)
}

// namedPin is one pin of a journal header before it is marshalled.
type namedPin struct {
	name string
	v    any
}

// pinList is a journal header's pins in order.
type pinList []namedPin

// identity appends id's prompt and code digests, baseline commit and
// working tree, the pins every run kind shares.
func (l pinList) identity(id receipt.Identity) pinList {
	for _, d := range id.PromptDigests {
		l = append(l, namedPin{"prompt_digests." + d.Name, d.Value})
	}
	for _, d := range id.CodePathDigests {
		l = append(l, namedPin{"code_path_digests." + d.Name, d.Value})
	}
	return append(l, namedPin{"baseline_commit", id.BaselineCommit}, namedPin{"working_tree", id.WorkingTree})
}

// header marshals the pins into a header of kind.
func (l pinList) header(kind string) (journal.Header, error) {
	h := journal.Header{Kind: kind}
	for _, n := range l {
		p, err := journal.NewPin(n.name, n.v)
		if err != nil {
			return journal.Header{}, err
		}
		h.Pins = append(h.Pins, p)
	}
	return h, nil
}

// Journal is the journal of one part of a check-match run or of a study
// (such as the option-order study of package checkmatch/orderings): the
// cases earlier parts finished (read on resume) and the writer the run
// appends to. Pass a check-match run's journal (header
// [ShardJournalHeader]) as [RunOptions].Journal to [Run]; a study reads
// and writes its own lines with [Journal.Line] and [Journal.Record] and
// refuses a journal of another [Journal.Kind]. Its methods are safe for
// concurrent use.
type Journal struct {
	w        *journal.Writer
	kind     string
	part     int
	finished map[int]journalCase // a check-match run's cases
	study    map[int]lines.Raw   // a study's cases, as its journal holds them
	prior    float64             // wall seconds of the earlier parts
	torn     *journal.Torn
	warnings []*journal.MismatchError // advisory pins that differ on resume
	added    atomic.Int64             // cases this part recorded
}

// CreateJournal creates the journal of a new run at path with header h
// ([ShardJournalHeader], with the zero Shard for a whole run, or a
// study's header, such as orderings.JournalHeader). An existing file is refused
// (errors.Is(err, fs.ErrExist) holds).
func CreateJournal(path string, h journal.Header) (*Journal, error) {
	w, err := journal.Create(path, h)
	if err != nil {
		return nil, err
	}
	return &Journal{w: w, kind: h.Kind, part: 1, finished: map[int]journalCase{}, study: map[int]lines.Raw{}}, nil
}

// checkCaseLine checks a check-match line's values by the rules every
// outcome a run records keeps: the verdict one of the six labels and the
// most probable of its distribution (ties to the first), that
// distribution one probability per label in [0, 1] summing to 1, the two
// confidences and every legibility probability in [0, 1], the legibility
// probabilities one per level summing to 1 with legibility_level their
// most probable level and legibility_score their expected level, the
// latency a time from 0 to a year, attempts at least 1 and input_tokens
// not negative. A line that breaks one was changed after it was written.
func checkCaseLine(jc journalCase, c Case) error {
	o := jc.outcome(Request{Case: c})
	if err := checkVerdict(o.Verdict); err != nil {
		return err
	}
	if jc.Attempts < 1 {
		return fmt.Errorf("attempts %d is below 1", jc.Attempts)
	}
	if err := lines.Seconds("latency", jc.Latency); err != nil {
		return err
	}
	if t := jc.InputTokens; t != nil && *t < 0 {
		return fmt.Errorf("input_tokens %d is negative", *t)
	}
	vp := jc.VerdictProbabilities
	labels := make([]string, len(vp))
	ps := make([]float64, len(vp))
	for k, p := range vp {
		labels[k], ps[k] = p.Label, p.P
	}
	if len(vp) != len(VerdictLabels) || !sameSet(labels, VerdictLabels[:]) {
		return fmt.Errorf("verdict_probabilities labels %q are not the six verdict labels", labels)
	}
	if err := distribution("verdict_probabilities", ps); err != nil {
		return err
	}
	if top := labels[firstMax(ps)]; top != jc.Verdict {
		return fmt.Errorf("verdict %q is not the most probable label (%q)", jc.Verdict, top)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"payee_confidence", jc.PayeeConfidence}, {"amounts_confidence", jc.AmountsConfidence}} {
		if !(c.v >= 0 && c.v <= 1) {
			return fmt.Errorf("%s %v is not a probability", c.name, c.v)
		}
	}
	lp := jc.LegibilityProbabilities
	if len(lp) != LegibilityLevels {
		return errors.New("legibility probabilities are not one per level")
	}
	if err := distribution("legibility_probabilities", lp); err != nil {
		return err
	}
	if lvl := firstMax(lp); jc.LegibilityLevel != lvl {
		return fmt.Errorf("legibility_level %d is not the most probable level (%d)", jc.LegibilityLevel, lvl)
	}
	want := 0.0
	for k, p := range lp {
		want += float64(k) * p
	}
	if math.Abs(want-jc.LegibilityScore) > 1e-6 {
		return fmt.Errorf("legibility_score %v is not the expected level of its probabilities (%v)", jc.LegibilityScore, want)
	}
	return nil
}

// distribution refuses ps unless each is in [0, 1] and they sum to 1
// (within 1e-6).
func distribution(name string, ps []float64) error {
	sum := 0.0
	for _, p := range ps {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("%s holds %v, not a probability", name, p)
		}
		sum += p
	}
	if math.Abs(sum-1) > 1e-6 {
		return fmt.Errorf("%s sum to %v, not 1", name, sum)
	}
	return nil
}

// firstMax returns the index of the first largest value.
func firstMax(ps []float64) int {
	best := 0
	for k, p := range ps {
		if p > ps[best] {
			best = k
		}
	}
	return best
}

// sameSet reports whether a and b hold the same strings, each once.
func sameSet(a, b []string) bool {
	seen := map[string]bool{}
	for _, s := range a {
		if seen[s] || !slices.Contains(b, s) {
			return false
		}
		seen[s] = true
	}
	return len(a) == len(b)
}

func journalCaseMeta(jc *journalCase) lines.Meta {
	return lines.Meta{Index: jc.Index, CaseID: jc.CaseID, Part: jc.Part, FinishedSeconds: jc.FinishedSeconds, RenderSHA256: jc.RenderSHA256}
}

// caseCheck returns checkCaseLine for lines of cases, by slice index.
func caseCheck(cases []Case) func(journalCase, int) error {
	return func(jc journalCase, i int) error { return checkCaseLine(jc, cases[i]) }
}

// caseIDs returns the ids of cases.
func caseIDs(cases []Case) []string {
	ids := make([]string, len(cases))
	for i, c := range cases {
		ids[i] = c.ID()
	}
	return ids
}

// requestCases returns the cases, ids and render digests of reqs.
func requestCases(reqs []Request) ([]Case, []string, []string) {
	cases := make([]Case, len(reqs))
	ids := make([]string, len(reqs))
	digests := make([]string, len(reqs))
	for i, r := range reqs {
		cases[i], ids[i], digests[i] = r.Case, r.CaseID(), r.ImageDigest()
	}
	return cases, ids, digests
}

// ResumeJournal opens the journal at path to resume a run whose identity
// is now (built as for [CreateJournal]) over reqs. It refuses a journal of
// another experiment with the *[journal.MismatchError] of
// [journal.Header.Check] (a check-match journal resumed as a study is
// refused by its kind), and a line that does not fit reqs (an index out of
// range, a case id or render digest that is not the slice's; for a
// check-match run also an answer that is not one) with an error naming
// the journal entry. A study's lines are kept as written for the study to
// decode and check ([Journal.Line]). A torn last line is cut off and
// reported by [Journal.Torn]. A case journaled twice keeps its first line.
// New lines carry the next part number.
func ResumeJournal(path string, now journal.Header, reqs []Request) (*Journal, error) {
	c, err := journal.ReadFile(path)
	if err != nil {
		return nil, err
	}
	warnings, err := c.Header.Compare(now, evalrun.WhereBuilt())
	if err != nil {
		return nil, err
	}
	j := &Journal{kind: now.Kind, torn: c.Torn, warnings: warnings, finished: map[int]journalCase{}, study: map[int]lines.Raw{}}
	cases, ids, digests := requestCases(reqs)
	var partWall map[int]float64
	if now.Kind == journalKind {
		j.finished, partWall, j.part, err = lines.Decode(c.Entries, ids, digests, journalCaseMeta, caseCheck(cases))
	} else {
		j.study, partWall, j.part, err = lines.Decode(c.Entries, ids, digests, lines.RawMeta, nil)
	}
	if err != nil {
		var le *lines.Error
		if errors.As(err, &le) {
			le.Path = path
		}
		return nil, err
	}
	for _, w := range partWall {
		j.prior += w
	}
	j.part++
	if j.w, err = journal.Resume(path, c); err != nil {
		return nil, err
	}
	return j, nil
}

// Path returns the journal's path.
func (j *Journal) Path() string { return j.w.Path() }

// Part returns the part number this run's lines carry (1 for a new run).
func (j *Journal) Part() int { return j.part }

// Finished returns the number of cases earlier parts finished.
func (j *Journal) Finished() int { return len(j.finished) + len(j.study) }

// PriorWallSeconds returns the wall time of the earlier parts: the sum,
// over parts, of each part's latest finished_seconds; 0 for a nil Journal.
func (j *Journal) PriorWallSeconds() float64 {
	if j == nil {
		return 0
	}
	return j.prior
}

// Warnings returns the advisory pins ([evalrun.WhereBuilt]) in which the
// resumed journal differs from the run now resuming it, each with both
// values; nil for a new journal or when none differs. The receipt records
// the resuming run's values.
func (j *Journal) Warnings() []*journal.MismatchError {
	if j == nil {
		return nil
	}
	return j.warnings
}

// Torn returns the torn last line the resume cut off, nil when none.
func (j *Journal) Torn() *journal.Torn { return j.torn }

// Close closes the journal file; the journal stays on disk.
func (j *Journal) Close() error { return j.w.Close() }

// has reports whether an earlier part finished case i.
func (j *Journal) has(i int) bool {
	_, ok := j.finished[i]
	return ok
}

// Added returns the number of cases this part has recorded so far.
func (j *Journal) Added() int { return int(j.added.Load()) }

// Record appends line, one finished case, to the journal and syncs it:
// a study's line, written as JSON, must hold the case's index, case_id,
// part ([Journal.Part]), finished_seconds and render_sha256, the keys
// [ResumeJournal] checks against the slice. A line without them, or of
// another part, is refused before it is written, so that a wrong line
// cannot make the whole journal unreadable to a resume.
func (j *Journal) Record(line any) error {
	b, err := json.Marshal(line)
	if err != nil {
		return fmt.Errorf("journal line: %w", err)
	}
	var m lines.Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("journal line: %w", err)
	}
	switch {
	case m.Part != j.part:
		return fmt.Errorf("journal line of case %q: part %d is not the journal's part %d", m.CaseID, m.Part, j.part)
	case m.Index < 0 || m.CaseID == "" || m.RenderSHA256 == "":
		return fmt.Errorf("journal line: index %d, case_id %q and render_sha256 must name a case of the slice", m.Index, m.CaseID)
	}
	if err := j.w.Add(json.RawMessage(b)); err != nil {
		return err
	}
	j.added.Add(1)
	return nil
}

// Line returns the line of slice index i that an earlier part of a study
// wrote, as the journal holds it, for the study to decode; false when
// earlier parts did not finish case i, for a check-match run's journal and
// for a nil Journal.
func (j *Journal) Line(i int) (json.RawMessage, bool) {
	if j == nil {
		return nil, false
	}
	l, ok := j.study[i]
	return bytes.Clone(l.Line), ok
}

// Kind returns the kind of the journal's header: "check_match" for a
// check-match run, a study's own kind (such as orderings.JournalKind);
// "" for a nil Journal.
func (j *Journal) Kind() string {
	if j == nil {
		return ""
	}
	return j.kind
}

// checkKind refuses a journal of another kind than the run given it.
func (j *Journal) checkKind(kind string) error {
	if j != nil && j.kind != kind {
		return fmt.Errorf("the journal is of a %s run, not of a %s run", j.kind, kind)
	}
	return nil
}

// CheckJournal refuses, before any session opens, a journal whose
// prompt or code digests are not this build's: the pins
// prompt_digests.<question> and code_path_digests.<path> of h must be
// s's. It names the first that differs with both values.
func (s Snapshot) CheckJournal(h journal.Header) error {
	now := journal.Header{Kind: h.Kind}
	then := journal.Header{Kind: h.Kind}
	for _, d := range []struct {
		block   string
		digests receipt.Digests
	}{{"prompt_digests.", s.PromptDigests}, {"code_path_digests.", s.CodePathDigests}} {
		for _, e := range d.digests {
			p, err := journal.NewPin(d.block+e.Name, e.Value)
			if err != nil {
				return err
			}
			now.Pins = append(now.Pins, p)
		}
		for _, p := range h.Pins {
			if strings.HasPrefix(p.Name, d.block) {
				then.Pins = append(then.Pins, p)
			}
		}
	}
	return then.Check(now)
}
