//go:build !unix && !windows

package lockfile

// lockUnsupported reports whether err means the filesystem cannot lock. On
// these systems gofrs/flock always fails with errors.ErrUnsupported, which
// classify matches before calling this.
func lockUnsupported(error) bool { return false }

// isReadOnlyFS reports whether err means the filesystem is read-only.
func isReadOnlyFS(error) bool { return false }
