// Package stats puts error bars on check-match receipts and compares two
// receipts of one slice case by case. It never changes a receipt: every
// result is its own JSON document with a "schema" key and a version, so
// typevet's tools keep reading our receipts and a reader of these documents
// can tell them apart.
//
// # One receipt: intervals
//
// [ReceiptIntervals] returns an [Intervals] document (schema
// [IntervalsSchema]): Wilson score intervals ([Wilson]) for accuracy,
// false-clear rate and cannot-tell rate, overall, per variant and per
// accepted class; percentile bootstrap intervals for each Noul's ROC-AUC
// and ECE; and each Noul's Brier score and log loss.
//
// # Two receipts: a paired comparison
//
// [Compare] returns a [Comparison] document (schema [ComparisonSchema]) for
// two receipts of the same slice (same pins.slice_sha256 and renderer pin;
// otherwise a *[SliceError]): the identity fields that differ, the exact
// two-sided McNemar test on verdict correctness ([McNemarExact]), paired
// bootstrap intervals for the differences (B − A) in accuracy, false-clear
// rate and each Noul's ECE and ROC-AUC, the flips per variant and the list
// of discordant cases.
//
// # The bootstrap
//
// Every bootstrap draws with typevet's SHA-256 resampling
// (resample_indices): seed [DefaultSeed] (0) and
// [DefaultResamples] (10,000) resamples unless [Options] say otherwise, the
// interval being typevet's percentile_interval of the resampled values at
// level 0.95 (ranks 250 and 9,749). Those are the choices of typevet's
// repeat-run study (#357): the same draws, so the same intervals, in Go and
// in Python, and no random state anywhere, so the same receipt always gives
// the same bytes. A resample on which a statistic is undefined (a ROC-AUC
// without positives) is left out of that statistic's interval and counted
// in its "defined" field. With [ClusterRegisterRow] the bootstrap draws
// whole register rows (the "rNN" prefix of the case id, [RegisterRow]):
// the seven variants of one row share a payee, amount and date, so their
// answers are not independent.
//
// Wilson intervals take the normal quantile from gonum's
// distuv.UnitNormal.Quantile; the McNemar p-value is the binomial tail of
// gonum's distuv.Binomial.
//
// # Documents
//
// [Marshal] writes a document as indent-2 JSON, as receipts are written;
// [ReadIntervals] and [ReadComparison] read one back and refuse another
// schema or a newer version. The godoc of each document type is its schema,
// field by field.
package stats
