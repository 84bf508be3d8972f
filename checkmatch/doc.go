// Package checkmatch builds and scores typevet's synthetic check-match slice:
// generated paper checks judged against a synthetic check register row.
//
// # Generator
//
// [Cases] returns the seeded slice: for each register row ([RegisterRows]),
// seven cases, one per [Variant] in enum order ([Variants]). Every value is
// drawn from SHA-256 streams keyed by the seed, so one seed gives one slice,
// equal case for case to typevet's check_cases (same rows, payees, dates,
// amounts, routing numbers, signature seeds, variants and blur radii). The
// default slice is seed [DefaultSeed] with [RowCount] rows: 140 cases.
//
//	cases, err := checkmatch.Cases(0, checkmatch.RowCount)
//	fmt.Println(cases[0].ID(), cases[0].Row.Text())
//
// prints
//
//	r00:clean check number 1001; date 2025-04-21; payee Lanternfield Electric; amount $1,188.15
//
// [ExpectedLabels] gives the labels a judge's answers are scored against.
//
// Every check is non-negotiable by construction: the routing number fails the
// ABA check digit, the account number is all zeros, a SPECIMEN
// mark crosses the face, a VOID mark crosses the signature line on every
// render, the bank name says the bank is not real, and signatures are seeded
// synthetic strokes.
//
// # Renders and contact sheets
//
// [Render] draws one case as a 1000×440 RGB PNG with the layout of typevet's
// renderer (the check stock geometry lives in package internal/checkform);
// [RenderImage] returns the pixels. Renders are byte-identical for one case
// within one build of this module, but never equal to Python's Pillow
// renders; [RendererPin] says what a receipt records about the renderer.
// [WriteContactSheet] writes a grid of renders with their expected labels,
// which is what examples/checksheets writes for each register row.
//
// # Requests and runs
//
// Each case is one judgment: the state holds the register row as text
// ([State]), the media one check image, and [Questions] the four typed
// questions with typevet's exact wording (payee_matches and amounts_match
// are Nouls, verdict a Choice over [VerdictLabels], legibility a Score of
// five levels). [BuildSlice] renders every case once and pins the slice
// ([Slice.Pins], slice_sha256). [Run] judges the requests in slice order
// through any [judgment.Port] at a chosen concurrency ([RunOptions]): a
// backend failure or a cancelled context stops the run, every earlier
// outcome is kept, and [RunResult.Stopped] says what happened.
//
// # Composing a run
//
// A run is composed from an open backend session
// ([github.com/typevet/typevet-go/judgment/backend.Open]) in the same few
// calls in every example command and in a user's own tool
// ([ExampleNewRunContext]): [TakeSnapshot] before the first call,
// [NewRunContext] from the session (backend, model, server entry read
// now, secrets; a vLLM model GET /v1/models does not list is an
// [*UnservedModelError]), [Run] with [MetricsReader] as the /metrics
// reader, and [BuildReceipt] with [RunContext.ReceiptParts].
// [PlannedRunContext] is the context known before the session opens, for
// [PreviewReceipt]'s key check before any request.
//
// # Journals, resume and retry
//
// A run loses nothing that finished. With [RunOptions].Journal, [Run]
// appends every finished case to a journal (package
// [github.com/typevet/typevet-go/checkmatch/journal]: JSON Lines beside
// the receipt, "<receipt>.journal.jsonl") and syncs it before the case
// counts as done, also the cases after a failure that the receipt's
// slice-order rule drops. The journal's first line is the run identity
// ([ShardJournalHeader]: seed, rows, slice digest, renderer, backend, model,
// server entry, revision, prompt and code digests, concurrency, identity
// digest); each further line is one finished case at full precision with
// its attempt count. [CreateJournal] starts one; [ResumeJournal] reads
// one back (a torn last line, left by a killed process, is cut off and
// reported), refuses a run that is not the same experiment by naming the
// first pin that differs ([journal.MismatchError]), and [Run] then judges
// only the cases the journal lacks. The resumed run's receipt is the one
// an uninterrupted run would write: its cases in slice order, metrics over
// all of them, stopped null when all ran.
//
// A study journals the same way, in a journal of its own kind: the
// option-order study (package checkmatch/orderings: orderings.Run with
// [RunOptions].Journal, header orderings.JournalHeader) writes one line per
// fully scored case with [Journal.Record], every ordering's answer
// unrounded and its single-order answer, from which the receipt's case
// record is rebuilt. [ResumeJournal] reads either kind: it checks every
// line's index, case id and render digest against the slice, a
// check-match line's answers too, and keeps a study's lines for the study
// ([Journal.Line]), which checks their answers before its first call.
// [Run] refuses a journal of another [Journal.Kind], and so does the
// study.
//
// Wall time of a resumed run is the sum of its parts: each earlier part
// counts from its start to its last finished case (a killed part writes
// nothing at its end), plus the resumed part's own wall time. The
// throughput block keeps typevet's keys: judgments and the per-second
// rates are over every case and that summed wall time, the latencies are
// each case's own call, and the server block (vLLM /metrics) is the delta
// over the last part only.
//
// [RunOptions].Retry is opt-in retry ([RetryPolicy]; the zero value never
// retries, typevet's rule): a transport error or HTTP 429, 502, 503 or 504
// is retried with capped exponential back-off that honours Retry-After
// up to the cap ([RetryPolicy.Delay]); a 4xx that says the
// request is wrong, an answer that breaks the contract and a cancelled
// run are never retried. Stopped names the last attempt's failure; a
// Ctrl-C that lands mid-call is class "Canceled" ([judgment.StopClass]), not a
// TransportError. [PreviewReceipt] is the receipt a run would write with
// placeholder answers, for checking keys before the first request.
//
// # Shards and merge
//
// A run can be split into [Shard]s that any job runner starts: shard i of
// n judges the cases [Shard.Has] assigns it (the first 8 bytes of SHA-256 of
// the case id, big-endian, mod n), with [RunOptions].Shard set and a
// journal whose header ([ShardJournalHeader]) pins the shard. A finished
// shard writes a [ShardRecord] (its own schema, never a receipt).
// [MergeReceipt] checks that the shards are one
// experiment and one whole set and builds the receipt a single process
// would have written; its godoc says how wall time, throughput and the
// server block merge. Option-order shards (orderings.JournalHeader with a
// Shard, orderings.NewShardRecord: a record whose OrderingsPins carry the
// study's pins, sealed by [ShardRecord.Seal]) merge with
// orderings.MergeReceipt.
// docs/scale-out.md shows the shapes it serves.
//
// # Metrics and receipts
//
// A receipt's metrics ([BuildReceipt], [Receipt.Recompute]) are typevet's
// check metrics over its case records
// ([CaseRecord]): accuracy overall, by class and by variant, the
// false-clear rate, the cannot-tell rate, each Noul's ROC-AUC, ECE and
// reliability bins, legibility by variant and Noul–Choice agreement. Its
// floats are summed the way Python 3.12 sums them, so the values equal typevet's bit
// for bit. [BuildReceipt] assembles the check [Receipt] (issue 316) whose
// field order and json tags are the receipt schema; [ReadReceipt] reads
// ours and typevet's, and [Receipt.Recompute] recomputes a receipt's metrics from
// its cases. [TakeSnapshot] takes the code fingerprint a receipt pins. Every
// key of the check-match and option-order receipts, with its meaning, is
// listed on one page: docs/receipt.md in the module's repository.
//
// # Studies
//
// Three runs build on the check-match run. The option-order study (typevet
// #105: package checkmatch/orderings, orderings.BalancedOrders,
// orderings.Run, orderings.Statistics, orderings.BuildReceipt) scores the
// verdict once per balanced ordering of its options and asks whether
// averaging over orderings is worth adopting. It is built from this
// package's exported API as a user's own study would be: [Request]s of a
// [Slice], [RetryPolicy.Judge] for each call, a [Journal] for resume, a
// [Snapshot] of its own questions and code ([Snapshot.Study]) and
// [ShardRecord]s for its shards. The repeat summary (#357:
// package checkmatch/repeats) applies the pre-registered stability
// statistics to several receipts of one slice. The throughput sweep (#335:
// package checkmatch/sweep) runs the slice at several concurrency levels
// against one server; each level is a check-match run with its own journal,
// retry policy and shard (its Options.Journal, Retry, Shard), a resumed
// sweep skips the levels an earlier part finished (Options.Finished), and
// Options.LevelDone lets the caller write each level's receipt as it ends.
package checkmatch
