package orderings

import (
	"bytes"
	"context"
	"github.com/typevet/typevet-go/checkmatch"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/internal/golden"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

// studyReceipt runs a study over the first cases of a seed-1 slice with a
// port that fails at call failAt (-1: never) and builds its receipt with
// fixed identity, pins and wall time.
func studyReceipt(t *testing.T, cases, failAt int) Receipt {
	t.Helper()
	sl := studySlice(t, 1)
	reqs := sl.Requests[:cases]
	orders, err := BalancedOrders(len(checkmatch.VerdictLabels))
	require.NoError(t, err)
	port := &positionPort{byPos: []float64{0.3, 0.25, 0.2, 0.1, 0.1, 0.05}}
	if failAt >= 0 {
		port.fail = map[int]error{failAt: &judgment.BackendHTTPError{Msg: "HTTP 503", StatusCode: 503}}
	}
	run, err := Run(context.Background(), port, "gemma-test", reqs, orders, singleFor(reqs), checkmatch.RunOptions{})
	require.NoError(t, err)
	run.WallSeconds = 12.34567
	snap, err := TakeSnapshot(t.TempDir(), nil)
	require.NoError(t, err)
	code := snap.CodePathDigests
	for i := range code {
		code[i].Value = strings.Repeat("c", 64) // stable across edits of the source
	}
	stated := "--ctx-size 8192"
	id := receipt.Identity{
		RunID:           strings.Repeat("0", 32),
		BaselineCommit:  strings.Repeat("a", 40),
		PromptDigests:   promptDigests(),
		CodePathDigests: code,
		FixtureDigests:  receipt.Digests{{Name: orderingsFixtureName, Value: strings.Repeat("f", 64)}},
		ArmCallCounts:   receipt.Counts{{Name: armVerdictRequests, Value: run.Requests}},
	}
	sa := serving.ServerArgs(nil, &stated)
	pins := Pins{
		FinishedUTC: "2026-11-29T00:00:00+00:00", Dataset: sl.Pins().Dataset, GeneratorSeed: 1, RegisterRows: 1,
		VariantsPerRow: checkmatch.VariantsPerRow, SliceSHA256: sl.SHA256, Concurrency: 1,
		Orderings: orderLabels(checkmatch.VerdictLabels[:], orders), SingleOrderReceipt: "single.json",
		SingleOrderReceiptSHA256: strings.Repeat("e", 64), Renderer: &checkmatch.RendererInfo{Module: "github.com/typevet/typevet-go", Font: "Go Regular"},
		ServerArgs: &sa,
	}
	r, err := BuildReceipt(run, ReceiptParts{Backend: serving.LlamaCPP, Model: "gemma-test", Pins: pins, Identity: id})
	require.NoError(t, err)
	return r
}

func TestOrderingsReceiptGolden(t *testing.T) {
	r := studyReceipt(t, 2, -1)
	b, err := receipt.Marshal(r)
	require.NoError(t, err)
	golden.Compare(t, "testdata/orderings_receipt.golden", b)

	// typevet's key order: at the top level, per case and in the
	// statistics block.
	text := string(b)
	assertOrder(t, text, `"issue": 105`, `"backend"`, `"model"`, `"pins"`, `"identity"`, `"stopped"`, `"requests"`, `"wall_seconds": 12.346`, `"statistics"`, `"cases"`)
	assertOrder(t, text, `"finished_utc"`, `"dataset"`, `"generator_seed"`, `"register_rows"`, `"variants_per_row"`, `"slice_sha256"`, `"concurrency": 1`, `"orderings"`, `"single_order_receipt"`, `"single_order_receipt_sha256"`, `"renderer"`, `"server"`, `"server_args"`)
	assertOrder(t, text, `"cases": 2`, `"position_means"`, `"position_spread"`, `"argmax_stability"`, `"averaged_accuracy"`, `"single_order_accuracy"`, `"ordering0_agreement"`, `"ordering0_max_abs_difference"`, `"spread_limit"`, `"decision"`, `"spread_interval"`, `"accuracy_difference_interval"`, `"bootstrap"`)
	assertOrder(t, text, `"case_id"`, `"variant"`, `"expected_verdicts"`, `"render_sha256"`, `"single_order"`, `"orderings"`, `"position_probabilities"`, `"mean_probabilities"`, `"mean_verdict"`, `"mean_correct"`, `"argmax_stable"`)
	assert.NotContains(t, text, "pillow_version")

	back, err := ReadReceipt(bytes.NewReader(b))
	require.NoError(t, err)
	again, err := receipt.Marshal(back)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(again), "read → write is stable")
	st, err := Statistics(back.Cases)
	require.NoError(t, err)
	assert.Equal(t, *back.Statistics, st, "the statistics are a pure function of the receipt's cases")
}

// assertOrder checks that each of keys occurs in text after the previous.
func assertOrder(t *testing.T, text string, keys ...string) {
	t.Helper()
	at := 0
	for _, k := range keys {
		i := strings.Index(text[at:], k)
		if !assert.GreaterOrEqual(t, i, 0, "%s after offset %d", k, at) {
			return
		}
		at += i + len(k)
	}
}

func TestOrderingsReceiptStopped(t *testing.T) {
	// typevet's stopped-study rule: failing at call 8 keeps one case and its statistics;
	// failing at call 0 keeps none, and statistics is null.
	r := studyReceipt(t, 3, 8)
	require.NotNil(t, r.Stopped)
	assert.Equal(t, Stopped{Index: 1, CaseID: "r00:payee_changed", Ordering: 2, ErrorClass: "BackendHttpError", Message: r.Stopped.Message}, *r.Stopped)
	assert.Len(t, r.Cases, 1)
	require.NotNil(t, r.Statistics)
	assert.Equal(t, 1, r.Statistics.Cases)
	assert.Equal(t, 8, r.Requests)

	r = studyReceipt(t, 3, 0)
	assert.Nil(t, r.Statistics)
	assert.Empty(t, r.Cases)
	b, err := receipt.Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"statistics": null`)
	assert.Contains(t, string(b), `"cases": []`)
	assert.Contains(t, string(b), `"ordering": 0`)
	assert.NotContains(t, string(b), `"discarded"`, "the study's stopped record has no discarded count")
}

func TestOrderingsReceiptWithholdsSecrets(t *testing.T) {
	run := Result{Stopped: &Stopped{Message: "proxy said: Authorization: Bearer sk-123"}}
	r, err := BuildReceipt(run, ReceiptParts{Secrets: judgment.Secrets{Keys: []string{"sk-123"}}})
	require.NoError(t, err)
	assert.Equal(t, "message withheld: the error text held a key or an auth header", r.Stopped.Message)
}

func TestReadOrderingsReceiptRefuses(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{name: "other issue", in: `{"issue": 316}`, want: "issue is 316, want 105"},
		{name: "trailing data", in: `{"issue": 105} {}`, want: "data after"},
		{name: "not json", in: `nope`, want: "read orderings receipt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadReceipt(strings.NewReader(tt.in))
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestOrderingsIdentityParts(t *testing.T) {
	snap, err := TakeSnapshot(t.TempDir(), nil)
	require.NoError(t, err)
	code := snap.CodePathDigests
	var names []string
	for _, e := range code {
		names = append(names, e.Name)
		assert.Len(t, e.Value, 64)
	}
	assert.Equal(t, []string{"cases", "orderings", "render", "request", "words"}, names)
	snap, err = checkmatch.TakeSnapshot(t.TempDir(), nil)
	require.NoError(t, err)
	run := snap.CodePathDigests
	for _, name := range []string{"cases", "render", "request", "words"} {
		want, _ := run.Get(name)
		got, _ := code.Get(name)
		assert.Equal(t, want, got, "%s: a study and its single-order run of one build share the digest", name)
	}
	// The verdict's digest is the one typevet's receipts record.
	assert.Equal(t, receipt.Digests{{Name: "verdict", Value: "b7ef7c4a0c25b12827252fdacba3011e1bb064231d047cac8b1626b29fcb522a"}}, promptDigests())
}

// FuzzReadOrderingsReceipt: whatever ReadReceipt accepts writes
// back to text it reads again to the same value (read → write → read is
// stable), and has issue 105. The seeds are small ([golden.Seed] of the
// golden receipt: on the whole 13 KB the fuzzer spends its time
// minimising); TestOrderingsReceiptRoundTrip holds the property on the
// whole golden receipt.
func FuzzReadOrderingsReceipt(f *testing.F) {
	g, err := os.ReadFile("testdata/orderings_receipt.golden")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden.Seed(f, g, 700))
	f.Add([]byte(`{"issue": 105, "cases": [], "statistics": null}`))
	f.Add([]byte(`{"issue": 105, "stopped": {"index": 0, "ordering": 3}}`))
	f.Fuzz(orderingsReceiptRoundTrip)
}

// TestOrderingsReceiptRoundTrip holds FuzzReadOrderingsReceipt's property
// on the whole golden receipt, which it must accept.
func TestOrderingsReceiptRoundTrip(t *testing.T) {
	g, err := os.ReadFile("testdata/orderings_receipt.golden")
	require.NoError(t, err)
	_, err = ReadReceipt(bytes.NewReader(g))
	require.NoError(t, err)
	orderingsReceiptRoundTrip(t, g)
}

// orderingsReceiptRoundTrip is FuzzReadOrderingsReceipt's property on one
// input.
func orderingsReceiptRoundTrip(t *testing.T, data []byte) {
	r, err := ReadReceipt(bytes.NewReader(data))
	if err != nil {
		return
	}
	if r.Issue != receiptIssue {
		t.Fatalf("issue %d accepted", r.Issue)
	}
	b, err := receipt.Marshal(r)
	if err != nil {
		return // e.g. a non-finite number cannot be written; reading it is fine
	}
	again, err := ReadReceipt(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("written receipt does not read back: %v\n%s", err, b)
	}
	b2, err := receipt.Marshal(again)
	if err != nil || !bytes.Equal(b, b2) {
		t.Fatalf("read → write is not stable: %v\n%s\n%s", err, b, b2)
	}
}

func TestNewReceiptParts(t *testing.T) {
	slice := studySlice(t, 1)
	snap, err := TakeSnapshot(t.TempDir(), new(string))
	require.NoError(t, err)
	assert.Equal(t, promptDigests(), snap.PromptDigests)
	orders, err := BalancedOrders(len(checkmatch.VerdictLabels))
	require.NoError(t, err)
	c := checkmatch.RunContext{Backend: "fake", Model: "fake-model", ServedTemplate: "fake", Snapshot: snap,
		Now: func() time.Time { return time.Unix(0, 0) }}
	parts := NewReceiptParts(c, slice, orders, SingleOrderFile{Path: "/x/y/single.json", SHA256: "abc"}, Result{Requests: 42})
	p := parts.Pins
	assert.Equal(t, "1970-01-01T00:00:00+00:00", p.FinishedUTC)
	assert.Equal(t, "single.json", p.SingleOrderReceipt)
	assert.Equal(t, "abc", p.SingleOrderReceiptSHA256)
	assert.Equal(t, 1, p.Concurrency)
	assert.Equal(t, orderLabels(checkmatch.VerdictLabels[:], orders), p.Orderings)
	assert.Equal(t, slice.SHA256, p.SliceSHA256)
	require.NotNil(t, p.ServerArgs)
	assert.Nil(t, p.ServerArgs.CallerStated)
	assert.Equal(t, receipt.Counts{{Name: armVerdictRequests, Value: 42}}, parts.Identity.ArmCallCounts)
	assert.Equal(t, receipt.Digests{{Name: orderingsFixtureName, Value: "abc"}}, parts.Identity.FixtureDigests)
	assert.Equal(t, receipt.IdentityDigest(parts.Identity), parts.Identity.IdentityDigest)
}

// promptDigests is the study's prompt_digests: the verdict question's.
func promptDigests() receipt.Digests { return receipt.PromptDigests(verdictQuestion()) }
