package calibration

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFixtureMaps loads typevet's two fixture maps, applies them as typevet
// does (values from CPython), writes them back byte for byte, and encodes
// them as typevet's writer would (goldens from CPython's json.dumps).
func TestFixtureMaps(t *testing.T) {
	tests := []struct {
		file   string
		digest string
		levels int
		task   string
		rule   *bool
	}{
		{"platt_noul_map.json", "78e8d6ad792402e72c4178d7d331a5d209bb4d8839b86b1530934a70d222cb6a", 0, "fraud-message", new(true)},
		{"platt_score_map.json", "bad7d503aae5998df58788efaacb81756b38f08ef9d1c9b9adbc7e035e2c1b03", 3, "answer-quality", nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := readFixture(t, tt.file)
			m, err := Read(data, tt.digest)
			if err != nil {
				t.Fatal(err)
			}
			if m.Method != Platt || m.Parameters.Slope != 2 || m.Parameters.Intercept != -1 {
				t.Errorf("method %s parameters %+v", m.Method, m.Parameters)
			}
			if m.Levels != tt.levels || m.FittedOn.TaskID != tt.task || m.FittedOn.Backend != "llama_cpp" || m.FittedOn.Model != "fake-judgment" {
				t.Errorf("levels %d fitted_on %+v", m.Levels, m.FittedOn)
			}
			if (m.Evaluation.RuleMet == nil) != (tt.rule == nil) {
				t.Errorf("rule_met %v, want %v", m.Evaluation.RuleMet, tt.rule)
			}
			for _, c := range []struct{ p, want float64 }{
				{0.6, 0.4528728598107439}, {0, 1e-06}, {1, 0.999999}, {0.25, 0.03927030055005056},
			} {
				if got, err := m.Apply(c.p); err != nil || !sameBits(got, c.want) {
					t.Errorf("Apply(%v) = %v, %v; CPython %v", c.p, got, err, c.want)
				}
			}
			back, err := m.Bytes()
			if err != nil || !bytes.Equal(back, data) {
				t.Errorf("Bytes() differs from the file (err %v)", err)
			}
			enc, err := m.Encode()
			if err != nil {
				t.Fatal(err)
			}
			golden := readFixture(t, tt.file[:len(tt.file)-len(".json")]+".golden")
			if !bytes.Equal(enc, golden) {
				t.Errorf("Encode:\n%s\nwant (typevet's writer):\n%s", enc, golden)
			}
			again, err := Read(enc, digestOf(enc))
			if err != nil {
				t.Fatal(err)
			}
			if again.Parameters.Slope != m.Parameters.Slope || again.FittedOn != m.FittedOn || again.Levels != m.Levels {
				t.Errorf("re-read %+v, want %+v", again, m)
			}
		})
	}
}

func TestApplyLevels(t *testing.T) {
	m, err := Read(readFixture(t, "platt_score_map.json"), "bad7d503aae5998df58788efaacb81756b38f08ef9d1c9b9adbc7e035e2c1b03")
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.ApplyLevels([]float64{0.2, 0.5, 0.3})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.06336355310298768, 0.7582005891292426, 0.17843585776776974} // CPython
	for i := range want {
		if !sameBits(got[i], want[i]) {
			t.Errorf("level %d = %v, CPython %v", i, got[i], want[i])
		}
	}
	if _, err := m.ApplyLevels([]float64{0.2, 1.5}); err == nil {
		t.Error("a level probability above 1 was mapped")
	}
}

// edit returns the noul fixture document with one change made by f.
func edit(t *testing.T, f func(doc map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	d := json.NewDecoder(bytes.NewReader(readFixture(t, "platt_noul_map.json")))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	f(doc)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sub(doc map[string]any, key string) map[string]any { return doc[key].(map[string]any) }

// TestRefusals gives each of typevet's refusals one row: the field its
// CalibrationMapError names, or its CalibrationDigestError.
func TestRefusals(t *testing.T) {
	isotonic := func(knots, values []any) func(map[string]any) {
		return func(d map[string]any) {
			d["method"] = "isotonic"
			d["parameters"] = map[string]any{"knots": knots, "values": values}
		}
	}
	n := func(s string) json.Number { return json.Number(s) }
	tests := []struct {
		name  string
		edit  func(map[string]any)
		field string
	}{
		{"schema missing", func(d map[string]any) { delete(d, "schema") }, "schema"},
		{"schema other", func(d map[string]any) { d["schema"] = "typevet.calibration_map/2" }, "schema"},
		{"method unknown", func(d map[string]any) { d["method"] = "beta" }, "method"},
		{"method not text", func(d map[string]any) { d["method"] = n("1") }, "method"},
		{"parameters not object", func(d map[string]any) { d["parameters"] = []any{} }, "parameters"},
		{"parameters extra key", func(d map[string]any) { sub(d, "parameters")["t"] = n("1") }, "parameters"},
		{"parameters missing key", func(d map[string]any) { delete(sub(d, "parameters"), "slope") }, "parameters"},
		{"slope not number", func(d map[string]any) { sub(d, "parameters")["slope"] = "2" }, "parameters.slope"},
		{"slope bool", func(d map[string]any) { sub(d, "parameters")["slope"] = true }, "parameters.slope"},
		{"intercept null", func(d map[string]any) { sub(d, "parameters")["intercept"] = nil }, "parameters.intercept"},
		{"intercept overflows", func(d map[string]any) { sub(d, "parameters")["intercept"] = n("1e400") }, "parameters.intercept"},
		{"temperature zero", func(d map[string]any) {
			d["method"] = "temperature"
			d["parameters"] = map[string]any{"temperature": n("0.0")}
		}, "parameters.temperature"},
		{"temperature text", func(d map[string]any) {
			d["method"] = "temperature"
			d["parameters"] = map[string]any{"temperature": "1"}
		}, "parameters.temperature"},
		{"knots empty", isotonic([]any{}, []any{n("0.5")}), "parameters.knots"},
		{"knots above 1", isotonic([]any{n("0.5"), n("1.5")}, []any{n("0.1"), n("0.2")}), "parameters.knots"},
		{"values not list", isotonic([]any{n("0.5")}, nil), "parameters.values"},
		{"values length", isotonic([]any{n("0.2"), n("0.5")}, []any{n("0.1")}), "parameters.values"},
		{"knots not ascending", isotonic([]any{n("0.5"), n("0.5")}, []any{n("0.1"), n("0.2")}), "parameters.knots"},
		{"values decreasing", isotonic([]any{n("0.2"), n("0.5")}, []any{n("0.3"), n("0.2")}), "parameters.values"},
		{"fitted_on missing", func(d map[string]any) { delete(d, "fitted_on") }, "fitted_on"},
		{"receipt_sha256 short", func(d map[string]any) { sub(d, "fitted_on")["receipt_sha256"] = "abc" }, "fitted_on.receipt_sha256"},
		{"receipt_sha256 blank", func(d map[string]any) { sub(d, "fitted_on")["receipt_sha256"] = " " }, "fitted_on.receipt_sha256"},
		{"task_id blank", func(d map[string]any) { sub(d, "fitted_on")["task_id"] = " \t\x1f" }, "fitted_on.task_id"},
		{"receipt missing", func(d map[string]any) { delete(sub(d, "fitted_on"), "receipt") }, "fitted_on.receipt"},
		{"n_calibration zero", func(d map[string]any) { sub(d, "fitted_on")["n_calibration"] = n("0") }, "fitted_on.n_calibration"},
		{"n_calibration float", func(d map[string]any) { sub(d, "fitted_on")["n_calibration"] = n("68.0") }, "fitted_on.n_calibration"},
		{"model not text", func(d map[string]any) { sub(d, "fitted_on")["model"] = n("3") }, "fitted_on.model"},
		{"backend empty", func(d map[string]any) { sub(d, "fitted_on")["backend"] = "" }, "fitted_on.backend"},
		{"evaluation missing", func(d map[string]any) { delete(d, "evaluation") }, "evaluation"},
		{"rule_met not bool", func(d map[string]any) { sub(d, "evaluation")["rule_met"] = n("1") }, "evaluation.rule_met"},
		{"n_evaluation bool", func(d map[string]any) { sub(d, "evaluation")["n_evaluation"] = true }, "evaluation.n_evaluation"},
		// typevet names a missing metrics block by its bare key.
		{"before missing", func(d map[string]any) { delete(sub(d, "evaluation"), "before") }, "before"},
		{"after ece missing", func(d map[string]any) { delete(sub(sub(d, "evaluation"), "after"), "ece") }, "evaluation.after.ece"},
		{"before brier text", func(d map[string]any) { sub(sub(d, "evaluation"), "before")["brier"] = "0.1" }, "evaluation.before.brier"},
		{"after accuracy null", func(d map[string]any) { sub(sub(d, "evaluation"), "after")["accuracy"] = nil }, "evaluation.after.accuracy"},
		{"producer not object", func(d map[string]any) { d["producer"] = "0.6.0" }, "producer"},
		{"producer blank", func(d map[string]any) { d["producer"] = map[string]any{"typevet_evals": ""} }, "producer"},
		{"levels one", func(d map[string]any) { d["levels"] = n("1") }, "levels"},
		{"levels float", func(d map[string]any) { d["levels"] = n("3.0") }, "levels"},
		{"levels bool", func(d map[string]any) { d["levels"] = true }, "levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := edit(t, tt.edit)
			_, err := Read(b, digestOf(b))
			var me *MapError
			if !errors.As(err, &me) || me.Field != tt.field {
				t.Fatalf("err = %v, want a MapError naming %q", err, tt.field)
			}
			if want := "calibration map field '" + tt.field + "' is invalid"; err.Error() != want {
				t.Errorf("message %q, want %q", err.Error(), want)
			}
		})
	}
}

func TestDocumentRefusals(t *testing.T) {
	good := readFixture(t, "platt_noul_map.json")
	tests := []struct {
		name   string
		data   []byte
		pin    string
		digest bool
		msg    string
	}{
		{"pin missing", good, "", true, "calibration map sha256 is missing"},
		{"pin short", good, "abc", true, "calibration map sha256 is not 64 hex characters"},
		{"pin not hex", good, string(bytes.Repeat([]byte("g"), 64)), true, "calibration map sha256 is not 64 hex characters"},
		{"bytes changed", append(bytes.Clone(good), ' '), digestOf(good), true, "calibration map file digest does not match the supplied sha256"},
		{"not utf-8", []byte("{\"schema\": \"\xff\"}"), "", false, "calibration map file is not UTF-8 JSON"},
		{"not json", []byte("{schema"), "", false, "calibration map file is not UTF-8 JSON"},
		{"trailing data", []byte("{} {}"), "", false, "calibration map file is not UTF-8 JSON"},
		{"not an object", []byte("[1]"), "", false, "calibration map document is not an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pin := tt.pin
			if !tt.digest {
				pin = digestOf(tt.data)
			}
			_, err := Read(tt.data, pin)
			var de *DigestError
			var me *MapError
			if tt.digest && !errors.As(err, &de) || !tt.digest && !errors.As(err, &me) {
				t.Fatalf("err = %T %v", err, err)
			}
			if err.Error() != tt.msg {
				t.Errorf("message %q, want %q", err.Error(), tt.msg)
			}
		})
	}
	// An upper-case pin is the same digest (typevet lowers it).
	if _, err := Read(good, "78E8D6AD792402E72C4178D7D331A5D209BB4D8839B86B1530934A70D222CB6A"); err != nil {
		t.Errorf("upper-case pin: %v", err)
	}
	if _, err := Load(filepath.Join("testdata", "platt_noul_map.json"), "78e8d6ad792402e72c4178d7d331a5d209bb4d8839b86b1530934a70d222cb6a"); err != nil {
		t.Errorf("Load: %v", err)
	}
}

func TestApplyRefusesNonProbability(t *testing.T) {
	m := &Map{Method: Platt, Parameters: Parameters{Slope: 1}}
	for _, p := range []float64{-0.1, 1.1, nan(), inf()} {
		if _, err := m.Apply(p); err == nil {
			t.Errorf("Apply(%v) gave no error", p)
		}
	}
}
