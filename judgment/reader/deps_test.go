package reader_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoGeneratorDependency: the reader must not see the generator, so
// package reader (not its tests) must not depend on package checkmatch,
// directly or through another package.
func TestNoGeneratorDependency(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not on PATH")
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	var sawForm bool
	for _, d := range deps {
		switch d {
		case "github.com/typevet/typevet-go/checkmatch":
			t.Errorf("judgment/reader depends on %s", d)
		case "github.com/typevet/typevet-go/internal/checkform":
			sawForm = true
		}
	}
	if !sawForm {
		t.Errorf("go list -deps does not list internal/checkform; the check is not looking at the reader:\n%s", out)
	}
}
