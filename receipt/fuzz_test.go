package receipt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/typevet/typevet-go/internal/pytext"
	"github.com/typevet/typevet-go/judgment"
)

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// FuzzWorkingTreeFromPorcelain checks the block's invariants for any
// porcelain text: dirty exactly when a non-blank line exists, paths sorted,
// unique and non-empty, and a digest that is "" when clean and a SHA-256
// hex otherwise.
func FuzzWorkingTreeFromPorcelain(f *testing.F) {
	for _, s := range []string{"", "\n", "?? a.go\n M b.go\n", "R  a -> b\n", "M\n", "üü x\r\n\x1c y z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, porcelain string) {
		wt := WorkingTreeFromPorcelain(&porcelain, hashA)
		nonBlank := slices.ContainsFunc(pytext.SplitLines(porcelain), func(l string) bool { return pytext.Strip(l) != "" })
		if wt.Dirty != nonBlank {
			t.Fatalf("dirty = %v for %q", wt.Dirty, porcelain)
		}
		if wt.DirtyPaths == nil || !slices.IsSorted(wt.DirtyPaths) || len(slices.Compact(slices.Clone(wt.DirtyPaths))) != len(wt.DirtyPaths) {
			t.Fatalf("dirty_paths %q not sorted unique", wt.DirtyPaths)
		}
		if slices.Contains(wt.DirtyPaths, "") {
			t.Fatalf("empty path in %q", wt.DirtyPaths)
		}
		if wt.Dirty != hex64.MatchString(wt.DirtyDigest) || !wt.Dirty && wt.DirtyDigest != "" {
			t.Fatalf("digest %q for dirty %v", wt.DirtyDigest, wt.Dirty)
		}
		if again := WorkingTreeFromPorcelain(&porcelain, hashA); !reflect.DeepEqual(again, wt) {
			t.Fatal("not deterministic")
		}
	})
}

// FuzzReadIdentity reads any identity block: what decodes encodes again and
// decodes to the same value, and the second encoding equals the first.
func FuzzReadIdentity(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "check_match_vllm_throughput_c4.head.json"))
	if err != nil {
		f.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		f.Fatal(err)
	}
	// A small seed: the identity with two code digests, compact (a
	// mutation of the 2 KB block took the fuzzer minutes to minimise).
	var id map[string]json.RawMessage
	if err := json.Unmarshal(top["identity"], &id); err != nil {
		f.Fatal(err)
	}
	id["code_path_digests"] = json.RawMessage(`{"a.py":"00","b.py":"11"}`)
	small, err := json.Marshal(id)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(small)
	f.Add([]byte(`{"prompt_digests":{"b":"1","a":"2"},"arm_call_counts":null}`))
	f.Add([]byte(`{"fixture_digests":{"a":"1","a":"2"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var id Identity
		if json.Unmarshal(data, &id) != nil {
			return
		}
		first, err := Marshal(id)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		var back Identity
		if err := json.Unmarshal(first, &back); err != nil {
			t.Fatalf("re-read %s: %v", first, err)
		}
		second, err := Marshal(back)
		if err != nil || string(second) != string(first) {
			t.Fatalf("encoding not stable:\n%s\n%s", first, second)
		}
		if IdentityDigest(back) != IdentityDigest(id) {
			t.Fatal("identity digest changed across a round trip")
		}
	})
}

// FuzzCheckKeyFree: a receipt holding a configured secret anywhere in a
// string is always refused, whatever the secret's characters.
func FuzzCheckKeyFree(f *testing.F) {
	f.Add("sk-123", "error: ", " refused")
	f.Add(`k"e\y`, "", "")
	f.Add("clé", "<", ">")
	f.Fuzz(func(t *testing.T, secret, before, after string) {
		if secret == "" || !utf8.ValidString(secret) || !utf8.ValidString(before) || !utf8.ValidString(after) {
			return
		}
		b, err := Marshal(sample{Message: before + secret + after})
		if err != nil {
			t.Fatal(err)
		}
		if CheckKeyFree(b, judgment.Secrets{Keys: []string{secret}}) == nil {
			t.Fatalf("receipt %s holding secret %q passed", b, secret)
		}
	})
}

// FuzzBaselineCommit reads any HEAD and packed-refs text: the result is
// "unknown" or a full commit hash that occurs in one of the two files.
func FuzzBaselineCommit(f *testing.F) {
	f.Add("ref: refs/heads/main\n", hashA+" refs/heads/main\n")
	f.Add(hashA, "")
	f.Add("ref: refs/../x", "# comment\n^"+hashB+"\n")
	f.Add("ref:refs/heads/a", hash64+" refs/heads/a")
	f.Fuzz(func(t *testing.T, head, packed string) {
		root := t.TempDir()
		gitDir := filepath.Join(root, ".git")
		if err := os.Mkdir(gitDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range map[string]string{"HEAD": head, "packed-refs": packed} {
			if err := os.WriteFile(filepath.Join(gitDir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got := BaselineCommit(root)
		if got == Unknown {
			return
		}
		if !commitPattern.MatchString(got) {
			t.Fatalf("BaselineCommit = %q: not a commit hash", got)
		}
		if !strings.Contains(head, got) && !strings.Contains(packed, got) {
			t.Fatalf("BaselineCommit = %q: in neither file", got)
		}
	})
}
