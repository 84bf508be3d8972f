// Package receipt holds the building blocks every typevet-go run's receipt
// shares: the experiment identity, the throughput block, the pins helpers
// and the writer. A run composes its own receipt struct from them (the
// check-match receipt lives in package checkmatch); the field order and
// json tags of these structs are the receipt schema, key for key and in
// order with typevet's Python receipts, which typevet's tools read and
// which these types read back. docs/receipt.md in the module's repository
// lists every key of the receipts with its meaning.
//
// # Experiment identity
//
// [Identity] is the receipt's identity block:
// a fresh [NewRunID], the [BaselineCommit] read from .git without running
// git, the [WorkingTree] derived from `git status --porcelain` text
// ([WorkingTreeFromPorcelain]), the [PromptDigest] of each question, the
// [CodeDigests] of the run's own embedded source files, the [Runtime] and
// the call counts. [IdentityDigest] hashes all of it but the run id, so
// two receipts with equal digests ran the same experiment. Digests are
// taken over Python-compatible canonical JSON and reproduce typevet's
// values byte for byte:
//
//	q := judgment.Noul{
//		Instructions: "Is the sky blue?",
//		Criteria:     judgment.NoulCriteria{True: "It is blue.", False: "It is not blue."},
//	}
//	receipt.PromptDigest("small", q)
//	// e1b0435bffdd600b38d03894eb9a1738bb43e5e692f4c325d4717eac5af9c19b
//
// # Throughput
//
// [Throughput] is the throughput block: kept judgments, images,
// rates over the unrounded wall time (null when it is not positive) and
// the nearest-rank latency percentiles of [NearestRank]. [Round] is
// Python's round, used for every rounded receipt number.
//
// # Writing
//
// [Write] serializes a receipt as json.dumps(receipt, indent=2) + "\n"
// ([Marshal]), refuses text that holds a configured secret, "authorization"
// or "bearer " ([CheckKeyFree], a [NotKeyFreeError]) before touching the
// disk, creates the parent directories and creates the file exclusively
// (an [AlreadyExistsError]; nothing is ever overwritten). It returns the
// SHA-256 of the bytes written. Runs call [CheckNew] before any network
// call, so a taken path fails the run before it costs anything.
//
// # Reading
//
// Every block decodes from typevet's receipts with encoding/json. Ordered
// mappings ([Ordered], [Digests], [Counts]) keep the key order of the file.
// [Marshal] writes floats as Python does (252.0, 1e-07), so a block read
// from a typevet receipt and written again is byte for byte the block
// Python wrote.
package receipt
