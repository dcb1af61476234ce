package racetest

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/wpqueue/wpqueue/internal/faultproxy"
)

// ---------------------------------------------------------------- scenario 3

type killPoint struct {
	name string
	rule faultproxy.Rule
	// written: the killed run's write reached the site.
	written bool
}

var killPoints = []killPoint{
	{"(a) lock taken, first read held", faultproxy.Rule{Kind: faultproxy.Index, Action: faultproxy.HoldRequest, Times: 1}, false},
	{"(b) write request held before the site", faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.HoldRequest, Times: 1}, false},
	{"(c) site applied the write, answer held", faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.HoldResponse, Times: 1}, true},
	{"(d) after the write, verification read held", faultproxy.Rule{Kind: faultproxy.Slots, Action: faultproxy.HoldRequest, Skip: 1, Times: 1}, true},
}

// Kills is scenario 3: a run is killed (SIGKILL) at each point, n times,
// then the next run must finish the job: exactly the first draft in the
// slot, the lock free, no draft lost or changed.
func (h *Harness) Kills(ctx context.Context, n int) Table {
	t := Table{Title: fmt.Sprintf("3. Kills: SIGKILL at four points, %d each, then the next run", n),
		Header: []string{"kill point", "kills", "lock free right after the kill", "slot after the kill", "write reached the site", "next run: exit / state", "then exactly one post (the first draft)", "drafts lost or changed"}}
	m, err := h.NewMachine("kills")
	if err != nil {
		t.Fail("%v", err)
		return t
	}
	defer h.CloseMachine(m)
	want := h.Site.Drafts[0]
	for _, kp := range killPoints {
		var kills, free, oneAfter, damaged, reached int
		after, next := Hist{}, Hist{}
		for i := 0; i < n && ctx.Err() == nil; i++ {
			res, err := h.killOnce(ctx, m, kp.rule)
			if err != nil {
				t.Fail("%s, round %d: %v", kp.name, i+1, err)
				continue
			}
			if res.killed {
				kills++
			}
			if res.lockFree {
				free++
			}
			if res.updatesForwarded > 0 {
				reached++
			}
			after[fmt.Sprint(res.afterKill)]++
			next[ExitState(res.next.Results[0], res.next.Reports[0])]++
			if res.next.Boundary {
				continue
			}
			probs := res.next.State.Problems(want)
			if len(probs) == 0 && len(res.next.State.Holders) == 1 {
				oneAfter++
			}
			if !res.next.State.Intact() {
				damaged++
			}
			if len(probs) > 0 || res.next.Results[0].Code != 0 || !res.lockFree || !res.killed || (res.updatesForwarded > 0) != kp.written {
				t.Fail("%s, round %d: killed %v, lock free %v, update forwarded %d, next run: %s\n%s", kp.name, i+1,
					res.killed, res.lockFree, res.updatesForwarded, strings.Join(probs, "; "), res.next.explain())
			}
			h.progress("kills %s %d/%d: slot after kill %v, next run %d %s, slot %v", kp.name[:3], i+1, n,
				res.afterKill, res.next.Results[0].Code, res.next.Reports[0].State(), res.next.State.Holders)
		}
		t.Add(kp.name, kills, free, after, reached, next, oneAfter, damaged)
	}
	t.Note("The next run starts right after the killed one has ended; it takes the same lock file, and the proxy lets everything through.")
	return t
}

type killResult struct {
	killed           bool
	lockFree         bool
	updatesForwarded int
	afterKill        []int // slot holders right after the kill
	next             RoundOut
}

func (h *Harness) killOnce(ctx context.Context, m *Machine, rule faultproxy.Rule) (killResult, error) {
	var kr killResult
	if err := h.Site.Reset(ctx); err != nil {
		return kr, err
	}
	m.Proxy.ResetCounts()
	slot := h.Slot(time.Now())
	f := m.Proxy.Add(rule)
	b, err := h.L.Start(ctx, []Proc{h.Publish(m, "killed")})
	if err != nil {
		return kr, err
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := f.Wait(wctx, 1); err != nil {
		m.Proxy.Clear()
		b.KillAll()
		rs := b.Wait()
		return kr, fmt.Errorf("the fault was never hit: %v; the run: exit %d %s %s", err, rs[0].Code, firstLine(rs[0].Stdout), firstLine(rs[0].Stderr))
	}
	b.Kill(0)
	rs := b.Wait()
	kr.killed = rs[0].Signal == syscall.SIGKILL
	// The proxy sees the client go away; only then may the held request
	// be dropped (a hold must never forward it later).
	if err := f.WaitGone(wctx, 1); err != nil {
		return kr, err
	}
	m.Proxy.Clear()
	kr.updatesForwarded = m.Proxy.Forwarded()[faultproxy.Update]
	kr.lockFree, err = LockFree(m.Lock)
	if err != nil {
		return kr, err
	}
	st, err := h.Site.Inspect(ctx, slot, time.Now())
	if err != nil {
		return kr, err
	}
	kr.afterKill = st.Holders
	rs2, tm, err := h.L.Run(ctx, []Proc{h.Publish(m, "next")})
	if err != nil {
		return kr, err
	}
	kr.next, err = h.finish(ctx, slot, rs2, tm)
	return kr, err
}

// ---------------------------------------------------------------- scenario 4

// LostAnswers is scenario 4: the update's answer is lost (the proxy drops
// the connection after the site applied it), n rounds; then the update is
// lost before the site saw it (connection reset), n rounds.
func (h *Harness) LostAnswers(ctx context.Context, n int) Table {
	t := Table{Title: fmt.Sprintf("4. Lost answers: %d rounds each", n),
		Header: []string{"fault on the update", "rounds", "exit / state", "updates sent (per run)", "updates that reached the site", "post re-reads (per run)", "slot holds exactly the first draft", "2+ posts"}}
	m, err := h.NewMachine("lost")
	if err != nil {
		t.Fail("%v", err)
		return t
	}
	defer h.CloseMachine(m)
	want := h.Site.Drafts[0]
	for _, v := range []struct {
		name string
		rule faultproxy.Rule
	}{
		{"site applied it, then the connection was dropped", faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.DropAfterApply, Times: 1}},
		{"connection reset before the site saw it", faultproxy.Rule{Kind: faultproxy.Update, Action: faultproxy.Reset, Times: 1}},
	} {
		var done, ok, doubles int
		states, sent, reached, rereads := Hist{}, Hist{}, Hist{}, Hist{}
		for i := 0; i < n && ctx.Err() == nil; i++ {
			m.Proxy.ResetCounts()
			m.Proxy.Add(v.rule)
			o, err := h.Round(ctx, []Proc{h.Publish(m, "run")})
			m.Proxy.Clear()
			if err != nil {
				t.Fail("%s: %v", v.name, err)
				break
			}
			done++
			arr, fwd := m.Proxy.Arrived(), m.Proxy.Forwarded()
			states[ExitState(o.Results[0], o.Reports[0])]++
			sent[fmt.Sprint(arr[faultproxy.Update])]++
			reached[fmt.Sprint(fwd[faultproxy.Update])]++
			rereads[fmt.Sprint(arr[faultproxy.ReadPost])]++
			if o.Boundary {
				continue
			}
			if o.State.Double() {
				doubles++
			}
			probs := o.State.Problems(want)
			if len(probs) == 0 && len(o.State.Holders) == 1 {
				ok++
			}
			if len(probs) > 0 || o.Results[0].Code != 0 || o.Reports[0].State() != "scheduled" {
				t.Fail("%s, round %d: %s%s", v.name, i+1, strings.Join(probs, "; "), o.explain())
			}
			h.progress("lost-answers %q %d/%d: exit %d %s, requests %s, slot %v", v.name[:12], i+1, n,
				o.Results[0].Code, o.Reports[0].State(), arr, o.State.Holders)
		}
		t.Add(v.name, done, states, sent, reached, rereads, ok, doubles)
	}
	return t
}

// ---------------------------------------------------------------- scenario 5

// ReadFaults is scenario 5: each read of a publish run fails with 503 or
// 429 (Retry-After: 1), a connection reset, or a stall past the 1 s
// request timeout; first twice (the retries get through), then every
// time. No fault may cause a second post; a run that gives up exits 1
// with a message that says why.
//
// only, when not empty, keeps the cells whose "fault on read (how often)"
// contains it.
func (h *Harness) ReadFaults(ctx context.Context, rounds int, only string) Table {
	t := Table{Title: "5. Read faults (site.timeout 1s; a read is tried 4 times)",
		Header: []string{"fault", "on the read", "how often", "exit", "took", "requests of that kind", "slot after", "state, or the error (first line)", "next run: exit, state"}}
	m, err := h.NewMachine("faults")
	if err != nil {
		t.Fail("%v", err)
		return t
	}
	defer h.CloseMachine(m)
	want := h.Site.Drafts[0]
	faults := []struct {
		name string
		rule faultproxy.Rule
	}{
		{"503 + Retry-After: 1", faultproxy.Rule{Action: faultproxy.Reject, Status: 503, RetryAfter: "1"}},
		{"429 + Retry-After: 1", faultproxy.Rule{Action: faultproxy.Reject, Status: 429, RetryAfter: "1"}},
		{"connection reset", faultproxy.Rule{Action: faultproxy.Reset}},
		{"stall 3s (timeout 1s)", faultproxy.Rule{Action: faultproxy.Stall, Delay: 3 * time.Second}},
	}
	targets := []struct {
		name string
		kind faultproxy.Kind
		skip int
	}{
		{"index (first read)", faultproxy.Index, 0},
		{"slot listing", faultproxy.Slots, 0},
		{"queue listing", faultproxy.Queue, 0},
		{"verification listing", faultproxy.Slots, 1},
	}
	codes := Hist{}
	for _, fl := range faults {
		for _, tg := range targets {
			for _, mode := range []struct {
				name  string
				times int
			}{{"first 2 tries", 2}, {"every try", 0}} {
				if only != "" && !strings.Contains(fmt.Sprintf("%s on %s (%s)", fl.name, tg.name, mode.name), only) {
					continue
				}
				for i := 0; i < rounds && ctx.Err() == nil; i++ {
					rule := fl.rule
					rule.Kind, rule.Skip, rule.Times = tg.kind, tg.skip, mode.times
					m.Proxy.ResetCounts()
					m.Proxy.Add(rule)
					o, err := h.Round(ctx, []Proc{h.Publish(m, "run", "WPQUEUE_SITE_TIMEOUT=1s")})
					m.Proxy.Clear()
					if err != nil {
						t.Fail("%s on %s: %v", fl.name, tg.name, err)
						continue
					}
					r, rep := o.Results[0], o.Reports[0]
					tries := m.Proxy.Arrived()[tg.kind] - tg.skip
					codes[fmt.Sprint(r.Code)]++
					msg := rep.State()
					if rep != nil && rep.Error != "" {
						msg = "wpqueue: " + firstLine(rep.Error)
					}
					if strings.Contains(r.Stderr, "update failed") {
						h.progress("note: the update failed although the fault is on a read:\n%s", r.Stderr)
					}
					next := "—"
					written := mode.times == 0 && tg.skip == 1 // the write happened before the failing read
					switch {
					case o.State.Double():
						t.Fail("%s on %s (%s): slot holds %v%s", fl.name, tg.name, mode.name, o.State.Holders, o.explain())
					case mode.times == 2 && (r.Code != 0 || len(o.State.Holders) != 1 || o.State.Holders[0] != want):
						t.Fail("%s on %s (%s): want exit 0 and the first draft scheduled%s", fl.name, tg.name, mode.name, o.explain())
					case mode.times == 0 && r.Code != 1:
						t.Fail("%s on %s (%s): want exit 1 (site unavailable)%s", fl.name, tg.name, mode.name, o.explain())
					case mode.times == 0 && written != (len(o.State.Holders) == 1):
						t.Fail("%s on %s (%s): slot holds %v%s", fl.name, tg.name, mode.name, o.State.Holders, o.explain())
					}
					if mode.times == 0 {
						// The next run, without faults, finishes the job.
						rs, tm, err := h.L.Run(ctx, []Proc{h.Publish(m, "next")})
						if err == nil {
							n2, err2 := h.finish(ctx, o.Slot, rs, tm)
							if err2 == nil {
								next = ExitState(rs[0], n2.Reports[0])
								if p := n2.State.Problems(want); len(p) > 0 || rs[0].Code != 0 {
									t.Fail("after %s on %s: the next run: %s%s", fl.name, tg.name, strings.Join(p, "; "), n2.explain())
								}
							}
						}
					}
					t.Add(fl.name, tg.name, mode.name, r.Code, fmt.Sprintf("%.1fs", r.Took().Seconds()),
						tries, fmt.Sprint(o.State.Holders), "`"+msg+"`", next)
					h.progress("read-faults %s on %s (%s): exit %d in %.1fs, slot %v: %s", fl.name, tg.name, mode.name,
						r.Code, r.Took().Seconds(), o.State.Holders, msg)
				}
			}
		}
	}
	t.Note("exit statuses: %s. \"next run\" is a run without faults right after a run that gave up.", codes)
	return t
}
