//go:build !unix

package checkmatch

import "time"

// processCPU is unavailable here; benchmarks then report no CPU metric.
func processCPU() time.Duration { return 0 }
