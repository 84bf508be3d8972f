package checkmatch

import "github.com/typevet/typevet-go/evalrun"

// RetryPolicy is opt-in retry for a judgment that failed on the way: the
// policy of package evalrun ([evalrun.RetryPolicy]), which [Run] and the
// option-order study follow. The zero value never retries: typevet's
// stop-at-first-failure rule.
type RetryPolicy = evalrun.RetryPolicy
