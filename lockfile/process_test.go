package lockfile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Environment of the helper process (the test binary re-executed).
const (
	helperModeEnv = "WPQUEUE_LOCKFILE_HELPER" // "hold" or "probe"
	helperPathEnv = "WPQUEUE_LOCKFILE_PATH"
)

// TestHelperProcess is not a test: it is the child process of the
// cross-process tests. In mode "hold" it takes the lock, prints "locked" and
// keeps the lock until its stdin closes. In mode "probe" it tries the lock
// once and prints what happened ("ok", "locked", "open-permission",
// "open: ...", "unsupported: ...", "error: ...").
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperModeEnv)
	if mode == "" {
		t.Skip("helper process for the cross-process tests")
	}
	path := os.Getenv(helperPathEnv)
	l, err := Acquire(context.Background(), path, 0)
	switch mode {
	case "hold":
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		_, _ = io.Copy(io.Discard, os.Stdin)
		_ = l.Release()
	case "probe":
		var oe *OpenError
		switch {
		case err == nil:
			fmt.Println("ok")
			_ = l.Release()
		case errors.Is(err, ErrLocked):
			fmt.Println("locked")
		case errors.As(err, &oe) && errors.Is(err, fs.ErrPermission):
			fmt.Println("open-permission:", err)
		case errors.As(err, &oe):
			fmt.Println("open:", err)
		case errors.Is(err, ErrUnsupported):
			fmt.Println("unsupported:", err)
		default:
			fmt.Println("error:", err)
		}
	}
	os.Exit(0)
}

// helperCmd returns a command that runs the test binary as a helper process.
func helperCmd(t *testing.T, bin, mode, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperModeEnv+"="+mode, helperPathEnv+"="+path)
	cmd.Stderr = os.Stderr
	return cmd
}

// child is a helper process that holds the lock.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{} // closed once the child has been reaped
}

// startHolder starts a child that takes the lock at path and returns once
// the child reports it holds it.
func startHolder(t *testing.T, path string) *child {
	t.Helper()
	cmd := helperCmd(t, os.Args[0], "hold", path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin, exited: make(chan struct{})}

	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(s)
		_, _ = io.Copy(io.Discard, stdout) // Wait closes stdout; drain until then
		_ = cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // our own child; harmless if it has exited
		<-c.exited
	})

	select {
	case s := <-line:
		if s != "locked" {
			t.Fatalf("helper said %q; want \"locked\"", s)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("helper did not report the lock within 30s")
	}
	return c
}

func TestCrossProcessExclusion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locks", "site.lock")
	c := startHolder(t, path)

	// While the child holds the lock, this process cannot take it, with or
	// without waiting.
	_, err := Acquire(context.Background(), path, 0)
	assertLocked(t, err, path)
	_, err = Acquire(context.Background(), path, 100*time.Millisecond)
	assertLocked(t, err, path)

	// Kill the child (SIGKILL on Unix): it cannot release anything itself,
	// the OS drops its lock.
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-c.exited

	l := mustAcquire(t, path, 5*time.Second)
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("lock file gone: %v", err)
	}
}

// A run waiting with wait > 0 gets the lock as soon as the other process
// ends, here by closing its stdin (a normal exit).
func TestCrossProcessWaitForRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "site.lock")
	c := startHolder(t, path)

	time.AfterFunc(150*time.Millisecond, func() { _ = c.stdin.Close() })
	l, err := Acquire(context.Background(), path, 30*time.Second)
	if err != nil {
		t.Fatalf("Acquire while the child exits: %v", err)
	}
	defer l.Release()

	// And now a child cannot take it from us.
	out, err := helperCmd(t, os.Args[0], "probe", path).Output()
	if err != nil {
		t.Fatalf("probe: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != "locked" {
		t.Errorf("probe while we hold the lock said %q; want \"locked\"", got)
	}
}
