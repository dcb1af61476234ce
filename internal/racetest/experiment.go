package racetest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/wpqueue/wpqueue/internal/faultproxy"
)

// Experiment runs the three classic local strategies (programs under
// internal/racetest/strategies) and wpqueue on the same harness:
// duplicates in rounds × n simultaneous starts, the run after a kill before
// and after the write, and a rerun after a success.
func (h *Harness) Experiment(ctx context.Context, rounds, n int) Table {
	t := Table{Title: fmt.Sprintf("The experiment: three local strategies and wpqueue, %d rounds × %d simultaneous starts", rounds, n),
		Header: []string{"strategy", "rounds with 2+ posts in the slot", "…the writers held the lock", "runs that took the lock after another run released it", "rounds leaving the slot empty", "run after a kill before the write", "run after a kill after the write", "rerun after a success"}}
	t.Note("Each strategy shares one lock file between its runs. The classic programs (internal/racetest/strategies) take their lock and then schedule the first draft for the next 07:00 slot with two REST calls, without reading what the slot holds. Kills are SIGKILL while the proxy holds the run's first read (before the write) or the site's answer to its write (after the write); between the tests the harness deletes a leftover lock file of checkcreate/oexcl (never wpqueue's).")
	for _, s := range []string{"checkcreate", "oexcl", "flockonly", "wpqueue"} {
		if ctx.Err() != nil {
			break
		}
		t.Add(h.experimentRow(ctx, &t, s, rounds, n)...)
	}
	return t
}

func (h *Harness) experimentRow(ctx context.Context, t *Table, s string, rounds, n int) []any {
	label := map[string]string{"checkcreate": "check-then-create lock file", "oexcl": "O_CREAT|O_EXCL lock file",
		"flockonly": "OS lock (flock), no done check", "wpqueue": "wpqueue"}[s]
	m, err := h.NewMachine("exp-" + s)
	if err != nil {
		t.Fail("%v", err)
		return []any{label, "error", "", "", "", "", "", ""}
	}
	defer h.CloseMachine(m)
	proc := func(l string) Proc {
		if s == "wpqueue" {
			return h.Publish(m, l)
		}
		return h.Strategy(m, s, l)
	}
	firstRead := faultproxy.Queue
	if s == "wpqueue" {
		firstRead = faultproxy.Index
	}
	clean := func() {
		if s == "checkcreate" || s == "oexcl" {
			if err := os.Remove(m.Lock); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fail("%s: %v", s, err)
			}
		}
	}
	os.MkdirAll(strings.TrimSuffix(m.Lock, "/site.lock"), 0o700)

	// 1. Simultaneous starts.
	var doubles, empties, extra, overlaps, late int
	for i := 0; i < rounds && ctx.Err() == nil; i++ {
		var procs []Proc
		for j := 0; j < n; j++ {
			procs = append(procs, proc(fmt.Sprintf("%s%d", s, j)))
		}
		o, err := h.Round(ctx, procs)
		if err != nil {
			t.Fail("%s: %v", s, err)
			break
		}
		// Who held the lock when: the classic programs print it; a wpqueue
		// run that reports the slot "filled" took the lock after the
		// writer had released it.
		holds := lockHolds(o.Results)
		for k, hk := range holds {
			for j, hj := range holds {
				if j != k && hj.released.Before(hk.taken) {
					late++
					break
				}
			}
		}
		if s == "wpqueue" {
			late += o.States()["filled"]
		}
		if o.State.Double() {
			doubles++
			extra += len(o.State.Holders) - 1
			if overlapping(holds) {
				overlaps++
			}
			var b strings.Builder
			for _, r := range o.Results {
				fmt.Fprintf(&b, "\n    %s: started %+.1f ms, ended %+.1f ms after the shared instant: %s %s", r.Label,
					float64(r.Start.Sub(o.At))/1e6, float64(r.End.Sub(o.At))/1e6, firstLine(r.Stdout), strings.ReplaceAll(r.Stderr, "\n", " "))
			}
			h.progress("experiment %s round %d: slot holds %v%s", s, i+1, o.State.Holders, b.String())
		}
		if len(o.State.Holders) == 0 {
			empties++
		}
		h.progress("experiment %s %d/%d: exits %s, slot %v", s, i+1, rounds, CodeHist(o.Results), o.State.Holders)
	}
	race := fmt.Sprintf("%d of %d", doubles, rounds)
	if extra > doubles {
		race += fmt.Sprintf(" (%d extra posts)", extra)
	}
	how := "—"
	if doubles > 0 {
		how = fmt.Sprintf("%d at once, %d one after the other", overlaps, doubles-overlaps)
	}

	// 2, 3. A kill before and after the write, then the next run.
	afterKill := func(rule faultproxy.Rule) string {
		clean()
		if err := h.Site.Reset(ctx); err != nil {
			return err.Error()
		}
		m.Proxy.ResetCounts()
		slot := h.Slot(time.Now())
		f := m.Proxy.Add(rule)
		b, err := h.L.Start(ctx, []Proc{proc("killed")})
		if err != nil {
			return err.Error()
		}
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := f.Wait(wctx, 1); err != nil {
			m.Proxy.Clear()
			b.KillAll()
			b.Wait()
			return "fault not hit: " + err.Error()
		}
		b.Kill(0)
		b.Wait()
		f.WaitGone(wctx, 1)
		m.Proxy.Clear()
		_, staleErr := os.Stat(m.Lock)
		stale := staleErr == nil && s != "flockonly" && s != "wpqueue"
		before, err := h.Site.Inspect(ctx, slot, time.Now())
		if err != nil {
			return err.Error()
		}
		m.Proxy.ResetCounts()
		rs, tm, err := h.L.Run(ctx, []Proc{proc("next")})
		if err != nil {
			return err.Error()
		}
		o, err := h.finish(ctx, slot, rs, tm)
		if err != nil {
			return err.Error()
		}
		wrote := m.Proxy.Forwarded()[faultproxy.Update] > 0
		h.progress("experiment %s after kill (%s): lock file left %v, slot before %v, next run exit %d wrote %v, slot %v: %s",
			s, rule.Action, stale, before.Holders, rs[0].Code, wrote, o.State.Holders, firstLine(rs[0].Stdout))
		return describeNext(rs[0].Code, stale, wrote, len(before.Holders), len(o.State.Holders))
	}
	killBefore := afterKill(faultproxy.Rule{Kind: firstRead, Action: faultproxy.HoldRequest, Times: 1})
	killAfter := afterKill(faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.HoldResponse, Times: 1})

	// 4. Rerun after a success.
	rerun := func() string {
		clean()
		if err := h.Site.Reset(ctx); err != nil {
			return err.Error()
		}
		slot := h.Slot(time.Now())
		if _, _, err := h.L.Run(ctx, []Proc{proc("first")}); err != nil {
			return err.Error()
		}
		before, err := h.Site.Inspect(ctx, slot, time.Now())
		if err != nil {
			return err.Error()
		}
		m.Proxy.ResetCounts()
		rs, tm, err := h.L.Run(ctx, []Proc{proc("rerun")})
		if err != nil {
			return err.Error()
		}
		o, err := h.finish(ctx, slot, rs, tm)
		if err != nil {
			return err.Error()
		}
		wrote := m.Proxy.Forwarded()[faultproxy.Update] > 0
		return describeNext(rs[0].Code, false, wrote, len(before.Holders), len(o.State.Holders))
	}()
	clean()
	return []any{label, race, how, late, fmt.Sprintf("%d of %d", empties, rounds), killBefore, killAfter, rerun}
}

// describeNext says what the run after a kill (or a success) did.
func describeNext(code int, stale, wrote bool, before, after int) string {
	var what string
	switch {
	case stale && !wrote:
		what = "stale lock file: exits 0 without working"
	case !wrote && before == 1:
		what = "does nothing (slot already filled)"
	case !wrote:
		what = "does nothing"
	case before == 0:
		what = "proceeds, does the work"
	default:
		what = "repeats the work"
	}
	slot := fmt.Sprintf("slot %s", map[int]string{0: "empty", 1: "holds 1 post"}[after])
	if after > 1 {
		slot = fmt.Sprintf("**slot holds %d posts**", after)
	}
	if stale && !wrote && after == 0 {
		slot = "**slot stays empty**"
	}
	return fmt.Sprintf("%s (exit %d); %s", what, code, slot)
}

type hold struct{ taken, released time.Time }

// lockHolds reads the "lock taken/released NS" lines the classic programs
// print on stderr.
func lockHolds(rs []Result) []hold {
	var out []hold
	for _, r := range rs {
		var hd hold
		for _, l := range strings.Split(r.Stderr, "\n") {
			var ns int64
			if _, err := fmt.Sscanf(l, "lock taken %d", &ns); err == nil {
				hd.taken = time.Unix(0, ns)
			}
			if _, err := fmt.Sscanf(l, "lock released %d", &ns); err == nil {
				hd.released = time.Unix(0, ns)
			}
		}
		if !hd.taken.IsZero() && !hd.released.IsZero() {
			out = append(out, hd)
		}
	}
	return out
}

// overlapping reports whether two runs held the lock at the same time.
func overlapping(hs []hold) bool {
	for i := range hs {
		for j := range hs {
			if i != j && hs[i].taken.Before(hs[j].released) && hs[j].taken.Before(hs[i].released) {
				return true
			}
		}
	}
	return false
}
