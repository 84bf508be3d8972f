package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/typevet/typevet-go/receipt"
)

// lookGit returns the git executable on the search path text pathList
// (the PATH a command was given, so a test's environment decides), or ""
// when there is none.
func lookGit(pathList string) string {
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, "git")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// WorkingTreeText returns the porcelain text a run records for the
// working tree of root, and a line for the terminal that says what the
// receipt will record and where it came from. The text is
// TYPEVET_GIT_STATUS_PORCELAIN when set; else, in a git checkout with git
// on env's PATH, the output of `git status --porcelain` run in root; else
// nil (the receipt then records the tree as dirty, unknown).
func WorkingTreeText(env func(string) (string, bool), root string) (*string, string) {
	baseline := receipt.BaselineCommit(root)
	if text, ok := env(EnvPorcelain); ok {
		return &text, treeNote(baseline, text, EnvPorcelain)
	}
	if baseline == receipt.Unknown {
		return nil, fmt.Sprintf("git: %s is not in a git checkout: the receipt records baseline_commit %q and the tree as dirty (%s)",
			root, receipt.Unknown, receipt.UnknownBaselinePath)
	}
	path, _ := env("PATH")
	git := lookGit(path)
	if git == "" {
		return nil, fmt.Sprintf("git: not on PATH and %s is unset: the receipt records the tree as dirty (%s); set %s=\"$(git status --porcelain)\"",
			EnvPorcelain, receipt.WithoutPorcelainPath, EnvPorcelain)
	}
	cmd := exec.Command(git, "status", "--porcelain")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Sprintf("git: `git status --porcelain` failed (%v): the receipt records the tree as dirty (%s); set %s=\"$(git status --porcelain)\"",
			err, receipt.WithoutPorcelainPath, EnvPorcelain)
	}
	text := string(out)
	return &text, treeNote(baseline, text, "git status --porcelain")
}

// treeNote says what the receipt records of a tree whose porcelain text
// (from source) is text.
func treeNote(baseline, text, source string) string {
	if baseline == receipt.Unknown {
		return fmt.Sprintf("git: not in a git checkout: the receipt records baseline_commit %q and the tree as dirty (%s)",
			receipt.Unknown, receipt.UnknownBaselinePath)
	}
	short := baseline
	if len(short) > 12 {
		short = short[:12]
	}
	wt := receipt.WorkingTreeFromPorcelain(&text, baseline)
	if !wt.Dirty {
		return fmt.Sprintf("git: baseline %s, working tree clean (from %s): the receipt records dirty false", short, source)
	}
	paths := "paths"
	if len(wt.DirtyPaths) == 1 {
		paths = "path"
	}
	return fmt.Sprintf("git: baseline %s, %d changed %s (from %s): the receipt records dirty true (%s)",
		short, len(wt.DirtyPaths), paths, source, strings.Join(firstN(wt.DirtyPaths, 3), ", "))
}

// firstN returns the first n of s, with "…" when there are more.
func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], "…")
}
