package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// barrierRun is one wpqueue process started behind the barrier.
type barrierRun struct {
	cmd            *exec.Cmd
	stdin          io.WriteCloser
	stdout, stderr bytes.Buffer
	res            result
}

// runAtOnce starts n `wpqueue args...` processes, each first blocked in
// `read` on its stdin pipe under sh, waits until all are up, then closes
// every pipe at once so that they exec wpqueue at the same instant.
// lockFor gives each process its lock path.
func (s *wpSite) runAtOnce(t *testing.T, n int, lockFor func(i int) string, args ...string) []result {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	// Each shell reports on fd 3 (a pipe shared by all) that it is up, then
	// blocks in read until its stdin closes, then execs wpqueue.
	ready, readyW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer ready.Close()
	runs := make([]*barrierRun, n)
	for i := range runs {
		cmd, shown := s.command(t, runOpts{lock: lockFor(i)}, args...)
		cmd.Path = sh
		cmd.Args = append([]string{"sh", "-c", `printf . >&3; exec 3>&-; read -r _; exec "$0" "$@"`, suite.bin}, args...)
		cmd.ExtraFiles = []*os.File{readyW}
		br := &barrierRun{cmd: cmd}
		br.res = result{args: args, env: shown}
		cmd.Stdout, cmd.Stderr = &br.stdout, &br.stderr
		if br.stdin, err = cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		runs[i] = br
	}
	for i, br := range runs {
		if err := br.cmd.Start(); err != nil {
			for _, started := range runs[:i] {
				started.stdin.Close()
				started.cmd.Wait()
			}
			readyW.Close()
			t.Fatal(err)
		}
	}
	readyW.Close()
	ready.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.ReadFull(ready, make([]byte, n)); err != nil {
		t.Errorf("not all %d shells reported ready: %v (releasing them anyway)", n, err)
	}
	time.Sleep(200 * time.Millisecond) // and are blocked in read by now
	t0 := time.Now()
	for _, br := range runs {
		br.stdin.Close()
	}
	var wg sync.WaitGroup
	for _, br := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done := make(chan error, 1)
			go func() { done <- br.cmd.Wait() }()
			select {
			case err := <-done:
				br.res.took = time.Since(t0)
				var ee *exec.ExitError
				switch {
				case err == nil:
				case errors.As(err, &ee) && ee.Exited():
					br.res.code = ee.ExitCode()
				default:
					br.res.code = -1
					br.res.stderr += fmt.Sprintf("\n[test: wait: %v]", err)
				}
			case <-time.After(90 * time.Second):
				br.cmd.Process.Kill()
				<-done
				br.res.code = -1
				br.res.stderr += "\n[test: killed after 90s]"
			}
		}()
	}
	wg.Wait()
	out := make([]result, n)
	for i, br := range runs {
		br.res.stdout, br.res.stderr = br.stdout.String(), br.stderr.String()
		s.checkNoSecrets(t, br.res)
		out[i] = br.res
	}
	return out
}

func codeCounts(rs []result) string {
	m := map[int]int{}
	for _, r := range rs {
		m[r.code]++
	}
	var keys []int
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("exit %d ×%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// concurrentSharedLock: 20 processes sharing one lock file (one machine)
// start at once, for several rounds. Exactly one post lands in the slot,
// the first draft; every process exits 0 (it scheduled it, or found the
// slot filled) or 75 (lock held), at least one 0, and exactly one reports
// scheduling.
func concurrentSharedLock(t *testing.T, s *wpSite, rounds, procs int) {
	first := s.drafts[0]
	for round := 1; round <= rounds; round++ {
		t.Run(fmt.Sprintf("Round%d", round), func(t *testing.T) {
			s.reset(t)
			sp := planSlots(t, s, 1)
			before := s.rows(t)
			lock := filepath.Join(t.TempDir(), "shared.lock")
			rs := s.runAtOnce(t, procs, func(int) string { return lock }, "publish")
			t.Logf("%d processes: %s", procs, codeCounts(rs))

			zeros, scheduled := 0, 0
			for _, r := range rs {
				switch r.code {
				case 0:
					zeros++
					if strings.Contains(r.stdout, fmt.Sprintf("scheduled post #%d ", first)) {
						scheduled++
					} else if !strings.Contains(r.stdout, "nothing to do") {
						t.Errorf("an exit-0 run neither scheduled post %d nor found nothing to do:\n%s", first, r)
					}
				case 75:
					if !strings.Contains(r.stderr, "lock is held by another wpqueue run") {
						t.Errorf("an exit-75 run does not say the lock is held:\n%s", r)
					}
				default:
					t.Errorf("want exit 0 or 75, got:\n%s", r)
				}
			}
			if zeros == 0 {
				t.Errorf("no process exited 0")
			}
			if scheduled != 1 {
				t.Errorf("%d processes report scheduling post %d, want exactly 1", scheduled, first)
			}
			if got := s.holders(t, sp.slots[0]); len(got) != 1 || got[0] != first {
				t.Errorf("slot %s holds posts %v after %d concurrent runs, want only %d", sp.slots[0], got, procs, first)
			}
			s.wantScheduled(t, first, sp.slots[0])
			wantUntouched(t, before, s.rows(t), append([]int{1}, s.drafts[1:]...)...)
		})
	}
}

// TestConcurrentRunsSeoul: 20 simultaneous `wpqueue publish` on one
// machine (shared lock), 5 rounds.
func TestConcurrentRunsSeoul(t *testing.T) { concurrentSharedLock(t, needSite(t, "seoul"), 5, 20) }

// TestConcurrentRunsUTC: the same on the UTC site, 2 rounds.
func TestConcurrentRunsUTC(t *testing.T) { concurrentSharedLock(t, needSite(t, "utc"), 2, 20) }

// TestConcurrentRunsSeparateLocks: processes that do not share a lock
// file (runs on different machines): the local lock cannot help, and the
// site check after writing is the only guard. Whatever the interleaving,
// the slot ends with exactly one post, the first draft, and every other
// seeded post is a draft again at its former site-local date.
func TestConcurrentRunsSeparateLocks(t *testing.T) {
	s := needSite(t, "seoul")
	first := s.drafts[0]
	const rounds, procs = 3, 10
	for round := 1; round <= rounds; round++ {
		t.Run(fmt.Sprintf("Round%d", round), func(t *testing.T) {
			s.reset(t)
			sp := planSlots(t, s, 1)
			before := s.rows(t)
			dir := t.TempDir()
			rs := s.runAtOnce(t, procs, func(i int) string { return filepath.Join(dir, fmt.Sprintf("machine%d.lock", i)) }, "publish")
			t.Logf("%d processes, separate locks: %s", procs, codeCounts(rs))
			zeros := 0
			for _, r := range rs {
				switch r.code {
				case 0:
					zeros++
				case 5:
					// A run whose post another run has already given back
					// finds it gone from the slot at verification.
					t.Logf("a run exited 5 (verification failed) in the race:\n%s", r)
				default:
					t.Errorf("want exit 0 (or 5 for a run that lost the race), got:\n%s", r)
				}
			}
			if zeros == 0 {
				t.Errorf("no process exited 0")
			}
			if got := s.holders(t, sp.slots[0]); len(got) != 1 || got[0] != first {
				t.Errorf("slot %s holds posts %v after %d racing runs, want only %d", sp.slots[0], got, procs, first)
			}
			s.wantScheduled(t, first, sp.slots[0])
			after := s.rows(t)
			for _, id := range s.drafts[1:] {
				b, a := before[id], after[id]
				if a.Status != "draft" || a.Date != b.Date {
					t.Errorf("post %d: want draft at its former site date %s, got %s at %s", id, b.Date, a.Status, a.Date)
				}
				if a.DateGMT != b.DateGMT {
					t.Logf("note: post %d went back to draft with post_date_gmt %s (was %s: a floating draft date became fixed)", id, a.DateGMT, b.DateGMT)
				}
			}
		})
	}
}
