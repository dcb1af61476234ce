//go:build linux

package lockfile

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestOpenErrorAsOtherUser is field case 22 for real: a first run as root
// (sudo) created the lock file 0600, a later run as an ordinary user cannot
// open it. That must be an *OpenError with fs.ErrPermission, not ErrLocked.
// It needs root (to create the file as root and start the child as
// "nobody"), which is how CI runs the tests.
func TestOpenErrorAsOtherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a child as another user; TestAcquireFileNotReadable covers non-root")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("no user nobody: %v", err)
	}
	uid, err1 := strconv.ParseUint(nobody.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(nobody.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		t.Skipf("user nobody has uid %q gid %q", nobody.Uid, nobody.Gid)
	}

	// The child must be able to reach the lock file's directory and run the
	// test binary: open up t.TempDir's parent (ours, 0700 by default) and
	// copy the binary there.
	dir := t.TempDir()
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "lockfile.test")
	copyFile(t, os.Args[0], bin, 0o755)

	// Root creates the lock file, as a run under sudo would, and releases it.
	path := filepath.Join(dir, "site.lock")
	l := mustAcquire(t, path, 0)
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}

	cmd := helperCmd(t, bin, "probe", path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	cmd.Dir = dir
	out, err := cmd.Output()
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		t.Fatalf("helper as nobody failed: %v; output %q", err, out)
	case err != nil: // e.g. a noexec temporary directory
		t.Skipf("cannot run the helper as nobody: %v", err)
	}
	got := strings.TrimSpace(string(out))
	t.Logf("child as nobody: %s", got)
	if !strings.HasPrefix(got, "open-permission:") {
		t.Fatalf("child running as nobody got %q; want an *OpenError with fs.ErrPermission", got)
	}
	for _, want := range []string{path, "chown", "lock.path"} {
		if !strings.Contains(got, want) {
			t.Errorf("message %q lacks %q", got, want)
		}
	}
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
