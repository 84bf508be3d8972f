package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMEView runs the viewer command exactly as README.md shows it
// (the receipt is a small offline run's, the site goes into a temporary
// directory) and checks that its first line is the index page's path, as
// the README says.
func TestREADMEView(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const prefix = "go run ./examples/view "
	var args []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, prefix) {
			args = strings.Fields(strings.TrimPrefix(line, prefix))
			break
		}
	}
	if len(args) != 3 || args[1] != "-out" {
		t.Fatalf("README.md has no line %q RECEIPT -out DIR: %q", prefix, args)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(args[0])), 0o755); err != nil {
		t.Fatal(err)
	}
	writeReceipt(t, dir, args[0])
	stdout, stderr, code := command(t, dir, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
	}
	if first, _, _ := strings.Cut(stdout, "\n"); first != filepath.Join(args[2], "index.html") {
		t.Errorf("first line %q, want %q", first, filepath.Join(args[2], "index.html"))
	}
	if _, err := os.Stat(filepath.Join(dir, args[2], "index.html")); err != nil {
		t.Error(err)
	}
}
