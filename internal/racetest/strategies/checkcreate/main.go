// Command checkcreate is the classic check-then-create lock file: if the
// lock file exists another run is taken to be working and this run exits 0;
// otherwise it creates the file, does the work and removes the file. A
// baseline for the experiment in docs/exactly-once.md, not a product.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/wpqueue/wpqueue/internal/racetest/strategies/naive"
)

func main() {
	lock := naive.LockPath()
	if _, err := os.Stat(lock); err == nil {
		fmt.Println("another run is in progress (lock file exists); nothing to do")
		os.Exit(0)
	}
	if err := os.WriteFile(lock, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	naive.Taken()
	code := naive.Work()
	naive.Released()
	os.Remove(lock)
	os.Exit(code)
}
