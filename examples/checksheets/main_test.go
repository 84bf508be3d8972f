package main

import (
	"bytes"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the command in-process and returns stdout, stderr and the exit
// status main would use.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := exitCode(run(&stdout, &stderr, args), &stderr)
	return stdout.String(), stderr.String(), code
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestWritesSheets(t *testing.T) {
	out := filepath.Join(t.TempDir(), "nested", "sheets")
	stdout, stderr, code := runCLI(t, "--seed", "1", "--rows", "2", "--out", out)
	// (Two rows: the smallest run that shows row numbering and order.)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := []string{filepath.Join(out, "seed1_row00.png"), filepath.Join(out, "seed1_row01.png")}
	if got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n"); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("stdout lines %q, want %q", got, want)
	}
	if got := dirNames(t, out); strings.Join(got, " ") != "seed1_row00.png seed1_row01.png" {
		t.Errorf("files %v: want exactly the two sheets, no temporary files", got)
	}
	for _, p := range want {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) <= 1000 {
			t.Errorf("%s: %d bytes", p, len(b))
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if s := img.Bounds().Size(); s.X != 3500 || s.Y != 284 {
			t.Errorf("%s: size %v, want 3500×284", p, s)
		}
	}
	if stderr != "" {
		t.Errorf("stderr %q", stderr)
	}
}

func TestSeedsAndDeterminism(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("renders four sheets; the checkmatch tests cover render determinism under -race and -short")
	}
	sheet := func(args ...string) []byte {
		out := t.TempDir()
		_, stderr, code := runCLI(t, append(args, "-rows", "1", "-out", out)...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, stderr)
		}
		names := dirNames(t, out)
		if len(names) != 1 {
			t.Fatalf("%v: files %v", args, names)
		}
		b, err := os.ReadFile(filepath.Join(out, names[0]))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := sheet(), sheet()
	if !bytes.Equal(a, b) {
		t.Error("two runs with the default seed wrote different seed0_row00.png")
	}
	if bytes.Equal(sheet("-seed", "1"), sheet("-seed", "2")) {
		t.Error("seeds 1 and 2 wrote the same sheet")
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"rows zero", []string{"-rows", "0"}, "checksheets: error: -rows must be 1 to 20: 0"},
		{"rows 21", []string{"-rows", "21"}, "checksheets: error: -rows must be 1 to 20: 21"},
		{"rows not a number", []string{"-rows", "two"}, "checksheets: error: -rows must be 1 to 20: not a whole number"},
		{"seed negative", []string{"-seed", "-1"}, "checksheets: error: -seed must be a non-negative integer: '-1'\n"},
		{"seed word", []string{"--seed", "one"}, "checksheets: error: -seed must be a non-negative integer: 'one'\n"},
		{"seed overflow", []string{"-seed", "18446744073709551616"}, "-seed must be a non-negative integer of at most 18446744073709551615"},
		{"unknown flag", []string{"-colour", "red"}, "flag provided but not defined: -colour"},
		{"extra argument", []string{"sheets"}, "unexpected arguments: sheets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := tt.args
			if tt.name != "extra argument" {
				args = append(args, "-out", out)
			} else {
				args = append([]string{"-out", out}, args...)
			}
			stdout, stderr, code := runCLI(t, args...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.HasPrefix(stderr, "usage: checksheets") || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q, want usage and %q", stderr, tt.want)
			}
			if stdout != "" {
				t.Errorf("stdout %q", stdout)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("-out was created on a usage error (%v)", err)
			}
		})
	}
	// Missing -out.
	_, stderr, code := runCLI(t, "-rows", "1")
	if code != 2 || !strings.Contains(stderr, "-out is required") {
		t.Errorf("no -out: exit %d, stderr %q", code, stderr)
	}
}

func TestHelp(t *testing.T) {
	stdout, stderr, code := runCLI(t, "-h")
	if code != 0 || stderr != "" {
		t.Errorf("-h: exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"usage: checksheets", "No model call.", "-seed N", "-rows N", "-out DIR", "(default 20)", "exit status 2"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, stdout)
		}
	}
}

func TestIOFailure(t *testing.T) {
	// A regular file where the output directory should be: an I/O error,
	// exit 1, and nothing written.
	dir := t.TempDir()
	file := filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "-rows", "1", "-out", filepath.Join(file, "sheets"))
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.HasPrefix(stderr, "checksheets: ") || strings.HasPrefix(stderr, "usage:") || stdout != "" {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
	if got := dirNames(t, dir); len(got) != 1 {
		t.Errorf("dir holds %v", got)
	}
}

func TestWriteFileAtomicLeavesNothingOnFailure(t *testing.T) {
	dir := t.TempDir()
	// The target is an existing directory: the rename fails after the
	// temporary file is complete, and the temporary file must go.
	target := filepath.Join(dir, "seed0_row00.png")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(target, []byte("png")); err == nil {
		t.Fatal("rename over a non-empty directory succeeded")
	}
	if got := dirNames(t, dir); len(got) != 1 || got[0] != "seed0_row00.png" {
		t.Errorf("dir holds %v, want only the blocking directory", got)
	}
}

// TestDocFlags keeps the package doc's flag list in step with the flags:
// every flag is documented with its default, and the doc names no other.
func TestDocFlags(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := strings.Cut(string(src), "package main")
	documented := map[string]string{}
	for _, line := range strings.Split(doc, "\n") {
		rest, ok := strings.CutPrefix(line, "//\t-")
		if !ok {
			continue
		}
		name, text, _ := strings.Cut(rest, " ")
		documented[name] = text
	}
	n := 0
	for _, f := range help.Flags {
		n++
		text, ok := documented[f.Name]
		if !ok {
			t.Errorf("flag -%s is not in the package doc", f.Name)
			continue
		}
		if f.Default != "" && !strings.Contains(text, "default "+f.Default) {
			t.Errorf("doc of -%s %q does not state its default %s", f.Name, text, f.Default)
		}
	}
	if len(documented) != n {
		t.Errorf("doc lists %d flags, the command has %d", len(documented), n)
	}
	// The quick-start line of the doc is the one the README shows.
	if !strings.Contains(doc, "go run ./examples/checksheets -seed 1 -out sheets") {
		t.Error("package doc lost the go run line")
	}
}
