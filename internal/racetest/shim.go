package racetest

import "github.com/wpqueue/wpqueue/internal/racetest/shimexec"

// The shim's environment; see package shimexec.
const (
	envShim    = shimexec.EnvShim
	envStartAt = shimexec.EnvStartAt
	envShimID  = shimexec.EnvShimID
)

// IsShim reports whether this process was started as a start shim (the
// harness or test binary re-executed).
func IsShim() bool { return shimexec.Active() }

// ShimMain runs the start shim; see package shimexec. It returns only when
// it could not exec the program, with the exit status to use and the error.
func ShimMain() (int, error) { return shimexec.ExitCode, shimexec.Run() }
