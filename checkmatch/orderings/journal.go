package orderings

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/internal/lines"
	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/evalrun"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
)

// JournalKind is the [journal.Header] kind of an option-order
// study.
const JournalKind = "orderings"

// orderingsPin is the name of the journal pin that records a study's
// orderings, as label names (orderLabels).
const orderingsPin = "orderings"

// orderingsLine is one line of an option-order study's journal: a fully
// scored case with what its receipt record is built from, at full
// precision, its attempt count and when it finished (see
// [JournalHeader] for the line's keys).
type orderingsLine struct {
	Index           int         `json:"index"`
	CaseID          string      `json:"case_id"`
	Attempts        int         `json:"attempts"`
	Part            int         `json:"part"`
	FinishedSeconds float64     `json:"finished_seconds"`
	RenderSHA256    string      `json:"render_sha256"`
	SingleOrder     SingleOrder `json:"single_order"`
	// Orderings holds, per ordering, the answer keyed by label in
	// canonical label order.
	Orderings []judgment.Probabilities `json:"orderings"`
}

func orderingsLineMeta(l *orderingsLine) lines.Meta {
	return lines.Meta{Index: l.Index, CaseID: l.CaseID, Part: l.Part, FinishedSeconds: l.FinishedSeconds, RenderSHA256: l.RenderSHA256}
}

func newOrderingsLine(i int, rec Case, probs []judgment.Probabilities, attempts, part int, finished float64) orderingsLine {
	return orderingsLine{Index: i, CaseID: rec.CaseID, Attempts: attempts, Part: part, FinishedSeconds: finished,
		RenderSHA256: rec.RenderSHA256, SingleOrder: rec.SingleOrder, Orderings: probs}
}

// record rebuilds the case's receipt record; labels are the verdict
// labels in canonical order.
func (l orderingsLine) record(c checkmatch.Case, labels []string, orders [][]int) (Case, error) {
	return newCase(c, l.RenderSHA256, labels, orders, l.Orderings, l.SingleOrder)
}

// orderingsLineCheck returns the check of a line against the study's
// orders: its record must build, and its single-order answer must give
// every label a probability.
func orderingsLineCheck(orders [][]int) func(orderingsLine, checkmatch.Case) error {
	return func(l orderingsLine, c checkmatch.Case) error {
		if _, err := l.record(c, checkmatch.VerdictLabels[:], orders); err != nil {
			return err
		}
		for _, label := range checkmatch.VerdictLabels {
			if _, ok := l.SingleOrder.VerdictProbabilities.Get(label); !ok {
				return fmt.Errorf("single-order probabilities have no label %q", label)
			}
		}
		return nil
	}
}

// labelOrders turns orderings written as label names back into option
// indexes of [checkmatch.VerdictLabels].
func labelOrders(names [][]string) ([][]int, error) {
	if len(names) == 0 {
		return nil, errors.New("no orderings")
	}
	orders := make([][]int, len(names))
	for o, row := range names {
		orders[o] = make([]int, len(row))
		for p, name := range row {
			k := slices.Index(checkmatch.VerdictLabels[:], name)
			if k < 0 {
				return nil, fmt.Errorf("ordering %d: %q is not a verdict label", o, name)
			}
			orders[o][p] = k
		}
		if err := checkOrder(orders[o], len(checkmatch.VerdictLabels)); err != nil {
			return nil, fmt.Errorf("ordering %d: %w", o, err)
		}
	}
	return orders, nil
}

// JournalHeader returns the identity line of an option-order
// study of slice with c, under orders, compared with the single-order
// receipt single, judging shard s (the zero Shard: the whole slice): every
// pin of its receipt that decides the answers, in this order: backend,
// model, served_template, generator_seed, register_rows,
// variants_per_row, slice_sha256, renderer, pins.server, orderings (as
// label names), single_order_receipt, single_order_receipt_sha256, each
// prompt_digests.<question>, each code_path_digests.<path>,
// baseline_commit, working_tree, concurrency (1), identity_digest (the
// receipt's, with arm_call_counts {"verdict_requests": every case of the
// slice × every ordering}) and, for a shard, the shard pin ("shard": "i/n").
//
// Each further line of the journal is one fully scored case: index,
// case_id, attempts (the verdict calls it took, retries included),
// part, finished_seconds, render_sha256, single_order (the single-order
// receipt's verdict and probabilities) and orderings (one answer per
// ordering, keyed by label in canonical label order, unrounded). The
// receipt's case record is rebuilt from them ([NewCase]).
func JournalHeader(c checkmatch.RunContext, slice checkmatch.Slice, orders [][]int, single SingleOrderFile, s checkmatch.Shard) (journal.Header, error) {
	parts := NewReceiptParts(c, slice, orders, single, Result{Requests: len(slice.Requests) * len(orders)})
	p := parts.Pins
	named := []namedPin{
		{"backend", c.Backend}, {"model", c.Model}, {"served_template", c.ServedTemplate},
		{"generator_seed", p.GeneratorSeed}, {"register_rows", p.RegisterRows},
		{"variants_per_row", p.VariantsPerRow}, {"slice_sha256", p.SliceSHA256},
		{"renderer", p.Renderer}, {"pins.server", p.Server}, {orderingsPin, p.Orderings},
		{"single_order_receipt", p.SingleOrderReceipt}, {"single_order_receipt_sha256", p.SingleOrderReceiptSHA256},
	}
	for _, d := range parts.Identity.PromptDigests {
		named = append(named, namedPin{"prompt_digests." + d.Name, d.Value})
	}
	for _, d := range parts.Identity.CodePathDigests {
		named = append(named, namedPin{"code_path_digests." + d.Name, d.Value})
	}
	named = append(named, namedPin{"baseline_commit", parts.Identity.BaselineCommit}, namedPin{"working_tree", parts.Identity.WorkingTree},
		namedPin{"concurrency", p.Concurrency}, namedPin{"identity_digest", parts.Identity.IdentityDigest})
	if s.Count > 0 {
		named = append(named, namedPin{shardPin, s.String()})
	}
	h := journal.Header{Kind: JournalKind}
	for _, n := range named {
		pin, err := journal.NewPin(n.name, n.v)
		if err != nil {
			return journal.Header{}, err
		}
		h.Pins = append(h.Pins, pin)
	}
	return h, nil
}

// namedPin is one pin of a journal header before it is marshalled.
type namedPin struct {
	name string
	v    any
}

// shardPin is the name of the journal pin that records a shard (the
// name checkmatch's shard records use).
const shardPin = lines.ShardPin

// CheckJournal checks the lines of the cases of shard s (the zero Shard:
// the whole slice of reqs) that earlier parts of a study finished, as [Run]
// checks them before its first call: each must decode and rebuild its case
// record under orders, with a single-order answer for every label.
// [checkmatch.ResumeJournal] checked their index, case id and render
// digest. A command calls it right after resuming j, to report a bad
// journal as a failed resume rather than as a failed study; a nil Journal
// has no lines.
func CheckJournal(j *checkmatch.Journal, reqs []checkmatch.Request, orders [][]int, s checkmatch.Shard) error {
	_, err := journaledLines(j, reqs, orders, s)
	return err
}

// journaledLines is [CheckJournal] that returns the decoded lines by slice
// index.
func journaledLines(j *checkmatch.Journal, reqs []checkmatch.Request, orders [][]int, s checkmatch.Shard) (map[int]orderingsLine, error) {
	out := map[int]orderingsLine{}
	if j == nil {
		return out, nil
	}
	check := orderingsLineCheck(orders)
	for i, r := range reqs {
		raw, ok := j.Line(i)
		if !ok || !s.Has(r.CaseID()) {
			continue
		}
		var l orderingsLine
		err := lines.Strict(raw, &l)
		if err == nil {
			err = check(l, r.Case)
		}
		if err != nil {
			return nil, fmt.Errorf("journal line of case %s (index %d): %w", r.CaseID(), i, err)
		}
		out[i] = l
	}
	return out, nil
}

// NewShardRecord returns the record of a finished shard s of an
// option-order study: the journal header h and the journal file (its
// path, hashed now), run's wall time and cases, and c's receipt parts for
// the whole slice ([NewReceiptParts] with arm_call_counts
// {"verdict_requests": every case × every ordering}): the [Pins] as JSON in
// OrderingsPins, the identity in ReceiptIdentity.
func NewShardRecord(c checkmatch.RunContext, slice checkmatch.Slice, orders [][]int, single SingleOrderFile, s checkmatch.Shard, h journal.Header, journalPath string, run Result) (checkmatch.ShardRecord, error) {
	parts := NewReceiptParts(c, slice, orders, single, Result{Requests: len(slice.Requests) * len(orders)})
	pins, err := receipt.Marshal(parts.Pins)
	if err != nil {
		return checkmatch.ShardRecord{}, err
	}
	rec := checkmatch.ShardRecord{
		Cases: len(run.Cases), WallSeconds: run.WallSeconds,
		Backend: parts.Backend, Model: parts.Model, OrderingsPins: pins,
		ReceiptIdentity: parts.Identity, Readings: []checkmatch.ShardReading{},
	}
	return rec.Seal(s, h, journalPath)
}

// MergeReceipt puts the shards of one option-order study back
// together, as [checkmatch.MergeReceipt] does for a check-match run and
// with the same refusals (an error naming the first differing pin, or
// what makes the set not whole; a check-match shard is refused by its
// kind). It generates the slice's
// cases from the shards' seed and rows (no render: each journal line
// holds its case's render digest and single-order answer, and the
// shards' equal slice_sha256 and single_order_receipt_sha256 pin them),
// rebuilds every case record in slice order and returns the receipt of
// the whole study, statistics over every case.
//
// The receipt is byte-identical to the one a single process judging the
// whole slice would write but for pins.finished_utc (the latest shard's),
// identity.run_id (new) and wall_seconds (the longest shard's: shards run
// side by side). requests is every case × every ordering, as in a study
// that ran through.
func MergeReceipt(shards []checkmatch.ShardFile) (Receipt, error) {
	set := make([]lines.Shard, len(shards))
	for k, sf := range shards {
		set[k] = lines.Shard{Path: sf.Path, Header: sf.Journal.Header, Index: sf.Record.Shard.Index, Count: sf.Record.Shard.Count, Entries: sf.Journal.Entries}
	}
	order, _, err := lines.OrderAdvisory(set, JournalKind, evalrun.WhereBuilt())
	if err != nil {
		return Receipt{}, err
	}
	byIndex := make([]*checkmatch.ShardFile, len(order))
	inOrder := make([]lines.Shard, len(order))
	for i, k := range order {
		byIndex[i], inOrder[i] = &shards[k], set[k]
	}
	first := byIndex[0].Record
	var p Pins
	if err := json.Unmarshal(first.OrderingsPins, &p); err != nil {
		return Receipt{}, fmt.Errorf("%s: orderings_pins: %w", byIndex[0].Path, err)
	}
	orders, err := labelOrders(p.Orderings)
	if err != nil {
		return Receipt{}, fmt.Errorf("%s: pins.orderings: %w", byIndex[0].Path, err)
	}
	cases, err := checkmatch.Cases(p.GeneratorSeed, p.RegisterRows)
	if err != nil {
		return Receipt{}, fmt.Errorf("%s: %w", byIndex[0].Path, err)
	}
	ids := make([]string, len(cases))
	for i, c := range cases {
		ids[i] = c.ID()
	}
	check := orderingsLineCheck(orders)
	found, err := lines.Gather(inOrder, ids, orderingsLineMeta, func(l orderingsLine, i int) error { return check(l, cases[i]) })
	if err != nil {
		return Receipt{}, err
	}
	run := Result{Cases: make([]Case, len(cases)), Requests: len(cases) * len(orders)}
	for i, l := range found {
		if run.Cases[i], err = l.record(cases[i], checkmatch.VerdictLabels[:], orders); err != nil {
			return Receipt{}, err
		}
	}
	for _, sf := range byIndex {
		run.WallSeconds = max(run.WallSeconds, sf.Record.WallSeconds)
		var sp Pins
		if err := json.Unmarshal(sf.Record.OrderingsPins, &sp); err != nil {
			return Receipt{}, fmt.Errorf("%s: orderings_pins: %w", sf.Path, err)
		}
		p.FinishedUTC = max(p.FinishedUTC, sp.FinishedUTC)
	}
	id := first.ReceiptIdentity
	id.RunID = receipt.NewRunID()
	return BuildReceipt(run, ReceiptParts{Backend: first.Backend, Model: first.Model, Pins: p, Identity: id})
}
