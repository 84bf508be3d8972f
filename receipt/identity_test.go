package receipt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// fixtures are typevet's receipts, copied unedited (testdata/README.md).
var fixtures = []string{
	"check_match_vllm_receipt.json",
	"check_match_vllm_throughput_c4.head.json",
	"check_match_vllm_throughput_full_c16.head.json",
}

// fixtureBlock returns the raw JSON of one top-level block of a fixture.
func fixtureBlock(t testing.TB, file, key string) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	raw, ok := top[key]
	if !ok {
		t.Fatalf("%s has no %q block", file, key)
	}
	return raw
}

func TestIdentityDigestReproducesTypevet(t *testing.T) {
	for _, file := range fixtures {
		t.Run(file, func(t *testing.T) {
			var id Identity
			if err := json.Unmarshal(fixtureBlock(t, file, "identity"), &id); err != nil {
				t.Fatal(err)
			}
			if got := IdentityDigest(id); got != id.IdentityDigest {
				t.Errorf("IdentityDigest = %s, receipt says %s", got, id.IdentityDigest)
			}
			// The digest must cover each field: change one, the digest moves.
			changed := id
			changed.ArmCallCounts = Counts{{Name: "judgments", Value: 1}}
			if IdentityDigest(changed) == id.IdentityDigest {
				t.Error("IdentityDigest ignores arm_call_counts")
			}
			changed = id
			changed.RunID = "00000000000000000000000000000000"
			if IdentityDigest(changed) != id.IdentityDigest {
				t.Error("IdentityDigest depends on run_id")
			}
		})
	}
}

// TestIdentityRoundTrip proves the struct is the schema: decoding typevet's
// identity block and encoding it again gives Python's json.dumps(indent=2)
// bytes of the block (it holds no floats, so even the bytes agree).
func TestIdentityRoundTrip(t *testing.T) {
	for _, file := range fixtures {
		t.Run(file, func(t *testing.T) {
			raw := fixtureBlock(t, file, "identity")
			var id Identity
			if err := json.Unmarshal(raw, &id); err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := json.Indent(&want, raw, "", "  "); err != nil {
				t.Fatal(err)
			}
			want.WriteByte('\n')
			got, err := Marshal(id)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("re-encoded identity =\n%s\nwant\n%s", got, want.Bytes())
			}
		})
	}
}

func TestNewRunID(t *testing.T) {
	uuid4 := regexp.MustCompile(`^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$`)
	seen := map[string]bool{}
	for range 100 {
		id := NewRunID()
		if !uuid4.MatchString(id) {
			t.Fatalf("NewRunID = %q, not a uuid4 hex", id)
		}
		if seen[id] {
			t.Fatalf("NewRunID repeated %q", id)
		}
		seen[id] = true
	}
}

func TestNewRuntime(t *testing.T) {
	got := NewRuntime("google/gemma-4-31B-it", "vllm_chat", "0.30.0")
	want := Runtime{"google/gemma-4-31B-it", "vllm_chat", "0.30.0", "unknown", "unknown", "unknown"}
	if got != want {
		t.Errorf("NewRuntime = %+v", got)
	}
}

// TestCodeDigestsSeveralFiles checks the several-file rule (path, NUL,
// bytes, NUL, in path order), the same as checkmatch's run digests.
func TestCodeDigestsSeveralFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"a/x.go": {Data: []byte("package a\n")},
		"a/y.go": {Data: []byte("package a // y\n")},
	}
	paths := []string{"a/y.go", "a/x.go"}
	got, err := CodeDigests(fsys, map[string][]string{"render": paths})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("a/x.go\x00package a\n\x00a/y.go\x00package a // y\n\x00"))
	if want := hex.EncodeToString(sum[:]); len(got) != 1 || got[0].Value != want {
		t.Errorf("CodeDigests = %v, want render %s", got, want)
	}
	if paths[0] != "a/y.go" {
		t.Error("CodeDigests sorted the caller's slice")
	}
	tests := []struct {
		name   string
		files  map[string][]string
		reason string
	}{
		{name: "no files", files: map[string][]string{"render": nil}, reason: "a name without files would digest nothing"},
		{name: "missing second file", files: map[string][]string{"render": {"a/x.go", "a/z.go"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := CodeDigests(fsys, tt.files); err == nil || !strings.Contains(err.Error(), `"render"`) {
				t.Errorf("err = %v, want one naming \"render\"", err)
			}
		})
	}
}

func TestCodeDigests(t *testing.T) {
	fsys := fstest.MapFS{
		"runner.go":  {Data: []byte("package run\n")},
		"metrics.go": {Data: []byte("")},
	}
	got, err := CodeDigests(fsys, map[string][]string{"runner": {"runner.go"}, "metrics": {"metrics.go"}})
	if err != nil {
		t.Fatal(err)
	}
	want := Digests{
		{Name: "metrics", Value: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{Name: "runner", Value: "260ffe271e7fdfa9266ebb1d8520e99c2781fc9ba24e7a337c7f0dd2ab6a19dc"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CodeDigests = %v", got)
	}
	_, err = CodeDigests(fsys, map[string][]string{"pool": {"pool.go"}})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(`"pool"`)) {
		t.Errorf("missing file error = %v, want one naming \"pool\"", err)
	}
}
