//go:build !linux

package journal

import "os"

// datasync flushes f with fsync.
func datasync(f *os.File) error { return f.Sync() }
