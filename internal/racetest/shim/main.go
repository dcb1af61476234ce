// Command shim is the race harness's start shim as a small binary of its
// own (see package shimexec): it sleeps until WPQUEUE_RACE_START_AT, then
// execs its arguments.
package main

import "github.com/wpqueue/wpqueue/internal/racetest/shimexec"

func main() { shimexec.Main() }
