package checkmatch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	typevet "github.com/typevet/typevet-go"
	"github.com/typevet/typevet-go/receipt"
)

// codePaths maps each logical name of identity.code_path_digests to the
// module-relative Go source files that implement it: typevet's names for
// its Python files, each now covering the Go files of that
// piece. The files are embedded in the module root ([typevet.Sources]).
var codePaths = []receipt.Entry[[]string]{
	{Name: "cases", Value: []string{
		"checkmatch/cases.go", "checkmatch/draws.go", "checkmatch/seed.go",
		"internal/pytext/pytext.go",
	}},
	{Name: "metrics", Value: []string{"checkmatch/metrics.go", "checkmatch/outcome.go", "internal/pymath/pymath.go"}},
	{Name: "pool", Value: []string{"pool/pool.go"}},
	{Name: "render", Value: []string{
		"checkmatch/blur.go", "checkmatch/pin.go", "checkmatch/pngenc.go", "checkmatch/render.go", "checkmatch/signature.go",
		"internal/checkform/font.go", "internal/checkform/format.go", "internal/checkform/layout.go",
	}},
	{Name: "request", Value: []string{"checkmatch/request.go", "checkmatch/slice.go"}},
	{Name: "runner", Value: []string{"checkmatch/checkreceipt.go", "checkmatch/codeid.go", "checkmatch/run_receipt.go", "checkmatch/runner.go", "checkmatch/setup.go"}},
	{Name: "serving_metrics", Value: []string{
		"receipt/throughput.go",
		"serving/delta.go", "serving/doc.go", "serving/entry.go", "serving/errors.go",
		"serving/kv.go", "serving/metrics.go", "serving/serverargs.go", "serving/value.go",
	}},
	{Name: "words", Value: []string{"checkmatch/words.go"}},
}

// notRunCode lists, as path.Match patterns, the source files of the
// digested directories that a check-match run does not execute and so are
// deliberately left out of the code fingerprint: the package doc, contact
// sheets, the option-order and repeat studies (which read or write
// receipts of their own), the throughput sweep (a driver around Run) and
// the doc file of internal/pytext. internal/pymath's exp (exp.go and its
// table) belongs to the judgment scoring path, which, like the rest of
// package judgment and its backends, is not part of the check-match code
// fingerprint.
var notRunCode = []string{
	"checkmatch/doc.go", "checkmatch/sheet.go",
	"checkmatch/orderings*.go", "checkmatch/repeats*.go", "checkmatch/resample.go",
	"checkmatch/sweep*.go",
	"internal/pytext/doc.go",
	"internal/pymath/exp*.go",
}

// CodePaths returns the module-relative source files digested under each
// logical name of a check-match receipt's identity.code_path_digests
// (cases, metrics, pool, render, request, runner, serving_metrics, words),
// sorted by name, each list sorted by path. The result is a copy.
func CodePaths() receipt.Ordered[[]string] {
	out := make(receipt.Ordered[[]string], len(codePaths))
	for i, e := range codePaths {
		out[i] = receipt.Entry[[]string]{Name: e.Name, Value: slices.Clone(e.Value)}
	}
	return out
}

// CodeDigests returns the code fingerprint of this build's check-match run
// (identity.code_path_digests): for each logical name of [CodePaths],
// sorted by name, the SHA-256 hex of its source files as embedded in the
// binary. A name with one file digests that file's bytes, as typevet
// digests one Python file; a name with several digests, in path order,
// each file's path, a NUL byte, its bytes and a NUL byte. A run takes the
// digests before its first call.
func CodeDigests() (receipt.Digests, error) {
	return codeDigests(typevet.Sources(), codePaths)
}

func codeDigests(fsys fs.FS, paths []receipt.Entry[[]string]) (receipt.Digests, error) {
	out := make(receipt.Digests, 0, len(paths))
	for _, e := range paths {
		files := slices.Sorted(slices.Values(e.Value))
		h := sha256.New()
		for _, p := range files {
			b, err := fs.ReadFile(fsys, p)
			if err != nil {
				return nil, fmt.Errorf("code digest %s: %w", e.Name, err)
			}
			if len(files) == 1 {
				h.Write(b)
				break
			}
			h.Write([]byte(p))
			h.Write([]byte{0})
			h.Write(b)
			h.Write([]byte{0})
		}
		out = append(out, receipt.Entry[string]{Name: e.Name, Value: hex.EncodeToString(h.Sum(nil))})
	}
	slices.SortFunc(out, func(a, b receipt.Entry[string]) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
