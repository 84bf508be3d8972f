package checkmatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/internal/golden"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

func readReceiptFile(t testing.TB, path string) Receipt {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ReadReceipt(f)
	if err != nil {
		t.Fatalf("ReadReceipt(%s): %v", path, err)
	}
	return r
}

func TestReadTypevetReceipt(t *testing.T) {
	r := readReceiptFile(t, typevetReceipt)
	p := r.Pins
	checks := []struct {
		name      string
		got, want any
	}{
		{"issue", r.Issue, 316},
		{"backend", r.Backend, serving.VLLM},
		{"model", r.Model, "google/gemma-4-31B-it"},
		{"pins.finished_utc", p.FinishedUTC, "2026-09-30T15:16:30.783430+00:00"},
		{"pins.dataset", p.Dataset, "synthetic checks (#315 generator)"},
		{"pins.generator_seed", p.GeneratorSeed, uint64(0)},
		{"pins.register_rows", p.RegisterRows, 20},
		{"pins.variants_per_row", p.VariantsPerRow, 7},
		{"pins.concurrency", p.Concurrency, 0},
		{"pins.pillow_version", p.PillowVersion, "12.3.0"},
		{"pins.renderer", p.Renderer == nil, true},
		{"pins.slice_sha256", p.SliceSHA256, "64a9621a2d556d9ba798af084249796ec634788c82cda978b057934545fbe295"},
		{"pins.server.build_info", p.Server != nil && p.Server.BuildInfo == "0.30.0", true},
		{"pins.server.served", p.Server != nil && len(p.Server.Served) == 1 && p.Server.Served[0].ID == "google/gemma-4-31B-it", true},
		{"pins.model_revision", p.ModelRevision, "842da3794eaa0b77d5f08bae87a17459d91ff475"},
		{"identity.run_id", r.Identity.RunID, "c0a53e7cb404460d80a32e4d661a034c"},
		{"identity.identity_digest", r.Identity.IdentityDigest, "18e168570a2c6aaaa57967588547c970ed8048ef4093a42d6a8732d7ca9b69b6"},
		{"stopped", r.Stopped, (*Stopped)(nil)},
		{"wall_seconds", r.WallSeconds, 1099.517},
		{"throughput", r.Throughput, (*receipt.Throughput)(nil)},
		{"server_args", r.ServerArgs, (*serving.ServerArgsBlock)(nil)},
		{"metrics.cases", r.Metrics.Cases, 140},
		{"metrics.accuracy", *r.Metrics.Accuracy, 0.9285714285714286},
		{"metrics.confidence_note", r.Metrics.ConfidenceNote, confidenceNote},
		{"cases", len(r.Cases), 140},
		{"cases[139].case_id", r.Cases[139].CaseID, "r19:low_legibility"},
		{"cases[0].verdict_probabilities order", r.Cases[0].VerdictProbabilities[5].Label, "cannot_tell"},
		{"cases[0].legibility_probabilities[4]", r.Cases[0].LegibilityProbabilities[4], 0.9999999995782602},
		{"cases[0].input_tokens", *r.Cases[0].InputTokens, 1917},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestRecomputeTypevetReceipt is the issue's "Must show": Recompute over
// the cases of typevet's real vLLM receipt, read with ReadReceipt, equals
// every recorded metric, floats bit for bit; mean_latency_seconds within
// 5e-4 s (the cases keep latencies rounded to 3 decimals), with the
// rounded-latency warning attached.
func TestRecomputeTypevetReceipt(t *testing.T) {
	r := readReceiptFile(t, typevetReceipt)
	got, err := r.Recompute()
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Warnings) != 1 || !errors.Is(got.Warnings[0], errRoundedLatencies) {
		t.Errorf("Warnings = %v, want ErrRoundedLatencies", got.Warnings)
	}
	recorded := r.Metrics
	d := math.Abs(*got.MeanLatencySeconds - *recorded.MeanLatencySeconds)
	if d > 5e-4 {
		t.Errorf("mean_latency_seconds = %v, recorded %v", *got.MeanLatencySeconds, *recorded.MeanLatencySeconds)
	}
	t.Logf("mean_latency_seconds %v vs recorded %v (%.2g s apart)", *got.MeanLatencySeconds, *recorded.MeanLatencySeconds, d)
	got.MeanLatencySeconds, recorded.MeanLatencySeconds, got.Warnings = nil, nil, nil
	var c bitComparer
	c.compare("metrics", reflect.ValueOf(got), reflect.ValueOf(recorded))
	for _, d := range c.diffs {
		t.Error(d)
	}
	if c.floats != 89 {
		t.Errorf("compared %d floats, want 89", c.floats)
	}
}

func TestReadReceiptHeads(t *testing.T) {
	tests := []struct {
		name        string
		path        string
		judgments   int
		concurrency int
		p50         float64
	}{
		{name: "full c16", path: "testdata/receipt_typevet/check_match_vllm_throughput_full_c16.head.json", judgments: 140, concurrency: 16, p50: 2.918103490024805},
		{name: "c4", path: "testdata/receipt_typevet/check_match_vllm_throughput_c4.head.json", judgments: 63, concurrency: 4, p50: 1.3526233648881316},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := readReceiptFile(t, tt.path)
			if r.Throughput == nil || r.Throughput.Judgments != tt.judgments || r.Throughput.Concurrency != tt.concurrency ||
				r.Throughput.LatencySeconds.P50 == nil || *r.Throughput.LatencySeconds.P50 != tt.p50 {
				t.Errorf("throughput = %+v", r.Throughput)
			}
			if r.Pins.Concurrency != tt.concurrency || r.Pins.PillowVersion != "12.3.0" || r.Cases != nil || r.Metrics.Cases != 0 {
				t.Errorf("pins = %+v, %d cases", r.Pins, len(r.Cases))
			}
			if _, err := r.Recompute(); err == nil || err.Error() != "recompute: the receipt has no cases" {
				t.Errorf("head.Recompute() error = %v", err)
			}
			// The head's extra "_note" key is ignored, and so lost on writing.
			b, err := receipt.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte(`"_note"`)) {
				t.Error("the unknown _note key survived")
			}
		})
	}
}

func TestReadReceiptErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "empty", in: "", want: "read check-match receipt: EOF"},
		{name: "not an object", in: "[]", want: "read check-match receipt: json: cannot unmarshal array"},
		{name: "other issue", in: `{"issue": 105}`, want: "read check-match receipt: issue is 105, want 316"},
		{name: "trailing", in: `{"issue": 316} {}`, want: "read check-match receipt: data after the receipt object"},
		{name: "bad level key", in: `{"issue": 316, "cases": [{"legibility_probabilities": {"24": 1}}]}`, want: `level key "24" is not one of 0..23`},
		{name: "null issue, other keys wrong", in: `{"issue": null, "wall_seconds": "soon"}`, want: "read check-match receipt: json: cannot unmarshal string"},
		{name: "wrong type", in: `{"issue": 316, "wall_seconds": "soon"}`, want: "read check-match receipt: json: cannot unmarshal string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadReceipt(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadReceipt(%q) error = %v, want %q", tt.in, err, tt.want)
			}
		})
	}
}

// rightReceipt builds a receipt of the _RIGHT run as our runner writes one,
// on vLLM with every optional block filled in.
func rightReceipt(t testing.TB) Receipt {
	t.Helper()
	outcomes := rightOutcomes(t, rightAnswers())
	m, err := outcomeMetrics(outcomes)
	if err != nil {
		t.Fatal(err)
	}
	records, err := records(outcomes)
	if err != nil {
		t.Fatal(err)
	}
	latencies := make([]float64, len(outcomes))
	for i, o := range outcomes {
		latencies[i] = o.Latency
	}
	th := receipt.NewThroughput(latencies, 1, 4.0, 1, 0, nil)
	stated := "--max-num-seqs 16"
	args := serving.ServerArgs(serving.Labels{{Name: "block_size", Value: "16"}, {Name: "engine", Value: "0"}}, &stated)
	root, maxLen := "google/gemma-4-31B-it", int64(8192)
	return Receipt{
		Issue:   receiptIssue,
		Backend: serving.VLLM,
		Model:   "google/gemma-4-31B-it",
		Pins: Pins{
			FinishedUTC: "2026-11-29T23:00:00.000001+00:00", Dataset: "synthetic checks (#315 generator)",
			GeneratorSeed: 0, RegisterRows: 1, VariantsPerRow: VariantsPerRow,
			SliceSHA256: strings.Repeat("ab", 32), Concurrency: 1,
			Renderer: &RendererInfo{Module: "github.com/typevet/typevet-go", ModuleVersion: "v0.1.0",
				Font: "Go Regular", FontSHA256: strings.Repeat("f", 64), XImageVersion: "v0.48.0", Blur: "test-blur", PNG: pngKind},
			Server: &serving.ServerEntry{
				Served:    []serving.ServedModel{{ID: "google/gemma-4-31B-it", Root: &root, MaxModelLen: &maxLen}},
				BuildInfo: "0.30.0",
			},
			ModelRevision: "842da3794eaa0b77d5f08bae87a17459d91ff475",
		},
		Identity: receipt.Identity{
			RunID: strings.Repeat("0", 32), BaselineCommit: strings.Repeat("c", 40),
			WorkingTree:     receipt.WorkingTree{DirtyPaths: []string{}},
			PromptDigests:   receipt.Digests{{Name: "payee_matches", Value: "d8"}},
			CodePathDigests: receipt.Digests{{Name: "metrics", Value: "f2"}},
			FixtureDigests:  receipt.Digests{},
			Runtime:         receipt.NewRuntime("google/gemma-4-31B-it", "vllm_chat", "0.30.0"),
			ArmCallCounts:   receipt.Counts{{Name: "judgments", Value: 7}},
			IdentityDigest:  strings.Repeat("d", 64),
		},
		Stopped:     &Stopped{Index: 7, CaseID: "r01:clean", ErrorClass: "TransportError", Message: "refused", Discarded: 2},
		WallSeconds: 4.0,
		Throughput:  &th,
		ServerArgs:  &args,
		Metrics:     m,
		Cases:       records,
	}
}

// TestReceiptRoundTrip writes our receipt the way receipt.Write does and
// reads it back: same keys in the
// receipt's key order, same values, same bytes when
// written again, and Recompute reproduces its metrics.
func TestReceiptRoundTrip(t *testing.T) {
	want := rightReceipt(t)
	b, err := receipt.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, "testdata/receipt_right.golden", b)

	topKeys := []string{"issue", "backend", "model", "pins", "identity", "stopped", "wall_seconds", "throughput", "server_args", "metrics", "cases"}
	if got := topLevelKeys(t, b); !reflect.DeepEqual(got, topKeys) {
		t.Errorf("top-level keys = %v\nwant %v", got, topKeys)
	}
	var raw struct{ Pins, Stopped json.RawMessage }
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	pinKeys := []string{"finished_utc", "dataset", "generator_seed", "register_rows", "variants_per_row", "slice_sha256", "concurrency", "renderer", "server", "model_revision"}
	if got := topLevelKeys(t, raw.Pins); !reflect.DeepEqual(got, pinKeys) {
		t.Errorf("pins keys = %v\nwant %v", got, pinKeys)
	}
	if got := topLevelKeys(t, raw.Stopped); !reflect.DeepEqual(got, []string{"index", "case_id", "error_class", "message", "discarded"}) {
		t.Errorf("stopped keys = %v", got)
	}

	got, err := ReadReceipt(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	again, err := receipt.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, b) {
		t.Errorf("written again, the receipt differs:\n%s", golden.FirstDiff(b, again))
	}
	// Typed parts compare equal too (Warnings are not written).
	want.Metrics.Warnings = nil
	if !reflect.DeepEqual(got.Cases, want.Cases) || !reflect.DeepEqual(got.Metrics, want.Metrics) ||
		!reflect.DeepEqual(got.Stopped, want.Stopped) || !reflect.DeepEqual(got.Pins.Server, want.Pins.Server) {
		t.Error("cases, metrics, stopped or pins.server changed in the round trip")
	}

	re, err := got.Recompute()
	if err != nil {
		t.Fatal(err)
	}
	re.Warnings = nil
	if !reflect.DeepEqual(re, want.Metrics) {
		t.Errorf("Recompute = %+v\nwant %+v", re, want.Metrics)
	}
}

// TestReceiptRoundTripTypevet reads typevet's receipt, writes it with our
// types and reads it again: nothing the types know about changes.
func TestReceiptRoundTripTypevet(t *testing.T) {
	first := readReceiptFile(t, typevetReceipt)
	b, err := receipt.Marshal(first)
	if err != nil {
		t.Fatal(err)
	}
	second, err := ReadReceipt(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, second) {
		t.Error("typevet receipt changed in a write and read")
	}
	// Python writes 1.0 where Go writes 1; apart from that and the two
	// new null keys, the values are the file's.
	if !bytes.Contains(b, []byte(`"throughput": null`)) || !bytes.Contains(b, []byte(`"pillow_version": "12.3.0"`)) {
		t.Error("written receipt lacks throughput null or the kept pillow_version")
	}
}

// FuzzReadReceipt checks that whatever ReadReceipt accepts, it writes back
// in a form it reads again to the same bytes (parse → write → parse is
// stable), and that metrics recomputed from accepted cases stay in [0, 1].
// The seeds are a few hundred bytes: the fuzzer minimises every input that
// reaches new code, and on a seed of kilobytes that took the whole run (11
// executions in 20 s). The real receipts get the same property in
// TestReadReceiptRoundTrips.
func FuzzReadReceipt(f *testing.F) {
	one := rightReceipt(f)
	c, err := json.Marshal(one.Cases[0])
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"issue": 316, "cases": [` + string(c) + `]}`))
	f.Add([]byte(`{"issue": 316, "backend": "vllm", "model": "m", "pins": {"generator_seed": 0, "register_rows": 1, "server": null}, "stopped": null}`))
	f.Add([]byte(`{"issue": 316, "cases": [], "metrics": {"accuracy": null}}`))
	f.Add([]byte(`{"issue": 316, "stopped": {"index": 1}, "pins": {"server": null}}`))
	f.Fuzz(readReceiptRoundTrip)
}

// TestReadReceiptRoundTrips holds FuzzReadReceipt's property on the large
// receipts too big to seed the fuzzer with: typevet's published vLLM
// receipt, both of typevet's throughput heads and one of ours with two
// cases.
func TestReadReceiptRoundTrips(t *testing.T) {
	small := rightReceipt(t)
	small.Cases = small.Cases[:2]
	m, err := small.Recompute()
	if err != nil {
		t.Fatal(err)
	}
	small.Metrics = m
	ours, err := json.Marshal(small)
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string][]byte{"ours, two cases": ours}
	for _, name := range []string{"check_match_vllm_receipt.json", "check_match_vllm_throughput_c4.head.json", "check_match_vllm_throughput_full_c16.head.json"} {
		b, err := os.ReadFile("testdata/receipt_typevet/" + name)
		if err != nil {
			t.Fatal(err)
		}
		inputs[name] = b
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			if _, err := ReadReceipt(bytes.NewReader(in)); err != nil {
				t.Fatalf("ReadReceipt: %v", err) // the property below holds for accepted receipts only
			}
			readReceiptRoundTrip(t, in)
		})
	}
}

// readReceiptRoundTrip is FuzzReadReceipt's property on one input.
func readReceiptRoundTrip(t *testing.T, in []byte) {
	r, err := ReadReceipt(bytes.NewReader(in))
	if err != nil {
		return
	}
	first, err := receipt.Marshal(r)
	if err != nil {
		t.Fatalf("read but cannot write: %v", err)
	}
	r2, err := ReadReceipt(bytes.NewReader(first))
	if err != nil {
		t.Fatalf("cannot read what was written: %v\n%s", err, first)
	}
	second, err := receipt.Marshal(r2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Fatalf("write → read → write changed the text:\n%s", golden.FirstDiff(first, second))
	}
	// Whatever cases Recompute accepts give rates, AUCs and ECEs in [0, 1].
	m, err := r.Recompute()
	if err != nil {
		return
	}
	for name, v := range rateValues(m) {
		if !(v >= 0 && v <= 1) {
			t.Errorf("%s = %v, not in [0, 1]", name, v)
		}
	}
}

// rateValues lists every value of a metrics block that must lie in [0, 1].
func rateValues(m MetricsBlock) map[string]float64 {
	out := map[string]float64{}
	add := func(name string, p *float64) {
		if p != nil {
			out[name] = *p
		}
	}
	add("accuracy", m.Accuracy)
	add("false_clear_rate", m.FalseClearRate)
	add("cannot_tell_rate", m.CannotTellRate)
	add("agreement rate", m.NoulChoiceAgreement.Rate)
	for _, group := range []receipt.Ordered[float64]{m.AccuracyByClass, m.AccuracyByVariant, m.FalseClearByVariant, m.CannotTellByVariant} {
		for _, e := range group {
			out["group "+e.Name] = e.Value
		}
	}
	for name, n := range map[string]NoulSummary{"payee": m.Nouls.PayeeMatches, "amounts": m.Nouls.AmountsMatch} {
		add(name+" roc_auc", n.ROCAUC)
		add(name+" ece", n.ECE)
		for i, b := range n.Reliability {
			add(fmt.Sprintf("%s bin %d mean", name, i), b.MeanConfidence)
			add(fmt.Sprintf("%s bin %d fraction", name, i), b.FractionTrue)
		}
	}
	return out
}

// Recompute a typevet receipt's metrics from its cases and compare them
// with the recorded ones.
func ExampleReceipt_Recompute() {
	f, err := os.Open("testdata/receipt_typevet/check_match_vllm_receipt.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	r, err := ReadReceipt(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := r.Recompute()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("cases:", m.Cases)
	fmt.Println("accuracy:", *m.Accuracy, *m.Accuracy == *r.Metrics.Accuracy)
	fmt.Println("amounts ece:", *m.Nouls.AmountsMatch.ECE, *m.Nouls.AmountsMatch.ECE == *r.Metrics.Nouls.AmountsMatch.ECE)
	fmt.Printf("mean latency: %.4f s (recorded %.4f s)\n", *m.MeanLatencySeconds, *r.Metrics.MeanLatencySeconds)
	fmt.Println("warning:", m.Warnings[0])
	// Output:
	// cases: 140
	// accuracy: 0.9285714285714286 true
	// amounts ece: 0.007274756156336548 true
	// mean latency: 7.8536 s (recorded 7.8536 s)
	// warning: mean_latency_seconds is the mean of latencies rounded to 3 decimals; the run's value, over unrounded latencies, may differ by up to 5e-4 s
}

// TestReadReceiptWithoutIssue: typevet's repeat summary reads a receipt
// without an issue key (or with a null one), so ReadReceipt does too and
// fills in 316; a present issue must still be 316.
func TestReadReceiptWithoutIssue(t *testing.T) {
	for _, in := range []string{`{}`, `{"issue": null}`, `{"backend": "vllm"}`} {
		r, err := ReadReceipt(strings.NewReader(in))
		if err != nil || r.Issue != receiptIssue {
			t.Errorf("ReadReceipt(%s) = issue %d, %v; want %d", in, r.Issue, err, receiptIssue)
		}
	}
}
