// Package shimexec is the start shim of the race harness, kept free of
// heavy imports so that the shim binary (internal/racetest/shim) is small:
// its own start and its exec are part of what the harness measures.
//
// A process the harness starts is first the shim: it reports on fd 3 that
// it is up, sleeps until the shared start instant, reports the instant it
// woke, and replaces itself (execve, same PID) with the program under
// test. So every program starts at the same instant however long spawning
// the processes took, and the program under test contains no hook.
package shimexec

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Environment of the shim.
const (
	EnvShim    = "WPQUEUE_RACE_SHIM"     // "1": run as the shim
	EnvStartAt = "WPQUEUE_RACE_START_AT" // the start instant, Unix nanoseconds
	EnvShimID  = "WPQUEUE_RACE_SHIM_ID"  // the process's index in its batch
)

// Active reports whether this process was started as a shim.
func Active() bool { return os.Getenv(EnvShim) == "1" }

// ExitCode is the status a shim exits with when Run fails (as a shell
// does for a command it cannot run).
const ExitCode = 127

// Run runs the shim: os.Args[1] is the program, os.Args[2:] its
// arguments. On success it does not return: the process becomes the
// program. It returns an error when it cannot exec; the caller exits
// with [ExitCode]. Fd 3
// gets "R <id> <ns>" when the shim is up and "G <id> <ns>" just before the
// exec; every WPQUEUE_RACE_* variable is removed from the program's
// environment.
func Run() error {
	report := os.NewFile(3, "report")
	id := os.Getenv(EnvShimID)
	fmt.Fprintf(report, "R %s %d\n", id, time.Now().UnixNano())
	at, err := strconv.ParseInt(os.Getenv(EnvStartAt), 10, 64)
	if err != nil || len(os.Args) < 2 {
		return fmt.Errorf("wpqueue-race shim: want %s and a program to run", EnvStartAt)
	}
	prog := os.Args[1]
	if !strings.Contains(prog, "/") {
		if p, err := exec.LookPath(prog); err == nil {
			prog = p
		}
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "WPQUEUE_RACE_") {
			env = append(env, kv)
		}
	}
	time.Sleep(time.Until(time.Unix(0, at)))
	fmt.Fprintf(report, "G %s %d\n", id, time.Now().UnixNano())
	report.Close()
	err = syscall.Exec(prog, os.Args[1:], env)
	return fmt.Errorf("wpqueue-race shim: exec %s: %w", prog, err)
}
