// Command oexcl is the O_CREAT|O_EXCL lock file: creating the file
// atomically is taking the lock; if it already exists another run is taken
// to be working and this run exits 0. The file is removed after the work.
// A baseline for the experiment in docs/exactly-once.md, not a product.
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"github.com/wpqueue/wpqueue/internal/racetest/strategies/naive"
)

func main() {
	lock := naive.LockPath()
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		fmt.Println("another run is in progress (lock file exists); nothing to do")
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	naive.Taken()
	f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
	f.Close()
	code := naive.Work()
	naive.Released()
	os.Remove(lock)
	os.Exit(code)
}
