package orderings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"path/filepath"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

// Seed is the only seed the option-order study accepts: the seed
// of the single-order receipt it is compared with.
const Seed = 1

// orderingsFixtureName is the fixture_digests name of the single-order receipt
// a study read.
const orderingsFixtureName = "single_order_receipt"

// armVerdictRequests is the arm_call_counts name of a study's successful
// verdict calls.
const armVerdictRequests = "verdict_requests"

// Pins is an option-order receipt's pins block: its
// fields, in order, are the block's keys, with "renderer" in place of
// typevet's "pillow_version".
type Pins struct {
	// FinishedUTC is when the study finished ([receipt.FinishedUTC]).
	FinishedUTC string `json:"finished_utc"`
	// Dataset is dataset.
	Dataset string `json:"dataset"`
	// GeneratorSeed is the slice seed; always [Seed] for a study.
	GeneratorSeed uint64 `json:"generator_seed"`
	// RegisterRows is the number of register rows (1..20).
	RegisterRows int `json:"register_rows"`
	// VariantsPerRow is [checkmatch.VariantsPerRow].
	VariantsPerRow int `json:"variants_per_row"`
	// SliceSHA256 digests the slice ([checkmatch.Slice]).
	SliceSHA256 string `json:"slice_sha256"`
	// Concurrency is always 1: the study sends one call at a time.
	Concurrency int `json:"concurrency"`
	// Orderings lists the orderings as label names: element [o][p] is the
	// label ordering o puts at position p.
	Orderings [][]string `json:"orderings"`
	// SingleOrderReceipt is the file name (no directory) of the
	// single-order receipt the study is compared with.
	SingleOrderReceipt string `json:"single_order_receipt"`
	// SingleOrderReceiptSHA256 is the SHA-256 of that file's bytes.
	SingleOrderReceiptSHA256 string `json:"single_order_receipt_sha256"`
	// Renderer pins the Go renderer ([checkmatch.RendererPin]); absent from typevet's
	// receipts.
	Renderer *checkmatch.RendererInfo `json:"renderer,omitempty"`
	// PillowVersion is the Pillow version of a typevet receipt, kept when
	// reading theirs; our receipts never write it.
	PillowVersion string `json:"pillow_version,omitempty"`
	// Server is what the server said it serves; null for the offline
	// fake backend.
	Server *serving.ServerEntry `json:"server"`
	// ServerArgs is the server_args block built with no /metrics reading
	// (cache_config null, caller_stated from TYPEVET_VLLM_SERVER_ARGS).
	ServerArgs *serving.ServerArgsBlock `json:"server_args"`
}

// Receipt is an option-order study receipt (typevet #105):
// its fields, in order, are the receipt's top-level keys. Write one
// with [receipt.Write].
type Receipt struct {
	// Issue is always 105 (typevet #105).
	Issue int `json:"issue"`
	// Backend is "llama_cpp", or offline "fake" or "reader".
	Backend serving.Backend `json:"backend"`
	// Model is the model id every request named.
	Model string `json:"model"`
	// Pins fix what the study judged.
	Pins Pins `json:"pins"`
	// Identity is the experiment identity: the verdict's prompt digest,
	// the study's code digests ([TakeSnapshot]) and the
	// single-order receipt's digest as fixture "single_order_receipt".
	Identity receipt.Identity `json:"identity"`
	// Stopped is the failure that ended the study early, or null.
	Stopped *Stopped `json:"stopped"`
	// Requests counts the successful verdict calls; a resumed study counts
	// every ordering of each case its journal held ([Run]).
	Requests int `json:"requests"`
	// WallSeconds is the study's wall time rounded to 3 decimals: for a
	// resumed study the sum of its parts, for merged shards the longest
	// shard's ([MergeReceipt]).
	WallSeconds float64 `json:"wall_seconds"`
	// Statistics is the statistics block of the scored cases, or null when
	// no case was scored.
	Statistics *Stats `json:"statistics"`
	// Cases are the scored cases in slice order.
	Cases []Case `json:"cases"`
}

// ReceiptParts are the parts of an option-order receipt that do not
// come from the study itself.
type ReceiptParts struct {
	// Backend is the receipt's backend.
	Backend serving.Backend
	// Model is the model id.
	Model string
	// Pins are copied as given.
	Pins Pins
	// Identity is copied as given; its arm_call_counts should hold
	// {"verdict_requests": run.Requests}.
	Identity receipt.Identity
	// Secrets are the session's secrets: a stopped message holding one is
	// withheld ([receipt.WithheldMessage]).
	Secrets judgment.Secrets
}

// BuildReceipt assembles the receipt of a study:
// issue 105, the parts, the stopped record, the request count, the wall
// time rounded to 3 decimals, [Statistics] of the scored cases
// (null when none was scored) and the cases. As [checkmatch.BuildReceipt] does, it
// withholds a stopped message that holds a secret or an auth header.
func BuildReceipt(run Result, parts ReceiptParts) (Receipt, error) {
	r := Receipt{
		Issue:       receiptIssue,
		Backend:     parts.Backend,
		Model:       parts.Model,
		Pins:        parts.Pins,
		Identity:    parts.Identity,
		Requests:    run.Requests,
		WallSeconds: receipt.Round(run.WallSeconds, 3),
		Cases:       run.Cases,
	}
	if r.Cases == nil {
		r.Cases = []Case{}
	}
	if run.Stopped != nil {
		s := *run.Stopped
		s.Message = receipt.Withhold(s.Message, parts.Secrets)
		r.Stopped = &s
	}
	if len(run.Cases) > 0 {
		st, err := Statistics(run.Cases)
		if err != nil {
			return Receipt{}, err
		}
		r.Statistics = &st
	}
	return r, nil
}

// ReadReceipt reads one option-order receipt, ours or typevet's,
// from r. Unknown keys are ignored; the value must be one JSON object whose
// issue is 105, with nothing after it. Receipts written before typevet added
// the bootstrap intervals read with zero intervals and bootstrap block;
// [Statistics] over the cases recomputes them.
func ReadReceipt(r io.Reader) (Receipt, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Receipt{}, fmt.Errorf("read orderings receipt: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var out Receipt
	if err := dec.Decode(&out); err != nil {
		return Receipt{}, fmt.Errorf("read orderings receipt: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Receipt{}, errors.New("read orderings receipt: data after the receipt object")
	}
	if out.Issue != receiptIssue {
		return Receipt{}, fmt.Errorf("read orderings receipt: issue is %d, want %d", out.Issue, receiptIssue)
	}
	return out, nil
}

// TakeSnapshot is [checkmatch.TakeSnapshot] for the option-order study:
// the prompt digest is the verdict question's alone and the code digests
// are the study's code_path_digests, keyed by typevet's names cases,
// orderings, render, request and words and computed as a check-match
// run's: the first four cover the same files as a check-match run's
// digests of those names, so a study and its single-order receipt of one
// build share them, and orderings covers the study's own source.
func TakeSnapshot(repoRoot string, porcelain *string) (checkmatch.Snapshot, error) {
	snap, err := checkmatch.TakeSnapshot(repoRoot, porcelain)
	if err != nil {
		return checkmatch.Snapshot{}, err
	}
	return snap.Study(verdictQuestion(), codeNames...)
}

// codeNames are the logical names of the study's code_path_digests.
var codeNames = []string{"cases", "orderings", "render", "request", "words"}

// verdictQuestion returns the verdict question alone, the one question
// the study asks.
func verdictQuestion() []judgment.NamedQuestion {
	var verdict []judgment.NamedQuestion
	for _, q := range checkmatch.Questions() {
		if q.Name == checkmatch.QuestionVerdict {
			verdict = append(verdict, q)
		}
	}
	return verdict
}

// SingleOrderFile names the single-order check-match receipt an option-order
// study is compared with.
type SingleOrderFile struct {
	// Path is the receipt's path; the pins record its file name only.
	Path string
	// SHA256 is the SHA-256 hex of the file's bytes.
	SHA256 string
}

// NewReceiptParts returns everything [BuildReceipt] needs
// besides run, from c: the pins of slice with the orderings as label
// names, concurrency 1, the single-order receipt's file name and digest,
// the renderer, pins.server and a server_args block without a /metrics
// reading (cache_config null, caller_stated); the identity with the
// single-order receipt as its fixture ("single_order_receipt") and
// arm_call_counts {"verdict_requests": run.Requests}.
func NewReceiptParts(c checkmatch.RunContext, slice checkmatch.Slice, orders [][]int, single SingleOrderFile, run Result) ReceiptParts {
	// The check-match pins give finished_utc, dataset, the slice and the
	// renderer.
	cp := c.Pins(slice, 1)
	serverArgs := serving.ServerArgs(nil, c.StatedServerArgs)
	pins := Pins{
		FinishedUTC:              cp.FinishedUTC,
		Dataset:                  cp.Dataset,
		GeneratorSeed:            slice.Seed,
		RegisterRows:             slice.Rows,
		VariantsPerRow:           checkmatch.VariantsPerRow,
		SliceSHA256:              slice.SHA256,
		Concurrency:              1,
		Orderings:                orderLabels(checkmatch.VerdictLabels[:], orders),
		SingleOrderReceipt:       filepath.Base(single.Path),
		SingleOrderReceiptSHA256: single.SHA256,
		Renderer:                 cp.Renderer,
		Server:                   c.ServerEntry,
		ServerArgs:               &serverArgs,
	}
	id := c.Identity(receipt.Counts{{Name: armVerdictRequests, Value: run.Requests}},
		receipt.Digests{{Name: orderingsFixtureName, Value: single.SHA256}})
	return ReceiptParts{Backend: c.Backend, Model: c.Model, Pins: pins, Identity: id, Secrets: c.Secrets}
}
