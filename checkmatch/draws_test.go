package checkmatch

import "testing"

func TestDrawsRawVectors(t *testing.T) {
	tests := []struct {
		name string
		key  string
		want []uint64
	}{
		{"check-match:0", "check-match:0", []uint64{3937740052591701614, 7286995785806242028, 221964659365842811}},
		{"register seed 0", "check-match:register:0", []uint64{
			11543297032303812165, 9631557806631399315, 12775325924834331545, 16181785404186721373}},
		{"face seed 0 row 0", "check-match:face:0:0", []uint64{
			2923462179778478860, 11675892692511348806, 8469562965504708549, 10016714268834005074,
			18077375622222815159, 14266683877005975220, 11606840608335217441, 1564033569452369108,
			15639311848620215823, 17577059062123372298}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDraws(tt.key)
			for i, w := range tt.want {
				if got := d.raw(); got != w {
					t.Fatalf("raw draw %d = %d, want %d", i, got, w)
				}
			}
		})
	}
}

func TestDrawsIntegerAndUniform(t *testing.T) {
	if got := newDraws("check-match:0").integer(0, 10); got != 4 {
		t.Errorf("integer(0,10) on check-match:0 = %d, want 4", got)
	}
	d := newDraws("check-match:register:0")
	if got := d.integer(0, 365); got != 110 {
		t.Errorf("first register day offset = %d, want 110", got)
	}
	if got := d.integer(1500, 500000); got != 118815 {
		t.Errorf("first register amount = %d, want 118815", got)
	}
	// uniform = low + (high-low) * raw/2^64 with the first raw draw of
	// check-match:0 (3937740052591701614).
	u := newDraws("check-match:0").uniform(3.5, 5.0)
	want := 3.5 + 1.5*(float64(uint64(3937740052591701614))/18446744073709551616.0)
	if u != want || u < 3.5 || u >= 5.0 {
		t.Errorf("uniform(3.5,5) = %v, want %v", u, want)
	}
}

func TestDrawsIntegerPanicsOnEmptyRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("integer(5,5) did not panic")
		}
	}()
	newDraws("k").integer(5, 5)
}
