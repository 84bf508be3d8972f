package checkmatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/typevet/typevet-go/internal/pyjson"
	"github.com/typevet/typevet-go/internal/pymath"
	"github.com/typevet/typevet-go/judgment"
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
//
// Every value read is then checked against the receipt's rules
// ([Receipt.Validate]): an impossible value (a negative probability, a
// verdict outside the six labels, register_rows −3, legibility level 99)
// is an error naming the field and the case, and so is a case key that is
// missing or null where a value is required (a null confidence would
// otherwise read as 0.0). The metrics block is not compared with the
// cases here; [Receipt.CheckMetrics] does that.
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
	if err := checkKeys(raw, out.Cases); err != nil {
		return Receipt{}, fmt.Errorf("read check-match receipt: %w", err)
	}
	if err := out.Validate(); err != nil {
		return Receipt{}, fmt.Errorf("read check-match receipt: %w", err)
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

// probabilityTolerance is how far a verdict distribution (or a complete
// legibility distribution) may sum from 1: backends normalise in float64,
// typevet's own receipts are within 3e-16 of it.
const probabilityTolerance = 1e-6

// recordKeys holds the raw value of each case-record key whose JSON null
// (or absence) would otherwise read as a plausible zero: a confidence of
// 0.0, level 0, correct false. A nil RawMessage is a missing key.
type recordKeys struct {
	CaseID                  json.RawMessage `json:"case_id"`
	Variant                 json.RawMessage `json:"variant"`
	ExpectedVerdicts        json.RawMessage `json:"expected_verdicts"`
	PayeeTruth              json.RawMessage `json:"payee_truth"`
	AmountsTruth            json.RawMessage `json:"amounts_truth"`
	Verdict                 json.RawMessage `json:"verdict"`
	Correct                 json.RawMessage `json:"correct"`
	VerdictProbabilities    json.RawMessage `json:"verdict_probabilities"`
	PayeeConfidence         json.RawMessage `json:"payee_confidence"`
	AmountsConfidence       json.RawMessage `json:"amounts_confidence"`
	LegibilityScore         json.RawMessage `json:"legibility_score"`
	LegibilityLevel         json.RawMessage `json:"legibility_level"`
	LegibilityProbabilities json.RawMessage `json:"legibility_probabilities"`
	RenderSHA256            json.RawMessage `json:"render_sha256"`
	LatencySeconds          json.RawMessage `json:"latency_seconds"`
}

// receiptKeys is what [checkKeys] needs of a receipt's raw text.
type receiptKeys struct {
	Pins *struct {
		GeneratorSeed  json.RawMessage `json:"generator_seed"`
		RegisterRows   json.RawMessage `json:"register_rows"`
		VariantsPerRow json.RawMessage `json:"variants_per_row"`
		SliceSHA256    json.RawMessage `json:"slice_sha256"`
	} `json:"pins"`
	Cases []recordKeys `json:"cases"`
}

// checkKeys refuses a required key that is missing or null in raw, naming
// the key (and the case): encoding/json reads both as zero, which would
// pass for a confidence of 0.0.
func checkKeys(raw []byte, cases []CaseRecord) error {
	var k receiptKeys
	if err := json.Unmarshal(raw, &k); err != nil {
		return err
	}
	if p := k.Pins; p != nil && k.Cases != nil {
		for _, f := range []struct {
			name string
			v    json.RawMessage
		}{{"generator_seed", p.GeneratorSeed}, {"register_rows", p.RegisterRows}, {"variants_per_row", p.VariantsPerRow}, {"slice_sha256", p.SliceSHA256}} {
			if err := present(f.v); err != nil {
				return fmt.Errorf("pins.%s %w", f.name, err)
			}
		}
	}
	for i, c := range k.Cases {
		fields := []struct {
			name string
			v    json.RawMessage
		}{
			{"case_id", c.CaseID}, {"variant", c.Variant}, {"expected_verdicts", c.ExpectedVerdicts},
			{"payee_truth", c.PayeeTruth}, {"amounts_truth", c.AmountsTruth}, {"verdict", c.Verdict},
			{"correct", c.Correct}, {"verdict_probabilities", c.VerdictProbabilities},
			{"payee_confidence", c.PayeeConfidence}, {"amounts_confidence", c.AmountsConfidence},
			{"legibility_score", c.LegibilityScore}, {"legibility_level", c.LegibilityLevel},
			{"legibility_probabilities", c.LegibilityProbabilities}, {"render_sha256", c.RenderSHA256},
			{"latency_seconds", c.LatencySeconds},
		}
		for _, f := range fields {
			if err := present(f.v); err != nil {
				return fmt.Errorf("%s: %s %w", caseName(i, cases), f.name, err)
			}
		}
	}
	return nil
}

// present refuses a missing or null value.
func present(v json.RawMessage) error {
	switch {
	case v == nil:
		return errors.New("is missing")
	case string(v) == "null":
		return errors.New("is null, want a value (null would read as zero)")
	}
	return nil
}

// caseName names the i-th case of cases in an error: "case r03:clean
// (index 3)", or its index alone when the id is empty.
func caseName(i int, cases []CaseRecord) string {
	if i < len(cases) && cases[i].CaseID != "" {
		return fmt.Sprintf("case %s (index %d)", cases[i].CaseID, i)
	}
	return fmt.Sprintf("case at index %d", i)
}

// Validate checks every value of r against the rules a run's receipt
// obeys ([BuildReceipt] writes nothing else), so that a hand-edited or
// corrupted receipt is refused instead of read as numbers. It is what
// [ReadReceipt] applies; readers of a Receipt built in code call it too.
//
// The rules: pins.register_rows is 1..20 and pins.variants_per_row is 7
// (unless the receipt has no pins, as a bare {} read by typevet's repeat
// summary); wall_seconds is finite and not negative; a stopped block has a
// case index and a discarded count of at least 0. Each case record has a
// case id "rNN:<variant>" of a row below register_rows; a known variant
// whose expected_verdicts, payee_truth and amounts_truth are the variant's
// ([ExpectedLabels]); a verdict that is one of [VerdictLabels];
// verdict_probabilities over those labels only, each in [0, 1], summing
// to 1 within 1e-6; correct and noul_choice_agreement equal to what the
// verdict and confidences give; both confidences in [0, 1];
// legibility_level in 0..4 and legibility_score in [0, 4];
// legibility_probabilities with 1 to 5 levels, each in [0, 1], summing to
// 1 within 1e-6 when all five are given;
// render_sha256 64 lower-case hex digits; latency_seconds finite and not
// negative; input_tokens null or at least 0. Errors name the field and the
// case. The metrics block is checked apart, by [Receipt.CheckMetrics].
func (r Receipt) Validate() error {
	p := r.Pins
	pinned := p != (Pins{}) || r.Cases != nil
	if pinned {
		if p.RegisterRows < 1 || p.RegisterRows > RowCount {
			return fmt.Errorf("pins.register_rows is %d, want 1..%d", p.RegisterRows, RowCount)
		}
		if p.VariantsPerRow != VariantsPerRow {
			return fmt.Errorf("pins.variants_per_row is %d, want %d", p.VariantsPerRow, VariantsPerRow)
		}
	}
	if w := r.WallSeconds; !(w >= 0) || math.IsInf(w, 0) {
		return fmt.Errorf("wall_seconds is %s, want a finite number of at least 0", pyjson.FormatFloat(w))
	}
	if s := r.Stopped; s != nil && (s.Index < 0 || s.Discarded < 0) {
		return fmt.Errorf("stopped: index %d and discarded %d must be at least 0", s.Index, s.Discarded)
	}
	for i := range r.Cases {
		if err := checkCaseRecord(&r.Cases[i], p.RegisterRows); err != nil {
			return fmt.Errorf("%s: %w", caseName(i, r.Cases), err)
		}
	}
	return nil
}

// checkCaseRecord checks one record's own values (Validate's case rules
// except the metrics block).
func checkCaseRecord(c *CaseRecord, rows int) error {
	row, suffix, ok := strings.Cut(c.CaseID, ":")
	n, err := strconv.Atoi(strings.TrimPrefix(row, "r"))
	if !ok || !strings.HasPrefix(row, "r") || len(row) < 3 || err != nil || n < 0 || suffix != string(c.Variant) {
		return fmt.Errorf("case_id %q is not \"rNN:%s\"", c.CaseID, c.Variant)
	}
	if n >= rows {
		return fmt.Errorf("case_id %q: row %d is not below pins.register_rows %d", c.CaseID, n, rows)
	}
	v, err := ParseVariant(string(c.Variant))
	if err != nil {
		return fmt.Errorf("variant: %w", err)
	}
	want := ExpectedLabels(v)
	if !slices.Equal(c.ExpectedVerdicts, want.Verdicts) {
		return fmt.Errorf("expected_verdicts %q, want %q for variant %s", c.ExpectedVerdicts, want.Verdicts, v)
	}
	if c.PayeeTruth != want.PayeeTruth || c.AmountsTruth != want.AmountsTruth {
		return fmt.Errorf("payee_truth %t and amounts_truth %t, want %t and %t for variant %s", c.PayeeTruth, c.AmountsTruth, want.PayeeTruth, want.AmountsTruth, v)
	}
	if err := checkVerdict(c.Verdict); err != nil {
		return fmt.Errorf("verdict: %w", err)
	}
	// The checks the metrics make of a record (confidences, level,
	// correct and noul_choice_agreement against the verdict).
	if _, _, _, _, err := checkRecord(*c, map[Variant]bool{v: want.CountsForFalseClear}); err != nil {
		return err
	}
	if err := checkDistribution("verdict_probabilities", c.VerdictProbabilities); err != nil {
		return err
	}
	if s := c.LegibilityScore; !(s >= 0 && s <= LegibilityLevels-1) {
		return fmt.Errorf("legibility_score %s is not in [0, %d]", pyjson.FormatFloat(s), LegibilityLevels-1)
	}
	if err := checkLegibility(c.LegibilityProbabilities); err != nil {
		return err
	}
	if !isLowerHex(c.RenderSHA256, 64) {
		return fmt.Errorf("render_sha256 %q is not 64 lower-case hex digits", c.RenderSHA256)
	}
	if l := c.LatencySeconds; !(l >= 0) || math.IsInf(l, 0) {
		return fmt.Errorf("latency_seconds %s is not a finite number of at least 0", pyjson.FormatFloat(l))
	}
	if t := c.InputTokens; t != nil && *t < 0 {
		return fmt.Errorf("input_tokens %d is negative", *t)
	}
	return nil
}

// checkDistribution checks a verdict distribution: labels among the six,
// each probability in [0, 1], summing to 1.
func checkDistribution(field string, ps judgment.Probabilities) error {
	if len(ps) == 0 {
		return fmt.Errorf("%s is empty", field)
	}
	sum := make([]float64, 0, len(ps))
	for _, e := range ps {
		if err := checkVerdict(e.Label); err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
		if !(e.P >= 0 && e.P <= 1) {
			return fmt.Errorf("%s: %q has probability %s, not in [0, 1]", field, e.Label, pyjson.FormatFloat(e.P))
		}
		sum = append(sum, e.P)
	}
	if s := pymath.FSum(sum); math.Abs(s-1) > probabilityTolerance {
		return fmt.Errorf("%s sum to %s, not 1 (unnormalised)", field, pyjson.FormatFloat(s))
	}
	return nil
}

// checkLegibility checks legibility_probabilities (sparse allowed).
func checkLegibility(ps ByLevel[float64]) error {
	if len(ps) == 0 || len(ps) > LegibilityLevels {
		return fmt.Errorf("legibility_probabilities holds levels up to %d, want 0..%d", len(ps)-1, LegibilityLevels-1)
	}
	var given []float64
	for i, p := range ps {
		if math.IsNaN(p) {
			continue // a level not given (sparse)
		}
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("legibility_probabilities: level %d has probability %s, not in [0, 1]", i, pyjson.FormatFloat(p))
		}
		given = append(given, p)
	}
	if s := pymath.FSum(given); len(given) == LegibilityLevels && math.Abs(s-1) > probabilityTolerance {
		return fmt.Errorf("legibility_probabilities sum to %s, not 1 (unnormalised)", pyjson.FormatFloat(s))
	}
	return nil
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// CheckMetrics refuses a metrics block that is not the one r's cases give
// ([Receipt.Recompute]; mean_latency_seconds within 5e-4 s), naming the
// first key that differs. A reader that shows the recorded metrics beside
// the cases (the viewer) calls it; [ReadReceipt] does not, because a
// prefix of a receipt's cases (a tool's test, a stopped run cut by hand)
// is still a readable receipt whose cases are right.
func (r Receipt) CheckMetrics() error {
	got, err := r.Recompute()
	if err != nil {
		return err
	}
	rec := r.Metrics
	if a, b := rec.MeanLatencySeconds, got.MeanLatencySeconds; a != nil && b != nil && math.Abs(*a-*b) <= 5e-4 {
		got.MeanLatencySeconds = a
	}
	want, err := json.Marshal(got)
	if err != nil {
		return err
	}
	have, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if !bytes.Equal(have, want) {
		return fmt.Errorf("metrics: the block is not the one the cases give (%s)", firstDifference(have, want))
	}
	return nil
}

// firstDifference names the first top-level key (sorted) whose value
// differs between two JSON objects: "accuracy is 0.5, the cases give 0.75".
func firstDifference(have, want []byte) string {
	var h, w map[string]json.RawMessage
	if json.Unmarshal(have, &h) != nil || json.Unmarshal(want, &w) != nil {
		return "not an object"
	}
	keys := slices.Sorted(maps.Keys(w))
	for _, k := range keys {
		if !bytes.Equal(h[k], w[k]) {
			return fmt.Sprintf("%s is %s, the cases give %s", k, clip(h[k]), clip(w[k]))
		}
	}
	return "keys differ"
}

// clip shortens a JSON value for an error message.
func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}
