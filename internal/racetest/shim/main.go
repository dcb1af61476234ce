// Command shim is the race harness's start shim as a small binary of its
// own (see package shimexec): it sleeps until WPQUEUE_RACE_START_AT, then
// execs its arguments.
package main

import (
	"fmt"
	"os"

	"github.com/wpqueue/wpqueue/internal/racetest/shimexec"
)

func main() {
	err := shimexec.Run() // returns only if it could not exec
	fmt.Fprintln(os.Stderr, err)
	os.Exit(shimexec.ExitCode)
}
