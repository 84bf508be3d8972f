package typevet

import (
	"embed"
	"io/fs"
)

// sources holds the Go source files whose digests a check-match receipt
// pins in identity.code_path_digests (checkmatch.CodePaths lists them by
// logical name). go:embed cannot reach a parent directory, so the module
// root embeds them for the packages below it. Keep this list equal to
// checkmatch.CodePaths: a checkmatch test fails when a listed file is
// missing here or a source file of the digested packages is in neither.
//
//go:embed checkmatch/cases.go checkmatch/draws.go checkmatch/seed.go
//go:embed checkmatch/words.go
//go:embed checkmatch/render.go checkmatch/blur.go checkmatch/pngenc.go checkmatch/signature.go checkmatch/pin.go
//go:embed internal/checkform/font.go internal/checkform/format.go internal/checkform/layout.go
//go:embed checkmatch/request.go checkmatch/slice.go
//go:embed checkmatch/metrics.go checkmatch/outcome.go internal/pymath/pymath.go
//go:embed checkmatch/runner.go checkmatch/run_receipt.go checkmatch/checkreceipt.go checkmatch/codeid.go checkmatch/setup.go checkmatch/retry.go checkmatch/runjournal.go checkmatch/shard.go checkmatch/merge.go
//go:embed pool/pool.go
//go:embed internal/pytext/pytext.go
//go:embed serving/delta.go serving/doc.go serving/entry.go serving/errors.go serving/kv.go serving/metrics.go serving/replicas.go serving/scan.go serving/serverargs.go serving/value.go receipt/throughput.go
var sources embed.FS

// Sources returns the source files of the check-match run, read-only and
// built into the binary, by module-relative path ("checkmatch/runner.go",
// "pool/pool.go", …). checkmatch.CodeDigests hashes them for a receipt's
// code fingerprint, so two builds with different run code never record
// the same digests.
func Sources() fs.FS { return sources }
