package checkmatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	typevet "github.com/typevet/typevet-go"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

// OrderingsSeed is the only seed the option-order study accepts: the seed
// of the single-order receipt it is compared with.
const OrderingsSeed = 1

// orderingsFixtureName is the fixture_digests name of the single-order receipt
// a study read.
const orderingsFixtureName = "single_order_receipt"

// armVerdictRequests is the arm_call_counts name of a study's successful
// verdict calls.
const armVerdictRequests = "verdict_requests"

// OrderingsPins is an option-order receipt's pins block: its
// fields, in order, are the block's keys, with "renderer" in place of
// typevet's "pillow_version".
type OrderingsPins struct {
	// FinishedUTC is when the study finished ([receipt.FinishedUTC]).
	FinishedUTC string `json:"finished_utc"`
	// Dataset is dataset.
	Dataset string `json:"dataset"`
	// GeneratorSeed is the slice seed; always [OrderingsSeed] for a study.
	GeneratorSeed uint64 `json:"generator_seed"`
	// RegisterRows is the number of register rows (1..20).
	RegisterRows int `json:"register_rows"`
	// VariantsPerRow is [VariantsPerRow].
	VariantsPerRow int `json:"variants_per_row"`
	// SliceSHA256 digests the slice ([Slice]).
	SliceSHA256 string `json:"slice_sha256"`
	// Concurrency is always 1: the study sends one call at a time.
	Concurrency int `json:"concurrency"`
	// Orderings lists the orderings as label names (orderLabels).
	Orderings [][]string `json:"orderings"`
	// SingleOrderReceipt is the file name (no directory) of the
	// single-order receipt the study is compared with.
	SingleOrderReceipt string `json:"single_order_receipt"`
	// SingleOrderReceiptSHA256 is the SHA-256 of that file's bytes.
	SingleOrderReceiptSHA256 string `json:"single_order_receipt_sha256"`
	// Renderer pins the Go renderer ([RendererPin]); absent from typevet's
	// receipts.
	Renderer *RendererInfo `json:"renderer,omitempty"`
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

// OrderingsReceipt is an option-order study receipt (typevet #105):
// its fields, in order, are the receipt's top-level keys. Write one
// with [receipt.Write].
type OrderingsReceipt struct {
	// Issue is always orderingsReceiptIssue (105).
	Issue int `json:"issue"`
	// Backend is "llama_cpp", or offline "fake" or "reader".
	Backend serving.Backend `json:"backend"`
	// Model is the model id every request named.
	Model string `json:"model"`
	// Pins fix what the study judged.
	Pins OrderingsPins `json:"pins"`
	// Identity is the experiment identity: the verdict's prompt digest,
	// the study's code digests (orderingsCodeDigests) and the
	// single-order receipt's digest as fixture orderingsFixtureName.
	Identity receipt.Identity `json:"identity"`
	// Stopped is the failure that ended the study early, or null.
	Stopped *OrderingsStopped `json:"stopped"`
	// Requests counts the successful verdict calls; a resumed study counts
	// every ordering of each case its journal held ([RunOrderings]).
	Requests int `json:"requests"`
	// WallSeconds is the study's wall time rounded to 3 decimals: for a
	// resumed study the sum of its parts, for merged shards the longest
	// shard's ([MergeOrderingsReceipt]).
	WallSeconds float64 `json:"wall_seconds"`
	// Statistics is the statistics block of the scored cases, or null when
	// no case was scored.
	Statistics *OrderingsStats `json:"statistics"`
	// Cases are the scored cases in slice order.
	Cases []OrderingsCase `json:"cases"`
}

// OrderingsReceiptParts are the parts of an option-order receipt that do not
// come from the study itself.
type OrderingsReceiptParts struct {
	// Backend is the receipt's backend.
	Backend serving.Backend
	// Model is the model id.
	Model string
	// Pins are copied as given.
	Pins OrderingsPins
	// Identity is copied as given; its arm_call_counts should hold
	// {"verdict_requests": run.Requests}.
	Identity receipt.Identity
	// Secrets are the session's secrets: a stopped message holding one is
	// withheld (withheldMessage).
	Secrets judgment.Secrets
}

// BuildOrderingsReceipt assembles the receipt of a study:
// issue 105, the parts, the stopped record, the request count, the wall
// time rounded to 3 decimals, [OrderingsStatistics] of the scored cases
// (null when none was scored) and the cases. As [BuildReceipt] does, it
// withholds a stopped message that holds a secret or an auth header.
func BuildOrderingsReceipt(run OrderingsRun, parts OrderingsReceiptParts) (OrderingsReceipt, error) {
	r := OrderingsReceipt{
		Issue:       orderingsReceiptIssue,
		Backend:     parts.Backend,
		Model:       parts.Model,
		Pins:        parts.Pins,
		Identity:    parts.Identity,
		Requests:    run.Requests,
		WallSeconds: receipt.Round(run.WallSeconds, 3),
		Cases:       run.Cases,
	}
	if r.Cases == nil {
		r.Cases = []OrderingsCase{}
	}
	if run.Stopped != nil {
		s := *run.Stopped
		s.Message = withholdSecrets(s.Message, parts.Secrets)
		r.Stopped = &s
	}
	if len(run.Cases) > 0 {
		st, err := OrderingsStatistics(run.Cases)
		if err != nil {
			return OrderingsReceipt{}, err
		}
		r.Statistics = &st
	}
	return r, nil
}

// ReadOrderingsReceipt reads one option-order receipt, ours or typevet's,
// from r. Unknown keys are ignored; the value must be one JSON object whose
// issue is 105, with nothing after it. Receipts written before typevet added
// the bootstrap intervals read with zero intervals and bootstrap block;
// [OrderingsStatistics] over the cases recomputes them.
func ReadOrderingsReceipt(r io.Reader) (OrderingsReceipt, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return OrderingsReceipt{}, fmt.Errorf("read orderings receipt: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var out OrderingsReceipt
	if err := dec.Decode(&out); err != nil {
		return OrderingsReceipt{}, fmt.Errorf("read orderings receipt: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return OrderingsReceipt{}, errors.New("read orderings receipt: data after the receipt object")
	}
	if out.Issue != orderingsReceiptIssue {
		return OrderingsReceipt{}, fmt.Errorf("read orderings receipt: issue is %d, want %d", out.Issue, orderingsReceiptIssue)
	}
	return out, nil
}

// orderingsCodeDigests returns the code_path_digests of an option-order
// study, keyed by typevet's names cases, orderings, render,
// request and words and computed as checkCodeDigests computes a run's: the
// first four cover the same files as a check-match run's digests of those
// names, so a study and its single-order receipt of one build share them,
// and orderings covers the study's own source.
func orderingsCodeDigests() (receipt.Digests, error) {
	return codeDigests(typevet.Sources(), codePathsOf(studyRun))
}

// orderingsPromptDigests returns the prompt_digests of a study: the digest
// of the verdict question alone, the one question the study asks.
func orderingsPromptDigests() receipt.Digests {
	var verdict []judgment.NamedQuestion
	for _, q := range Questions() {
		if q.Name == QuestionVerdict {
			verdict = append(verdict, q)
		}
	}
	return receipt.PromptDigests(verdict)
}
