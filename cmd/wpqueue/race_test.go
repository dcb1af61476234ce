package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A run that finds the slot empty and the queue dry because another run
// (another machine) took the last draft between this run's two reads must
// look at the slot again: it is filled, so exit 0, not 4.
func TestDryQueueButSlotFilledMeanwhileIsNothingToDo(t *testing.T) {
	h := newHarness(t)
	slot := utc(2026, 11, 30, 6, 0) // 07:00 Berlin
	h.wp.add(draft(77, "Taken by the other run", slot.AddDate(0, 0, -3)))
	h.wp.set(func(f *fakeWP) {
		f.after = func(r fakeRequest) {
			if r.Method == "GET" && strings.Contains(r.Query.Get("status"), "future") && len(f.requests()) <= 3 {
				// The other run schedules post 77 right after our slot read.
				f.mu.Lock()
				p := f.posts[77]
				p.Status, p.DateGMT = "future", slot
				f.mu.Unlock()
			}
		}
	})
	r := h.run("publish", "-o", "json")
	wantCode(t, r, exitOK)
	if n := len(h.wp.writes()); n != 0 {
		t.Errorf("%d writes, want none", n)
	}
	var rep siteReport
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	if s := rep.Slots[0]; s.State != stateFilled || s.Post == nil || s.Post.ID != 77 {
		t.Errorf("slot = %+v, want filled by #77", s)
	}
	for _, w := range rep.Warnings {
		if strings.Contains(w, "upcoming slot(s) will stay empty") {
			t.Errorf("stale warning %q", w)
		}
	}
}

// Without the other run, the same situation is a dry queue: exit 4 after
// one extra read.
func TestDryQueueRecheckStillEmptyIsExit4(t *testing.T) {
	h := newHarness(t)
	r := h.run("publish", "-o", "json")
	wantCode(t, r, exitNoDraft)
	var rep siteReport
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	if rep.Slots[0].State != stateEmpty || rep.Queue == nil || len(rep.Queue) != 0 {
		t.Errorf("slot %+v queue %v, want empty and [] (read, none left)", rep.Slots[0], rep.Queue)
	}
	if !strings.Contains(r.out, `"queue":[]`) {
		t.Errorf("queue must be [] when read and empty:\n%s", r.out)
	}
}

// A no-op run does not read the queue: JSON says null, not [].
func TestQueueNullWhenNotRead(t *testing.T) {
	h := newHarness(t)
	h.wp.add(fakePost{ID: 3, Status: "future", Title: "Held", Content: "x", DateGMT: utc(2026, 11, 30, 6, 0)})
	r := h.run("publish", "-o", "json")
	wantCode(t, r, exitOK)
	if !strings.Contains(r.out, `"queue":null`) {
		t.Errorf("want queue null:\n%s", r.out)
	}
}

// A slot that already holds two posts is a broken promise wpqueue will not
// repair (it never touches posts it did not write): publish says so and
// exits 5 on every run, writing nothing; status only warns.
func TestDoubleSlotExits5(t *testing.T) {
	h := newHarness(t)
	slot := utc(2026, 11, 30, 6, 0)
	h.wp.add(
		fakePost{ID: 3, Status: "future", Title: "One", Content: "x", DateGMT: slot},
		fakePost{ID: 4, Status: "future", Title: "Two", Content: "x", DateGMT: slot.Add(time.Minute)},
		draft(9, "Queued", slot.AddDate(0, 0, -2)),
	)
	r := h.run("publish")
	wantCode(t, r, exitVerify)
	wantContains(t, "stderr", r.errOut, "holds 2 posts: #3 (future), #4 (future)", "unschedule all but one by hand")
	if n := len(h.wp.writes()); n != 0 {
		t.Errorf("%d writes", n)
	}
	r = h.run("status")
	wantCode(t, r, exitOK)
	wantContains(t, "stdout", r.out, "holds 2 posts")
}
