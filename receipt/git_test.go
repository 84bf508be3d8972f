package receipt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	hashA  = "ce63dddd013445066c0768e5e2049de1e6e50f9a"
	hashB  = "93a13fbbf63f043165266ce0eb2752bcfb774c5e"
	hash64 = "18e168570a2c6aaaa57967588547c970ed8048ef4093a42d6a8732d7ca9b69b6"
)

// writeTree creates files (slash paths relative to root) with their content.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBaselineCommit(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		files  map[string]string // under the repo root
		want   string
	}{
		{
			name:  "loose ref",
			files: map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/refs/heads/main": hashA + "\n"},
			want:  hashA,
		},
		{
			name: "packed ref",
			files: map[string]string{
				".git/HEAD":        "ref: refs/heads/main\n",
				".git/packed-refs": "# pack-refs with: peeled fully-peeled sorted\n" + hashB + " refs/heads/other\n" + hashA + " refs/heads/main\n^" + hashB + "\n",
			},
			want: hashA,
		},
		{
			name:   "loose ref wins over packed",
			reason: "git writes a loose ref when a packed branch moves; the loose file is newer",
			files: map[string]string{
				".git/HEAD":            "ref: refs/heads/main\n",
				".git/refs/heads/main": hashB + "\n",
				".git/packed-refs":     hashA + " refs/heads/main\n",
			},
			want: hashB,
		},
		{
			name:   "peeled line skipped",
			reason: "a ^ line holds the peeled tag target, not a ref",
			files: map[string]string{
				".git/HEAD":        "ref: refs/tags/v1\n",
				".git/packed-refs": "^" + hashB + " refs/tags/v1\n" + hashA + " refs/tags/v1\n",
			},
			want: hashA,
		},
		{
			name:  "detached",
			files: map[string]string{".git/HEAD": hashA + "\n"},
			want:  hashA,
		},
		{
			name:  "detached sha256",
			files: map[string]string{".git/HEAD": hash64},
			want:  hash64,
		},
		{
			name:   "worktree gitdir file with commondir",
			reason: "a linked worktree keeps HEAD in its own gitdir and branches in the common dir",
			files: map[string]string{
				".git":                             "gitdir: main/.git/worktrees/wt\n",
				"main/.git/worktrees/wt/HEAD":      "ref: refs/heads/feature\n",
				"main/.git/worktrees/wt/commondir": "../..\n",
				"main/.git/refs/heads/feature":     hashB + "\n",
			},
			want: hashB,
		},
		{
			name: "worktree packed ref in commondir",
			files: map[string]string{
				".git":                             "gitdir: main/.git/worktrees/wt",
				"main/.git/worktrees/wt/HEAD":      "ref: refs/heads/feature",
				"main/.git/worktrees/wt/commondir": "../..",
				"main/.git/packed-refs":            hashA + " refs/heads/feature\n",
			},
			want: hashA,
		},
		{
			name:   "dotdot segment refused",
			reason: "a ref must not climb out of the git directory",
			files: map[string]string{
				".git/HEAD": "ref: refs/../../secret\n",
				"secret":    hashA,
			},
			want: Unknown,
		},
		{
			name:  "ref outside refs refused",
			files: map[string]string{".git/HEAD": "ref: HEAD2\n", ".git/HEAD2": hashA},
			want:  Unknown,
		},
		{
			name:  "bad hash",
			files: map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/refs/heads/main": "not-a-hash\n"},
			want:  Unknown,
		},
		{
			name:   "upper-case hash refused",
			reason: "the pattern is lower-case hex only",
			files:  map[string]string{".git/HEAD": strings.ToUpper(hashA)},
			want:   Unknown,
		},
		{
			name:  "short hash refused",
			files: map[string]string{".git/HEAD": hashA[:39]},
			want:  Unknown,
		},
		{
			name:  "missing ref",
			files: map[string]string{".git/HEAD": "ref: refs/heads/gone\n"},
			want:  Unknown,
		},
		{
			name:  "no git",
			files: map[string]string{"README": "x"},
			want:  Unknown,
		},
		{
			name:  "git file without gitdir",
			files: map[string]string{".git": "hello\n"},
			want:  Unknown,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "repo")
			writeTree(t, root, tt.files)
			if got := BaselineCommit(root); got != tt.want {
				t.Errorf("BaselineCommit = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBaselineCommitAbsoluteGitdir(t *testing.T) {
	dir := t.TempDir()
	gitDir := filepath.Join(dir, "elsewhere")
	writeTree(t, dir, map[string]string{
		"elsewhere/HEAD":            "ref: refs/heads/main",
		"elsewhere/refs/heads/main": hashA,
		"repo/.git":                 "gitdir: " + gitDir + "\n",
	})
	if got := BaselineCommit(filepath.Join(dir, "repo")); got != hashA {
		t.Errorf("BaselineCommit = %q, want %q", got, hashA)
	}
}
