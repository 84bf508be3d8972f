package calibration

import (
	"bytes"
	"math"
	"testing"
)

// FuzzRead holds the map reader to its contract on any bytes: it never
// panics; a map it accepts applies to finite probabilities inside the clip
// bounds, writes back its own bytes, and its encoding reads back to the
// same map.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"platt_noul_map.json", "platt_score_map.json", "platt_noul_map.golden"} {
		f.Add(readFixture(f, name))
	}
	f.Add([]byte(`{"schema":"typevet.calibration_map/1","method":"isotonic","parameters":{"knots":[0.1,0.5],"values":[0,1]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Read(data, digestOf(data))
		if err != nil {
			return
		}
		for _, p := range []float64{0, 1e-9, 0.3, 0.5, 0.999, 1} {
			v, err := m.Apply(p)
			if err != nil || math.IsNaN(v) || v < Clip || v > 1-Clip {
				t.Fatalf("Apply(%v) = %v, %v", p, v, err)
			}
		}
		back, _ := m.Bytes()
		if !bytes.Equal(back, data) {
			t.Fatal("Bytes differs from the input")
		}
		enc, err := m.Encode()
		if err != nil {
			t.Fatalf("Encode: %v", err)
		}
		again, err := Read(enc, digestOf(enc))
		if err != nil {
			t.Fatalf("re-read of Encode: %v\n%s", err, enc)
		}
		if again.Method != m.Method || again.FittedOn != m.FittedOn || again.Levels != m.Levels || again.Producer != m.Producer {
			t.Fatalf("re-read %+v, want %+v", again, m)
		}
	})
}
