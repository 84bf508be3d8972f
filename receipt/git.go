package receipt

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Unknown is the value typevet records when a fact cannot be read: a
// baseline commit that cannot be resolved, a working tree without porcelain
// text, a runtime identity nobody supplied.
const Unknown = "unknown"

// commitPattern is the shape of a full SHA-1 (40) or SHA-256 (64) object id.
var commitPattern = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// BaselineCommit returns the commit that HEAD of the repository at repoRoot
// names, read from the files under .git without running git, or [Unknown].
//
// The rules are typevet's:
//
//   - repoRoot/.git is the git directory, or a file "gitdir: <path>" naming
//     it (a linked worktree; a relative path is relative to repoRoot).
//   - HEAD holding a hash (detached) is the answer itself.
//   - HEAD holding "ref: <ref>" is resolved only when the ref starts with
//     "refs/" and has no ".." segment. The git directory is searched first,
//     then the directory named by its commondir file (relative to the git
//     directory); in each, the loose ref file first, then packed-refs
//     (lines starting with "#" or "^" skipped, "<hash> <ref>" otherwise).
//   - The result must be 40 or 64 lower-case hex digits, or it is [Unknown].
//
// Any unreadable file also gives [Unknown]: a receipt records what it can
// prove and never fails a run over its git fingerprint.
func BaselineCommit(repoRoot string) string {
	gitDir, ok := gitDirectory(repoRoot)
	if !ok {
		return Unknown
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return Unknown
	}
	value := strings.TrimSpace(string(head))
	if ref, isRef := strings.CutPrefix(value, "ref:"); isRef {
		value = resolveRef(gitDir, strings.TrimSpace(ref))
	}
	if !commitPattern.MatchString(value) {
		return Unknown
	}
	return value
}

// gitDirectory finds the git directory of repoRoot: .git itself, or the
// directory a .git file points at.
func gitDirectory(repoRoot string) (string, bool) {
	dotGit := filepath.Join(repoRoot, ".git")
	info, err := os.Stat(dotGit)
	if err != nil {
		return "", false
	}
	if info.IsDir() {
		return dotGit, true
	}
	b, err := os.ReadFile(dotGit)
	if err != nil {
		return "", false
	}
	path, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", false
	}
	path = strings.TrimSpace(path)
	if path == "" {
		return "", false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(repoRoot, path)
	}
	return path, true
}

// resolveRef looks ref up in gitDir, then in its common directory; it
// returns "" when the ref is refused or not found.
func resolveRef(gitDir, ref string) string {
	if !safeRef(ref) {
		return ""
	}
	dirs := []string{gitDir}
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if common != "" {
			if !filepath.IsAbs(common) {
				common = filepath.Join(gitDir, common)
			}
			dirs = append(dirs, common)
		}
	}
	for _, dir := range dirs {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref))); err == nil {
			return strings.TrimSpace(string(b))
		}
		if hash, ok := packedRef(filepath.Join(dir, "packed-refs"), ref); ok {
			return hash
		}
	}
	return ""
}

// safeRef reports whether ref may be joined to a directory: it must start
// with "refs/" and no segment may be "..".
func safeRef(ref string) bool {
	if !strings.HasPrefix(ref, "refs/") {
		return false
	}
	for seg := range strings.SplitSeq(ref, "/") {
		if seg == ".." {
			return false
		}
	}
	return true
}

// packedRef finds ref in a packed-refs file.
func packedRef(path, ref string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, len(b)+1)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "^") {
			continue
		}
		hash, name, ok := strings.Cut(line, " ")
		if ok && strings.TrimSpace(name) == ref {
			return hash, true
		}
	}
	return "", false
}
