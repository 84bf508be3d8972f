package checkmatch

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/internal/pytext"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

func TestCheckInputsKeyFree(t *testing.T) {
	const key = "sk-live-123"
	tests := []struct {
		name    string
		reason  string
		secrets []string
		inputs  []Input
		refused string // the refused input's name, "" for none
		rule    string
	}{
		{name: "clean", secrets: []string{key}, inputs: []Input{
			{Name: "TYPEVET_VLLM_SERVER_ARGS", Text: "--max-num-seqs 4"},
			{Name: "TYPEVET_GIT_STATUS_PORCELAIN", Text: " M checkmatch/setup.go\n"},
		}},
		{name: "key in server args", secrets: []string{key}, inputs: []Input{
			{Name: "TYPEVET_VLLM__MODEL", Text: "gemma"},
			{Name: "TYPEVET_VLLM_SERVER_ARGS", Text: "--api-key " + key + " --max-num-seqs 4"},
		}, refused: "TYPEVET_VLLM_SERVER_ARGS", rule: "a configured secret"},
		{name: "header value in porcelain", secrets: []string{key, "hv"}, inputs: []Input{
			{Name: "TYPEVET_GIT_STATUS_PORCELAIN", Text: "?? hv.txt"},
		}, refused: "TYPEVET_GIT_STATUS_PORCELAIN", rule: "a configured secret"},
		{name: "authorization word", reason: "the receipt rule refuses the word itself, any case", inputs: []Input{
			{Name: "TYPEVET_GIT_STATUS_PORCELAIN", Text: " M Authorization.go"},
		}, refused: "TYPEVET_GIT_STATUS_PORCELAIN", rule: "authorization"},
		{name: "bearer", inputs: []Input{{Name: "TYPEVET_VLLM_MODEL_REVISION", Text: "BEARER abc"}},
			refused: "TYPEVET_VLLM_MODEL_REVISION", rule: "bearer "},
		{name: "escaped secret", reason: "a quote in the key is found in its JSON-escaped form too",
			secrets: []string{`a"b`}, inputs: []Input{{Name: "X", Text: `--api-key a"b`}}, refused: "X", rule: "a configured secret"},
		{name: "first refused wins", secrets: []string{key}, inputs: []Input{
			{Name: "A", Text: key}, {Name: "B", Text: key},
		}, refused: "A", rule: "a configured secret"},
		{name: "no secrets", inputs: []Input{{Name: "A", Text: "--api-key K"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckInputsKeyFree(tt.secrets, tt.inputs...)
			if tt.refused == "" {
				require.NoError(t, err)
				return
			}
			var ie *inputNotKeyFreeError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, tt.refused, ie.Name)
			assert.Equal(t, tt.rule, ie.Reason)
			assert.Contains(t, err.Error(), tt.refused)
			for _, s := range tt.secrets {
				assert.NotContains(t, err.Error(), s, "the message never holds a secret")
			}
		})
	}
}

func TestOfflineServerEntry(t *testing.T) {
	type pin struct {
		Name    string  `json:"name"`
		Version string  `json:"version"`
		Ink     float64 `json:"ink"`
	}
	e, err := OfflineServerEntry("r/1", pin{Name: "reader", Version: "r/1", Ink: 0.25})
	require.NoError(t, err)
	b, err := receipt.Marshal(e)
	require.NoError(t, err)
	assert.Equal(t, "{\n  \"served\": [],\n  \"build_info\": \"r/1\",\n  \"backend_pin\": {\n    \"name\": \"reader\",\n    \"version\": \"r/1\",\n    \"ink\": 0.25\n  }\n}", strings.TrimSpace(string(b)))
	var back serving.ServerEntry
	require.NoError(t, json.Unmarshal(b, &back))
	assert.JSONEq(t, `{"name":"reader","version":"r/1","ink":0.25}`, string(back.BackendPin))

	for _, bad := range []any{"text", []int{1}, nil, func() {}} {
		_, err := OfflineServerEntry("v", bad)
		assert.Error(t, err, "%T", bad)
	}
}

// TestParseConcurrency holds typevet's concurrency-parsing vectors.
func TestParseConcurrency(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		want   int
		reason string
	}{
		{name: "unset or empty", raw: "", want: 1},
		{name: "space", raw: " ", want: 1},
		{name: "python whitespace", raw: "\u3000\x1c", want: 1, reason: "str.strip removes these too"},
		{name: "one", raw: "1", want: 1},
		{name: "padded 16", raw: " 16 ", want: 16},
		{name: "underscore", raw: "1_6", want: 16, reason: "int() accepts single underscores"},
		{name: "plus", raw: "+8", want: 8},
		{name: "max", raw: "1048576", want: maxConcurrency},
		{name: "zero", raw: "0"},
		{name: "negative", raw: "-4"},
		{name: "word", raw: "four"},
		{name: "fraction", raw: "2.5"},
		{name: "over max", raw: "1048577", reason: "this port's bound"},
		{name: "huge", raw: "99999999999999999999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ParseConcurrency(tt.raw, ConcurrencyEnv)
			if tt.want == 0 {
				assert.EqualError(t, err, "TYPEVET_IMAGE_CONCURRENCY must be a whole number of at least 1", tt.reason)
				return
			}
			require.NoError(t, err, tt.reason)
			assert.Equal(t, tt.want, n)
		})
	}
}

func TestParseRows(t *testing.T) {
	tests := []struct {
		name, raw string
		want      int
		err       string
		reason    string
	}{
		{name: "twenty", raw: "20", want: 20},
		{name: "padded", raw: " 7 ", want: 7},
		{name: "underscore", raw: "1_0", want: 10},
		{name: "zero", raw: "0", err: "TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: 0"},
		{name: "21", raw: " 21 ", err: "TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: 21"},
		{name: "negative", raw: "-3", err: "TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: -3"},
		{name: "text", raw: "two", err: "TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: not a whole number", reason: "the text is not echoed"},
		{name: "blank", raw: "", err: "TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: not a whole number", reason: "typevet crashes on int(\"\")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ParseRows(tt.raw, RowsEnv)
			if tt.err != "" {
				assert.EqualError(t, err, tt.err, tt.reason)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, n)
		})
	}
}

func TestPyInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"7", 7, true}, {" +7\n", 7, true}, {"-3", -3, true}, {"1_000", 1000, true}, {"007", 7, true},
		{"\u30007\u3000", 7, true},
		{"", 0, false}, {"_1", 0, false}, {"1_", 0, false}, {"1__0", 0, false}, {"+-1", 0, false}, {"-_1", 0, false},
		{"1.0", 0, false}, {"0x10", 0, false}, {"٣", 0, false}, {"9223372036854775808", 0, false}, {"1 0", 0, false},
	}
	for _, tt := range tests {
		n, ok := pyInt(tt.in)
		assert.Equal(t, tt.ok, ok, "%q", tt.in)
		assert.Equal(t, tt.want, n, "%q", tt.in)
	}
}

// FuzzParseConcurrency: an accepted value is 1..MaxConcurrency, and a
// refusal never echoes the text.
func FuzzParseConcurrency(f *testing.F) {
	for _, s := range []string{"", " 16 ", "0", "-4", "four", "2.5", "1_6", "+1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n, err := ParseConcurrency(raw, "V")
		if err != nil {
			if err.Error() != "V must be a whole number of at least 1" {
				t.Fatalf("message %q", err)
			}
			return
		}
		if n < 1 || n > maxConcurrency {
			t.Fatalf("ParseConcurrency(%q) = %d", raw, n)
		}
	})
}

func TestRunContextReceiptParts(t *testing.T) {
	slice := syntheticSlice(t, 0, 1, func(i int) []byte { return fmt.Appendf(nil, "synthetic image %03d", i) })
	snap, err := TakeSnapshot(t.TempDir(), nil)
	require.NoError(t, err)
	assert.Equal(t, receipt.Unknown, snap.BaselineCommit, "no repository")
	assert.True(t, snap.WorkingTree.Dirty)
	code, err := CodeDigests()
	require.NoError(t, err)
	assert.Equal(t, code, snap.CodePathDigests)
	assert.Equal(t, receipt.PromptDigests(Questions()), snap.PromptDigests)

	stated := "--max-num-seqs 4"
	at := time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC)
	entry := &serving.ServerEntry{BuildInfo: "0.30.0"}
	c := RunContext{Backend: serving.VLLM, Model: "m", ServedTemplate: "vllm_chat", ServerEntry: entry,
		ModelRevision: "rev", StatedServerArgs: &stated, Secrets: []string{"k"}, Snapshot: snap,
		Now: func() time.Time { return at }}
	cache := `vllm:cache_config_info{block_size="16",engine="0"} 1.0` + "\n"
	run := RunResult{Concurrency: 4, Outcomes: make([]Outcome, 3),
		MetricsReadings: []serving.Reading{{Text: cache, OK: true}, {}}}
	parts := c.ReceiptParts(slice, run)

	assert.Equal(t, serving.VLLM, parts.Backend)
	assert.Equal(t, "m", parts.Model)
	assert.Equal(t, []string{"k"}, parts.Secrets)
	want := slice.Pins()
	want.FinishedUTC = "2026-11-29T23:00:00+00:00"
	want.Concurrency = 4
	r := c.Snapshot.RendererPin()
	want.Renderer = &r
	want.Server = entry
	want.ModelRevision = "rev"
	assert.Equal(t, want, parts.Pins)

	id := parts.Identity
	assert.Len(t, id.RunID, 32)
	assert.Equal(t, receipt.Counts{{Name: "judgments", Value: 3}}, id.ArmCallCounts)
	assert.Equal(t, receipt.Digests{}, id.FixtureDigests)
	assert.Equal(t, receipt.NewRuntime("m", "vllm_chat", "0.30.0"), id.Runtime)
	assert.Equal(t, receipt.IdentityDigest(id), id.IdentityDigest)
	again := c.ReceiptParts(slice, run).Identity
	assert.NotEqual(t, id.RunID, again.RunID, "a fresh run id per call")
	assert.Equal(t, id.IdentityDigest, again.IdentityDigest, "the digest leaves the run id out")

	require.NotNil(t, parts.ServerArgs)
	b, err := json.Marshal(parts.ServerArgs)
	require.NoError(t, err)
	assert.JSONEq(t, `{"cache_config":{"block_size":"16","engine":"0"},"cache_config_source":"metrics","caller_stated":"--max-num-seqs 4"}`, string(b))

	c.Backend, c.ServerEntry, c.ModelRevision = serving.LlamaCPP, nil, ""
	run.MetricsReadings = nil // llama.cpp has no /metrics
	parts = c.ReceiptParts(slice, run)
	require.NotNil(t, parts.ServerArgs, "image runs write server_args on every backend")
	assert.Nil(t, parts.ServerArgs.CacheConfig, "no /metrics reading, no cache_config")
	require.NotNil(t, parts.ServerArgs.CallerStated)
	assert.Equal(t, "--max-num-seqs 4", *parts.ServerArgs.CallerStated)
	assert.Nil(t, parts.Pins.Server)
	assert.Equal(t, receipt.Unknown, parts.Identity.Runtime.ServerBuild)
}

func TestRunContextOrderingsReceiptParts(t *testing.T) {
	slice := syntheticSlice(t, OrderingsSeed, 1, func(i int) []byte { return fmt.Appendf(nil, "img %d", i) })
	snap, err := TakeOrderingsSnapshot(t.TempDir(), ptrTo(""))
	require.NoError(t, err)
	assert.Equal(t, OrderingsPromptDigests(), snap.PromptDigests)
	orders, err := BalancedOrders(len(VerdictLabels))
	require.NoError(t, err)
	c := RunContext{Backend: "fake", Model: "fake-model", ServedTemplate: "fake", Snapshot: snap,
		Now: func() time.Time { return time.Unix(0, 0) }}
	parts := c.OrderingsReceiptParts(slice, orders, SingleOrderFile{Path: "/x/y/single.json", SHA256: "abc"}, OrderingsRun{Requests: 42})
	p := parts.Pins
	assert.Equal(t, "1970-01-01T00:00:00+00:00", p.FinishedUTC)
	assert.Equal(t, "single.json", p.SingleOrderReceipt)
	assert.Equal(t, "abc", p.SingleOrderReceiptSHA256)
	assert.Equal(t, 1, p.Concurrency)
	assert.Equal(t, OrderLabels(VerdictLabels[:], orders), p.Orderings)
	assert.Equal(t, slice.SHA256, p.SliceSHA256)
	require.NotNil(t, p.ServerArgs)
	assert.Nil(t, p.ServerArgs.CallerStated)
	assert.Equal(t, receipt.Counts{{Name: armVerdictRequests, Value: 42}}, parts.Identity.ArmCallCounts)
	assert.Equal(t, receipt.Digests{{Name: OrderingsFixture, Value: "abc"}}, parts.Identity.FixtureDigests)
	assert.Equal(t, receipt.IdentityDigest(parts.Identity), parts.Identity.IdentityDigest)
}

func ptrTo[T any](v T) *T { return &v }

// FuzzPyInt checks the Python int() reading of the rows and concurrency
// settings: an accepted text holds only a sign, ASCII digits and single
// inner underscores around its outer space, and means the number strconv
// reads once the underscores are gone; the number's own decimal form is
// always accepted back as the same number.
func FuzzPyInt(f *testing.F) {
	for _, s := range []string{"7", " 16 ", "-4", "1_000", "", "_1", "1__0", "2.5", "four", "+0", "٣", "9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := pyInt(s)
		if !ok {
			if n != 0 {
				t.Fatalf("pyInt(%q) refused but returned %d", s, n)
			}
			return
		}
		body := pytext.Strip(s)
		if strings.Trim(body, "+-0123456789_") != "" {
			t.Fatalf("pyInt(%q) accepted a character outside sign, digits and _", s)
		}
		if strings.Contains(body, "__") {
			t.Fatalf("pyInt(%q) accepted a double underscore", s)
		}
		want, err := strconv.ParseInt(strings.ReplaceAll(body, "_", ""), 10, 64)
		if err != nil || want != n {
			t.Fatalf("pyInt(%q) = %d, strconv says %d, %v", s, n, want, err)
		}
		if back, ok := pyInt(strconv.FormatInt(n, 10)); !ok || back != n {
			t.Fatalf("pyInt(%d) round trip = %d, %v", n, back, ok)
		}
	})
}
