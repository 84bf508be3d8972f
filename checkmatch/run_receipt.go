package checkmatch

import (
	"errors"
	"strings"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

// errModelRevisionRequired is returned by [BuildReceipt] for a vLLM receipt
// whose pins.model_revision is missing or blank: vLLM's /v1/models does not
// expose the served weights revision, so the caller must state it (issue 5
// item 7; typevet reads it from TYPEVET_VLLM_MODEL_REVISION).
var errModelRevisionRequired = errors.New("pins.model_revision is required on vLLM: name the served weights revision")

// ReceiptParts are the parts of a check-match receipt that do not come from
// the run itself.
type ReceiptParts struct {
	// Backend is the receipt's backend ("llama_cpp", "vllm", "fake" or
	// "reader").
	Backend serving.Backend
	// Model is the model id every request named.
	Model string
	// Pins are copied as given: the slice pins ([Slice.Pins]) plus
	// finished_utc, concurrency, renderer, server and (vLLM) model_revision.
	Pins Pins
	// Identity is the experiment identity, copied as given; its
	// arm_call_counts should hold {"judgments": len(run.Outcomes)}.
	Identity receipt.Identity
	// ServerArgs is the server_args block, written on every backend
	// ([RunContext.ServerArgs]: cache_config null without vLLM's
	// /metrics); nil writes null.
	ServerArgs *serving.ServerArgsBlock
	// Secrets are the session's secrets (API key, extra header values):
	// a stopped message holding one is withheld.
	Secrets judgment.Secrets
}

// BuildReceipt assembles the receipt of run: issue 316, the
// parts, the stopped record, the wall time rounded to 3 decimals,
// the throughput block with 1 image per judgment, server_args, the metrics
// of the outcomes (latencies unrounded) and one case record per outcome.
//
// A vLLM receipt without a non-blank pins.model_revision is refused ("name
// the served weights revision") before anything else is checked.
//
// The one place it departs from typevet: a stopped message that holds a
// secret, "authorization" or "bearer " (any case) is replaced by
// [receipt.WithheldMessage] ([receipt.Withhold]), so a server that echoes the auth header in an error
// does not cost the run's outcomes. [receipt.Write] still checks the whole
// receipt before writing.
func BuildReceipt(run RunResult, parts ReceiptParts) (Receipt, error) {
	if parts.Backend == serving.VLLM && strings.TrimSpace(parts.Pins.ModelRevision) == "" {
		return Receipt{}, errModelRevisionRequired
	}
	m, err := outcomeMetrics(run.Outcomes)
	if err != nil {
		return Receipt{}, err
	}
	cases, err := records(run.Outcomes)
	if err != nil {
		return Receipt{}, err
	}
	latencies := make([]float64, len(run.Outcomes))
	for i, o := range run.Outcomes {
		latencies[i] = o.Latency
	}
	var stopped *Stopped
	if run.Stopped != nil {
		s := *run.Stopped
		s.Message = receipt.Withhold(s.Message, parts.Secrets)
		stopped = &s
	}
	tp := receipt.NewThroughput(latencies, imagesPerJudgment, run.WallSeconds, run.Concurrency, run.Discarded, run.Server)
	return Receipt{
		Issue:       receiptIssue,
		Backend:     parts.Backend,
		Model:       parts.Model,
		Pins:        parts.Pins,
		Identity:    parts.Identity,
		Stopped:     stopped,
		WallSeconds: receipt.Round(run.WallSeconds, 3),
		Throughput:  &tp,
		ServerArgs:  parts.ServerArgs,
		Metrics:     m,
		Cases:       cases,
	}, nil
}

// PreviewReceipt returns the receipt a run of slice with c at concurrency
// would write if every case were judged, with placeholder answers: the
// first accepted verdict of each case, every verdict label in the
// distribution, confidences 1. Its text holds everything fixed that the
// real receipt will hold (backend and model names, pins, the server
// entry, question and label words, key names), so checking it for keys
// before the first scoring call ([receipt.CheckKeyFree]) refuses up front
// a key that would make the finished receipt unwritable.
func PreviewReceipt(c RunContext, slice Slice, concurrency int) (Receipt, error) {
	run := RunResult{Concurrency: concurrency, Outcomes: make([]Outcome, len(slice.Requests))}
	for i, req := range slice.Requests {
		verdict := VerdictConsistent
		if v := req.Case.Expected.Verdicts; len(v) > 0 {
			verdict = v[0]
		}
		probs := make(judgment.Probabilities, len(VerdictLabels))
		for k, l := range VerdictLabels {
			probs[k] = judgment.Probability{Label: l}
			if l == verdict {
				probs[k].P = 1
			}
		}
		run.Outcomes[i] = Outcome{
			CaseID: req.CaseID(), Variant: req.Case.Variant, Expected: req.Case.Expected,
			Verdict: verdict, VerdictProbabilities: probs, PayeeConfidence: 1, AmountsConfidence: 1,
			LegibilityProbabilities: make([]float64, LegibilityLevels), RenderSHA256: req.ImageDigest(),
		}
	}
	parts := c.ReceiptParts(slice, run)
	if parts.Backend == serving.VLLM && strings.TrimSpace(parts.Pins.ModelRevision) == "" {
		parts.Pins.ModelRevision = "-" // BuildReceipt refuses a blank revision; the caller's check does
	}
	return BuildReceipt(run, parts)
}
