// Package lockfile keeps two local wpqueue runs from working on the same site
// at the same time, with one OS file lock (github.com/gofrs/flock) per site.
//
// [Acquire] takes the lock: with no wait it tries once; with a wait it polls
// until the wait elapses or the context ends. It never blocks without a bound.
// [Lock.Release] unlocks and closes the file. The operating system drops the
// lock by itself when the process dies, so a crashed run leaves no stale lock.
//
// The lock file is only a lock:
//
//   - It is never deleted, neither on release nor to "clean up". A process
//     that still holds the lock on a deleted file and a process that locks a
//     freshly created file of the same name would both believe they hold the
//     lock. Users must not delete lock files either.
//   - Nothing is ever written to it. Windows locks are mandatory, so other
//     processes could not read data stored in a locked file anyway.
//
// The lock excludes runs on this machine only: a run on another machine is
// invisible to it. It is held per open file, so two calls to [Acquire] for
// one path exclude each other even inside one process.
//
// [PathFor] gives the default lock file of a site, under the per-user state
// directory [DefaultDir]; [IsUnderTemp] tells whether a configured path lies
// in a temporary directory, where cleaners may delete the file and systemd's
// PrivateTmp= gives a service its own copy (the CLI warns).
//
// Errors are distinct so the CLI can map them to exit codes:
//
//   - [ErrLocked]: another process holds the lock.
//   - [*OpenError]: the file or its directory cannot be created or opened
//     (permission, read-only filesystem, a path component that is a file).
//   - [ErrUnsupported]: the filesystem does not support locking (some NFS or
//     network home directories).
//   - context.Canceled or context.DeadlineExceeded (wrapped): the context
//     ended while waiting.
package lockfile
