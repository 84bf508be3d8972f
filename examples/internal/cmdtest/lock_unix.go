//go:build unix

package cmdtest

import (
	"os"
	"syscall"
)

// lock takes an exclusive lock on path (made if missing), so two test
// binaries of one checkout never write a command at once; the returned
// function releases it.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil // closing releases the lock
}
