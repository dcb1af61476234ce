package racetest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wpqueue/wpqueue/internal/faultproxy"
)

// RoundOut is one round: processes started together after a reset, and
// what they left on the site.
type RoundOut struct {
	// At is the shared start instant.
	At      time.Time
	Slot    time.Time
	Results []Result
	Reports []*Report
	Timing  Timing
	State   State
	// Boundary: the slot a run would aim at changed during the round (the
	// round straddled slot - lead); its state is not judged.
	Boundary bool
}

// Round resets the site, runs procs together and inspects the site.
func (h *Harness) Round(ctx context.Context, procs []Proc) (RoundOut, error) {
	if err := h.Site.Reset(ctx); err != nil {
		return RoundOut{}, err
	}
	slot := h.Slot(time.Now())
	b, err := h.L.Start(ctx, procs)
	if err != nil {
		return RoundOut{}, err
	}
	rs := b.Wait()
	o, err := h.finish(ctx, slot, rs, TimingOf(b.At, rs))
	o.At = b.At
	return o, err
}

func (h *Harness) finish(ctx context.Context, slot time.Time, rs []Result, tm Timing) (RoundOut, error) {
	end := time.Now()
	st, err := h.Site.Inspect(ctx, slot, end)
	if err != nil {
		return RoundOut{}, err
	}
	out := RoundOut{Slot: slot, Results: rs, Timing: tm, State: st, Boundary: !h.Slot(end).Equal(slot)}
	for _, r := range rs {
		out.Reports = append(out.Reports, ParseReport(r.Stdout))
	}
	return out, nil
}

// States counts the reports' first-slot states.
func (o RoundOut) States() Hist {
	h := Hist{}
	for i, rep := range o.Reports {
		s := rep.State()
		if s == "-" && o.Results[i].Code == -1 {
			s = "killed"
		}
		h[s]++
	}
	return h
}

func (o RoundOut) explain() string {
	var b strings.Builder
	losers := 0
	for i, r := range o.Results {
		if r.Code == 75 {
			losers++
			continue
		}
		what := errorLine(r.Stderr)
		if what == "" && o.Reports[i] != nil && len(o.Reports[i].Warnings) > 0 {
			what = "warning: " + o.Reports[i].Warnings[0]
		}
		if what == "" {
			what = firstLine(r.Stderr)
		}
		fmt.Fprintf(&b, "\n  - %s: %s. %s", r.Label, ExitState(r, o.Reports[i]), what)
	}
	if losers > 0 {
		fmt.Fprintf(&b, "\n  - %d runs: exit 75 (lock held)", losers)
	}
	return b.String()
}

// ---------------------------------------------------------------- scenario 1

// OneMachine is scenario 1: rounds × n simultaneous `wpqueue publish`
// sharing one lock file. Each round must leave exactly the first draft in
// the slot, every other post untouched; every run exits 0 or 75, and
// exactly one reports scheduling.
func (h *Harness) OneMachine(ctx context.Context, rounds, n int) Table {
	t := Table{Title: fmt.Sprintf("1. One machine: %d rounds × %d simultaneous runs, one lock file", rounds, n),
		Header: []string{"rounds", "2+ posts in the slot", "slot empty while drafts exist", "other problems", "exit statuses (all runs)", "slot states reported", "runs reporting `scheduled` per round", "round wall (median / p99)", "start spread (median / max)", "runs not up at the start instant"}}
	m, err := h.NewMachine("one")
	if err != nil {
		t.Fail("%v", err)
		return t
	}
	defer h.CloseMachine(m)
	want := h.Site.Drafts[0]
	var doubles, empties, problems, boundary, done int
	codes, states, winners := Hist{}, Hist{}, Hist{}
	var walls, spreads []time.Duration
	notReady := 0
	h.Bench.RoundN = n
	for i := 1; i <= rounds && ctx.Err() == nil; i++ {
		procs := make([]Proc, n)
		for j := range procs {
			procs[j] = h.Publish(m, fmt.Sprintf("run%d", j))
		}
		o, err := h.Round(ctx, procs)
		if err != nil {
			t.Fail("round %d: %v", i, err)
			break
		}
		done++
		if o.Boundary {
			boundary++
			continue
		}
		for k, v := range CodeHist(o.Results) {
			codes[k] += v
		}
		st := o.States()
		for k, v := range st {
			states[k] += v
		}
		winners[fmt.Sprint(st["scheduled"])]++
		walls = append(walls, o.Timing.Wall)
		h.Bench.RoundWall = append(h.Bench.RoundWall, o.Timing.Wall)
		for _, r := range o.Results {
			if r.Code == 75 {
				h.Bench.Losers = append(h.Bench.Losers, r.Took())
			}
		}
		spreads = append(spreads, o.Timing.Spread)
		notReady += o.Timing.NotReady
		var bad []string
		if o.State.Double() {
			doubles++
		}
		if o.State.EmptyWithDrafts() {
			empties++
		}
		bad = append(bad, o.State.Problems(want)...)
		for _, r := range o.Results {
			if r.Code != 0 && r.Code != 75 {
				bad = append(bad, fmt.Sprintf("%s exited %d", r.Label, r.Code))
			}
		}
		if st["scheduled"] != 1 {
			bad = append(bad, fmt.Sprintf("%d runs report scheduling, want 1", st["scheduled"]))
		}
		if len(bad) > 0 {
			problems++
			t.Note("round %d: %s%s", i, strings.Join(bad, "; "), o.explain())
		}
		h.progress("one-machine %d/%d: exits %s; states %s; slot %v; wall %s ms, spread %s ms",
			i, rounds, CodeHist(o.Results), st, o.State.Holders, ms(o.Timing.Wall), ms(o.Timing.Spread))
	}
	ws, ss := StatsOf(walls), StatsOf(spreads)
	t.Add(done, doubles, empties, problems, codes, states, winners, ms(ws.Median)+" / "+ms(ws.P99)+" ms",
		ms(ss.Median)+" / "+ms(ss.Max)+" ms", notReady)
	if boundary > 0 {
		t.Note("%d rounds straddled the slot's lead time and were not judged", boundary)
	}
	if doubles > 0 || empties > 0 || problems > 0 {
		t.Failed = true
	}
	return t
}

// ---------------------------------------------------------------- scenario 2

// TwoMachines is scenario 2: rounds × (n runs on machine A + n on machine
// B) started together, each machine with its own lock file and proxy, so
// the local lock cannot help. Then the orders of arrival, forced with the
// proxies, forced rounds each.
func (h *Harness) TwoMachines(ctx context.Context, rounds, n, forced int) []Table {
	t := Table{Title: fmt.Sprintf("2. Two machines: %d rounds × (%d + %d) simultaneous runs, two lock files", rounds, n, n),
		Header: []string{"rounds", "2+ posts in the slot", "slot left empty", "slot not the first draft", "drafts lost or changed", "exit statuses (all runs)", "slot states reported", "rounds with a give-back"}}
	a, err := h.NewMachine("A")
	if err != nil {
		t.Fail("%v", err)
		return []Table{t}
	}
	defer h.CloseMachine(a)
	b, err := h.NewMachine("B")
	if err != nil {
		t.Fail("%v", err)
		return []Table{t}
	}
	defer h.CloseMachine(b)
	want := h.Site.Drafts[0]
	var done, doubles, empties, notFirst, damaged, givebacks, boundary int
	codes, states := Hist{}, Hist{}
	gbCols := Hist{}
	for i := 1; i <= rounds && ctx.Err() == nil; i++ {
		var procs []Proc
		for j := 0; j < n; j++ {
			procs = append(procs, h.Publish(a, fmt.Sprintf("A%d", j)), h.Publish(b, fmt.Sprintf("B%d", j)))
		}
		o, err := h.Round(ctx, procs)
		if err != nil {
			t.Fail("round %d: %v", i, err)
			break
		}
		done++
		if o.Boundary {
			boundary++
			continue
		}
		for k, v := range CodeHist(o.Results) {
			codes[k] += v
		}
		st := o.States()
		for k, v := range st {
			states[k] += v
		}
		bad := o.State.Problems(0)
		switch {
		case o.State.Double():
			doubles++
		case len(o.State.Holders) == 0:
			empties++
		case o.State.Holders[0] != want:
			notFirst++
			bad = append(bad, fmt.Sprintf("slot holds %d, not the first draft %d", o.State.Holders[0], want))
		}
		if !o.State.Intact() {
			damaged++
		}
		if len(o.State.GivenBack) > 0 {
			givebacks++
			for _, cols := range o.State.GivenBack {
				for _, c := range cols {
					gbCols[strings.SplitN(c, " ", 2)[0]]++
				}
			}
		}
		for _, r := range o.Results {
			if r.Code != 0 && r.Code != 75 {
				bad = append(bad, fmt.Sprintf("%s exited %d", r.Label, r.Code))
			}
		}
		if len(bad) > 0 {
			t.Note("round %d: %s%s", i, strings.Join(bad, "; "), o.explain())
		}
		h.progress("two-machines %d/%d: exits %s; states %s; slot %v", i, rounds, CodeHist(o.Results), st, o.State.Holders)
	}
	t.Add(done, doubles, empties, notFirst, damaged, codes, states, givebacks)
	if boundary > 0 {
		t.Note("%d rounds straddled the slot's lead time and were not judged", boundary)
	}
	if len(gbCols) > 0 {
		t.Note("columns of wp_posts a give-back changed, compared with the snapshot (times seen): %s", gbCols)
	}
	if doubles > 0 || damaged > 0 {
		t.Failed = true
	}
	tables := []Table{t}
	if forced > 0 && ctx.Err() == nil {
		tables = append(tables, h.ArrivalOrders(ctx, a, b, forced))
	}
	if forced > 0 && ctx.Err() == nil {
		tables = append(tables, h.GiveBackFaults(ctx, a, b, forced))
	}
	if forced > 0 && ctx.Err() == nil {
		tables = append(tables, h.DoubleInFlight(ctx, a, b, forced))
	}
	return tables
}

// arrival is one forced interleaving of two runs on two machines: E (the
// earlier run, which takes the first draft X) and L (the later run, which
// read the slot empty before E's write but the queue after it, so it took
// the next draft Y).
type arrival struct {
	name string
	// eSeesTwo: E's verification read shows X and Y (E must keep X).
	eSeesTwo bool
	// run places the faults, starts E and L, and drives the interleaving.
	run func(ctx context.Context, h *Harness, e, l *Machine) (RoundOut, error)
}

var arrivals = []arrival{
	{"L starts after E finished: L reads the slot empty, E writes X and verifies, then L reads the queue, writes Y and verifies", false, arriveAfter},
	{"L writes Y between E's write and E's verification; E verifies first (sees X and Y), then L", true, arriveBetween(false)},
	{"L writes Y between E's write and E's verification; L verifies first (sees X and Y), then E", false, arriveBetween(true)},
}

func waitDone(ctx context.Context, b *Batch, i int) error {
	select {
	case <-b.Done(i):
		return nil
	case <-ctx.Done():
		return fmt.Errorf("process %d did not end: %w", i, ctx.Err())
	}
}

// drive starts E and L and runs steps; on a failed step it releases
// everything and kills both.
func (h *Harness) drive(ctx context.Context, e, l *Machine, steps func(ctx context.Context, b *Batch) error) (RoundOut, error) {
	if err := h.Site.Reset(ctx); err != nil {
		return RoundOut{}, err
	}
	slot := h.Slot(time.Now())
	b, err := h.L.Start(ctx, []Proc{h.Publish(e, "E"), h.Publish(l, "L")})
	if err != nil {
		return RoundOut{}, err
	}
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	serr := steps(sctx, b)
	cancel()
	if serr != nil {
		e.Proxy.Clear()
		l.Proxy.Clear()
		b.KillAll()
	}
	rs := b.Wait()
	e.Proxy.Clear()
	l.Proxy.Clear()
	o, err := h.finish(ctx, slot, rs, TimingOf(b.At, rs))
	if err != nil {
		return o, err
	}
	return o, serr
}

func arriveAfter(ctx context.Context, h *Harness, e, l *Machine) (RoundOut, error) {
	ew := e.Proxy.Add(faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.HoldRequest, Times: 1})
	lq := l.Proxy.Add(faultproxy.Rule{Kind: faultproxy.Queue, Action: faultproxy.HoldRequest, Times: 1})
	return h.drive(ctx, e, l, func(ctx context.Context, b *Batch) error {
		if err := lq.Wait(ctx, 1); err != nil { // L read the slot empty
			return err
		}
		ew.Release()
		if err := waitDone(ctx, b, 0); err != nil { // E wrote, verified, exited
			return err
		}
		lq.Release()
		return waitDone(ctx, b, 1)
	})
}

func arriveBetween(lFirst bool) func(ctx context.Context, h *Harness, e, l *Machine) (RoundOut, error) {
	return func(ctx context.Context, h *Harness, e, l *Machine) (RoundOut, error) {
		ew := e.Proxy.Add(faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.HoldRequest, Times: 1})
		ev := e.Proxy.Add(faultproxy.Rule{Kind: faultproxy.Slots, Action: faultproxy.HoldRequest, Skip: 1, Times: 1})
		lq := l.Proxy.Add(faultproxy.Rule{Kind: faultproxy.Queue, Action: faultproxy.HoldRequest, Times: 1})
		lv := l.Proxy.Add(faultproxy.Rule{Kind: faultproxy.Slots, Action: faultproxy.HoldRequest, Skip: 1, Times: 1})
		return h.drive(ctx, e, l, func(ctx context.Context, b *Batch) error {
			if err := lq.Wait(ctx, 1); err != nil { // L read the slot empty
				return err
			}
			ew.Release()
			if err := ev.Wait(ctx, 1); err != nil { // E wrote X
				return err
			}
			lq.Release()
			if err := lv.Wait(ctx, 1); err != nil { // L wrote Y
				return err
			}
			first, firstRule, second, secondRule := 0, ev, 1, lv
			if lFirst {
				first, firstRule, second, secondRule = 1, lv, 0, ev
			}
			firstRule.Release()
			if err := waitDone(ctx, b, first); err != nil {
				return err
			}
			secondRule.Release()
			return waitDone(ctx, b, second)
		})
	}
}

// ArrivalOrders forces each interleaving of two machines' runs, with
// either machine as the earlier one, rounds times each.
func (h *Harness) ArrivalOrders(ctx context.Context, a, b *Machine, rounds int) Table {
	x, y := h.Site.Drafts[0], h.Site.Drafts[1]
	t := Table{Title: fmt.Sprintf("2b. Two machines, both orders of arrival forced with the proxies (%d rounds each)", rounds),
		Header: []string{"interleaving", "earlier run on", "rounds", "slot holds X only", "E: exit / state", "L: exit / state", "Y back in the queue, content unchanged", "runs touching a post they did not write"}}
	t.Note("X = post %d (first draft), Y = post %d (second draft). E takes X; L read the slot empty before E's write and the queue after it, so it takes Y.", x, y)
	for _, arr := range arrivals {
		for _, order := range [][2]*Machine{{a, b}, {b, a}} {
			e, l := order[0], order[1]
			var ok, yBack, foreign int
			eStates, lStates := Hist{}, Hist{}
			done := 0
			for i := 0; i < rounds && ctx.Err() == nil; i++ {
				e.Proxy.ResetCounts()
				l.Proxy.ResetCounts()
				o, err := arr.run(ctx, h, e, l)
				if err != nil {
					t.Fail("%s, E on %s, round %d: %v%s", arr.name, e.Name, i+1, err, o.explain())
					continue
				}
				done++
				if o.Boundary {
					continue
				}
				if len(o.State.Holders) == 1 && o.State.Holders[0] == x && len(o.State.Stray) == 0 {
					ok++
				} else {
					t.Fail("%s, E on %s: slot holds %v (stray %v)%s", arr.name, e.Name, o.State.Holders, o.State.Stray, o.explain())
				}
				// What each run saw, from its warnings on stderr.
				const sawTwo, gaveBack = "slot holds two posts", "giving ours back to the queue"
				if got := strings.Contains(o.Results[0].Stderr, sawTwo); got != arr.eSeesTwo {
					t.Fail("%s, E on %s: E saw two posts: %v, want %v%s", arr.name, e.Name, got, arr.eSeesTwo, o.explain())
				}
				if !strings.Contains(o.Results[1].Stderr, gaveBack) {
					t.Fail("%s, E on %s: L did not say it gave its post back%s", arr.name, e.Name, o.explain())
				}
				eStates[ExitState(o.Results[0], o.Reports[0])]++
				lStates[ExitState(o.Results[1], o.Reports[1])]++
				if r, okY := o.State.Rows[y]; okY && r.Status == "draft" && o.State.Intact() {
					yBack++
				}
				// Each machine ran one process: every update it sent
				// must be for the post that run wrote (E: X; L: Y).
				for _, c := range []struct {
					m    *Machine
					post int
				}{{e, x}, {l, y}} {
					for _, req := range c.m.Proxy.Requests() {
						if req.Kind == faultproxy.Update && req.PostID() != c.post {
							foreign++
							t.Fail("%s: machine %s sent %s %s %s", arr.name, c.m.Name, req.Method, req.URL, req.Body)
						}
					}
				}
				h.progress("arrival %q E=%s: E %d %s, L %d %s, slot %v, given back %v", arr.name[:20], e.Name,
					o.Results[0].Code, o.Reports[0].State(), o.Results[1].Code, o.Reports[1].State(), o.State.Holders, o.State.GivenBack)
			}
			t.Add(arr.name, e.Name, done, ok, eStates, lStates, yBack, foreign)
		}
	}
	return t
}

// GiveBackFaults forces the "L arrives after E finished" interleaving (L
// must give its post Y back) and injects a fault into L's give-back, the
// second update L sends: its answer lost after the site applied it, the
// connection reset before the site saw it, a 503, or L killed while the
// give-back is held. Then a third run (on E's machine) runs. The slot must
// end with X alone.
func (h *Harness) GiveBackFaults(ctx context.Context, e, l *Machine, rounds int) Table {
	x, y := h.Site.Drafts[0], h.Site.Drafts[1]
	t := Table{Title: fmt.Sprintf("2c. Two machines: faults on the give-back (%d rounds each)", rounds),
		Header: []string{"fault on L's give-back (its second update)", "rounds", "L: exit / state", "give-back reached the site", "slot after L", "next run: exit / state", "slot after the next run", "2+ posts at the end"}}
	t.Note("Interleaving as in 2b, first row (L arrives after E finished, so L must give Y = post %d back; X = post %d). E on machine %s, L on machine %s.", y, x, e.Name, l.Name)
	type variant struct {
		name string
		rule faultproxy.Rule
		kill bool
		// known: a documented window (docs/architecture.md): two posts
		// are expected, and every later run exits 5.
		known bool
	}
	for _, v := range []variant{
		{"answer lost after the site applied it", faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.DropAfterApply, Skip: 1, Times: 1}, false, false},
		{"connection reset before the site saw it", faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.Reset, Skip: 1, Times: 1}, false, false},
		{"503 (the site did not apply it)", faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.Reject, Status: 503, RetryAfter: "1", Skip: 1, Times: 1}, false, false},
		{"connection reset, twice", faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.Reset, Skip: 1, Times: 2}, false, true},
		{"503 every time (the site went down after L's write)", faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.Reject, Status: 503, RetryAfter: "1", Skip: 1}, false, true},
		{"L killed (SIGKILL) while the give-back is held", faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.HoldRequest, Skip: 1, Times: 1}, true, true},
	} {
		var done, doubles int
		lStates, reached, after, next, final := Hist{}, Hist{}, Hist{}, Hist{}, Hist{}
		for i := 0; i < rounds && ctx.Err() == nil; i++ {
			e.Proxy.ResetCounts()
			l.Proxy.ResetCounts()
			ew := e.Proxy.Add(faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.HoldRequest, Times: 1})
			lq := l.Proxy.Add(faultproxy.Rule{Kind: faultproxy.Queue, Action: faultproxy.HoldRequest, Times: 1})
			gb := l.Proxy.Add(v.rule)
			o, err := h.drive(ctx, e, l, func(ctx context.Context, b *Batch) error {
				if err := lq.Wait(ctx, 1); err != nil {
					return err
				}
				ew.Release()
				if err := waitDone(ctx, b, 0); err != nil {
					return err
				}
				lq.Release()
				if v.kill {
					if err := gb.Wait(ctx, 1); err != nil {
						return err
					}
					b.Kill(1)
				}
				return waitDone(ctx, b, 1)
			})
			if err != nil {
				t.Fail("%s, round %d: %v%s", v.name, i+1, err, o.explain())
				continue
			}
			done++
			fwd := 0
			for _, req := range l.Proxy.Requests() {
				if req.Kind == faultproxy.Update && strings.Contains(req.Body, `"draft"`) {
					fwd++ // sent; whether it reached the site is below
				}
			}
			gbReached := l.Proxy.Forwarded()[faultproxy.Update] - 1 // minus L's schedule of Y
			lStates[ExitState(o.Results[1], o.Reports[1])]++
			reached[fmt.Sprint(gbReached)]++
			after[fmt.Sprint(o.State.Holders)]++
			// The next run, on E's machine, without faults.
			rs, tm, err := h.L.Run(ctx, []Proc{h.Publish(e, "next")})
			if err != nil {
				t.Fail("%v", err)
				continue
			}
			n2, err := h.finish(ctx, o.Slot, rs, tm)
			if err != nil {
				t.Fail("%v", err)
				continue
			}
			next[ExitState(rs[0], n2.Reports[0])]++
			final[fmt.Sprint(n2.State.Holders)]++
			if n2.State.Double() {
				doubles++
				switch {
				case v.known && rs[0].Code != 5:
					t.Fail("%s: the slot ends with posts %v and the next run exits %d, want 5", v.name, n2.State.Holders, rs[0].Code)
				case v.known:
				case doubles == 1:
					lsaid := errorLine(o.Results[1].Stderr)
					if lsaid == "" {
						lsaid = "nothing (killed)"
					}
					var warn []string
					if n2.Reports[0] != nil {
						warn = n2.Reports[0].Warnings
					}
					t.Fail("%s: the slot ends with posts %v. L's error: `%s`. The next run (exit %d) warns: %q", v.name, n2.State.Holders,
						lsaid, rs[0].Code, warn)
				}
			}
			h.progress("give-back fault %q %d/%d: L exit %d %s, give-back sent %d reached %d, slot %v; next run %d %s, slot %v",
				v.name, i+1, rounds, o.Results[1].Code, o.Reports[1].State(), fwd, gbReached, o.State.Holders, rs[0].Code, n2.Reports[0].State(), n2.State.Holders)
		}
		name := v.name
		if v.known {
			name += " (known window)"
		}
		t.Add(name, done, lStates, reached, after, next, final, doubles)
	}
	t.Note("A *known window* (docs/architecture.md): a run that must give its post back and cannot leaves two posts; every later run exits 5 and changes neither post. The harness expects exit 5 there.")
	return t
}

// DoubleInFlight: while L's give-back is held (the slot holds X and Y for
// that moment), a third run on E's machine reads the slot. The slot ends
// with X alone once the give-back lands; the table shows what the third
// run reported meanwhile.
func (h *Harness) DoubleInFlight(ctx context.Context, e, l *Machine, rounds int) Table {
	t := Table{Title: fmt.Sprintf("2d. Two machines: a run that reads the slot while another run's give-back is in flight (%d rounds)", rounds),
		Header: []string{"rounds", "third run: exit / state", "third run says", "L: exit / state", "slot at the end"}}
	t.Note("As 2c, but L's give-back is held until a third run, on E's machine (its lock is free), has ended; then it goes through.")
	var done int
	third, lst, final, says := Hist{}, Hist{}, Hist{}, Hist{}
	for i := 0; i < rounds && ctx.Err() == nil; i++ {
		ew := e.Proxy.Add(faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.HoldRequest, Times: 1})
		lq := l.Proxy.Add(faultproxy.Rule{Kind: faultproxy.Queue, Action: faultproxy.HoldRequest, Times: 1})
		gb := l.Proxy.Add(faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.HoldRequest, Skip: 1, Times: 1})
		var tr []Result
		o, err := h.drive(ctx, e, l, func(ctx context.Context, b *Batch) error {
			if err := lq.Wait(ctx, 1); err != nil {
				return err
			}
			ew.Release()
			if err := waitDone(ctx, b, 0); err != nil {
				return err
			}
			lq.Release()
			if err := gb.Wait(ctx, 1); err != nil {
				return err
			}
			var err error
			tr, _, err = h.L.Run(ctx, []Proc{h.Publish(e, "third")})
			gb.Release()
			if err != nil {
				return err
			}
			return waitDone(ctx, b, 1)
		})
		if err != nil || len(tr) == 0 {
			t.Fail("round %d: %v%s", i+1, err, o.explain())
			continue
		}
		done++
		rep := ParseReport(tr[0].Stdout)
		third[ExitState(tr[0], rep)]++
		msg := errorLine(tr[0].Stderr)
		if msg == "" && rep != nil && len(rep.Warnings) > 0 {
			msg = "warning: " + rep.Warnings[0]
		}
		says["`"+msg+"`"]++
		lst[ExitState(o.Results[1], o.Reports[1])]++
		final[fmt.Sprint(o.State.Holders)]++
		if o.State.Double() {
			t.Fail("round %d: the slot ends with %v", i+1, o.State.Holders)
		}
		h.progress("double in flight %d/%d: third run %s (%s); L %s; slot %v", i+1, rounds, ExitState(tr[0], rep), msg,
			ExitState(o.Results[1], o.Reports[1]), o.State.Holders)
	}
	t.Add(done, third, says, lst, final)
	return t
}
