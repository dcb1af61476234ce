package racetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// LoadAvg returns the 1, 5 and 15 minute load averages from
// /proc/loadavg, or "?".
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// Benchmarks measures lock losers under 20- and 100-way contention (time
// from the program's start, the shim's exec, to the harness seeing it
// end), next to `true` and a Go program that does nothing, started the same
// way; the sequential cost of spawning a process from the harness; and the
// wall time of one full round of scenario 1.
func (h *Harness) Benchmarks(ctx context.Context, reps int) []Table {
	t := Table{Title: "Benchmarks: start-to-exit time of processes started together",
		Header: []string{"program", "20 at once: median", "p99", "100 at once: median", "p99", "CPU time per process (median)", "samples"}}
	m, err := h.NewMachine("bench")
	if err != nil {
		t.Fail("%v", err)
		return []Table{t}
	}
	defer h.CloseMachine(m)
	trueBin, err := exec.LookPath("true")
	if err != nil {
		t.Fail("%v", err)
		return []Table{t}
	}
	load0 := LoadAvg()
	release, err := HoldLock(m.Lock)
	if err != nil {
		t.Fail("holding the lock: %v", err)
		return []Table{t}
	}
	defer release()
	progs := []struct {
		name string
		proc func() Proc
	}{
		{"`true` (floor: exec + exit)", func() Proc { return Proc{Path: trueBin, Env: m.baseEnv()} }},
		{"Go program doing nothing (floor: Go runtime start)", func() Proc { return Proc{Path: h.Bin["trivial"], Env: m.baseEnv()} }},
		{"`wpqueue publish`, lock held elsewhere (exit 75)", func() Proc { return h.Publish(m, "loser") }},
	}
	for _, p := range progs {
		row := []any{p.name}
		total := 0
		var cpu []time.Duration
		for _, n := range []int{20, 100} {
			batches := reps
			if n == 100 {
				batches = max(1, reps/3)
			}
			var took []time.Duration
			bad := Hist{}
			for i := 0; i < batches && ctx.Err() == nil; i++ {
				procs := make([]Proc, n)
				for j := range procs {
					procs[j] = p.proc()
				}
				rs, _, err := h.L.Run(ctx, procs)
				if err != nil {
					t.Fail("%s: %v", p.name, err)
					break
				}
				for _, r := range rs {
					want := 0
					if p.proc().Path == h.Bin["wpqueue"] {
						want = 75
					}
					if r.Code != want {
						bad[fmt.Sprint(r.Code)]++
						continue
					}
					took = append(took, r.Took())
					cpu = append(cpu, r.CPU)
				}
			}
			if len(bad) > 0 {
				t.Fail("%s, %d at once: unexpected exit statuses %s", p.name, n, bad)
			}
			st := StatsOf(took)
			total += st.N
			row = append(row, ms(st.Median)+" ms", ms(st.P99)+" ms")
			h.progress("bench %s ×%d: %s", p.name, n, st)
		}
		row = append(row, ms(StatsOf(cpu).Median)+" ms", total)
		t.Add(row...)
	}
	if len(h.Bench.Losers) > 0 {
		st := StatsOf(h.Bench.Losers)
		t.Add(fmt.Sprintf("lock losers in scenario 1 rounds (%d at once, one winner working)", h.Bench.RoundN), ms(st.Median)+" ms", ms(st.P99)+" ms", "", "", "", st.N)
	}
	t.Note("Start = the instant the start shim exec'd the program (all of a batch at one instant); end = the harness's wait returned. Goal for lock losers: median < 10 ms, p99 < 50 ms.")
	t.Note("CPU time is user + system time of the process, including the start shim's share before the exec (the `true` row is mostly the shim); unlike wall time it does not grow with the machine's load.")
	t.Note("Load average (1, 5, 15 min) before: %s; after: %s. The machine has %d CPUs; other jobs on it slow every row alike.", load0, LoadAvg(), runtime.NumCPU())

	// Spawning one process at a time from the harness (fork, exec, wait).
	s := Table{Title: "Benchmarks: one process at a time, spawned by the harness (fork + exec + wait)",
		Header: []string{"program", "median", "p99", "samples"}}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"`true`", []string{trueBin}},
		{"Go program doing nothing", []string{h.Bin["trivial"]}},
		{"`wpqueue version`", []string{h.Bin["wpqueue"], "version"}},
	} {
		var took []time.Duration
		for i := 0; i < 10*reps && ctx.Err() == nil; i++ {
			t0 := time.Now()
			cmd := exec.CommandContext(ctx, c.args[0], c.args[1:]...)
			cmd.Env = m.baseEnv()
			if err := cmd.Run(); err != nil {
				s.Fail("%s: %v", c.name, err)
				break
			}
			took = append(took, time.Since(t0))
		}
		st := StatsOf(took)
		s.Add(c.name, ms(st.Median)+" ms", ms(st.P99)+" ms", st.N)
	}

	// One full round: n processes, one write.
	r := Table{Title: "Benchmarks: one full round (simultaneous `wpqueue publish`, one of them writes)",
		Header: []string{"processes", "rounds", "wall median", "wall p99", "max"}}
	walls, n := h.Bench.RoundWall, h.Bench.RoundN
	if len(walls) == 0 && ctx.Err() == nil {
		save := h.Bench
		h.OneMachine(ctx, max(3, reps), 20)
		walls, n = h.Bench.RoundWall, h.Bench.RoundN
		h.Bench = save
	}
	st := StatsOf(walls)
	r.Add(n, st.N, ms(st.Median)+" ms", ms(st.P99)+" ms", ms(st.Max)+" ms")
	r.Note("Wall = from the shared start instant to the last process's end (the winner's index, slot listing, queue listing, update and verification listing, about 5 requests to a PHP built-in server with 4 workers).")
	return []Table{t, s, r}
}
