package evalrun

import (
	"os"
	"syscall"
)

// datasync flushes f's data (and the metadata needed to read it back,
// such as its length) with fdatasync, cheaper than a full fsync.
func datasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
