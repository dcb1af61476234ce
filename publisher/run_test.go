package publisher

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wpqueue/wpqueue/wpclient"
)

// Now: 2026-11-29 23:00 UTC; the next 07:00 UTC slot is Nov 30 07:00.
var runNow = utc("2026-11-29T23:00:00Z")

const slot1 = "2026-11-30T07:00:00"
const slot2 = "2026-12-01T07:00:00"

func runPub(ahead int) *Publisher {
	return &Publisher{
		Rules: Rules{Schedule: Schedule{Location: time.UTC, Times: clocks("07:00"), Ahead: ahead, Lead: 15 * time.Minute}},
		Sleep: func(context.Context, time.Duration) error { return nil },
	}
}

func planAndApply(t *testing.T, p *Publisher, f *fakeSite) (Result, error) {
	t.Helper()
	plan, err := p.Plan(context.Background(), f, runNow)
	if err != nil {
		t.Fatal(err)
	}
	return p.Apply(context.Background(), f, plan)
}

func TestApplySchedulesThenNothingToDo(t *testing.T) {
	f := newFake(runNow, draft(4, "a"), draft(5, "b"))
	p := runPub(1)
	res, err := planAndApply(t, p, f)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"list [future publish private]", "list [draft]", "schedule 4 " + slot1, "list [future publish private]"}
	if diff := cmp.Diff(want, f.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if len(res.Outcomes) != 1 || res.Outcomes[0].Kind != Scheduled || res.Outcomes[0].Post.ID != 4 {
		t.Fatalf("outcomes = %+v", res.Outcomes)
	}
	if got := f.posts[4]; got.Status != wpclient.StatusFuture || got.DateGMT.Format(wpclient.DateLayout) != slot1 {
		t.Errorf("post 4 = %+v", got)
	}
	if f.posts[5].Status != wpclient.StatusDraft {
		t.Error("post 5 touched")
	}

	// Again: one read, nothing to do.
	f.calls = nil
	res, err = planAndApply(t, p, f)
	if err != nil || len(res.Outcomes) != 0 {
		t.Fatalf("second run: %v %+v", err, res.Outcomes)
	}
	if diff := cmp.Diff([]string{"list [future publish private]"}, f.calls); diff != "" {
		t.Errorf("second run calls:\n%s", diff)
	}
	if res.Plan.Slots[0].Holders[0].ID != 4 {
		t.Errorf("slot holder = %+v", res.Plan.Slots[0].Holders)
	}
}

func TestApplyAheadFillsInQueueOrder(t *testing.T) {
	f := newFake(runNow, draft(9, "c"), draft(7, "a"), draft(8, "b"))
	res, err := planAndApply(t, runPub(2), f)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outcomes) != 2 || res.Outcomes[0].Post.ID != 7 || res.Outcomes[1].Post.ID != 8 {
		t.Fatalf("outcomes = %+v", res.Outcomes)
	}
	if f.posts[7].DateGMT.Format(wpclient.DateLayout) != slot1 || f.posts[8].DateGMT.Format(wpclient.DateLayout) != slot2 {
		t.Errorf("posts = %+v %+v", f.posts[7], f.posts[8])
	}
	// the plan's read, a fresh look at slot 2 before its write, and one
	// verification read for both slots
	want := []string{"list [future publish private]", "list [draft]", "schedule 7 " + slot1,
		"list [future publish private]", "get 8", "schedule 8 " + slot2, "list [future publish private]"}
	if diff := cmp.Diff(want, f.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestApplyPublishedAtOnceIsVerifyErrorAndStops(t *testing.T) {
	f := newFake(runNow, draft(4, "a"), draft(5, "b"))
	f.onSchedule = func(f *fakeSite, _ int, id int, at time.Time) (wpclient.Post, error) {
		p := f.apply(id, at)
		p.Status = wpclient.StatusPublish // a plugin published it at once
		f.posts[id] = p
		return p, nil
	}
	res, err := planAndApply(t, runPub(2), f)
	var ve *VerifyError
	if !errors.As(err, &ve) || !errors.Is(err, ErrVerify) || ve.PostID != 4 {
		t.Fatalf("err = %v, want VerifyError for post 4", err)
	}
	if !strings.Contains(err.Error(), `status "publish"`) || !strings.Contains(err.Error(), "no further change") {
		t.Errorf("message = %q", err)
	}
	if res.Outcomes[0].Kind != Failed || res.Outcomes[1].Kind != NotRun {
		t.Errorf("outcomes = %+v", res.Outcomes)
	}
	if f.schedule != 1 || slices.ContainsFunc(f.calls, func(c string) bool { return strings.HasPrefix(c, "draft") }) {
		t.Errorf("further writes after a verify failure: %v", f.calls)
	}
}

func TestApplyLostAnswerReReadsAndDoesNotResend(t *testing.T) {
	f := newFake(runNow, draft(4, "a"))
	f.onSchedule = func(f *fakeSite, _ int, id int, at time.Time) (wpclient.Post, error) {
		f.apply(id, at)                             // the site applied it ...
		return wpclient.Post{}, io.ErrUnexpectedEOF // ... and the answer was lost
	}
	res, err := planAndApply(t, runPub(1), f)
	if err != nil {
		t.Fatal(err)
	}
	if f.schedule != 1 || !slices.Contains(f.calls, "get 4") {
		t.Errorf("calls = %v", f.calls)
	}
	if o := res.Outcomes[0]; o.Kind != Scheduled || o.Retried {
		t.Errorf("outcome = %+v", o)
	}
}

func TestApplyFailedWriteRetriesSameIDOnce(t *testing.T) {
	for _, failures := range []int{1, 2} {
		f := newFake(runNow, draft(4, "a"), draft(5, "b"))
		f.onSchedule = func(f *fakeSite, n int, id int, at time.Time) (wpclient.Post, error) {
			if n <= failures {
				return wpclient.Post{}, &wpclient.UnavailableError{Method: "POST", Status: 503, Tries: 1, Write: true}
			}
			return f.apply(id, at), nil
		}
		res, err := planAndApply(t, runPub(1), f)
		var sched []string
		for _, c := range f.calls {
			if strings.HasPrefix(c, "schedule") {
				sched = append(sched, c)
			}
		}
		if diff := cmp.Diff([]string{"schedule 4 " + slot1, "schedule 4 " + slot1}, sched); diff != "" {
			t.Errorf("failures=%d: writes (-want +got):\n%s", failures, diff)
		}
		switch failures {
		case 1:
			if err != nil || res.Outcomes[0].Kind != Scheduled || !res.Outcomes[0].Retried {
				t.Errorf("one failure: err=%v outcome=%+v", err, res.Outcomes[0])
			}
		case 2:
			if err == nil || res.Outcomes[0].Kind != Failed || !errors.Is(err, wpclient.ErrUnavailable) {
				t.Errorf("two failures: err=%v outcome=%+v", err, res.Outcomes[0])
			}
		}
		if f.posts[5].Status != wpclient.StatusDraft {
			t.Error("another draft was touched")
		}
	}
}

func TestApplyDefiniteRefusalsAreNotReRead(t *testing.T) {
	for name, werr := range map[string]error{
		"credentials": &wpclient.CredentialsError{Method: "POST", Status: 401, Code: "rest_cannot_edit"},
		"redirect":    &wpclient.RedirectError{Method: "POST", Status: 301, Location: "https://example.test/"},
		"read-only":   wpclient.ErrReadOnly,
		"400":         &wpclient.APIError{Method: "POST", Status: 400, Code: "rest_invalid_param"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(runNow, draft(4, "a"))
			f.onSchedule = func(*fakeSite, int, int, time.Time) (wpclient.Post, error) { return wpclient.Post{}, werr }
			_, err := planAndApply(t, runPub(1), f)
			if !errors.Is(err, werr) {
				t.Errorf("err = %v", err)
			}
			if f.schedule != 1 || slices.Contains(f.calls, "get 4") {
				t.Errorf("calls = %v", f.calls)
			}
		})
	}
}

func TestApplyPostChangedOutsideIsVerifyError(t *testing.T) {
	f := newFake(runNow, draft(4, "a"))
	f.onSchedule = func(f *fakeSite, _ int, id int, at time.Time) (wpclient.Post, error) {
		p := f.posts[id]
		p.Status = wpclient.StatusPublish // someone published it by hand meanwhile
		f.posts[id] = p
		return wpclient.Post{}, io.EOF
	}
	_, err := planAndApply(t, runPub(1), f)
	if !errors.Is(err, ErrVerify) || f.schedule != 1 {
		t.Errorf("err = %v, writes = %d", err, f.schedule)
	}
}

func TestApplyYieldsToAPostItNeverSawQueued(t *testing.T) {
	f := newFake(runNow, draft(4, "a"), draft(5, "b"))
	orig := f.posts[4].Date
	f.afterWrite = func(f *fakeSite) {
		// Another machine scheduled post 99 (not in our queue) into the slot.
		f.posts[99] = at(draft(99, "other"), wpclient.StatusFuture, slot1+"Z")
	}
	res, err := planAndApply(t, runPub(1), f)
	if err != nil {
		t.Fatal(err)
	}
	o := res.Outcomes[0]
	if o.Kind != Yielded || o.Winner == nil || o.Winner.ID != 99 {
		t.Fatalf("outcome = %+v", o)
	}
	if !slices.Contains(f.calls, "draft 4 "+orig) {
		t.Errorf("post 4 not given back at its former date: %v", f.calls)
	}
	if f.posts[99].Status != wpclient.StatusFuture || f.posts[5].Status != wpclient.StatusDraft {
		t.Error("touched a post this run did not write")
	}
}

func TestApplyKeepsOursAgainstALaterQueuedPost(t *testing.T) {
	f := newFake(runNow, draft(4, "a"), draft(5, "b"))
	f.afterWrite = func(f *fakeSite) {
		// A run that read the queue before ours left it put post 5 (later
		// in queue order) into the same slot; it will yield.
		if f.posts[5].Status == wpclient.StatusDraft {
			f.posts[5] = at(f.posts[5], wpclient.StatusFuture, slot1+"Z")
		}
	}
	res, err := planAndApply(t, runPub(1), f)
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Outcomes[0]; o.Kind != Scheduled || o.Post.ID != 4 {
		t.Fatalf("outcome = %+v", o)
	}
	if slices.ContainsFunc(f.calls, func(c string) bool { return strings.HasPrefix(c, "draft") }) {
		t.Errorf("gave back a post: %v", f.calls)
	}
}

// TestTwoRunsConverge plays two runs whose reads and writes interleave in
// the worst order, both ways round: exactly one post holds the slot after
// both finish.
func TestTwoRunsConverge(t *testing.T) {
	for _, aFirst := range []bool{true, false} {
		f := newFake(runNow, draft(4, "a"), draft(5, "b"))
		pa, pb := runPub(1), runPub(1)
		ctx := context.Background()
		// A reads everything; A writes 4; B reads (slot before A's write
		// is impossible to show with one fake, so B reads the queue after
		// it): B sees 5 first and writes it.
		planA, err := pa.Plan(ctx, f, runNow)
		if err != nil {
			t.Fatal(err)
		}
		held, _ := f.ListPosts(ctx, holderQuery(Slots(runNow, pb.Rules.Schedule)))
		if _, err := f.SchedulePost(ctx, 4, planA.Slots[0].Slot.At); err != nil {
			t.Fatal(err)
		}
		queue, _ := f.ListPosts(ctx, wpclient.ListQuery{Statuses: []wpclient.Status{wpclient.StatusDraft}})
		planB := Decide(runNow, pb.Rules, append(held, queue...))
		if planB.Slots[0].Draft == nil || planB.Slots[0].Draft.ID != 5 {
			t.Fatalf("B's plan = %v", summary(planB))
		}
		f.schedule = 0
		resA := Result{Plan: planA, Outcomes: []Outcome{{Assignment: planA.Assignments()[0], Kind: Scheduled, Post: f.posts[4]}}}
		if _, err := f.SchedulePost(ctx, 5, planB.Slots[0].Slot.At); err != nil {
			t.Fatal(err)
		}
		resB := Result{Plan: planB, Outcomes: []Outcome{{Assignment: planB.Assignments()[0], Kind: Scheduled, Post: f.posts[5]}}}
		if aFirst {
			_ = pa.verify(ctx, f, &resA)
			_ = pb.verify(ctx, f, &resB)
		} else {
			_ = pb.verify(ctx, f, &resB)
			_ = pa.verify(ctx, f, &resA)
		}
		if resA.Outcomes[0].Kind != Scheduled || resB.Outcomes[0].Kind != Yielded {
			t.Errorf("aFirst=%v: A %s, B %s", aFirst, resA.Outcomes[0].Kind, resB.Outcomes[0].Kind)
		}
		final := Decide(runNow, pa.Rules, []wpclient.Post{f.posts[4], f.posts[5]})
		if h := final.Slots[0].Holders; len(h) != 1 || h[0].ID != 4 {
			t.Errorf("aFirst=%v: holders after both runs = %v", aFirst, ids(h))
		}
	}
}

// A cache in front of the site answers listings from its store: the
// verification read does not show our write. The run fails loudly and gives
// its post back, so the next run (reading the same stale listing) cannot
// stack a second post into the slot; across runs, the slot never holds two.
func TestApplyCachedVerificationIsLoudAndGivesBack(t *testing.T) {
	f := newFake(runNow, draft(4, "a"), draft(5, "b"), draft(6, "c"))
	orig := f.posts[4].Date
	f.frozen = map[int]wpclient.Post{4: f.posts[4], 5: f.posts[5], 6: f.posts[6]} // listings come from a stale cache
	for run := 1; run <= 3; run++ {
		f.calls = nil
		res, err := planAndApply(t, runPub(1), f)
		var ve *VerifyError
		if !errors.As(err, &ve) || !ve.GivenBack || !strings.Contains(err.Error(), "cached") {
			t.Fatalf("run %d: err = %v", run, err)
		}
		if res.Outcomes[0].Kind != Failed || !slices.Contains(f.calls, "draft 4 "+orig) {
			t.Errorf("run %d: outcome %+v, calls %v", run, res.Outcomes[0], f.calls)
		}
		future := 0
		for _, p := range f.posts {
			if p.Status == wpclient.StatusFuture {
				future++
			}
		}
		if future != 0 {
			t.Errorf("run %d: %d posts left scheduled behind a stale listing", run, future)
		}
	}
}

func TestApplyPreemptedBeforeALaterWrite(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after func(f *fakeSite)
		note  string
	}{
		{"slot 2 filled by another run", func(f *fakeSite) {
			if _, ok := f.posts[90]; !ok {
				f.posts[90] = at(draft(90, "other"), wpclient.StatusFuture, slot2+"Z")
			}
		}, "filled by post 90"},
		{"post 8 published by hand", func(f *fakeSite) {
			p := f.posts[8]
			if p.Status == wpclient.StatusDraft {
				p.Status, p.DateGMT, p.ModifiedGMT = wpclient.StatusPublish, runNow, runNow
				f.posts[8] = p
			}
		}, "post 8 changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(runNow, draft(7, "a"), draft(8, "b"))
			f.afterWrite = tc.after
			res, err := planAndApply(t, runPub(2), f)
			if err != nil {
				t.Fatal(err)
			}
			if f.schedule != 1 {
				t.Errorf("writes = %d, want 1: %v", f.schedule, f.calls)
			}
			if o := res.Outcomes[1]; o.Kind != Preempted || !strings.Contains(o.Note, tc.note) {
				t.Errorf("outcome = %+v", o)
			}
		})
	}
}

func TestYieldGivesBackWithFormerStatus(t *testing.T) {
	p := runPub(1)
	p.Rules.QueueStatus = wpclient.StatusPending
	pend := draft(4, "a")
	pend.Status = wpclient.StatusPending
	f := newFake(runNow, pend)
	f.afterWrite = func(f *fakeSite) { f.posts[99] = at(draft(99, "by hand"), wpclient.StatusPublish, slot1+"Z") }
	res, err := planAndApply(t, p, f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcomes[0].Kind != Yielded || f.posts[4].Status != wpclient.StatusPending {
		t.Errorf("outcome %+v, post 4 %s, want yielded and pending again", res.Outcomes[0], f.posts[4].Status)
	}
}

func TestApplyStopsOnCancel(t *testing.T) {
	f := newFake(runNow, draft(4, "a"), draft(5, "b"))
	p := runPub(2)
	plan, err := p.Plan(context.Background(), f, runNow)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.afterWrite = func(*fakeSite) { cancel() }
	res, err := p.Apply(ctx, f, plan)
	if !errors.Is(err, context.Canceled) || f.schedule != 1 || res.Outcomes[1].Kind != NotRun {
		t.Errorf("err=%v writes=%d outcomes=%+v", err, f.schedule, res.Outcomes)
	}
}

// TestTwoRunsAheadTwoSameDraftDifferentSlots: run A plans X→s1, Y→s2; run B
// read the slots before A's writes and the queue after A's first, so it
// plans Y→s1, Z→s2. Writes interleave A1, B1, A2, B2. After both verify,
// every slot holds one post, nothing is reported as a verification failure,
// and no run touched a post it did not write.
func TestTwoRunsAheadTwoSameDraftDifferentSlots(t *testing.T) {
	ctx := context.Background()
	f := newFake(runNow, draft(4, "x"), draft(5, "y"), draft(6, "z"))
	pa, pb := runPub(2), runPub(2)
	planA, err := pa.Plan(ctx, f, runNow)
	if err != nil {
		t.Fatal(err)
	}
	slots := Slots(runNow, pb.Rules.Schedule)
	heldB, _ := f.ListPosts(ctx, holderQuery(slots))
	aa := planA.Assignments()
	mustSchedule := func(id int, at time.Time) wpclient.Post {
		p, err := f.SchedulePost(ctx, id, at)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a1 := mustSchedule(aa[0].Post.ID, aa[0].Slot.At)
	queueB, _ := f.ListPosts(ctx, wpclient.ListQuery{Statuses: []wpclient.Status{wpclient.StatusDraft}})
	planB := Decide(runNow, pb.Rules, append(heldB, queueB...))
	ba := planB.Assignments()
	if len(ba) != 2 || ba[0].Post.ID != 5 || ba[1].Post.ID != 6 {
		t.Fatalf("B's plan = %v", summary(planB))
	}
	b1 := mustSchedule(ba[0].Post.ID, ba[0].Slot.At)
	a2 := mustSchedule(aa[1].Post.ID, aa[1].Slot.At)
	b2 := mustSchedule(ba[1].Post.ID, ba[1].Slot.At)
	f.calls = nil
	resA := Result{Plan: planA, Outcomes: []Outcome{{Assignment: aa[0], Kind: Scheduled, Post: a1}, {Assignment: aa[1], Kind: Scheduled, Post: a2}}}
	resB := Result{Plan: planB, Outcomes: []Outcome{{Assignment: ba[0], Kind: Scheduled, Post: b1}, {Assignment: ba[1], Kind: Scheduled, Post: b2}}}
	errA := pa.verify(ctx, f, &resA)
	errB := pb.verify(ctx, f, &resB)
	if errA != nil || errB != nil {
		t.Fatalf("verify: A %v, B %v", errA, errB)
	}
	var drafted []string
	for _, c := range f.calls {
		if strings.HasPrefix(c, "draft") {
			drafted = append(drafted, c)
		}
	}
	if len(drafted) != 1 || !strings.HasPrefix(drafted[0], "draft 6 ") {
		t.Errorf("give-backs = %v, want only B giving back its own post 6", drafted)
	}
	var all []wpclient.Post
	for _, p := range f.posts {
		all = append(all, p)
	}
	final := Decide(runNow, pa.Rules, all)
	for _, sp := range final.Slots {
		if len(sp.Holders) != 1 {
			t.Errorf("slot %s holders %v", sp.Slot.At, ids(sp.Holders))
		}
	}
}

// TestRecheck: a run that found a slot empty and the queue dry re-reads the
// slots; another run's post that arrived meanwhile fills it. A missed
// schedule post does not.
func TestRecheck(t *testing.T) {
	ctx := context.Background()
	f := newFake(runNow)
	p := runPub(2)
	plan, err := p.Plan(ctx, f, runNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Empty()) != 2 {
		t.Fatalf("empty = %v", plan.Empty())
	}
	f.posts[40] = at(draft(40, "other run"), wpclient.StatusFuture, slot1+"Z")
	f.posts[41] = at(draft(41, "missed"), wpclient.StatusFuture, "2026-11-29T22:00:00Z")
	f.calls = nil
	again, err := p.Recheck(ctx, f, plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 2 || !again[0].Filled() || again[0].Holders[0].ID != 40 || again[1].Filled() ||
		again[1].Slot.At.Format(wpclient.DateLayout) != slot2 {
		t.Errorf("rechecked = %+v, want %s held by 40 and %s still empty", again, slot1, slot2)
	}
	if len(f.calls) != 1 {
		t.Errorf("calls = %v, want one listing", f.calls)
	}
}

// A firewall's HTML 403 on the update refused it: nothing was written, so
// the run neither re-reads nor re-sends (no retry of 403).
func TestApplyWAF403OnWriteIsNotResent(t *testing.T) {
	f := newFake(runNow, draft(4, "a"))
	f.onSchedule = func(*fakeSite, int, int, time.Time) (wpclient.Post, error) {
		return wpclient.Post{}, &wpclient.NotJSONError{Method: "POST", Status: 403, ContentType: "text/html", Prefix: "<html>Access denied"}
	}
	_, err := planAndApply(t, runPub(1), f)
	if !errors.Is(err, wpclient.ErrNotJSON) || f.schedule != 1 || slices.Contains(f.calls, "get 4") {
		t.Errorf("err = %v, writes = %d, calls = %v", err, f.schedule, f.calls)
	}
}

// The verification listing is stale (a lagging replica) and shows only
// another run's post in the slot; read by id, ours is still there. The
// normal rule applies, so the run whose post loses gives it back — it is
// not reported as yielded while its post stays scheduled.
func TestVerifyStaleListingWithAnotherHolderReadsOurPost(t *testing.T) {
	f := newFake(runNow, draft(4, "a"), draft(5, "b"))
	p := runPub(1)
	plan, err := p.Plan(context.Background(), f, runNow)
	if err != nil {
		t.Fatal(err)
	}
	// Another run's post 3 (never queued for us) landed in the slot.
	f.afterWrite = func(f *fakeSite) {
		f.posts[3] = at(draft(3, "other"), wpclient.StatusFuture, slot1+"Z")
		// The listing lags: it shows post 3 but not our write.
		f.frozen = map[int]wpclient.Post{3: f.posts[3], 5: f.posts[5]}
	}
	res, err := p.Apply(context.Background(), f, plan)
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Outcomes[0]; o.Kind != Yielded || f.posts[4].Status != wpclient.StatusDraft {
		t.Errorf("outcome %+v, post 4 %s: want our post given back", o, f.posts[4].Status)
	}
}

// A lagging listing that shows our write on the second look: no give-back,
// no error, one pause.
func TestVerifyWaitsForALaggingListing(t *testing.T) {
	f := newFake(runNow, draft(4, "a"))
	p := runPub(1)
	var waits []time.Duration
	p.Sleep = func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		f.frozen = nil // the replica caught up
		return nil
	}
	plan, _ := p.Plan(context.Background(), f, runNow)
	f.afterWrite = func(f *fakeSite) { f.frozen = map[int]wpclient.Post{} }
	res, err := p.Apply(context.Background(), f, plan)
	if err != nil || res.Outcomes[0].Kind != Scheduled || len(waits) != 1 {
		t.Errorf("err %v, outcome %+v, waits %v", err, res.Outcomes[0], waits)
	}
}

// A give-back whose answer is lost is settled by reading the post; one
// that failed before it landed is sent once more.
func TestGiveBackRetriedOnce(t *testing.T) {
	for _, applied := range []bool{true, false} {
		f := newFake(runNow, draft(4, "a"))
		f.afterWrite = func(f *fakeSite) { f.posts[99] = at(draft(99, "by hand"), wpclient.StatusPublish, slot1+"Z") }
		w := &flakyUnschedule{fakeSite: f, applied: applied}
		p := runPub(1)
		plan, _ := p.Plan(context.Background(), w, runNow)
		res, err := p.Apply(context.Background(), w, plan)
		if err != nil || res.Outcomes[0].Kind != Yielded || f.posts[4].Status != wpclient.StatusDraft {
			t.Errorf("applied=%v: err %v, outcome %+v, post 4 %s", applied, err, res.Outcomes[0], f.posts[4].Status)
		}
		if want := map[bool]int{true: 1, false: 2}[applied]; w.calls != want {
			t.Errorf("applied=%v: %d give-backs sent, want %d", applied, w.calls, want)
		}
	}
}

type flakyUnschedule struct {
	*fakeSite
	applied bool
	calls   int
}

func (w *flakyUnschedule) Unschedule(ctx context.Context, id int, st wpclient.Status, date string) (wpclient.Post, error) {
	w.calls++
	if w.calls == 1 {
		if w.applied {
			_, _ = w.fakeSite.Unschedule(ctx, id, st, date)
		}
		return wpclient.Post{}, &wpclient.UnavailableError{Method: "POST", Status: 503, Tries: 1, Write: true}
	}
	return w.fakeSite.Unschedule(ctx, id, st, date)
}

// Just before a write the clock says the slot is under a minute away (the
// run was slow): nothing is written.
func TestApplyClockGuard(t *testing.T) {
	f := newFake(runNow, draft(4, "a"))
	p := runPub(1)
	plan, _ := p.Plan(context.Background(), f, runNow)
	p.Clock = func() time.Time { return plan.Slots[0].Slot.At.Add(-59 * time.Second) }
	res, err := p.Apply(context.Background(), f, plan)
	if err != nil || f.schedule != 0 || res.Outcomes[0].Kind != Preempted {
		t.Errorf("err %v, writes %d, outcome %+v", err, f.schedule, res.Outcomes[0])
	}
}
