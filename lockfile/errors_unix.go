//go:build unix

package lockfile

import (
	"errors"
	"syscall"
)

// lockUnsupported reports whether err, returned by flock(2) or fcntl(2)
// itself (not by open), means the filesystem cannot lock: ENOLCK (no lock
// manager, e.g. NFS without lockd), EINVAL and EBADF (flock on some NFS and
// FUSE mounts; gofrs/flock already retried EBADF with a read-write
// descriptor), EIO (the same NFSv4 case after that retry).
func lockUnsupported(err error) bool {
	for _, e := range []syscall.Errno{syscall.ENOLCK, syscall.EINVAL, syscall.EBADF, syscall.EIO} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// isReadOnlyFS reports whether err means the filesystem is mounted read-only.
func isReadOnlyFS(err error) bool { return errors.Is(err, syscall.EROFS) }
