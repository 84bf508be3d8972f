package judgment_test

import (
	"os"
	"strings"
	"testing"
)

// TestDocExample checks that the code block of the package comment is the
// body of ExampleDecode and that the output it shows is the example's
// checked output.
func TestDocExample(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	// Indented comment lines form the code blocks: the code, then "prints",
	// then the output.
	var blocks [][]string
	var cur []string
	for _, line := range strings.Split(string(doc), "\n") {
		if body, ok := strings.CutPrefix(line, "//\t"); ok {
			cur = append(cur, body)
			continue
		}
		if cur != nil {
			blocks = append(blocks, cur)
			cur = nil
		}
	}
	if len(blocks) < 2 {
		t.Fatalf("doc.go has %d code blocks, want the code and its output", len(blocks))
	}
	code, output := blocks[len(blocks)-2], blocks[len(blocks)-1]
	fn := string(ex)[strings.Index(string(ex), "func ExampleDecode()"):]
	fn = fn[:strings.Index(fn, "\n}\n")+1]
	for _, line := range code {
		if !strings.Contains(fn, "\t"+line+"\n") {
			t.Errorf("doc code line %q is not in ExampleDecode", line)
		}
	}
	for _, line := range output {
		if !strings.Contains(fn, "\t// "+line+"\n") {
			t.Errorf("doc output line %q is not in ExampleDecode's output", line)
		}
	}
}
