package checkmatch

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// editedTypevetReceipt returns typevet's published vLLM receipt with edit
// applied to its decoded JSON (cases[i] is a map).
func editedTypevetReceipt(t *testing.T, edit func(doc map[string]any, cases []map[string]any)) []byte {
	t.Helper()
	raw, err := os.ReadFile(typevetReceipt)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var cases []map[string]any
	for _, c := range doc["cases"].([]any) {
		cases = append(cases, c.(map[string]any))
	}
	edit(doc, cases)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadReceiptRefusesImpossibleValues: each value no run can write is
// refused by ReadReceipt, the error naming the field and the case, so that
// stats, compare and the viewer never show it as a number (issue #28: a
// negative probability, a verdict "approved<script>", register_rows -3,
// legibility_level 99 and a null confidence all read with exit 0 before).
func TestReadReceiptRefusesImpossibleValues(t *testing.T) {
	pins := func(doc map[string]any) map[string]any { return doc["pins"].(map[string]any) }
	probs := func(c map[string]any) map[string]any { return c["verdict_probabilities"].(map[string]any) }
	tests := []struct {
		name string
		edit func(doc map[string]any, cases []map[string]any)
		want string
	}{
		{"negative verdict probability", func(_ map[string]any, cs []map[string]any) { probs(cs[3])["consistent"] = -0.25 },
			`case r00:both_amounts_changed (index 3): verdict_probabilities: "consistent" has probability -0.25, not in [0, 1]`},
		{"unnormalised verdict probabilities", func(_ map[string]any, cs []map[string]any) { probs(cs[8])["cannot_tell"] = 0.5 },
			"case r01:payee_changed (index 8): verdict_probabilities sum to 1.4999999998141813, not 1 (unnormalised)"},
		{"verdict outside the labels", func(_ map[string]any, cs []map[string]any) { cs[0]["verdict"] = "approved<script>" },
			"case r00:clean (index 0): verdict: unknown verdict label: approved<script>"},
		{"probability of a label outside the six", func(_ map[string]any, cs []map[string]any) {
			delete(probs(cs[0]), "cannot_tell")
			probs(cs[0])["approved"] = 2.7619452748128785e-11
		}, "case r00:clean (index 0): verdict_probabilities: unknown verdict label: approved"},
		{"register_rows -3", func(d map[string]any, _ []map[string]any) { pins(d)["register_rows"] = -3 },
			"pins.register_rows is -3, want 1..20"},
		{"register_rows 21", func(d map[string]any, _ []map[string]any) { pins(d)["register_rows"] = 21 },
			"pins.register_rows is 21, want 1..20"},
		{"case row beyond register_rows", func(d map[string]any, _ []map[string]any) { pins(d)["register_rows"] = 19 },
			`case r19:clean (index 133): case_id "r19:clean": row 19 is not below pins.register_rows 19`},
		{"variants_per_row 8", func(d map[string]any, _ []map[string]any) { pins(d)["variants_per_row"] = 8 },
			"pins.variants_per_row is 8, want 7"},
		{"null register_rows", func(d map[string]any, _ []map[string]any) { pins(d)["register_rows"] = nil },
			"pins.register_rows is null"},
		{"legibility_level 99", func(_ map[string]any, cs []map[string]any) { cs[2]["legibility_level"] = 99 },
			"case r00:written_amount_changed (index 2): legibility_level: level 99 is not in 0..4"},
		{"legibility_score 7", func(_ map[string]any, cs []map[string]any) { cs[2]["legibility_score"] = 7 },
			"case r00:written_amount_changed (index 2): legibility_score 7.0 is not in [0, 4]"},
		{"legibility probability above 1", func(_ map[string]any, cs []map[string]any) {
			cs[1]["legibility_probabilities"].(map[string]any)["4"] = 1.5
		}, "case r00:payee_changed (index 1): legibility_probabilities: level 4 has probability 1.5, not in [0, 1]"},
		{"null payee confidence", func(_ map[string]any, cs []map[string]any) { cs[5]["payee_confidence"] = nil },
			"case r00:unsigned (index 5): payee_confidence is null, want a value (null would read as zero)"},
		{"missing amounts confidence", func(_ map[string]any, cs []map[string]any) { delete(cs[5], "amounts_confidence") },
			"case r00:unsigned (index 5): amounts_confidence is missing"},
		{"null legibility level", func(_ map[string]any, cs []map[string]any) { cs[5]["legibility_level"] = nil },
			"case r00:unsigned (index 5): legibility_level is null"},
		{"null correct", func(_ map[string]any, cs []map[string]any) { cs[5]["correct"] = nil },
			"case r00:unsigned (index 5): correct is null"},
		{"confidence above 1", func(_ map[string]any, cs []map[string]any) { cs[4]["amounts_confidence"] = 1.25 },
			"case r00:wrong_date (index 4): amounts_confidence: confidence 1.25 is not in [0, 1]"},
		{"correct contradicts the verdict", func(_ map[string]any, cs []map[string]any) { cs[0]["correct"] = false },
			`case r00:clean (index 0): correct is false but verdict "consistent"`},
		{"agreement contradicts the confidences", func(_ map[string]any, cs []map[string]any) { cs[0]["noul_choice_agreement"] = nil },
			"case r00:clean (index 0): noul_choice_agreement is null but the verdict and confidences give true"},
		{"expected verdicts not the variant's", func(_ map[string]any, cs []map[string]any) {
			cs[1]["expected_verdicts"] = []any{"consistent"}
			cs[1]["correct"] = cs[1]["verdict"] == "consistent"
		}, `case r00:payee_changed (index 1): expected_verdicts ["consistent"], want ["payee_mismatch"] for variant payee_changed`},
		{"truth not the variant's", func(_ map[string]any, cs []map[string]any) { cs[1]["payee_truth"] = true },
			"case r00:payee_changed (index 1): payee_truth true and amounts_truth true, want false and true"},
		{"unknown variant", func(_ map[string]any, cs []map[string]any) {
			cs[1]["variant"] = "forged"
			cs[1]["case_id"] = "r00:forged"
		},
			`case r00:forged (index 1): variant: unknown check-match variant: "forged"`},
		{"case id not its variant's", func(_ map[string]any, cs []map[string]any) { cs[1]["case_id"] = "r00:clean" },
			`case r00:clean (index 1): case_id "r00:clean" is not "rNN:payee_changed"`},
		{"render digest not hex", func(_ map[string]any, cs []map[string]any) { cs[6]["render_sha256"] = "<img src=x>" },
			`case r00:low_legibility (index 6): render_sha256 "<img src=x>" is not 64 lower-case hex digits`},
		{"negative latency", func(_ map[string]any, cs []map[string]any) { cs[6]["latency_seconds"] = -1 },
			"case r00:low_legibility (index 6): latency_seconds -1.0 is not a finite number of at least 0"},
		{"negative input tokens", func(_ map[string]any, cs []map[string]any) { cs[6]["input_tokens"] = -5 },
			"case r00:low_legibility (index 6): input_tokens -5 is negative"},
		{"negative wall time", func(d map[string]any, _ []map[string]any) { d["wall_seconds"] = -2 },
			"wall_seconds is -2.0, want a finite number of at least 0"},
		{"negative stopped index", func(d map[string]any, _ []map[string]any) {
			d["stopped"] = map[string]any{"index": -1, "case_id": "r00:clean", "error_class": "TransportError", "message": "x", "discarded": 0}
		}, "stopped: index -1 and discarded 0 must be at least 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadReceipt(bytes.NewReader(editedTypevetReceipt(t, tt.edit)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadReceipt error = %v\nwant it to contain %q", err, tt.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "read check-match receipt: ") {
				t.Errorf("error %q does not say what was read", err)
			}
		})
	}
}

// TestCheckMetrics: a metrics block that is not the one the cases give
// is refused, naming the key; typevet's own receipt passes (its mean
// latency, over unrounded latencies, within 5e-4 s of the cases').
func TestCheckMetrics(t *testing.T) {
	r := readReceiptFile(t, typevetReceipt)
	if err := r.CheckMetrics(); err != nil {
		t.Fatalf("typevet's receipt: %v", err)
	}
	b := editedTypevetReceipt(t, func(d map[string]any, _ []map[string]any) {
		d["metrics"].(map[string]any)["accuracy"] = 0.99
	})
	forged, err := ReadReceipt(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	want := "metrics: the block is not the one the cases give (accuracy is 0.99, the cases give 0.9285714285714286)"
	if err := forged.CheckMetrics(); err == nil || err.Error() != want {
		t.Errorf("CheckMetrics() = %v, want %q", err, want)
	}
}

// BenchmarkReadReceipt140 reads typevet's 140-case receipt with every
// rule checked, beside the plain JSON decode it adds to (the baseline).
func BenchmarkReadReceipt140(b *testing.B) {
	raw, err := os.ReadFile(typevetReceipt)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("ReadReceipt", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ReadReceipt(bytes.NewReader(raw)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode-only", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			var r Receipt
			if err := json.Unmarshal(raw, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
