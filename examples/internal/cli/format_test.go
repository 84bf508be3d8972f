package cli

import (
	"math"
	"testing"
)

func TestFormats(t *testing.T) {
	v := 0.9285714285714286
	for _, tt := range []struct {
		name, got, want string
	}{
		{"share", Share(&v), "0.9286"},
		{"share nil", Share(nil), "n/a"},
		{"fixed NaN", Fixed(math.NaN(), 2), "n/a"},
		{"signed positive", Signed(0.02143, 4), "+0.0214"},
		{"signed zero", Signed(0, 4), "+0.0000"},
		{"signed negative", Signed(-0.0071, 4), "-0.0071"},
		// Issue #28: a slow server printed "0.0 judgments/s".
		{"sig slow server", Sig(0.01234, 3), "0.0123"},
		{"sig very slow", Sig(0.000456789, 3), "0.000457"},
		{"sig unit", Sig(7.5, 3), "7.50"},
		{"sig rounds up a digit", Sig(9.996, 3), "10.0"},
		{"sig rounds up below 1", Sig(0.09996, 3), "0.100"},
		{"sig large keeps digits", Sig(1234.5, 3), "1234"},
		{"sig negative", Sig(-0.0123, 2), "-0.012"},
		{"sig zero", Sig(0, 3), "0"},
		{"sig inf", Sig(math.Inf(1), 3), "n/a"},
		{"sig nil", SigOrNA(nil, 3), "n/a"},
		{"p", PValue(0.057434), "0.0574"},
		{"p tiny", PValue(2.7e-12), "<0.0001"},
		{"p one", PValue(1), "1.0000"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
