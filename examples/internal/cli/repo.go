package cli

import (
	"os"
	"path/filepath"
)

// RepoRoot returns the nearest directory at or above the working directory
// that holds a .git entry, for the receipt's baseline commit; the working
// directory itself when there is none (the baseline is then "unknown").
func RepoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd
		}
		dir = parent
	}
}
