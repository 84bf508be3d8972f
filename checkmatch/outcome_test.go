package checkmatch

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/receipt"
)

func TestVerdictCorrect(t *testing.T) {
	tests := []struct {
		name    string
		verdict string
		variant Variant
		want    bool
		reason  string
	}{
		{name: "clean consistent", verdict: "consistent", variant: VariantClean, want: true},
		{name: "clean cannot_tell", verdict: "cannot_tell", variant: VariantClean, want: false,
			reason: "only low_legibility accepts cannot_tell"},
		{name: "written amount", verdict: "amount_mismatch", variant: variantWrittenAmountChanged, want: true},
		{name: "written amount payee", verdict: "payee_mismatch", variant: variantWrittenAmountChanged, want: false},
		{name: "low consistent", verdict: "consistent", variant: VariantLowLegibility, want: true,
			reason: "amendment A1: a blurred clean check may be called consistent"},
		{name: "low cannot_tell", verdict: "cannot_tell", variant: VariantLowLegibility, want: true},
		{name: "low unsigned", verdict: "unsigned", variant: VariantLowLegibility, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := verdictCorrect(tt.verdict, ExpectedLabels(tt.variant))
			if err != nil || got != tt.want {
				t.Errorf("VerdictCorrect(%q, %s) = %v, %v; want %v", tt.verdict, tt.variant, got, err, tt.want)
			}
		})
	}
	_, err := verdictCorrect("maybe", ExpectedLabels(VariantClean))
	var uv *unknownVerdictError
	if !errors.As(err, &uv) || err.Error() != "unknown verdict label: maybe" {
		t.Errorf("VerdictCorrect(maybe) error = %v, want *UnknownVerdictError \"unknown verdict label: maybe\"", err)
	}
}

func TestClassKey(t *testing.T) {
	want := map[Variant]string{
		VariantClean:                "consistent",
		variantPayeeChanged:         "payee_mismatch",
		variantWrittenAmountChanged: "amount_mismatch",
		variantBothAmountsChanged:   "amount_mismatch",
		variantWrongDate:            "date_mismatch",
		variantUnsigned:             "unsigned",
		VariantLowLegibility:        "cannot_tell|consistent",
	}
	for _, v := range Variants() {
		if got := ClassKey(ExpectedLabels(v)); got != want[v] {
			t.Errorf("ClassKey(%s) = %q, want %q", v, got, want[v])
		}
	}
	// Unsorted input is sorted, and the input is not modified.
	e := Expected{Verdicts: []string{"consistent", "cannot_tell"}}
	if got := ClassKey(e); got != "cannot_tell|consistent" || e.Verdicts[0] != "consistent" {
		t.Errorf("ClassKey(unsorted) = %q, input now %v", got, e.Verdicts)
	}
}

func TestNoulChoiceAgreement(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name           string
		verdict        string
		payee, amounts float64
		want           *bool
		reason         string
	}{
		{name: "payee says no", verdict: "payee_mismatch", payee: 0.2, amounts: 0.9, want: &yes},
		{name: "payee says yes", verdict: "payee_mismatch", payee: 0.7, amounts: 0.9, want: &no},
		{name: "payee and amounts say no", verdict: "payee_mismatch", payee: 0.2, amounts: 0.1, want: &yes,
			reason: "payee_mismatch looks only at the payee Noul"},
		{name: "amounts say no", verdict: "amount_mismatch", payee: 0.9, amounts: 0.3, want: &yes},
		{name: "amounts at threshold", verdict: "amount_mismatch", payee: 0.9, amounts: 0.5, want: &no,
			reason: "0.5 itself is a match"},
		{name: "consistent at threshold", verdict: "consistent", payee: 0.5, amounts: 0.5, want: &yes},
		{name: "consistent payee below", verdict: "consistent", payee: 0.49, amounts: 0.9, want: &no},
		{name: "consistent amounts below", verdict: "consistent", payee: 0.9, amounts: 0.2, want: &no},
		{name: "date both match", verdict: "date_mismatch", payee: 0.9, amounts: 0.9, want: &yes},
		{name: "date payee below", verdict: "date_mismatch", payee: 0.1, amounts: 0.9, want: &no},
		{name: "unsigned both match", verdict: "unsigned", payee: 0.9, amounts: 0.9, want: &yes},
		{name: "unsigned amounts below", verdict: "unsigned", payee: 0.9, amounts: 0.1, want: &no},
		{name: "cannot_tell", verdict: "cannot_tell", payee: 0.1, amounts: 0.1, want: nil,
			reason: "cannot_tell is excluded, not a disagreement"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := noulChoiceAgreement(tt.verdict, tt.payee, tt.amounts)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("NoulChoiceAgreement(%q, %v, %v) = %v, %v; want %v", tt.verdict, tt.payee, tt.amounts, ptrText(got), err, ptrText(tt.want))
			}
		})
	}
	if _, err := noulChoiceAgreement("maybe", 0.5, 0.5); err == nil || !strings.Contains(err.Error(), "unknown verdict label") {
		t.Errorf("NoulChoiceAgreement(maybe) error = %v, want unknown verdict label", err)
	}
}

func ptrText[T any](p *T) any {
	if p == nil {
		return "nil"
	}
	return *p
}

// TestRecordOfFirstRightCase is typevet's outcome-record vector: the record of
// the first _RIGHT case, plus its JSON key order and the rounding of latency.
func TestRecordOfFirstRightCase(t *testing.T) {
	outcomes := rightOutcomes(t, rightAnswers())
	r, err := outcomes[0].Record()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.ExpectedVerdicts, []string{"consistent"}) || !r.PayeeTruth || r.LegibilityProbabilities[4] != 1.0 {
		t.Errorf("record = %+v; want expected [consistent], payee_truth true, legibility_probabilities[4] 1.0", r)
	}
	if r.CaseID != "r00:clean" || !r.Correct || r.NoulChoiceAgreement == nil || !*r.NoulChoiceAgreement ||
		r.RenderSHA256 != "e8df15c53d24103080e91b6bd844997828ec0c79c6e3331b1538250c8ef0c3f3" ||
		r.LatencySeconds != 0.5 || r.InputTokens == nil || *r.InputTokens != 500 {
		t.Errorf("record = %+v", r)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	wantKeys := []string{"case_id", "variant", "expected_verdicts", "payee_truth", "amounts_truth", "verdict",
		"correct", "verdict_probabilities", "payee_confidence", "amounts_confidence", "noul_choice_agreement",
		"legibility_score", "legibility_level", "legibility_probabilities", "render_sha256", "latency_seconds",
		"input_tokens"}
	if got := topLevelKeys(t, b); !reflect.DeepEqual(got, wantKeys) {
		t.Errorf("record keys = %v\nwant %v", got, wantKeys)
	}
	for _, want := range []string{`"legibility_probabilities":{"0":0.0,"1":0.0,"2":0.0,"3":0.0,"4":1.0}`,
		`"verdict_probabilities":{"consistent":0.75,"payee_mismatch":0.05,`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("record JSON lacks %s:\n%s", want, b)
		}
	}
	// No image bytes, raw or base64, anywhere in the record.
	raw := "synthetic check bytes"
	if strings.Contains(string(b), raw) || strings.Contains(string(b), base64.StdEncoding.EncodeToString([]byte(raw))[:12]) {
		t.Errorf("record holds the image bytes: %s", b)
	}
}

func TestRecordFields(t *testing.T) {
	seven := 7
	o := Outcome{
		CaseID: "r03:low_legibility", Variant: VariantLowLegibility,
		Expected: ExpectedLabels(VariantLowLegibility),
		Verdict:  "cannot_tell", PayeeConfidence: 0.1, AmountsConfidence: 0.9,
		LegibilityProbabilities: []float64{0.5, 0.5}, Latency: 1.0005, InputTokens: &seven,
	}
	r, err := o.Record()
	if err != nil {
		t.Fatal(err)
	}
	if r.LatencySeconds != 1.0 {
		t.Errorf("latency 1.0005 rounded to %v, want 1.0 (Python round: 1.0005 is stored as 1.000499…)", r.LatencySeconds)
	}
	if r.NoulChoiceAgreement != nil || !r.Correct || !reflect.DeepEqual(r.ExpectedVerdicts, []string{"cannot_tell", "consistent"}) {
		t.Errorf("record = %+v; want agreement null, correct, expected [cannot_tell consistent]", r)
	}
	seven = 8
	o.LegibilityProbabilities[0] = 0.9
	if *r.InputTokens != 7 || r.LegibilityProbabilities[0] != 0.5 {
		t.Error("the record shares memory with the outcome")
	}
	o.Verdict = "maybe"
	if _, err := o.Record(); err == nil || err.Error() != "case r03:low_legibility: unknown verdict label: maybe" {
		t.Errorf("Record error = %v, want the case id and the label", err)
	}
	o.InputTokens = nil
	o.Verdict = "consistent"
	r, _ = o.Record()
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"input_tokens":null`) || !strings.Contains(string(b), `"noul_choice_agreement":false`) {
		t.Errorf("record JSON = %s; want input_tokens null and agreement false", b)
	}
}

func TestByLevelJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    ByLevel[float64]
		wantErr string
		reason  string
	}{
		{name: "in order", in: `{"0":0.25,"1":0.75}`, want: ByLevel[float64]{0.25, 0.75}},
		{name: "any order", in: `{"1":0.75,"0":0.25}`, want: ByLevel[float64]{0.25, 0.75},
			reason: "a Python dict read back may come in any order; the level is the key"},
		{name: "empty", in: `{}`, want: ByLevel[float64]{}},
		{name: "null", in: `null`, want: nil},
		{name: "leading zero", in: `{"00":1}`, wantErr: `level key "00" is not one of 0..23`},
		{name: "not a number", in: `{"a":1}`, wantErr: `level key "a" is not one of 0..23`},
		{name: "negative", in: `{"-1":1}`, wantErr: `level key "-1" is not one of 0..23`},
		{name: "above the highest level", in: `{"24":1}`, wantErr: `level key "24" is not one of 0..23`},
		{name: "twice", in: `{"0":1,"0":2}`, wantErr: `given twice`},
		{name: "not an object", in: `[1]`, wantErr: `want a JSON object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got ByLevel[float64]
			err := json.Unmarshal([]byte(tt.in), &got)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Unmarshal(%s) error = %v, want %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Unmarshal(%s) = %#v, %v; want %#v", tt.in, got, err, tt.want)
			}
		})
	}
	b, err := json.Marshal(ByLevel[int]{0, 3, 0, 0, 12})
	if err != nil || string(b) != `{"0":0,"1":3,"2":0,"3":0,"4":12}` {
		t.Errorf("Marshal(ByLevel) = %s, %v", b, err)
	}
	if b, _ := json.Marshal(ByLevel[int](nil)); string(b) != `{}` {
		t.Errorf("Marshal(nil ByLevel) = %s, want {}", b)
	}
	// Floats are written as Python writes them: 1.0, 0.0, 1e-07.
	b, err = ByLevel[float64]{0, 1e-07, 1}.MarshalJSON()
	if want := `{"0":0.0,"1":1e-07,"2":1.0}`; err != nil || string(b) != want {
		t.Errorf("MarshalJSON(ByLevel[float64]) = %s, %v; want %s", b, err, want)
	}
}

// topLevelKeys returns the keys of the JSON object b, in order.
func topLevelKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestReceiptBlocksMatchPython is the byte-level proof for the check-match
// blocks: the metrics and cases of typevet's receipt, decoded into
// MetricsBlock and []CaseRecord and encoded again with receipt.Marshal,
// are byte for byte what Python's json.dumps(block, indent=2) + "\n"
// writes (testdata/receipt_python_*.golden, written by
// testdata/receipt_python.py): every float in Python's text, labels and
// keys in typevet's order.
func TestReceiptBlocksMatchPython(t *testing.T) {
	raw, err := os.ReadFile("testdata/receipt_typevet/check_match_vllm_receipt.json")
	if err != nil {
		t.Fatal(err)
	}
	var blocks struct {
		Metrics json.RawMessage `json:"metrics"`
		Cases   json.RawMessage `json:"cases"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		golden string
		raw    json.RawMessage
		into   any
	}{
		{name: "metrics", golden: "testdata/receipt_python_metrics.golden", raw: blocks.Metrics, into: new(MetricsBlock)},
		{name: "cases", golden: "testdata/receipt_python_cases.golden", raw: blocks.Cases, into: new([]CaseRecord)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dec := json.NewDecoder(bytes.NewReader(tt.raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(tt.into); err != nil {
				t.Fatal(err)
			}
			got, err := receipt.Marshal(tt.into)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(tt.golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
				for i := range min(len(g), len(w)) {
					if g[i] != w[i] {
						t.Fatalf("%s differs from Python's json.dumps at line %d:\n got %s\nwant %s", tt.golden, i+1, g[i], w[i])
					}
				}
				t.Fatalf("%s: got %d lines, want %d", tt.golden, len(g), len(w))
			}
		})
	}
}

// typedReceiptBlocks decodes the metrics and cases of typevet's 171 KB
// receipt into their typed blocks.
func typedReceiptBlocks(b *testing.B) (any, int) {
	raw, err := os.ReadFile("testdata/receipt_typevet/check_match_vllm_receipt.json")
	if err != nil {
		b.Fatal(err)
	}
	var blocks struct {
		Metrics MetricsBlock `json:"metrics"`
		Cases   []CaseRecord `json:"cases"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		b.Fatal(err)
	}
	return blocks, len(raw)
}

// BenchmarkReceiptMarshalTyped140 writes the typed metrics and 140 cases
// with receipt.Marshal (Python's json.dumps layout and float text).
func BenchmarkReceiptMarshalTyped140(b *testing.B) {
	v, n := typedReceiptBlocks(b)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := receipt.Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodingJSONTyped140 is the same write with encoding/json, the
// former receipt writer, for comparison.
func BenchmarkEncodingJSONTyped140(b *testing.B) {
	v, n := typedReceiptBlocks(b)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			b.Fatal(err)
		}
	}
}

// TestByLevelSparse: probabilities may hold only the levels seen, as
// typevet's repeat summary accepts; the missing levels read as NaN and are
// left out again when written. A distribution must hold every level.
func TestByLevelSparse(t *testing.T) {
	var got ByLevel[float64]
	if err := json.Unmarshal([]byte(`{"4":0.9,"0":0.1}`), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[0] != 0.1 || got[4] != 0.9 || !math.IsNaN(got[1]) || !math.IsNaN(got[2]) || !math.IsNaN(got[3]) {
		t.Errorf("sparse ByLevel = %v, want [0.1 NaN NaN NaN 0.9]", got)
	}
	b, err := json.Marshal(got)
	if want := `{"0":0.1,"4":0.9}`; err != nil || string(b) != want {
		t.Errorf("Marshal(sparse) = %s, %v; want %s", b, err, want)
	}
	var dist ByLevel[int]
	err = json.Unmarshal([]byte(`{"0":1,"4":9}`), &dist)
	if err == nil || !strings.Contains(err.Error(), `level key "4" is not one of 0..1`) {
		t.Errorf("sparse ByLevel[int] error = %v, want a refusal: a distribution holds every level", err)
	}
}
