package calibration

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func testSidecar() *Sidecar {
	s := &Sidecar{TaskID: "check_match", Backend: "vllm", Model: "m",
		Maps: []SidecarMap{{Question: "payee_matches", Path: "maps/p.json", SHA256: digest64, Method: Platt}}}
	s.Add("r00:clean", []Record{
		{Question: "payee_matches", Raw: 0.6, Calibrated: 0.4528728598107439, Method: Platt, MapSHA256: digest64},
		{Question: "legibility", Raw: 1.1, Calibrated: 1.2, Method: Isotonic, MapSHA256: digest64,
			RawLevels: []float64{0.2, 0.5, 0.3}, CalibratedLevels: []float64{0.1, 0.6, 0.3}},
	})
	s.Add("r00:unsigned", nil)
	return s
}

const digest64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestSidecarRoundTrip(t *testing.T) {
	data, err := testSidecar().Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"schema": "typevet-go.calibration_records"`, `"version": 1`, `"raw": 0.6`, `"raw_levels": null`, `"0": 0.2`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("document lacks %s:\n%s", want, data)
		}
	}
	s, err := ReadSidecar(data)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.Encode()
	if err != nil || !bytes.Equal(again, data) {
		t.Errorf("read and written again:\n%s\nwant\n%s", again, data)
	}
	if _, err := ReadSidecar([]byte(strings.Replace(string(data), "typevet-go.calibration_records", "typevet-go.shard", 1))); !errors.Is(err, ErrNotSidecar) {
		t.Errorf("another schema: %v", err)
	}
}

// FuzzReadSidecar holds the records reader to its contract: no panic, and
// a document it reads writes back to a document that reads to the same.
func FuzzReadSidecar(f *testing.F) {
	data, err := testSidecar().Encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSidecar(data)
		if err != nil {
			return
		}
		enc, err := s.Encode()
		if err != nil {
			return // a non-finite value read from an overflowing number
		}
		s2, err := ReadSidecar(enc)
		if err != nil {
			t.Fatalf("re-read: %v\n%s", err, enc)
		}
		enc2, err := s2.Encode()
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("not stable:\n%s\n%s", enc, enc2)
		}
	})
}

func TestSidecarSortCases(t *testing.T) {
	s := &Sidecar{}
	for _, id := range []string{"c", "x", "a", "b"} {
		s.Add(id, nil)
	}
	s.SortCases([]string{"a", "b", "c"})
	var got []string
	for _, c := range s.Cases() {
		got = append(got, c.CaseID)
	}
	if strings.Join(got, ",") != "a,b,c,x" {
		t.Errorf("order %v", got)
	}
}
