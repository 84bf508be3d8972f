package llamacpp_test

import "testing"

func TestCheckPNGSize(t *testing.T) {
	if n := len(checkPNG(t)); n < 60_000 || n > 100_000 {
		t.Errorf("check PNG is %d bytes, want 60–100 KB like a rendered check", n)
	}
}
