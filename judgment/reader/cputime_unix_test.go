//go:build unix

package reader_test

import (
	"syscall"
	"time"
)

// processCPU returns the user+system CPU time of the process so far; the
// benchmarks report it per op ("cpu-ns/op"), which stays meaningful on a
// loaded machine where wall time does not.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
