package receipt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/typevet/typevet-go/internal/pytext"
)

// WithoutPorcelainPath is the one dirty path recorded when no porcelain text
// was given: the run cannot prove its tree was clean.
const WithoutPorcelainPath = "dirty-unknown-without-porcelain"

// UnknownBaselinePath is the one dirty path recorded when the baseline
// commit is [Unknown].
const UnknownBaselinePath = ".git/HEAD"

// WorkingTree is the identity's working_tree block: whether the source tree
// differed from the baseline commit when the run started.
type WorkingTree struct {
	// Dirty is true when the tree had changes, or when that cannot be known.
	Dirty bool `json:"dirty"`
	// DirtyPaths are the changed paths, sorted and unique; a single marker
	// path ([WithoutPorcelainPath] or [UnknownBaselinePath]) when the state
	// is unknown; empty (never null) when clean.
	DirtyPaths []string `json:"dirty_paths"`
	// DirtyDigest is the SHA-256 hex of the sorted porcelain lines joined by
	// "\n"; "" when clean; [Unknown] when the state is unknown.
	DirtyDigest string `json:"dirty_digest"`
}

// MarshalJSON writes the block with dirty_paths as [] when DirtyPaths is
// nil (typevet never writes null there) and <, > and & unescaped.
func (w WorkingTree) MarshalJSON() ([]byte, error) {
	type plain WorkingTree // drops this method
	if w.DirtyPaths == nil {
		w.DirtyPaths = []string{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(plain(w)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// WorkingTreeFromPorcelain derives the working_tree block from the text of
// `git status --porcelain` that the caller ran (typevet reads it from
// TYPEVET_GIT_STATUS_PORCELAIN) and the baseline from [BaselineCommit].
// porcelain is nil when no text was given (the variable is unset).
//
// Rules, first match wins:
//
//   - baseline [Unknown]: dirty, paths [".git/HEAD"], digest "unknown".
//     Decision: this rule is checked before the nil-porcelain rule, because
//     a tree state means nothing without the commit it is relative to.
//   - porcelain nil: dirty, paths ["dirty-unknown-without-porcelain"],
//     digest "unknown".
//   - no non-blank line (the empty text): clean, paths [], digest "".
//   - otherwise the lines are the non-blank lines, kept unstripped (Python
//     str.splitlines boundaries and str.strip blanks). A line's path is its
//     text after the first three characters, trimmed; for a rename the part
//     after the first " -> ". Lines without a path (shorter than four
//     characters) still count for the digest. Paths are sorted and unique;
//     the digest is SHA-256 of the sorted lines joined by "\n".
func WorkingTreeFromPorcelain(porcelain *string, baseline string) WorkingTree {
	switch {
	case baseline == Unknown:
		return WorkingTree{Dirty: true, DirtyPaths: []string{UnknownBaselinePath}, DirtyDigest: Unknown}
	case porcelain == nil:
		return WorkingTree{Dirty: true, DirtyPaths: []string{WithoutPorcelainPath}, DirtyDigest: Unknown}
	}
	var lines []string
	for _, line := range pytext.SplitLines(*porcelain) {
		if pytext.Strip(line) != "" {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return WorkingTree{DirtyPaths: []string{}}
	}
	paths := []string{}
	for _, line := range lines {
		if p := porcelainPath(line); p != "" {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return WorkingTree{Dirty: true, DirtyPaths: paths, DirtyDigest: hex.EncodeToString(sum[:])}
}

// porcelainPath is the path of one porcelain line: line[3:] (in characters,
// as Python slices), trimmed, and for a rename the destination.
func porcelainPath(line string) string {
	rest := line
	for range 3 {
		if rest == "" {
			return ""
		}
		_, size := utf8.DecodeRuneInString(rest)
		rest = rest[size:]
	}
	path := pytext.Strip(rest)
	if _, after, ok := strings.Cut(path, " -> "); ok {
		path = after
	}
	return path
}
