// Package racetest is the harness behind cmd/wpqueue-race: it proves
// wpqueue's exactly-once promise against a real WordPress and measures
// what the classic local locks do instead. See docs/exactly-once.md.
//
// A [Harness] builds the binaries under test (wpqueue, the baseline
// strategies under strategies/, a trivial Go program), starts its own
// WordPress with scripts/wordpress.sh on 127.0.0.1 and snapshots its posts.
// Each simulated [Machine] has its own lock file and its own
// internal/faultproxy in front of the site, so faults and kills are placed
// per machine and per kind of request, with no hook in the product.
//
// Processes of a round start at one shared instant: the [Launcher] runs
// each through a start shim (this harness binary re-executed, see
// [ShimMain]) that sleeps until the instant and then replaces itself with
// the program (execve, same PID). Between rounds the site is reset from
// the snapshot (SQL); after each round [Site.Inspect] counts the posts in
// the slot and compares every post's content hash with the snapshot.
//
// The scenarios are methods of Harness: OneMachine, TwoMachines (with
// ArrivalOrders and GiveBackFaults), Kills, LostAnswers, ReadFaults,
// LogAppends, Experiment and Benchmarks. Each returns a [Table].
package racetest
