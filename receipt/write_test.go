package receipt

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/typevet/typevet-go/internal/golden"
	"github.com/typevet/typevet-go/judgment"
)

type sample struct {
	Issue   int      `json:"issue"`
	Model   string   `json:"model"`
	Message string   `json:"message"`
	Wall    float64  `json:"wall_seconds"`
	Paths   []string `json:"paths"`
}

func TestMarshal(t *testing.T) {
	got, err := Marshal(sample{Issue: 316, Model: "m<&>", Message: "é \u007f 😀 \u2028 \n", Wall: 0.5, Paths: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "issue": 316,
  "model": "m<&>",
  "message": "\u00e9 \u007f \ud83d\ude00 \u2028 \n",
  "wall_seconds": 0.5,
  "paths": []
}
`
	if string(got) != want {
		t.Errorf("Marshal =\n%s\nwant\n%s", got, want)
	}
}

func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "receipt.json")
	sum, err := Write(path, sample{Issue: 316, Model: "m"}, judgment.Secrets{Keys: []string{"", "sk-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256(b)
	if sum != hex.EncodeToString(digest[:]) {
		t.Errorf("Write returned %s, file digest is %x", sum, digest)
	}
	want, _ := Marshal(sample{Issue: 316, Model: "m"})
	if string(b) != string(want) || !strings.HasSuffix(string(b), "}\n") {
		t.Errorf("file holds\n%s\nwant\n%s", b, want)
	}
}

func TestWriteRefusesExisting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "receipt.json")
	if err := os.WriteFile(path, []byte("earlier run"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckNew(path); !isExists(err, path) {
		t.Errorf("CheckNew = %v, want *AlreadyExistsError", err)
	}
	_, err := Write(path, sample{}, judgment.Secrets{})
	if !isExists(err, path) {
		t.Fatalf("Write = %v, want *AlreadyExistsError", err)
	}
	if got := err.Error(); got != "receipt already exists: "+path {
		t.Errorf("message = %q", got)
	}
	if b, _ := os.ReadFile(path); string(b) != "earlier run" {
		t.Errorf("existing file changed to %q", b)
	}
}

func TestCheckNew(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		reason string
		path   string
		exists bool
		fails  bool
	}{
		{name: "new", path: filepath.Join(dir, "new.json")},
		{name: "new in missing dir", path: filepath.Join(dir, "x", "y", "new.json")},
		{name: "existing dir", path: dir, exists: true},
		{name: "dangling symlink", reason: "exclusive create would fail on it", path: dangling, exists: true},
		{name: "under a file", reason: "ENOTDIR: no receipt can be written there, so say so before the run", path: filepath.Join(file, "r.json"), fails: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckNew(tt.path)
			if tt.fails {
				if err == nil || isExists(err, tt.path) || !errors.Is(err, syscall.ENOTDIR) {
					t.Errorf("CheckNew(%s) = %v, want ENOTDIR", tt.path, err)
				}
				return
			}
			if tt.exists && !isExists(err, tt.path) || !tt.exists && err != nil {
				t.Errorf("CheckNew(%s) = %v, exists %v", tt.path, err, tt.exists)
			}
		})
	}
	if _, err := Write(dangling, sample{}, judgment.Secrets{}); !isExists(err, dangling) {
		t.Errorf("Write through a dangling symlink = %v, want *AlreadyExistsError", err)
	}
}

func isExists(err error, path string) bool {
	var e *AlreadyExistsError
	return errors.As(err, &e) && e.Path == path
}

func TestCheckKeyFree(t *testing.T) {
	tests := []struct {
		name    string
		reason  string
		text    string
		secrets []string
		refused string // Reason, or "" when accepted
	}{
		{name: "clean", text: `{"message": "HTTP 500"}`, secrets: []string{"sk-1"}},
		{name: "empty secret ignored", reason: "an unset key is not a needle", text: `{"a": ""}`, secrets: []string{""}},
		{name: "secret verbatim", text: `{"message": "key sk-1 refused"}`, secrets: []string{"sk-1"}, refused: "a configured secret"},
		{name: "second secret", text: `{"h": "tok"}`, secrets: []string{"sk-1", "tok"}, refused: "a configured secret"},
		{name: "escaped secret", reason: `a secret with a quote is written as \"; typevet misses it, we do not`,
			text: `{"message": "ab\"cd"}`, secrets: []string{`ab"cd`}, refused: "a configured secret"},
		{name: "escaped backslash secret", text: `{"message": "ab\\cd"}`, secrets: []string{`ab\cd`}, refused: "a configured secret"},
		{name: "Authorization", text: `{"message": "echo Authorization: x"}`, refused: "authorization"},
		{name: "AUTHORIZATION", reason: "the check is on the lower-cased text", text: `{"m": "AUTHORIZATION"}`, refused: "authorization"},
		{name: "Bearer with space", text: `{"m": "Bearer abc"}`, refused: "bearer "},
		{name: "bearer without space", reason: "only `bearer ` with the trailing space counts", text: `{"m": "bearer-token"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckKeyFree([]byte(tt.text), judgment.Secrets{Keys: tt.secrets})
			if tt.refused == "" {
				if err != nil {
					t.Errorf("CheckKeyFree = %v, want nil", err)
				}
				return
			}
			var e *NotKeyFreeError
			if !errors.As(err, &e) || e.Reason != tt.refused {
				t.Fatalf("CheckKeyFree = %#v, want NotKeyFreeError{%q}", err, tt.refused)
			}
			if err.Error() != "receipt is not key-free: it holds a key or an auth header" {
				t.Errorf("message = %q", err.Error())
			}
		})
	}
}

// TestCheckKeyFreeHeaderValues: an extra header value is looked for as a
// key is, wherever it occurs (inside a word too), not as a whole token the
// way errors mask it.
func TestCheckKeyFreeHeaderValues(t *testing.T) {
	s := judgment.Secrets{HeaderValues: []string{"prod"}}
	for _, text := range []string{`{"m": "prod"}`, `{"m": "production"}`} {
		var e *NotKeyFreeError
		if err := CheckKeyFree([]byte(text), s); !errors.As(err, &e) || e.Reason != "a configured secret" {
			t.Errorf("CheckKeyFree(%s) = %v, want a configured secret", text, err)
		}
	}
	if err := CheckKeyFree([]byte(`{"m": "x"}`), s); err != nil {
		t.Errorf("clean text refused: %v", err)
	}
}

func TestWriteRefusesSecretAndLeavesNoFile(t *testing.T) {
	tests := []struct {
		name    string
		v       sample
		secrets []string
	}{
		{name: "secret", v: sample{Message: "error echoed sk-123"}, secrets: []string{"sk-123"}},
		{name: "secret with quote", v: sample{Message: `k"ey`}, secrets: []string{`k"ey`}},
		{name: "non-ASCII secret", v: sample{Message: "clé"}, secrets: []string{"clé"}},
		{name: "authorization", v: sample{Message: "Authorization: Bearer sk"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "receipt.json")
			_, err := Write(path, tt.v, judgment.Secrets{Keys: tt.secrets})
			var e *NotKeyFreeError
			if !errors.As(err, &e) {
				t.Fatalf("Write = %v, want *NotKeyFreeError", err)
			}
			if _, statErr := os.Lstat(path); !os.IsNotExist(statErr) {
				t.Errorf("refused receipt left a file: %v", statErr)
			}
			for _, s := range tt.secrets {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error %q quotes the secret", err)
				}
			}
		})
	}
}

func TestWriteFailureRemovesPartialFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "receipt.json")
	_, err := Write(path, sample{Wall: nan()}, judgment.Secrets{})
	if err == nil {
		t.Fatal("Write of NaN succeeded")
	}
	if _, statErr := os.Lstat(path); !os.IsNotExist(statErr) {
		t.Errorf("failed encode left a file: %v", statErr)
	}

	w := &writer{path: path, data: []byte("{}\n")}
	w.create()
	if w.err != nil {
		t.Fatal(w.err)
	}
	if err := w.f.Close(); err != nil { // make the write step fail
		t.Fatal(err)
	}
	w.write()
	w.finish()
	var we *WriteError
	if !errors.As(w.err, &we) || we.Op != "write" || we.Path != path {
		t.Fatalf("err = %v, want a write WriteError", w.err)
	}
	if _, statErr := os.Lstat(path); !os.IsNotExist(statErr) {
		t.Errorf("failed write left a partial file: %v", statErr)
	}
}

func nan() float64 {
	var zero float64
	return zero / zero
}

// TestMarshalMatchesPython is the byte-level proof: each identity and
// throughput block of typevet's receipts, decoded into the typed struct and
// encoded again with Marshal, is byte for byte what Python's
// json.dumps(block, indent=2) + "\n" writes (testdata/python_*.golden,
// written by testdata/python_blocks.py). It also checks that the golden is
// the block's own text in the original file, re-indented at top level, so
// the goldens cannot drift from typevet's bytes.
func TestMarshalMatchesPython(t *testing.T) {
	tests := []struct {
		file, block, golden string
		into                func() any
	}{
		{"check_match_vllm_receipt.json", "identity", "python_receipt_identity.golden", func() any { return new(Identity) }},
		{"check_match_vllm_throughput_c4.head.json", "identity", "python_c4_identity.golden", func() any { return new(Identity) }},
		{"check_match_vllm_throughput_c4.head.json", "throughput", "python_c4_throughput.golden", func() any { return new(Throughput) }},
		{"check_match_vllm_throughput_full_c16.head.json", "identity", "python_c16_identity.golden", func() any { return new(Identity) }},
		{"check_match_vllm_throughput_full_c16.head.json", "throughput", "python_c16_throughput.golden", func() any { return new(Throughput) }},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".json")+"/"+tt.block, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", tt.golden))
			if err != nil {
				t.Fatal(err)
			}
			original, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			nested := strings.ReplaceAll(strings.TrimSuffix(string(want), "\n"), "\n", "\n  ")
			if !strings.Contains(string(original), "\n  \""+tt.block+"\": "+nested) {
				t.Fatalf("%s is not the %s block of %s re-indented", tt.golden, tt.block, tt.file)
			}
			v := tt.into()
			if err := json.Unmarshal(fixtureBlock(t, tt.file, tt.block), v); err != nil {
				t.Fatal(err)
			}
			got, err := Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("Marshal differs from Python's json.dumps:\n%s", golden.FirstDiff(want, got))
			}
			if sha256.Sum256(got) != sha256.Sum256(want) {
				t.Error("SHA-256 differs")
			}
		})
	}
}

// TestWriteChecksFinalBytes shows that the key-free check reads the bytes
// written: a MarshalJSON that spells a secret with escapes ("s\u0065cret")
// is refused, because the re-emitted receipt holds it verbatim.
func TestWriteChecksFinalBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "receipt.json")
	v := struct {
		Note escapedNote `json:"note"`
	}{}
	_, err := Write(path, v, judgment.Secrets{Keys: []string{"secret"}})
	var nk *NotKeyFreeError
	if !errors.As(err, &nk) {
		t.Fatalf("Write = %v, want *NotKeyFreeError", err)
	}
	if _, statErr := os.Lstat(path); statErr == nil {
		t.Error("a refused receipt reached the disk")
	}
}

type escapedNote struct{}

func (escapedNote) MarshalJSON() ([]byte, error) { return []byte(`"s\u0065cret"`), nil }

// TestMarshalPythonFloats checks float fields: Python's float text where
// encoding/json writes 26 and 1e-7.
func TestMarshalPythonFloats(t *testing.T) {
	got, err := Marshal(struct {
		Wall  float64   `json:"wall_seconds"`
		Small float64   `json:"small"`
		List  []float64 `json:"list"`
	}{26, 1e-07, []float64{252, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"wall_seconds\": 26.0,\n  \"small\": 1e-07,\n  \"list\": [\n    252.0,\n    0.5\n  ]\n}\n"
	if string(got) != want {
		t.Errorf("Marshal =\n%s\nwant\n%s", got, want)
	}
}

func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	if err := CheckWritable(filepath.Join(dir, "a", "b", "r.json")); err != nil {
		t.Errorf("new nested path: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "a", "b"))
	if len(entries) != 0 {
		t.Errorf("the probe left %v behind", entries)
	}
	var we *WriteError
	if err := CheckWritable(filepath.Join(file, "r.json")); !errors.As(err, &we) || we.Op != "mkdir" {
		t.Errorf("parent is a file: %v, want a mkdir WriteError", err)
	}
	if os.Geteuid() != 0 { // root writes through 0555
		if err := CheckWritable(filepath.Join(ro, "r.json")); !errors.As(err, &we) || we.Op != "probe" {
			t.Errorf("read-only dir: %v, want a probe WriteError", err)
		}
	}
}

// TestWriteIsAtomic: the receipt is linked into place whole; a write
// interrupted before the link (a SIGKILL) leaves path free, never a 0-byte
// file that blocks it.
func TestWriteIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "receipt.json")
	w := &writer{path: path, data: []byte("{}\n")}
	w.create()
	w.write() // killed here: no finish
	if err := CheckNew(path); err != nil {
		t.Fatalf("an interrupted write took the path: %v", err)
	}
	w.f.Close()
	os.Remove(w.f.Name())

	sum, err := Write(path, sample{Message: "one"}, judgment.Secrets{})
	if err != nil || sum == "" {
		t.Fatal(sum, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o444 != 0o444 {
		t.Errorf("receipt mode %v, %v: want readable by all (umask permitting)", fi.Mode(), err)
	}
	if _, err := Write(path, sample{Message: "two"}, judgment.Secrets{}); !isExists(err, path) {
		t.Errorf("second Write = %v, want *AlreadyExistsError", err)
	}
	if _, err := Replace(path, sample{Message: "three"}, judgment.Secrets{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "three") {
		t.Errorf("Replace did not replace: %s", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}
