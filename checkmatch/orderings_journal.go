package checkmatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
)

// OrderingsJournalKind is the [journal.Header] kind of an option-order
// study.
const OrderingsJournalKind = "orderings"

// orderingsPin is the name of the journal pin that records a study's
// orderings, as label names (orderLabels).
const orderingsPin = "orderings"

// orderingsLine is one line of an option-order study's journal: a fully
// scored case with what its receipt record is built from, at full
// precision, its attempt count and when it finished (see
// [OrderingsJournalHeader] for the line's keys).
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

func newOrderingsLine(i int, rec OrderingsCase, probs []judgment.Probabilities, attempts, part int, finished float64) orderingsLine {
	return orderingsLine{Index: i, CaseID: rec.CaseID, Attempts: attempts, Part: part, FinishedSeconds: finished,
		RenderSHA256: rec.RenderSHA256, SingleOrder: rec.SingleOrder, Orderings: probs}
}

func orderingsLineMeta(l *orderingsLine) caseLine {
	return caseLine{Index: l.Index, CaseID: l.CaseID, Part: l.Part, FinishedSeconds: l.FinishedSeconds, RenderSHA256: l.RenderSHA256}
}

// record rebuilds the case's receipt record; labels are the verdict
// labels in canonical order.
func (l orderingsLine) record(c Case, labels []string, orders [][]int) (OrderingsCase, error) {
	return newOrderingsCase(c, l.RenderSHA256, labels, orders, l.Orderings, l.SingleOrder)
}

// orderingsLineCheck returns the check of a line against the study's
// orders: its record must build, and its single-order answer must give
// every label a probability.
func orderingsLineCheck(orders [][]int) func(orderingsLine, Case) error {
	return func(l orderingsLine, c Case) error {
		if _, err := l.record(c, VerdictLabels[:], orders); err != nil {
			return err
		}
		for _, label := range VerdictLabels {
			if _, ok := l.SingleOrder.VerdictProbabilities.Get(label); !ok {
				return fmt.Errorf("single-order probabilities have no label %q", label)
			}
		}
		return nil
	}
}

// headerOrders reads the orderings pin of a study's journal header back as
// option indexes.
func headerOrders(h journal.Header) ([][]int, error) {
	for _, p := range h.Pins {
		if p.Name != orderingsPin {
			continue
		}
		var names [][]string
		if err := json.Unmarshal(p.Value, &names); err != nil {
			return nil, fmt.Errorf("journal pin orderings: %w", err)
		}
		return labelOrders(names)
	}
	return nil, errors.New("the journal header has no orderings pin")
}

// labelOrders turns orderings written as label names back into option
// indexes of [VerdictLabels].
func labelOrders(names [][]string) ([][]int, error) {
	if len(names) == 0 {
		return nil, errors.New("no orderings")
	}
	orders := make([][]int, len(names))
	for o, row := range names {
		orders[o] = make([]int, len(row))
		for p, name := range row {
			k := slices.Index(VerdictLabels[:], name)
			if k < 0 {
				return nil, fmt.Errorf("ordering %d: %q is not a verdict label", o, name)
			}
			orders[o][p] = k
		}
		if err := checkOrder(orders[o], len(VerdictLabels)); err != nil {
			return nil, fmt.Errorf("ordering %d: %w", o, err)
		}
	}
	return orders, nil
}

// OrderingsJournalHeader returns the identity line of an option-order
// study of slice with c, under orders, compared with the single-order
// receipt single, judging shard s (the zero Shard: the whole slice): every
// pin of its receipt that decides the answers, in this order: backend,
// model, served_template, generator_seed, register_rows,
// variants_per_row, slice_sha256, renderer, pins.server, orderings (as
// label names), single_order_receipt, single_order_receipt_sha256, each
// prompt_digests.<question>, each code_path_digests.<path>,
// baseline_commit, working_tree, concurrency (1), identity_digest (the
// receipt's, with arm_call_counts {"verdict_requests": every case of the
// slice × every ordering}) and, for a shard, shardPin.
//
// Each further line of the journal is one fully scored case: index,
// case_id, attempts (the verdict calls it took, retries included),
// part, finished_seconds, render_sha256, single_order (the single-order
// receipt's verdict and probabilities) and orderings (one answer per
// ordering, keyed by label in canonical label order, unrounded). The
// receipt's case record is rebuilt from them ([NewOrderingsCase]).
func OrderingsJournalHeader(c RunContext, slice Slice, orders [][]int, single SingleOrderFile, s Shard) (journal.Header, error) {
	parts := c.OrderingsReceiptParts(slice, orders, single, OrderingsRun{Requests: len(slice.Requests) * len(orders)})
	p := parts.Pins
	named := pinList{
		{"backend", c.Backend}, {"model", c.Model}, {"served_template", c.ServedTemplate},
		{"generator_seed", p.GeneratorSeed}, {"register_rows", p.RegisterRows},
		{"variants_per_row", p.VariantsPerRow}, {"slice_sha256", p.SliceSHA256},
		{"renderer", p.Renderer}, {"pins.server", p.Server}, {orderingsPin, p.Orderings},
		{"single_order_receipt", p.SingleOrderReceipt}, {"single_order_receipt_sha256", p.SingleOrderReceiptSHA256},
	}
	named = named.identity(parts.Identity)
	named = append(named, namedPin{"concurrency", p.Concurrency}, namedPin{"identity_digest", parts.Identity.IdentityDigest})
	if s.Count > 0 {
		named = append(named, namedPin{shardPin, s.String()})
	}
	return named.header(OrderingsJournalKind)
}

// ordering returns the line of case i an earlier part of a study
// finished; a nil Journal has none.
func (j *Journal) ordering(i int) (orderingsLine, bool) {
	if j == nil {
		return orderingsLine{}, false
	}
	l, ok := j.orderings[i]
	return l, ok
}

// priorWall is [Journal.PriorWallSeconds], 0 for a nil Journal.
func (j *Journal) priorWall() float64 {
	if j == nil {
		return 0
	}
	return j.prior
}

// NewOrderingsShardRecord returns the record of a finished shard s of an
// option-order study: the journal header h and the journal file (its
// path, hashed now), run's wall time and cases, and c's receipt parts for
// the whole slice ([RunContext.OrderingsReceiptParts] with
// arm_call_counts {"verdict_requests": every case × every ordering}) in
// OrderingsPins and ReceiptIdentity.
func NewOrderingsShardRecord(c RunContext, slice Slice, orders [][]int, single SingleOrderFile, s Shard, h journal.Header, journalPath string, run OrderingsRun) (ShardRecord, error) {
	parts := c.OrderingsReceiptParts(slice, orders, single, OrderingsRun{Requests: len(slice.Requests) * len(orders)})
	rec := ShardRecord{
		Cases: len(run.Cases), WallSeconds: run.WallSeconds,
		Backend: parts.Backend, Model: parts.Model, OrderingsPins: &parts.Pins,
		ReceiptIdentity: parts.Identity, Readings: []ShardReading{},
	}
	return rec.seal(s, h, journalPath)
}

// MergeOrderingsReceipt puts the shards of one option-order study back
// together, as mergeShards and [MergeReceipt] do for a check-match run
// and with the same refusals (a shardMismatchError naming the first
// differing pin, a shardSetError for a set that is not whole; a
// check-match shard is refused by its kind). It generates the slice's
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
func MergeOrderingsReceipt(shards []ShardFile) (OrderingsReceipt, error) {
	byIndex, err := shardSet(shards, OrderingsJournalKind)
	if err != nil {
		return OrderingsReceipt{}, err
	}
	first := byIndex[0].Record
	p := *first.OrderingsPins
	orders, err := labelOrders(p.Orderings)
	if err != nil {
		return OrderingsReceipt{}, fmt.Errorf("%s: pins.orderings: %w", byIndex[0].Path, err)
	}
	cases, err := Cases(p.GeneratorSeed, p.RegisterRows)
	if err != nil {
		return OrderingsReceipt{}, fmt.Errorf("%s: %w", byIndex[0].Path, err)
	}
	found, err := shardLines(byIndex, cases, orderingsLineMeta, orderingsLineCheck(orders))
	if err != nil {
		return OrderingsReceipt{}, err
	}
	run := OrderingsRun{Cases: make([]OrderingsCase, len(cases)), Requests: len(cases) * len(orders)}
	for i, l := range found {
		if run.Cases[i], err = l.record(cases[i], VerdictLabels[:], orders); err != nil {
			return OrderingsReceipt{}, err
		}
	}
	for _, sf := range byIndex {
		run.WallSeconds = max(run.WallSeconds, sf.Record.WallSeconds)
		p.FinishedUTC = max(p.FinishedUTC, sf.Record.OrderingsPins.FinishedUTC)
	}
	id := first.ReceiptIdentity
	id.RunID = receipt.NewRunID()
	return BuildOrderingsReceipt(run, OrderingsReceiptParts{Backend: first.Backend, Model: first.Model, Pins: p, Identity: id})
}
