// Package orderings is typevet's option-order study (typevet #105): does
// the position of an option in the verdict question move the model's
// answer, and is averaging the answers over orderings worth adopting?
//
// [BalancedOrders] gives the study's orderings of the six verdict labels
// (a Williams design: every label once in every position). [Run] asks each
// case of a check-match slice the verdict question alone, once per
// ordering, one call at a time, and pairs each case with its record in a
// single-order check-match receipt of the same slice ([SingleOrderCases]).
// [Statistics] computes the position spread, the averaged and single-order
// accuracies with typevet's bootstrap intervals and the [Decision];
// [BuildReceipt] assembles the study's [Receipt] (issue 105), whose field
// order and json tags are typevet's schema; [ReadReceipt] reads ours and
// typevet's.
//
// A study is journaled as a check-match run is ([JournalHeader], kind
// [JournalKind], with checkmatch.CreateJournal and checkmatch.ResumeJournal,
// which checks every line of a study's journal before the first call), runs
// in shards ([NewShardRecord]) and merges them back ([MergeReceipt]).
// [TakeSnapshot] and [NewReceiptParts] are the study's checkmatch.TakeSnapshot
// and receipt parts. examples/orderings is the command that runs it.
package orderings
