package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// statusNow is Sunday 21:00 in Berlin: the window of Monday's 07:00 slot
// (from the midpoint 19:00 Berlin) has begun, so a missed post dated 20:00
// Berlin lies inside it.
var statusNow = time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)

func seedStatus(wp *fakeWP) {
	wp.add(
		// status future, dated an hour ago: WP-Cron missed it. It lies in
		// slot 1's window: it does not fill the slot, but it goes out when
		// WP-Cron runs, so nothing may be added there (blocked).
		fakePost{ID: 20, Status: "future", Title: "Missed one", Content: "x", DateGMT: utc(2026, 11, 29, 19, 0)},
		fakePost{ID: 30, Status: "future", Title: "Already scheduled", Content: "x", DateGMT: slot2},
		draft(7, "Seven", utc(2026, 11, 1, 8, 0)),
		draft(5, "Five", utc(2026, 11, 2, 8, 0)),
		draft(6, "Six", utc(2026, 11, 3, 8, 0)),
		fakePost{ID: 8, Status: "draft", Title: "No body yet", Content: "  ", DateGMT: utc(2026, 11, 4, 8, 0)},
	)
}

func TestStatus(t *testing.T) {
	h := newHarness(t)
	h.now = statusNow
	h.wp.set(func(f *fakeWP) { f.now = statusNow })
	seedStatus(h.wp)

	r := h.run("status", "--schedule-ahead", "2")
	wantCode(t, r, exitOK)
	wantOnlyGets(t, h.wp)
	wantContains(t, "stdout", r.out,
		"site      default ("+h.wp.URL()+")",
		"timezone  Europe/Berlin (the site's timezone_string)",
		"now       Sun 2026-11-29 21:00 CET (2026-11-29 20:00 UTC)",
		"upcoming slots",
		"missed schedule: post #20 \"Missed one\" was due Sun 2026-11-29 20:00 CET (2026-11-29 19:00 UTC)",
		"slot Mon 2026-11-30 07:00 CET (2026-11-30 06:00 UTC) gets no post: missed-schedule post #20",
		"draft #8 \"No body yet\" is never scheduled: empty content",
	)
	// Slot lines: the first is blocked by the missed post (it does not
	// fill the slot, but nothing is added); the second holds #30.
	mustMatch(t, r.out, `(?m)^  Mon 2026-11-30 07:00 CET +2026-11-30 06:00 UTC +#20 +"Missed one" +missed schedule: goes out when WP-Cron runs; nothing added$`)
	mustMatch(t, r.out, `(?m)^  Tue 2026-12-01 07:00 CET +2026-12-01 06:00 UTC +#30 +"Already scheduled" +future$`)
	// The whole queue, in queue order (by id).
	mustMatch(t, r.out, `(?s)queue \(3 publishable, in queue order\)\n  #5 +"Five" +draft\n  #6 +"Six" +draft\n  #7 +"Seven" +draft\n`)
	if i, j := strings.Index(r.out, "upcoming slots"), strings.Index(r.out, "warnings"); i < 0 || j < i {
		t.Errorf("sections out of order:\n%s", r.out)
	}

	// publish agrees: nothing goes into slot 1, whose window holds the
	// missed #20, and #20 is left alone.
	h.wp.reset()
	r = h.run("publish", "--schedule-ahead", "2")
	wantCode(t, r, exitOK)
	wantContains(t, "stdout", r.out, `slot Mon 2026-11-30 07:00 CET (2026-11-30 06:00 UTC) gets nothing: post #20 "Missed one" (future) is a missed schedule in its window`,
		`nothing to do: slot Tue 2026-12-01 07:00 CET (2026-12-01 06:00 UTC) holds post #30 "Already scheduled" (future)`,
		"warning: missed schedule: post #20")
	if w := h.wp.writes(); len(w) != 0 {
		t.Errorf("publish wrote %v", w)
	}
	if p := h.wp.post(20); p.Status != "future" || !p.DateGMT.Equal(utc(2026, 11, 29, 19, 0)) {
		t.Errorf("the missed post changed: %+v", p)
	}
}

func TestStatusJSONAndMissedPost(t *testing.T) {
	h := newHarness(t)
	h.now = statusNow
	h.wp.set(func(f *fakeWP) { f.now = statusNow })
	seedStatus(h.wp)
	r := h.run("status", "-o", "json")
	wantCode(t, r, exitOK)
	rep := decodeReports(t, r.out)[0]
	if rep.Command != "status" || !rep.DryRun {
		t.Errorf("command %q dry_run %v", rep.Command, rep.DryRun)
	}
	if len(rep.Slots) != 1 || rep.Slots[0].State != "blocked" || rep.Slots[0].Post == nil || rep.Slots[0].Post.ID != 20 {
		t.Errorf("slots = %+v, want slot 1 blocked by #20", rep.Slots)
	}
	if len(rep.Missed) != 1 || rep.Missed[0].ID != 20 || rep.Missed[0].DateLocal != "2026-11-29T20:00:00+01:00" {
		t.Errorf("missed = %+v", rep.Missed)
	}
	var ids []int
	for _, q := range rep.Queue {
		ids = append(ids, q.ID)
	}
	if len(ids) != 3 || ids[0] != 5 || ids[1] != 6 || ids[2] != 7 {
		t.Errorf("queue ids = %v, want [5 6 7]", ids)
	}
}

func TestStatusReadsTheQueueWhenSlotsAreFull(t *testing.T) {
	h := newHarness(t)
	h.wp.add(
		fakePost{ID: 30, Status: "future", Title: "Scheduled", Content: "x", DateGMT: slot1},
		draft(5, "Five", utc(2026, 11, 2, 8, 0)),
	)
	r := h.run("status")
	wantCode(t, r, exitOK)
	mustMatch(t, r.out, `(?s)queue \(1 publishable, in queue order\)\n  #5 +"Five" +draft\n`)
	wantContains(t, "stdout", r.out, "the queue is low: 1 publishable draft(s) left")
}

func TestStatusZoneSources(t *testing.T) {
	cases := []struct {
		name     string
		setup    func(t *testing.T, h *harness)
		want     []string
		warnings []string
	}{
		{
			name:  "schedule.timezone wins",
			setup: func(t *testing.T, h *harness) { t.Setenv("WPQUEUE_SCHEDULE_TIMEZONE", "Asia/Seoul") },
			want:  []string{"timezone  Asia/Seoul (from schedule.timezone)", "Mon 2026-11-30 07:00 KST", "2026-11-29 22:00 UTC"},
		},
		{
			name: "manual offset",
			setup: func(t *testing.T, h *harness) {
				h.wp.set(func(f *fakeWP) { f.timezoneString, f.gmtOffset = "", 5.5 })
			},
			want:     []string{"timezone  UTC+5:30 (the site's gmt_offset)", "2026-11-30 01:30 UTC"},
			warnings: []string{"manual UTC offset (UTC+5:30), which has no daylight saving time"},
		},
		{
			name: "default UTC site",
			setup: func(t *testing.T, h *harness) {
				h.wp.set(func(f *fakeWP) { f.timezoneString, f.gmtOffset = "", "0" })
			},
			want: []string{"timezone  UTC (the site's gmt_offset)", "2026-11-30 07:00 UTC"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			tc.setup(t, h)
			h.wp.add(draft(5, "Five", utc(2026, 11, 2, 8, 0)))
			r := h.run("status")
			wantCode(t, r, exitOK)
			wantContains(t, "stdout", r.out, tc.want...)
			wantContains(t, "stdout", r.out, tc.warnings...)
			if len(tc.warnings) == 0 && strings.Contains(r.out, "manual UTC offset") {
				t.Errorf("unexpected manual-offset warning:\n%s", r.out)
			}
		})
	}
}

func TestStatusDoesNotTakeTheLock(t *testing.T) {
	h := newHarness(t)
	seedQueue(h.wp)
	r := h.run("status")
	wantCode(t, r, exitOK)
	wantOnlyGets(t, h.wp)
}

func mustMatch(t *testing.T, s, re string) {
	t.Helper()
	if !regexp.MustCompile(re).MatchString(s) {
		t.Errorf("output does not match %s:\n%s", re, s)
	}
}
