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
// These are typevet's balanced_orders, run_orderings, single_order_cases
// and orderings_statistics (its intervals from resample_indices and
// percentile_interval), with typevet's decision_label: a spread within
// [PositionSpreadLimit] is [DecisionDoNotAdopt].
//
// The package is built from checkmatch's exported API, as a user's own
// study would be: it asks each call with checkmatch.RetryPolicy.Judge,
// names a failure with judgment.StopClass and withholds a message holding
// a key with receipt.Withhold, as checkmatch.Run does. A study is journaled
// as a check-match run is ([JournalHeader], kind [JournalKind], with
// checkmatch.CreateJournal and checkmatch.ResumeJournal, which checks each
// line's index, case id and render digest; [Run] decodes the lines an
// earlier part finished, checkmatch.Journal.Line, and checks their answers
// before its first call, and appends its own with
// checkmatch.Journal.Record). It runs in shards ([NewShardRecord], sealed
// with checkmatch.ShardRecord.Seal) and merges them back ([MergeReceipt],
// with the refusals of checkmatch.MergeReceipt). [TakeSnapshot] is
// checkmatch.TakeSnapshot narrowed to the study by checkmatch.Snapshot.Study,
// and [NewReceiptParts] the study's receipt parts from a
// checkmatch.RunContext. examples/orderings is the command that runs it,
// examples/merge the one that merges its shards.
package orderings
