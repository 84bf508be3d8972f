package calibration_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/typevet/typevet-go/calibration"
	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/reader"
)

const (
	noulFixture  = "testdata/platt_noul_map.json@78e8d6ad792402e72c4178d7d331a5d209bb4d8839b86b1530934a70d222cb6a"
	scoreFixture = "testdata/platt_score_map.json@bad7d503aae5998df58788efaacb81756b38f08ef9d1c9b9adbc7e035e2c1b03"
)

func TestParseSpecs(t *testing.T) {
	specs, err := calibration.ParseSpecs("payee_matches=a/b@c.json@AB" + digest64[2:] + ", amounts_match=x.json@" + digest64)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 2 || specs[0].Path != "a/b@c.json" || specs[0].SHA256[:2] != "ab" || specs[1].Question != "amounts_match" {
		t.Errorf("%+v", specs)
	}
	for _, bad := range []string{"", "maps/a.json", "q=maps/a.json", "q=maps/a.json@12", "=a.json@" + digest64, "q=a@" + digest64 + ",q=b@" + digest64} {
		var se *calibration.SpecError
		if _, err := calibration.ParseSpecs(bad); !errors.As(err, &se) {
			t.Errorf("ParseSpecs(%q) err = %v, want a SpecError", bad, err)
		}
	}
}

const digest64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// TestForRunRefusesFixtureMaps holds a check-match run to typevet's
// fail-closed rules with typevet's own fixture maps: each is refused before
// any request, with the error of its mismatch.
func TestForRunRefusesFixtureMaps(t *testing.T) {
	calls := 0
	inner := judgment.PortFunc(func(context.Context, judgment.Request) (judgment.Response, error) {
		calls++
		return judgment.Response{}, nil
	})
	run := calibration.RunSettings{TaskID: "check_match", Backend: "llama_cpp", Model: "fake-judgment", Questions: checkmatch.Questions()}
	with := func(f func(*calibration.RunSettings)) calibration.RunSettings {
		r := run
		f(&r)
		return r
	}
	tests := []struct {
		name  string
		specs string
		run   calibration.RunSettings
		want  any
	}{
		{"another task", "payee_matches=" + noulFixture, run, new(*calibration.TaskMismatchError)},
		{"another backend", "payee_matches=" + noulFixture, with(func(r *calibration.RunSettings) { r.TaskID, r.Backend = "fraud-message", "vllm" }), new(*calibration.ModelMismatchError)},
		{"another model", "payee_matches=" + noulFixture, with(func(r *calibration.RunSettings) { r.TaskID, r.Model = "fraud-message", "gemma" }), new(*calibration.ModelMismatchError)},
		{"choice question", "verdict=" + noulFixture, run, new(*calibration.TargetError)},
		{"score map on a noul", "payee_matches=" + scoreFixture, run, new(*calibration.TargetError)},
		{"level count", "legibility=" + scoreFixture, run, new(*calibration.TargetError)},
		{"question not asked", "fraud=" + noulFixture, run, new(*calibration.MapError)},
		{"digest", "payee_matches=testdata/platt_noul_map.json@" + digest64, run, new(*calibration.DigestError)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			specs, err := calibration.ParseSpecs(tt.specs)
			if err != nil {
				t.Fatal(err)
			}
			_, err = calibration.ForRun(inner, specs, tt.run)
			if !errors.As(err, tt.want) {
				t.Errorf("err = %T %v", err, err)
			}
		})
	}
	if calls != 0 {
		t.Errorf("%d requests sent", calls)
	}
	// The same Noul map passes when the run is its task, backend and model.
	specs, _ := calibration.ParseSpecs("payee_matches=" + noulFixture)
	if _, err := calibration.ForRun(inner, specs, with(func(r *calibration.RunSettings) { r.TaskID = "fraud-message" })); err != nil {
		t.Errorf("matching run: %v", err)
	}
}

// TestForRunJudgesCheckMatch fits a payee map on typevet's vLLM receipt,
// writes it, and judges check-match requests through the wrapped reader:
// the payee answer is the map's value of the reader's, and its record
// keeps both.
func TestForRunJudgesCheckMatch(t *testing.T) {
	data, err := os.ReadFile("testdata/check_match_vllm_receipt.json")
	if err != nil {
		t.Fatal(err)
	}
	fits, err := calibration.FitAll(data, "", []calibration.Method{calibration.Isotonic}, calibration.FitOptions{
		TaskID: "check_match", Receipt: "check_match_vllm_receipt.json", Producer: "test", Resamples: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "payee.json")
	digest, err := fits[1].Map.Write(path)
	if err != nil {
		t.Fatal(err)
	}
	specs, err := calibration.ParseSpecs("payee_matches=" + path + "@" + digest)
	if err != nil {
		t.Fatal(err)
	}
	const model = "google/gemma-4-31B-it"
	slice, err := checkmatch.BuildSlice(checkmatch.DefaultSeed, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw := reader.New(reader.Options{})
	port, err := calibration.ForRun(raw, specs, calibration.RunSettings{TaskID: "check_match", Backend: "vllm", Model: model, Questions: checkmatch.Questions()})
	if err != nil {
		t.Fatal(err)
	}
	m := fits[1].Map
	for _, r := range slice.Requests[:3] {
		req := judgment.Request{State: r.State, Questions: r.Questions, Model: model, Media: r.Media}
		want, err := raw.Judge(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		got, recs, err := port.JudgeRecords(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := want.Noul("payee_matches")
		g, _ := got.Noul("payee_matches")
		mapped, _ := m.Apply(w.Noul)
		if g.Noul != mapped || len(recs) != 1 || recs[0].Raw != w.Noul || recs[0].Calibrated != mapped || recs[0].MapSHA256 != digest {
			t.Errorf("%s: payee %v, want %v; records %+v", r.CaseID(), g.Noul, mapped, recs)
		}
		wa, _ := want.Noul("amounts_match")
		ga, _ := got.Noul("amounts_match")
		if wa != ga {
			t.Errorf("%s: unmapped amounts_match changed", r.CaseID())
		}
	}
}
