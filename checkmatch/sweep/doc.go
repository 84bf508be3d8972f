// Package sweep is typevet's throughput sweep (typevet #335): the same
// check-match requests judged once per concurrency level against one
// server ([Run]), each level a [checkmatch.Run] with its own journal,
// retry policy and shard, its four-key /metrics delta and one in-flight
// KV read. A resumed sweep skips the levels an earlier part finished
// ([Options].Finished), and [Options].LevelDone lets the caller write each
// level's check-match receipt (typevet's schema) as it ends.
// [NewSummary] builds the sweep's own summary document
// ([SummarySchema], version 1): per level its throughput and whether its
// answers drifted from the first level's. examples/throughput is the
// command over it.
package sweep
