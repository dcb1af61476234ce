package lockfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// ErrLocked means another process (or another [Lock] in this process) holds
// the lock. Errors returned by [Acquire] wrap it and name the lock file.
var ErrLocked = errors.New("lock is held by another wpqueue run")

// ErrUnsupported means the filesystem of the lock file does not support file
// locking (flock fails with ENOLCK, EOPNOTSUPP, EINVAL, EBADF or EIO, as on some
// NFS mounts). Errors returned by [Acquire] wrap it, together with the
// system's own error, and name the lock file.
var ErrUnsupported = errors.New("file locking is not supported on this filesystem")

// OpenError reports that the lock file or its parent directory cannot be
// created or opened: permission (for example a file created by a run under
// sudo), a read-only filesystem, or a path component that is not a directory.
// errors.Is(err, fs.ErrPermission) sees through it.
type OpenError struct {
	// Path is the lock file path as given to Acquire.
	Path string
	// Err is the underlying error, usually an *fs.PathError.
	Err error
}

func (e *OpenError) Error() string {
	msg := "cannot open lock file " + e.Path + ": " + e.cause()
	switch {
	case errors.Is(e.Err, fs.ErrPermission):
		msg += " (the file or its directory may belong to another user, for example after a run with sudo:" +
			" give it back with chown, or set lock.path to a file you own)"
	case isReadOnlyFS(e.Err):
		msg += " (read-only filesystem: set lock.path to a writable location)"
	}
	return msg
}

// cause is the underlying error's text without repeating the lock path.
func (e *OpenError) cause() string {
	if e.Err == nil {
		return "unknown error"
	}
	var pe *fs.PathError
	if errors.As(e.Err, &pe) && pe.Path == e.Path {
		return pe.Err.Error()
	}
	return e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *OpenError) Unwrap() error { return e.Err }

// lockedError is what Acquire returns when the lock is held elsewhere.
type lockedError struct {
	path   string
	waited time.Duration
}

func (e *lockedError) Error() string {
	if e.waited > 0 {
		return fmt.Sprintf("lock %s is still held by another wpqueue run after waiting %s", e.path, e.waited)
	}
	return "lock " + e.path + " is held by another wpqueue run"
}

func (e *lockedError) Unwrap() error { return ErrLocked }

// unsupportedError is what Acquire returns when the filesystem cannot lock.
type unsupportedError struct {
	path string
	err  error
}

func (e *unsupportedError) Error() string {
	return fmt.Sprintf("cannot lock %s: file locking is not supported on this filesystem (%v);"+
		" set lock.path to a file on a local disk", e.path, e.err)
}

func (e *unsupportedError) Unwrap() []error { return []error{ErrUnsupported, e.err} }

// pollInterval is how often Acquire retries while it waits.
const pollInterval = 50 * time.Millisecond

// filePerm and dirPerm are the modes of a new lock file and of new parent
// directories (before the umask).
const (
	filePerm fs.FileMode = 0o600
	dirPerm  fs.FileMode = 0o700
)

// Lock is a held lock. Release it when done; the operating system releases
// it anyway when the process exits.
type Lock struct {
	path string

	mu       sync.Mutex
	f        *flock.Flock
	released bool
}

// Acquire takes the exclusive lock on the file at path, creating the file
// (mode 0600) and any missing parent directories (mode 0700) first. It never
// writes to the file and never deletes it.
//
// With wait <= 0 it tries once and returns at once. With wait > 0 it retries
// every 50ms until it gets the lock or wait has elapsed. It never blocks
// beyond wait and ctx.
//
// Errors: one wrapping [ErrLocked] if another process holds the lock (after
// waiting, if wait > 0); an [*OpenError] if the file or its directory cannot
// be created or opened; one wrapping [ErrUnsupported] if the filesystem does
// not support locking; one wrapping ctx.Err() if ctx is already done or ends
// while waiting.
func Acquire(ctx context.Context, path string, wait time.Duration) (*Lock, error) {
	if path == "" {
		return nil, errors.New("lockfile: empty lock file path")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), dirPerm); err != nil {
		return nil, &OpenError{Path: path, Err: err}
	}

	f := flock.New(path, flock.SetPermissions(filePerm))
	ok, err := tryLock(f, path)
	if !ok && err == nil && wait > 0 {
		ok, err = poll(ctx, f, path, wait)
	}
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, &lockedError{path: path, waited: max(wait, 0)}
	}
	return &Lock{path: path, f: f}, nil
}

// poll retries tryLock until it succeeds, fails, wait elapses (false, nil) or
// ctx ends. A last attempt is made when wait has elapsed.
func poll(ctx context.Context, f *flock.Flock, path string, wait time.Duration) (bool, error) {
	deadline := time.Now().Add(wait)
	timer := time.NewTimer(min(pollInterval, wait))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("waiting for lock %s: %w", path, ctx.Err())
		case <-timer.C:
		}
		if ok, err := tryLock(f, path); ok || err != nil {
			return ok, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false, nil
		}
		timer.Reset(min(pollInterval, left))
	}
}

// tryLock makes one non-blocking attempt and classifies its error.
func tryLock(f *flock.Flock, path string) (bool, error) {
	ok, err := f.TryLock()
	if err == nil {
		return ok, nil
	}
	return false, classify(path, err)
}

// classify turns an error from flock's TryLock into one of the package's
// errors. Opening the file fails with an *fs.PathError; flock(2) and
// LockFileEx fail with a bare errno (gofrs/flock does not wrap them).
func classify(path string, err error) error {
	var pe *fs.PathError
	switch {
	case errors.Is(err, errors.ErrUnsupported): // ENOSYS, ENOTSUP, EOPNOTSUPP; flock's stub on other systems
		return &unsupportedError{path: path, err: err}
	case errors.As(err, &pe):
		return &OpenError{Path: path, Err: err}
	case lockUnsupported(err):
		return &unsupportedError{path: path, err: err}
	default:
		return fmt.Errorf("lock %s: %w", path, err)
	}
}

// Path returns the lock file path as given to [Acquire].
func (l *Lock) Path() string { return l.path }

// Release unlocks the file and closes it; the file stays on disk. Only the
// first call does anything, later calls return nil. It is safe to call on a
// nil *Lock and from several goroutines. If unlocking fails, the lock stays
// held until the process exits.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return nil
	}
	l.released = true
	if err := l.f.Unlock(); err != nil {
		return fmt.Errorf("unlock %s: %w", l.path, err)
	}
	return nil
}
