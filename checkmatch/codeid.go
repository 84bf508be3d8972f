package checkmatch

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"

	typevet "github.com/typevet/typevet-go"
	"github.com/typevet/typevet-go/receipt"
)

// Runs that digest a logical name of [codeFiles].
const (
	checkRun = 1 << iota // a check-match run (checkCodeDigests)
	studyRun             // the option-order study (orderings.TakeSnapshot, [Snapshot.Study])
)

// codeFiles is the one list of the code fingerprint. Every non-test Go
// file the module root embeds ([typevet.Sources]: the checkmatch, pool,
// serving, checkmatch/orderings, checkmatch/internal/lines and resample,
// internal/checkform, pymath, pytext and serverblock
// directories, receipt/throughput.go and receipt/withhold.go, and
// judgment/stopclass.go, which name a stopped run's error class and
// message) appears here exactly once:
// under the logical name of identity.code_path_digests whose digest
// covers it, with the runs that
// record that name, or in the entry with no name and no runs (as
// path.Match patterns), for the files no run executes: the package doc,
// contact sheets and the repeat study (which read or
// write documents of their own), the doc file of internal/pytext, and
// internal/pymath's exp, which belongs to the judgment scoring path (and
// its log, log1p and pow, which belong to package calibration) and,
// like the rest of package judgment and its backends, is outside the
// check-match code fingerprint. The names are typevet's for its Python
// files, each now covering the Go files of that piece. A new source file
// in those directories is embedded by its directory's glob;
// TestCodePathsCoverSources fails until it is added here.
var codeFiles = []struct {
	name  string
	runs  int
	files []string
}{
	{"cases", checkRun | studyRun, []string{
		"checkmatch/cases.go", "checkmatch/draws.go",
		"internal/pytext/pytext.go",
	}},
	{"metrics", checkRun, []string{"checkmatch/metrics.go", "checkmatch/outcome.go", "internal/pymath/pymath.go"}},
	{"orderings", studyRun, []string{
		"checkmatch/orderings/journal.go", "checkmatch/orderings/orderings.go", "checkmatch/orderings/receipt.go",
		"checkmatch/internal/resample/resample.go",
	}},
	{"pool", checkRun, []string{"pool/pool.go"}},
	{"render", checkRun | studyRun, []string{
		"checkmatch/blur.go", "checkmatch/pin.go", "checkmatch/pngenc.go", "checkmatch/render.go", "checkmatch/signature.go",
		"internal/checkform/font.go", "internal/checkform/format.go", "internal/checkform/layout.go",
	}},
	{"request", checkRun | studyRun, []string{"checkmatch/request.go", "checkmatch/slice.go"}},
	{"runner", checkRun, []string{
		"checkmatch/checkreceipt.go", "checkmatch/codeid.go", "checkmatch/internal/lines/lines.go", "checkmatch/merge.go", "checkmatch/retry.go",
		"evalrun/attempts.go", "evalrun/files.go", "evalrun/journal.go", "evalrun/receiptof.go", "evalrun/retry.go", "evalrun/run.go", "evalrun/sync_linux.go", "evalrun/sync_other.go",
		"checkmatch/run_receipt.go", "checkmatch/runjournal.go", "checkmatch/runner.go", "checkmatch/session.go", "checkmatch/setup.go",
		"checkmatch/shard.go", "judgment/stopclass.go", "receipt/withhold.go",
	}},
	{"serving_metrics", checkRun, []string{
		"internal/serverblock/block.go", "internal/serverblock/value.go", "receipt/throughput.go",
		"serving/delta.go", "serving/doc.go", "serving/entry.go", "serving/errors.go",
		"serving/kv.go", "serving/metrics.go", "serving/replicas.go", "serving/scan.go", "serving/serverargs.go", "serving/value.go",
	}},
	{"words", checkRun | studyRun, []string{"checkmatch/words.go"}},
	{"", 0, []string{ // path.Match patterns
		"checkmatch/doc.go", "checkmatch/orderings/doc.go", "checkmatch/sheet.go", "evalrun/doc.go",
		"internal/pytext/doc.go",
		"internal/pymath/exp*.go", "internal/pymath/log*.go", "internal/pymath/pow*.go",
	}},
}

// codeFilesOf returns the files of the logical name, sorted by path (a
// copy); false for a name no run records.
func codeFilesOf(name string) ([]string, bool) {
	for _, e := range codeFiles {
		if e.name == name && e.runs != 0 {
			return slices.Sorted(slices.Values(e.files)), true
		}
	}
	return nil, false
}

// codePathsOf returns the logical names run records, sorted by name, each
// with its files sorted by path (copies).
func codePathsOf(run int) receipt.Ordered[[]string] {
	var out receipt.Ordered[[]string]
	for _, e := range codeFiles {
		if e.runs&run != 0 {
			out = append(out, receipt.Entry[[]string]{Name: e.name, Value: slices.Sorted(slices.Values(e.files))})
		}
	}
	slices.SortFunc(out, func(a, b receipt.Entry[[]string]) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// codePaths returns the module-relative source files digested under each
// logical name of a check-match receipt's identity.code_path_digests
// (cases, metrics, pool, render, request, runner, serving_metrics, words),
// sorted by name, each list sorted by path. The result is a copy.
func codePaths() receipt.Ordered[[]string] { return codePathsOf(checkRun) }

// checkCodeDigests returns the code fingerprint of this build's check-match run
// (identity.code_path_digests): for each logical name of codePaths,
// sorted by name, the SHA-256 hex of its source files as embedded in the
// binary, by the rule of [receipt.CodeDigests]: a name with one file
// digests that file's bytes, as typevet digests one Python file; a name
// with several digests, in path order, each file's path, a NUL byte, its
// bytes and a NUL byte. A run takes the digests before its first call.
func checkCodeDigests() (receipt.Digests, error) {
	return codeDigests(typevet.Sources(), codePaths())
}

// codeDigests digests paths in fsys by [receipt.CodeDigests]'s rule.
func codeDigests(fsys fs.FS, paths receipt.Ordered[[]string]) (receipt.Digests, error) {
	files := make(map[string][]string, len(paths))
	for _, e := range paths {
		if _, dup := files[e.Name]; dup {
			return nil, fmt.Errorf("code digest %q: name listed twice", e.Name)
		}
		files[e.Name] = e.Value
	}
	return receipt.CodeDigests(fsys, files)
}
