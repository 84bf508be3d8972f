package checkmatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

// receiptIssue is the issue number every check-match receipt records
// (typevet #316).
const receiptIssue = 316

// Receipt is a check-match receipt: the self-describing record
// of one run. Its fields, in order, are the receipt's top-level keys, the
// same keys in the same order as typevet's, so typevet's tools read our
// receipts and [ReadReceipt] reads theirs. Write one with [receipt.Write]
// (two-space indent, exclusive create, key-free check).
type Receipt struct {
	// Issue is always 316, typevet's issue of the check-match run.
	Issue int `json:"issue"`
	// Backend is the serving stack: "llama_cpp" or "vllm", or offline
	// "fake" or "reader" (the built-in check reader).
	Backend serving.Backend `json:"backend"`
	// Model is the model id sent with every request.
	Model string `json:"model"`
	// Pins fix what the run judged: the slice, its renderer and the server.
	Pins Pins `json:"pins"`
	// Identity is the experiment identity: code, prompt and data digests,
	// git baseline and runtime.
	Identity receipt.Identity `json:"identity"`
	// Stopped says why the run ended early: the first backend failure (or
	// cancellation) and what was discarded; null (nil) when every case was
	// judged.
	Stopped *Stopped `json:"stopped"`
	// WallSeconds is the run's wall time in seconds, rounded to 3 decimals;
	// it excludes the /metrics reads before and after the run.
	WallSeconds float64 `json:"wall_seconds"`
	// Throughput is the throughput block with 1 image per judgment.
	// Our runs always write it; typevet receipts older than its
	// introduction have no such key and read as nil (written back as
	// null).
	Throughput *receipt.Throughput `json:"throughput"`
	// ServerArgs is the server_args block. Every backend writes it
	// (cache_config from vLLM's /metrics, null elsewhere; caller_stated as
	// the caller gave it); it reads as nil only from typevet receipts older
	// than #341, which lack the key.
	ServerArgs *serving.ServerArgsBlock `json:"server_args"`
	// Metrics is the metrics block of the kept cases.
	Metrics MetricsBlock `json:"metrics"`
	// Cases are the kept cases' records in slice order. nil
	// only when read from a receipt without a "cases" key (a receipt
	// head); an empty run has an empty, non-nil list.
	Cases []CaseRecord `json:"cases"`
}

// Pins is a check-match receipt's pins block: what the run
// judged and with what. Our receipts write typevet's newest key order with
// "renderer" in place of "pillow_version": finished_utc, dataset,
// generator_seed, register_rows, variants_per_row, slice_sha256,
// concurrency, renderer, server, model_revision. typevet's older receipts
// have other orders (and no concurrency); reading accepts any order.
type Pins struct {
	// FinishedUTC is when the run finished, ISO 8601 in UTC with a
	// "+00:00" offset ([receipt.FinishedUTC]).
	FinishedUTC string `json:"finished_utc"`
	// Dataset names the case generator: "synthetic checks (#315 generator)".
	Dataset string `json:"dataset"`
	// GeneratorSeed is the seed of the slice ([Cases]).
	GeneratorSeed uint64 `json:"generator_seed"`
	// RegisterRows is the number of register rows in the slice (1..20).
	RegisterRows int `json:"register_rows"`
	// VariantsPerRow is [VariantsPerRow] (7).
	VariantsPerRow int `json:"variants_per_row"`
	// SliceSHA256 digests the slice: every case and its render. Go renders
	// differ from Pillow's, so our digests never equal typevet's.
	SliceSHA256 string `json:"slice_sha256"`
	// Concurrency is the most judgments kept in flight. 0 means not
	// recorded: typevet receipts older than the pin lack it, and it is then
	// left out when written back.
	Concurrency int `json:"concurrency,omitempty"`
	// Renderer pins the Go renderer (module version, font digest, image
	// library, blur and PNG encoding) that made the images ([RendererPin]):
	// ours in place of Pillow's version. nil (left out) in typevet's
	// receipts.
	Renderer *RendererInfo `json:"renderer,omitempty"`
	// PillowVersion is the Pillow version of a typevet receipt ("12.3.0"),
	// kept when reading theirs; our receipts never write it.
	PillowVersion string `json:"pillow_version,omitempty"`
	// Server is what the server said it serves (pins.server); null (nil)
	// when no server was asked, as with the offline fake backend.
	Server *serving.ServerEntry `json:"server"`
	// ModelRevision is the served weights revision; present on vLLM only
	// (required there), left out otherwise.
	ModelRevision string `json:"model_revision,omitempty"`
}

// Stopped records the first failure that stopped a run: the
// receipt's "stopped" block.
type Stopped struct {
	// Index is the slice index of the failed case.
	Index int `json:"index"`
	// CaseID is the failed case's id.
	CaseID string `json:"case_id"`
	// ErrorClass is the Python class name of the error, as typevet spells
	// it ("TransportError", "BackendHttpError"; [judgment.ErrorClass]).
	ErrorClass string `json:"error_class"`
	// Message is the error text, secrets masked.
	Message string `json:"message"`
	// Discarded counts cases after the failed one that were in flight and
	// were dropped (always 0 one at a time). typevet receipts older than the
	// key read as 0.
	Discarded int `json:"discarded"`
}

// ReadReceipt reads one check-match receipt, ours or typevet's, from r.
//
// Keys missing from older typevet receipts (throughput, server_args,
// pins.concurrency, stopped.discarded) read as nil or zero. Unknown keys are
// ignored, at any level: they are not kept and are lost when the receipt is
// written again (the head fixtures' "_note" is one). A receipt head without
// "metrics" and "cases" reads with a zero Metrics and nil Cases;
// [Receipt.Recompute] refuses it. The value must be one JSON object, with nothing
// after it, whose issue is 316 or which has no issue key (or a null one):
// typevet's repeat summary reads receipts without it, and Issue is then
// filled in as 316 (so a receipt written back gains the key).
// legibility_probabilities may be sparse (only the levels seen), as
// typevet's repeat summary accepts; see [ByLevel] for what is filled in.
func ReadReceipt(r io.Reader) (Receipt, error) {
	dec := json.NewDecoder(r)
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return Receipt{}, fmt.Errorf("read check-match receipt: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Receipt{}, errors.New("read check-match receipt: data after the receipt object")
	}
	var out Receipt
	if err := json.Unmarshal(raw, &out); err != nil {
		return Receipt{}, fmt.Errorf("read check-match receipt: %w", err)
	}
	var head struct {
		Issue *int `json:"issue"`
	}
	if err := json.Unmarshal(raw, &head); err == nil && head.Issue == nil {
		out.Issue = receiptIssue
	}
	if out.Issue != receiptIssue {
		return Receipt{}, fmt.Errorf("read check-match receipt: issue is %d, want %d", out.Issue, receiptIssue)
	}
	return out, nil
}

// Recompute recomputes the metrics block from the receipt's cases with the
// code a run uses ([BuildReceipt]); it is the one way to get metrics from a
// receipt read back. Every metric then equals the
// recorded one bit for bit, except mean_latency_seconds: a run averages
// the unrounded latencies but the cases keep them rounded to 3 decimals, so
// the recomputed value matches within 5e-4 s, and Warnings says so. A receipt without cases (a head) is an error.
func (r Receipt) Recompute() (MetricsBlock, error) {
	if r.Cases == nil {
		return MetricsBlock{}, errors.New("recompute: the receipt has no cases")
	}
	return recordMetrics(r.Cases)
}
