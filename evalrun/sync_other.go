//go:build !linux

package evalrun

import "os"

// datasync flushes f with fsync.
func datasync(f *os.File) error { return f.Sync() }
