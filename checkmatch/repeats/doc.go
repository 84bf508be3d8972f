// Package repeats is typevet's repeat-run study (typevet #357): several
// check-match receipts of one slice, read with [ReadRuns], summarized by
// [Summary] into a [Report] that says whether the runs are stable (the
// accuracy range and every ECE range below [StabilityRangeLimit]), with
// the per-metric [Spread] of the included runs, their case agreement and
// the pooled accuracy interval ([AccuracyInterval]). Runs
// of another slice or another code are excluded and named, never averaged.
// examples/repeats is the command over it.
package repeats
