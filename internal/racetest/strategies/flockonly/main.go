// Command flockonly takes an OS lock (flock, non-blocking) on a lock file
// that is never deleted, and does the work without checking whether it was
// already done. The OS releases the lock when the process ends, however it
// ends. A baseline for the experiment in docs/exactly-once.md, not a
// product.
package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/wpqueue/wpqueue/internal/racetest/strategies/naive"
)

func main() {
	lock := naive.LockPath()
	f, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		fmt.Println("another run holds the lock; nothing to do")
		os.Exit(0)
	}
	naive.Taken()
	code := naive.Work()
	naive.Released() // the OS releases the lock at exit
	os.Exit(code)
}
