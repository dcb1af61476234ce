package lockfile

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// holdLock takes the lock at path with a separate flock.Flock, as another
// holder would, and releases it at the end of the test.
func holdLock(t testing.TB, path string) *flock.Flock {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	f := flock.New(path)
	ok, err := f.TryLock()
	if err != nil || !ok {
		t.Fatalf("holder TryLock(%s) = %v, %v; want true, nil", path, ok, err)
	}
	t.Cleanup(func() { _ = f.Unlock() })
	return f
}

func mustAcquire(t *testing.T, path string, wait time.Duration) *Lock {
	t.Helper()
	l, err := Acquire(context.Background(), path, wait)
	if err != nil {
		t.Fatalf("Acquire(%s, %v): %v", path, wait, err)
	}
	t.Cleanup(func() { _ = l.Release() })
	return l
}

func assertLocked(t *testing.T, err error, path string) {
	t.Helper()
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v; want ErrLocked", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the lock file %s", err, path)
	}
	var oe *OpenError
	if errors.As(err, &oe) || errors.Is(err, ErrUnsupported) {
		t.Errorf("ErrLocked error %v also matches OpenError or ErrUnsupported", err)
	}
}

func TestAcquireReleaseCreatesFileAndDirs(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "state", "wpqueue", "locks", "site.lock")

	l := mustAcquire(t, path, 0)
	if l.Path() != path {
		t.Errorf("Path() = %q; want %q", l.Path(), path)
	}
	if err := l.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatalf("second Release: %v", err)
	}

	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("lock file gone after Release: %v", err)
	}
	if fi.Size() != 0 {
		t.Errorf("lock file has %d bytes; want nothing written to it", fi.Size())
	}
	if runtime.GOOS == "windows" {
		return // modes are not Unix modes
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("lock file mode = %o; want 600", got)
	}
	for _, d := range []string{"state", "state/wpqueue", "state/wpqueue/locks"} {
		di, err := os.Stat(filepath.Join(root, d))
		if err != nil {
			t.Fatal(err)
		}
		if got := di.Mode().Perm(); got != 0o700 {
			t.Errorf("dir %s mode = %o; want 700", d, got)
		}
	}
}

func TestAcquireKeepsExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "site.lock")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	l := mustAcquire(t, path, 0)
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatalf("lock file gone: %v", err)
	}
	if !os.SameFile(before, after) {
		t.Error("lock file was replaced; Acquire/Release must keep the same file")
	}
}

func TestReleaseNil(t *testing.T) {
	var l *Lock
	if err := l.Release(); err != nil {
		t.Fatalf("nil Release: %v", err)
	}
}

func TestAcquireContended(t *testing.T) {
	path := filepath.Join(t.TempDir(), "site.lock")
	holder := holdLock(t, path)

	_, err := Acquire(context.Background(), path, 0)
	assertLocked(t, err, path)

	if err := holder.Unlock(); err != nil {
		t.Fatal(err)
	}
	l := mustAcquire(t, path, 0)

	// Now we hold it: a separate holder must fail.
	other := flock.New(path)
	if ok, err := other.TryLock(); ok || err != nil {
		t.Fatalf("other TryLock while Acquire holds = %v, %v; want false, nil", ok, err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if ok, err := other.TryLock(); !ok || err != nil {
		t.Fatalf("other TryLock after Release = %v, %v; want true, nil", ok, err)
	}
	_ = other.Unlock()
}

// Field case 23: two Acquire calls in one process must exclude each other,
// since each opens its own file.
func TestAcquireTwiceInProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "site.lock")
	mustAcquire(t, path, 0)
	_, err := Acquire(context.Background(), path, 0)
	assertLocked(t, err, path)
}

func TestAcquireWaitSucceedsWhenHolderReleases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "site.lock")
	holder := holdLock(t, path)

	// Closed just before the unlock: Acquire must not return before it.
	released := make(chan struct{})
	go func() {
		time.Sleep(150 * time.Millisecond)
		close(released)
		_ = holder.Unlock()
	}()

	l, err := Acquire(context.Background(), path, 10*time.Second)
	if err != nil {
		t.Fatalf("Acquire with wait: %v", err)
	}
	defer l.Release()
	select {
	case <-released:
	default:
		t.Fatal("Acquire returned before the holder released")
	}
}

func TestAcquireWaitTimesOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "site.lock")
	holdLock(t, path)

	const wait = 120 * time.Millisecond
	start := time.Now()
	_, err := Acquire(context.Background(), path, wait)
	elapsed := time.Since(start)
	assertLocked(t, err, path)
	if elapsed < wait {
		t.Errorf("gave up after %v; want at least the wait %v", elapsed, wait)
	}
	if elapsed > wait+5*time.Second {
		t.Errorf("gave up after %v; want about %v", elapsed, wait)
	}
}

func TestAcquireContextCancelledWhileWaiting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "site.lock")
	holdLock(t, path)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := Acquire(ctx, path, time.Minute)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
	if errors.Is(err, ErrLocked) {
		t.Errorf("cancellation %v must not look like ErrLocked", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the lock file", err)
	}
}

func TestAcquireParentDeadlineIsNotErrLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "site.lock")
	holdLock(t, path)

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := Acquire(ctx, path, time.Minute)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v; want context.DeadlineExceeded, not ErrLocked", err)
	}
}

func TestAcquireContextAlreadyCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "site.lock")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, wait := range []time.Duration{0, time.Second} {
		if _, err := Acquire(ctx, path, wait); !errors.Is(err, context.Canceled) {
			t.Errorf("wait %v: err = %v; want context.Canceled", wait, err)
		}
	}
}

func TestAcquireEmptyPath(t *testing.T) {
	if _, err := Acquire(context.Background(), "", 0); err == nil {
		t.Fatal("Acquire(\"\") succeeded")
	}
}

// Works as root too: a path component that is a regular file makes MkdirAll
// fail, whoever runs the test.
func TestAcquireParentIsFile(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "not-a-dir")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(file, "locks", "site.lock")

	_, err := Acquire(context.Background(), path, time.Second)
	var oe *OpenError
	if !errors.As(err, &oe) {
		t.Fatalf("err = %v (%T); want *OpenError", err, err)
	}
	if oe.Path != path {
		t.Errorf("OpenError.Path = %q; want %q", oe.Path, path)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), file) {
		t.Errorf("message %q should name the lock file and the failing component %s", err, file)
	}
	if errors.Is(err, ErrLocked) || errors.Is(err, ErrUnsupported) {
		t.Errorf("OpenError %v also matches ErrLocked or ErrUnsupported", err)
	}
}

// The lock path itself is a directory: opening it fails.
func TestAcquirePathIsDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "site.lock")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Acquire(context.Background(), path, 0)
	var oe *OpenError
	if !errors.As(err, &oe) || oe.Path != path {
		t.Fatalf("err = %v (%T); want *OpenError for %s", err, err, path)
	}
}

func skipIfPermissionsBypassed(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Unix permission bits")
	}
	if os.Geteuid() == 0 {
		t.Skip("root bypasses permission checks; TestOpenErrorAsOtherUser covers this as root")
	}
}

func TestAcquireFileNotReadable(t *testing.T) {
	skipIfPermissionsBypassed(t)
	path := filepath.Join(t.TempDir(), "site.lock")
	if err := os.WriteFile(path, nil, 0o000); err != nil {
		t.Fatal(err)
	}
	_, err := Acquire(context.Background(), path, 0)
	assertPermission(t, err, path)
}

func TestAcquireDirNotWritable(t *testing.T) {
	skipIfPermissionsBypassed(t)
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	for _, path := range []string{
		filepath.Join(dir, "site.lock"),          // cannot create the file
		filepath.Join(dir, "locks", "site.lock"), // cannot create the directory
	} {
		_, err := Acquire(context.Background(), path, 0)
		assertPermission(t, err, path)
	}
}

func assertPermission(t *testing.T, err error, path string) {
	t.Helper()
	var oe *OpenError
	if !errors.As(err, &oe) {
		t.Fatalf("err = %v (%T); want *OpenError", err, err)
	}
	if oe.Path != path {
		t.Errorf("OpenError.Path = %q; want %q", oe.Path, path)
	}
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("errors.Is(%v, fs.ErrPermission) = false", err)
	}
	if errors.Is(err, ErrLocked) {
		t.Errorf("permission error %v matches ErrLocked", err)
	}
	msg := err.Error()
	for _, want := range []string{path, "permission denied", "chown", "lock.path"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

func TestOpenErrorMessage(t *testing.T) {
	const path = "/var/lib/x/site.lock"
	tests := []struct {
		name     string
		err      error
		want     []string
		dontWant []string
	}{
		{
			name: "permission",
			err:  &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES},
			want: []string{"cannot open lock file " + path + ": ", "chown", "lock.path", "sudo"},
			// the path is named once, not repeated by the inner PathError
			dontWant: []string{"open " + path},
		},
		{
			name: "mkdir",
			err:  &fs.PathError{Op: "mkdir", Path: "/var/lib/x", Err: syscall.ENOTDIR},
			want: []string{path, "mkdir /var/lib/x"},
		},
		{
			name: "nil",
			err:  nil,
			want: []string{path, "unknown error"},
		},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests, struct {
			name     string
			err      error
			want     []string
			dontWant []string
		}{
			name: "read-only",
			err:  &fs.PathError{Op: "open", Path: path, Err: syscall.EROFS},
			want: []string{path, "read-only", "lock.path"},
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &OpenError{Path: path, Err: tt.err}
			msg := e.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q lacks %q", msg, w)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(msg, w) {
					t.Errorf("%q contains %q", msg, w)
				}
			}
		})
	}
	e := &OpenError{Path: path, Err: &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES}}
	if !errors.Is(e, fs.ErrPermission) {
		t.Error("errors.Is(OpenError(EACCES), fs.ErrPermission) = false")
	}
}

func TestClassify(t *testing.T) {
	const path = "/nfs/home/me/.local/state/wpqueue/locks/site.lock"
	type kind int
	const (
		open kind = iota
		unsupported
		other
	)
	tests := []struct {
		name string
		err  error
		want kind
	}{
		{"open EACCES", &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission}, open},
		{"flock stub on other systems", &fs.PathError{Op: "Lock", Path: path, Err: errors.ErrUnsupported}, unsupported},
		{"plain ErrUnsupported", errors.ErrUnsupported, unsupported},
		{"something else", errors.New("boom"), other},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests, []struct {
			name string
			err  error
			want kind
		}{
			{"ENOLCK", syscall.ENOLCK, unsupported},
			{"EOPNOTSUPP", syscall.EOPNOTSUPP, unsupported},
			{"ENOTSUP", syscall.ENOTSUP, unsupported},
			{"EINVAL", syscall.EINVAL, unsupported},
			{"EBADF", syscall.EBADF, unsupported},
			{"EINTR", syscall.EINTR, other},
			{"open EINVAL is an open error", &fs.PathError{Op: "open", Path: path, Err: syscall.EINVAL}, open},
		}...)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := classify(path, tt.err)
			var oe *OpenError
			isOpen := errors.As(err, &oe)
			isUnsup := errors.Is(err, ErrUnsupported)
			switch tt.want {
			case open:
				if !isOpen || isUnsup {
					t.Fatalf("classify(%v) = %v; want *OpenError", tt.err, err)
				}
			case unsupported:
				if isOpen || !isUnsup {
					t.Fatalf("classify(%v) = %v; want ErrUnsupported", tt.err, err)
				}
				msg := err.Error()
				for _, w := range []string{path, "not supported", "lock.path", "local disk"} {
					if !strings.Contains(msg, w) {
						t.Errorf("message %q lacks %q", msg, w)
					}
				}
				if tt.err != nil && !errors.Is(err, tt.err) {
					t.Errorf("errors.Is(%v, %v) = false; the system error should stay visible", err, tt.err)
				}
			case other:
				if isOpen || isUnsup || errors.Is(err, ErrLocked) {
					t.Fatalf("classify(%v) = %v; want a plain error", tt.err, err)
				}
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("message %q does not name the path", err)
			}
		})
	}
}

// BenchmarkAcquireContended measures a loser's attempt (wait 0) while another
// holder has the lock. BenchmarkAcquireRelease measures an uncontended
// acquire and release. Run them with:
//
//	go test -run '^$' -bench . -benchmem ./lockfile/
func BenchmarkAcquireContended(b *testing.B) {
	path := filepath.Join(b.TempDir(), "site.lock")
	holdLock(b, path)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Acquire(ctx, path, 0); !errors.Is(err, ErrLocked) {
			b.Fatalf("err = %v; want ErrLocked", err)
		}
	}
}

func BenchmarkAcquireRelease(b *testing.B) {
	path := filepath.Join(b.TempDir(), "site.lock")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		l, err := Acquire(ctx, path, 0)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(); err != nil {
			b.Fatal(err)
		}
	}
}
