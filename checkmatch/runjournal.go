package checkmatch

import (
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/typevet/typevet-go/checkmatch/journal"
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
	h := journal.Header{Kind: journalKind}
	pins := c.Pins(slice, concurrency)
	id := c.Identity(receipt.Counts{{Name: "judgments", Value: len(slice.Requests)}}, nil)
	add := func(name string, v any) error {
		p, err := journal.NewPin(name, v)
		if err == nil {
			h.Pins = append(h.Pins, p)
		}
		return err
	}
	named := []struct {
		name string
		v    any
	}{
		{"backend", c.Backend}, {"model", c.Model}, {"served_template", c.ServedTemplate},
		{"generator_seed", pins.GeneratorSeed}, {"register_rows", pins.RegisterRows},
		{"variants_per_row", pins.VariantsPerRow}, {"slice_sha256", pins.SliceSHA256},
		{"renderer", pins.Renderer}, {"pins.server", pins.Server}, {"model_revision", pins.ModelRevision},
	}
	for _, d := range id.PromptDigests {
		named = append(named, struct {
			name string
			v    any
		}{"prompt_digests." + d.Name, d.Value})
	}
	for _, d := range id.CodePathDigests {
		named = append(named, struct {
			name string
			v    any
		}{"code_path_digests." + d.Name, d.Value})
	}
	named = append(named, []struct {
		name string
		v    any
	}{{"baseline_commit", id.BaselineCommit}, {"working_tree", id.WorkingTree},
		{"concurrency", concurrency}, {"identity_digest", id.IdentityDigest}}...)
	for _, n := range named {
		if err := add(n.name, n.v); err != nil {
			return journal.Header{}, err
		}
	}
	return h, nil
}

// Journal is the journal of one part of a check-match run: the cases
// earlier parts finished (read on resume) and the writer the run appends
// to. Pass it as [RunOptions].Journal. Its methods are safe for
// concurrent use.
type Journal struct {
	w        *journal.Writer
	part     int
	finished map[int]journalCase
	prior    float64 // wall seconds of the earlier parts
	torn     *journal.Torn
	added    atomic.Int64 // cases this part recorded
}

// CreateJournal creates the journal of a new run at path with header h
// (journalHeader). An existing file is refused (errors.Is(err,
// fs.ErrExist) holds).
func CreateJournal(path string, h journal.Header) (*Journal, error) {
	w, err := journal.Create(path, h)
	if err != nil {
		return nil, err
	}
	return &Journal{w: w, part: 1, finished: map[int]journalCase{}}, nil
}

// journalCaseError reports a journal line that does not fit the slice the
// run resumes: an index out of range, a case id or render digest that is
// not the slice's, or a line that is not a case.
type journalCaseError struct {
	// Line is the entry's 1-based position after the header.
	Line int
	// Msg says what does not fit.
	Msg string
}

// Error returns "journal entry <n>: <msg>".
func (e *journalCaseError) Error() string { return fmt.Sprintf("journal entry %d: %s", e.Line, e.Msg) }

// ResumeJournal opens the journal at path to resume a run whose identity
// is now (built as for [CreateJournal]) over reqs. It refuses a journal of
// another experiment with the *[journal.MismatchError] of
// [journal.Header.Check], and a line that does not fit reqs with a
// *journalCaseError. A torn last line is cut off and reported by
// [Journal.Torn]. A case journaled twice keeps its first line. New lines
// carry the next part number.
func ResumeJournal(path string, now journal.Header, reqs []Request) (*Journal, error) {
	c, err := journal.ReadFile(path)
	if err != nil {
		return nil, err
	}
	now.Schema, now.Version = journal.Schema, journal.Version
	if err := c.Header.Check(now); err != nil {
		return nil, err
	}
	j := &Journal{finished: map[int]journalCase{}, torn: c.Torn}
	partWall := map[int]float64{}
	for n, raw := range c.Entries {
		var jc journalCase
		if err := json.Unmarshal(raw, &jc); err != nil {
			return nil, &journalCaseError{Line: n + 1, Msg: "not a case line: " + err.Error()}
		}
		if jc.Index < 0 || jc.Index >= len(reqs) {
			return nil, &journalCaseError{Line: n + 1, Msg: fmt.Sprintf("index %d is outside the slice's %d cases", jc.Index, len(reqs))}
		}
		req := reqs[jc.Index]
		if jc.CaseID != req.CaseID() {
			return nil, &journalCaseError{Line: n + 1, Msg: fmt.Sprintf("case %q is not case %d of the slice (%s)", jc.CaseID, jc.Index, req.CaseID())}
		}
		o := jc.outcome(req)
		if err := checkVerdict(o.Verdict); err != nil {
			return nil, &journalCaseError{Line: n + 1, Msg: err.Error()}
		}
		if len(o.LegibilityProbabilities) != LegibilityLevels {
			return nil, &journalCaseError{Line: n + 1, Msg: "legibility probabilities are not one per level"}
		}
		if want := imageDigest(req); jc.RenderSHA256 != want {
			return nil, &journalCaseError{Line: n + 1, Msg: "render digest is not the slice's"}
		}
		partWall[jc.Part] = max(partWall[jc.Part], jc.FinishedSeconds)
		j.part = max(j.part, jc.Part)
		if _, dup := j.finished[jc.Index]; !dup {
			j.finished[jc.Index] = jc
		}
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
func (j *Journal) Finished() int { return len(j.finished) }

// PriorWallSeconds returns the wall time of the earlier parts: the sum,
// over parts, of each part's latest finished_seconds.
func (j *Journal) PriorWallSeconds() float64 { return j.prior }

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

// record appends one finished case.
func (j *Journal) record(c journalCase) error {
	if err := j.w.Add(c); err != nil {
		return err
	}
	j.added.Add(1)
	return nil
}
