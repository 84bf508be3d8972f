package view

// This file is the viewer's seam to package checkmatch/stats (#14): the
// intervals of the headline rates and the paired comparison come from
// there, never from copies of those statistics here.
//
// TODO(#14): until checkmatch/stats lands, rates are shown without
// intervals and the comparison page shows the flips without a test.

// interval is a two-sided interval of a rate, with how it was made.
type interval struct {
	Lo, Hi float64
	// Method names the interval, e.g. "Wilson 95%".
	Method string
}

// proportion returns the interval of k successes in n trials, or nil when
// none is available (n is 0, or no statistics package yet).
func proportion(k, n int) *interval {
	return nil
}

// pairedTest is the paired test of two receipts' correctness over the
// same cases.
type pairedTest struct {
	// Text is the test's result in words, e.g. "McNemar exact p = 0.031".
	Text string
}

// paired returns the paired test of b discordant cases right only in the
// first receipt and c right only in the second, or nil when none is
// available.
func paired(b, c int) *pairedTest {
	return nil
}

// intervalsNote says where the intervals come from, for the pages.
const intervalsNote = "Intervals arrive with package checkmatch/stats (#14); this build shows the rates without them."
