package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMEContactSheets runs the contact-sheet command as README.md
// shows it (with -out moved into a temporary directory) in-process on two
// register rows and checks that it prints what the README says: one path
// per sheet, seed1_row00.png on, each written. The line as written, all 20
// sheets, runs as a child in examples/checkmatch's TestREADMECommands,
// which checks the same of its 20 sheets.
func TestREADMEContactSheets(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const prefix = "go run ./examples/checksheets "
	var args []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, prefix) {
			args = strings.Fields(strings.TrimPrefix(line, prefix))
			break
		}
	}
	if args == nil {
		t.Fatalf("README.md has no line starting %q", prefix)
	}
	out := t.TempDir()
	for i := range args {
		if args[i] == "-out" && i+1 < len(args) {
			args[i+1] = filepath.Join(out, args[i+1])
			out = args[i+1]
		}
	}
	const rows = 2
	args = append(args, "-rows", "2")

	var stdout, stderr strings.Builder
	if err := run(&stdout, &stderr, args); err != nil {
		t.Fatalf("run(%q) = %v; stderr %s", args, err, stderr.String())
	}
	var want []string
	for row := range rows {
		p := filepath.Join(out, fmt.Sprintf("seed1_row%02d.png", row))
		want = append(want, p)
		if _, err := os.Stat(p); err != nil {
			t.Errorf("sheet %s: %v", p, err)
		}
	}
	if got := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stdout =\n%s\nwant one path per sheet:\n%s", stdout.String(), strings.Join(want, "\n"))
	}
}
