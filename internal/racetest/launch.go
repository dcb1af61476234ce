package racetest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proc is one process to start.
type Proc struct {
	Label string
	Path  string
	Args  []string
	Env   []string
	Dir   string
}

// Result is how one process ended.
type Result struct {
	Label string
	PID   int
	// Code is the exit status, -1 when a signal ended the process
	// (Signal says which).
	Code   int
	Signal syscall.Signal
	Stdout string
	Stderr string
	// Ready is when the shim was up; Start when it woke and exec'd the
	// program (zero if it never reported); End when the harness saw the
	// process end.
	Ready, Start, End time.Time
	// CPU is the process's user + system CPU time, the shim's share
	// before the exec included.
	CPU time.Duration
}

// Took is the time from the program's start (the shim's exec) to its end.
func (r Result) Took() time.Duration {
	if r.Start.IsZero() {
		return 0
	}
	return r.End.Sub(r.Start)
}

// Launcher starts batches of processes that begin at one shared instant.
type Launcher struct {
	// Self is the harness binary, which runs the shim.
	Self string
	// Timeout bounds a process; it is killed (SIGKILL) after it.
	Timeout time.Duration

	mu        sync.Mutex
	spawnCost time.Duration // per process, measured
	// readyLag is how long the last batches took from the first spawn
	// until every shim was up (decays slowly).
	readyLag time.Duration
	live     map[int]*os.Process
}

// NewLauncher returns a launcher that runs the shim from self.
func NewLauncher(self string) *Launcher {
	return &Launcher{Self: self, Timeout: 120 * time.Second, spawnCost: 8 * time.Millisecond, live: map[int]*os.Process{}}
}

// Batch is a set of processes started together.
type Batch struct {
	// At is the shared start instant.
	At    time.Time
	l     *Launcher
	procs []*running
	wg    sync.WaitGroup
	rwg   sync.WaitGroup // the report reader
	// Spawned is how long starting every shim took.
	Spawned time.Duration
	t0      time.Time
}

type running struct {
	Result
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
}

// Start spawns every proc behind the start shim and returns at once; all
// of them begin (exec) at the batch's instant At.
func (l *Launcher) Start(ctx context.Context, procs []Proc) (*Batch, error) {
	l.mu.Lock()
	cost, lag := l.spawnCost, l.readyLag
	l.mu.Unlock()
	// The shared instant must come after every shim is up: allow twice
	// the measured spawn cost, and twice the time the last batches
	// needed until all shims were up (the machine may be loaded).
	budget := max(40*time.Millisecond+time.Duration(len(procs))*cost*2, lag*2)
	b := &Batch{l: l, At: time.Now().Add(budget)}
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	for i, p := range procs {
		cmd := exec.Command(l.Self, append([]string{p.Path}, p.Args...)...)
		cmd.Env = append(append([]string(nil), p.Env...),
			envShim+"=1", envStartAt+"="+strconv.FormatInt(b.At.UnixNano(), 10), envShimID+"="+strconv.Itoa(i))
		cmd.Dir = p.Dir
		cmd.ExtraFiles = []*os.File{wr}
		r := &running{cmd: cmd, done: make(chan struct{})}
		r.Label = p.Label
		cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
		if err := cmd.Start(); err != nil {
			wr.Close()
			rd.Close()
			b.KillAll()
			b.wait()
			return nil, fmt.Errorf("start %s: %w", p.Path, err)
		}
		r.PID = cmd.Process.Pid
		l.track(cmd.Process, true)
		b.procs = append(b.procs, r)
	}
	b.Spawned = time.Since(t0)
	b.t0 = t0
	wr.Close()
	l.mu.Lock()
	if len(procs) > 0 {
		if c := b.Spawned / time.Duration(len(procs)); c > l.spawnCost || c < l.spawnCost/2 {
			l.spawnCost = max(c, 2*time.Millisecond)
		}
	}
	l.mu.Unlock()

	b.rwg.Add(1)
	go func() {
		defer b.rwg.Done()
		defer rd.Close()
		sc := bufio.NewScanner(rd)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 3 {
				continue
			}
			i, err1 := strconv.Atoi(f[1])
			ns, err2 := strconv.ParseInt(f[2], 10, 64)
			if err1 != nil || err2 != nil || i < 0 || i >= len(b.procs) {
				continue
			}
			switch f[0] {
			case "R":
				b.procs[i].Ready = time.Unix(0, ns)
			case "G":
				b.procs[i].Start = time.Unix(0, ns)
			}
		}
	}()
	for _, r := range b.procs {
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			defer close(r.done)
			t := time.AfterFunc(time.Until(b.At)+l.Timeout, func() { r.cmd.Process.Kill() })
			err := r.cmd.Wait()
			r.End = time.Now()
			t.Stop()
			if ps := r.cmd.ProcessState; ps != nil {
				r.CPU = ps.UserTime() + ps.SystemTime()
			}
			l.track(r.cmd.Process, false)
			var ee *exec.ExitError
			switch {
			case err == nil:
			case errors.As(err, &ee):
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					r.Code, r.Signal = -1, ws.Signal()
				} else {
					r.Code = ee.ExitCode()
				}
			default:
				r.Code = -1
			}
		}()
	}
	return b, nil
}

func (l *Launcher) track(p *os.Process, on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if on {
		l.live[p.Pid] = p
	} else {
		delete(l.live, p.Pid)
	}
}

// KillAll sends SIGKILL to every process this launcher started that is
// still running (by PID).
func (l *Launcher) KillAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.live {
		p.Kill()
	}
}

// Len returns the number of processes in the batch.
func (b *Batch) Len() int { return len(b.procs) }

// PID returns the PID of process i (the shim's PID is the program's).
func (b *Batch) PID(i int) int { return b.procs[i].PID }

// Kill sends SIGKILL to process i.
func (b *Batch) Kill(i int) error { return b.procs[i].cmd.Process.Kill() }

// KillAll kills every process of the batch.
func (b *Batch) KillAll() {
	for _, r := range b.procs {
		r.cmd.Process.Kill()
	}
}

// Done returns a channel closed when process i has ended.
func (b *Batch) Done(i int) <-chan struct{} { return b.procs[i].done }

func (b *Batch) wait() {
	b.wg.Wait()
	b.rwg.Wait()
}

// Wait waits for every process and returns the results in proc order.
func (b *Batch) Wait() []Result {
	b.wait()
	out := make([]Result, len(b.procs))
	var lag time.Duration
	for i, r := range b.procs {
		r.Stdout, r.Stderr = r.stdout.String(), r.stderr.String()
		out[i] = r.Result
		if !r.Ready.IsZero() {
			lag = max(lag, r.Ready.Sub(b.t0))
		}
	}
	b.l.mu.Lock()
	b.l.readyLag = max(lag, b.l.readyLag*4/5)
	b.l.mu.Unlock()
	return out
}

// Timing describes how closely a batch started together.
type Timing struct {
	// Late is the latest a process started after the shared instant (it
	// was not up in time, or woke late); Spread is the time between the
	// first and the last start.
	Late, Spread time.Duration
	// NotReady counts shims that were not up at the shared instant.
	NotReady int
	// Wall is from the shared instant to the last end.
	Wall time.Duration
}

// TimingOf summarises rs, started at at.
func TimingOf(at time.Time, rs []Result) Timing {
	var t Timing
	var first, last time.Time
	for _, r := range rs {
		if r.Ready.After(at) {
			t.NotReady++
		}
		if !r.Start.IsZero() {
			if first.IsZero() || r.Start.Before(first) {
				first = r.Start
			}
			if r.Start.After(last) {
				last = r.Start
			}
			t.Late = max(t.Late, r.Start.Sub(at))
		}
		t.Wall = max(t.Wall, r.End.Sub(at))
	}
	if !first.IsZero() {
		t.Spread = last.Sub(first)
	}
	return t
}

// Run starts procs together and waits for them.
func (l *Launcher) Run(ctx context.Context, procs []Proc) ([]Result, Timing, error) {
	b, err := l.Start(ctx, procs)
	if err != nil {
		return nil, Timing{}, err
	}
	rs := b.Wait()
	return rs, TimingOf(b.At, rs), nil
}
