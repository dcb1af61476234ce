//go:build windows

package lockfile

import (
	"errors"
	"syscall"
)

// errorInvalidFunction is ERROR_INVALID_FUNCTION, which LockFileEx returns on
// some network redirectors and virtual filesystems that cannot lock.
const errorInvalidFunction syscall.Errno = 1

// lockUnsupported reports whether err, returned by LockFileEx itself (not by
// opening the file), means the filesystem cannot lock. ERROR_NOT_SUPPORTED is
// already matched through errors.ErrUnsupported.
func lockUnsupported(err error) bool { return errors.Is(err, errorInvalidFunction) }

// isReadOnlyFS reports whether err means the medium is write-protected.
func isReadOnlyFS(err error) bool {
	const errorWriteProtect syscall.Errno = 19 // ERROR_WRITE_PROTECT
	return errors.Is(err, errorWriteProtect) || errors.Is(err, syscall.EROFS)
}
