package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/judgment/fake"
	"github.com/typevet/typevet-go/receipt"
)

// TestMain runs the test binary as the command itself when asked to, so
// the tests can drive it as a child process, as a user does.
func TestMain(m *testing.M) {
	if os.Getenv("TYPEVET_VIEW_TEST_AS_COMMAND") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// command runs the command as a child process in dir and returns stdout,
// stderr and the exit status.
func command(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs the command as a child process")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TYPEVET_VIEW_TEST_AS_COMMAND=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// smallReceipt writes the receipt of a one-row offline run (the fake
// backend answers consistent: five of the seven cases wrong) into dir and
// returns its path.
var smallReceipt = sync.OnceValues(func() ([]byte, error) {
	slice, err := checkmatch.BuildSlice(checkmatch.DefaultSeed, 1, nil)
	if err != nil {
		return nil, err
	}
	run, err := checkmatch.Run(context.Background(), fake.New(fake.Distributions{
		"verdict": {Weights: map[string]float64{"consistent": 3, "cannot_tell": 1}},
	}), "fake-model", slice.Requests, checkmatch.RunOptions{})
	if err != nil {
		return nil, err
	}
	pins := slice.Pins()
	renderer := checkmatch.RendererPin()
	pins.Renderer = &renderer
	r, err := checkmatch.BuildReceipt(run, checkmatch.ReceiptParts{Backend: "fake", Model: "fake-model", Pins: pins})
	if err != nil {
		return nil, err
	}
	return receipt.Marshal(r)
})

func writeReceipt(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := smallReceipt()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWritesSite(t *testing.T) {
	dir := t.TempDir()
	writeReceipt(t, dir, "run.json")
	stdout, stderr, code := command(t, dir, "run.json", "-out", "site")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		"site/index.html\n",
		"receipt 1 run.json: 7 cases, 5 wrong; images 7 reproduced, 0 not reproducible (site/index.html)\n",
		"site site: 17 files, ", // index.html, style.css, view.js, 7 half-scale views and the 7 judged PNGs a click opens
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, "site", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(must(os.ReadFile(filepath.Join(dir, "run.json"))))
	if !bytes.Contains(html, []byte(hex.EncodeToString(sum[:])[:12])) {
		t.Error("the page does not show the receipt file's SHA-256")
	}
	if n := bytes.Count(html, []byte("<img ")); n != 7 {
		t.Errorf("%d images on the page, want 7", n)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".site.*")); len(leftovers) > 0 {
		t.Errorf("temporary directories left: %v", leftovers)
	}

	// A second run replaces the site it wrote, flags before the receipts,
	// and writes the judged PNGs themselves with -full-images.
	stdout, stderr, code = command(t, dir, "--full-images", "-out", "site", "run.json", "run.json")
	if code != 0 {
		t.Fatalf("second run: exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "side by side site/compare-1-2.html\n") {
		t.Errorf("two receipts of one slice: no side-by-side page in\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "site", "receipt-2.html")); err != nil {
		t.Error(err)
	}
	imgs, _ := filepath.Glob(filepath.Join(dir, "site", "img", "*.png"))
	if len(imgs) != 7 {
		t.Fatalf("%d images, want 7", len(imgs))
	}
	for _, p := range imgs {
		sum := sha256.Sum256(must(os.ReadFile(p)))
		if hex.EncodeToString(sum[:])+".png" != filepath.Base(p) {
			t.Errorf("%s is not the judged PNG byte for byte", p)
		}
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".site.*")); len(leftovers) > 0 {
		t.Errorf("temporary directories left: %v", leftovers)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	writeReceipt(t, dir, "run.json")
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "mine"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mine", "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run.json"}, 2, "view: error: the following arguments are required: -out"},
		{[]string{"-out", "site"}, 2, "view: error: name at least one receipt file"},
		{[]string{"run.json", "-out", "file"}, 2, "view: error: -out file is a file: name a new or empty directory"},
		{[]string{"run.json", "-out", "mine"}, 2, "view: error: -out mine is a directory with files this command did not write"},
		{[]string{"run.json", "-out", "site", "-colour"}, 2, "view: error: flag provided but not defined: -colour"},
		{[]string{"missing.json", "-out", "site"}, 1, "view: receipt missing.json: open missing.json: no such file or directory"},
		{[]string{"file", "-out", "site"}, 1, "view: receipt file: read check-match receipt: EOF"},
	} {
		_, stderr, code := command(t, dir, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
		if tc.code == 2 && !strings.HasPrefix(stderr, usageLine+"\n") {
			t.Errorf("%v: a usage error without the usage line: %q", tc.args, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "site")); !os.IsNotExist(err) {
		t.Errorf("a refused run wrote the site: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "mine", "notes.txt")); string(b) != "mine" {
		t.Error("a refused run touched the user's directory")
	}
	stdout, _, code := command(t, dir, "-h")
	if code != 0 || !strings.Contains(stdout, usageLine) || !strings.Contains(stdout, "-full-images") {
		t.Errorf("-h: exit %d, stdout %q", code, stdout)
	}
}

func TestReceiptHeadRefused(t *testing.T) {
	dir := t.TempDir()
	head := `{"issue": 316, "backend": "vllm", "model": "m", "pins": {}, "identity": {}, "stopped": null, "wall_seconds": 1.0}`
	if err := os.WriteFile(filepath.Join(dir, "head.json"), []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := command(t, dir, "head.json", "-out", "site")
	if code != 1 || !strings.Contains(stderr, "receipt head.json has no cases (a receipt head): name a whole receipt") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestCalibratedRecordsBeside reads a calibrated run's records beside its
// receipt (kept in checkmatch/view/testdata) and draws the diagrams raw
// and calibrated; records of another run are refused with exit 1.
func TestCalibratedRecordsBeside(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"calibrated_reader.json", "calibrated_reader.json.calibration.json"} {
		data := must(os.ReadFile(filepath.Join("..", "..", "checkmatch", "view", "testdata", name)))
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, stderr, code := command(t, dir, "-out", "site", "calibrated_reader.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	html := string(must(os.ReadFile(filepath.Join(dir, "site", "index.html"))))
	for _, want := range []string{"<code>payee_matches raw</code>", "<code>payee_matches calibrated</code>", "<code>amounts_match raw</code>"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}

	side := filepath.Join(dir, "calibrated_reader.json.calibration.json")
	data := must(os.ReadFile(side))
	if err := os.WriteFile(side, bytes.Replace(data, []byte(`"model": "reader"`), []byte(`"model": "other"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = command(t, dir, "-out", "site2", "calibrated_reader.json")
	if code != 1 || !strings.Contains(stderr, `model "other"`) {
		t.Errorf("records of another run: exit %d, stderr %q; want 1 naming the model", code, stderr)
	}
}
