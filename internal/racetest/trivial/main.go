// Command trivial does nothing: the harness times it as the floor of a Go
// process's start and exit on this machine.
package main

func main() {}
