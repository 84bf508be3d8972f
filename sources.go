package typevet

import (
	"embed"
	"io/fs"
)

// sources holds the Go source files of the packages a check-match run or
// an option-order study executes, whose digests a receipt pins in
// identity.code_path_digests. go:embed cannot reach a parent directory, so
// the module root embeds them for the packages below it, by directory
// glob: a new file is embedded without editing this list. Which file is
// digested under which logical name is the one list in
// checkmatch/codeid.go (its codeFiles). The globs also embed the
// directories' test files, which no digest reads.
//
//go:embed checkmatch/*.go checkmatch/orderings/*.go checkmatch/internal/resample/*.go checkmatch/internal/lines/*.go internal/checkform/*.go internal/pymath/*.go internal/pytext/*.go internal/serverblock/*.go
//go:embed evalrun/*.go pool/*.go serving/*.go receipt/throughput.go receipt/withhold.go judgment/stopclass.go
var sources embed.FS

// Sources returns the source files of the check-match run and the
// option-order study, read-only and built into the binary, by
// module-relative path ("checkmatch/runner.go", "pool/pool.go", …).
// checkmatch.CodeDigests hashes them for a receipt's
// code fingerprint, so two builds with different run code never record
// the same digests.
func Sources() fs.FS { return sources }
