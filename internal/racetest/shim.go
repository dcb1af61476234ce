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

// ShimMain runs the start shim; see package shimexec. It never returns.
func ShimMain() { shimexec.Main() }
