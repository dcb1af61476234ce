package e2e

import (
	"strconv"
	"testing"
	"time"
)

// TestDSTDaysEndToEnd runs the real binary against the Europe/Berlin site
// with a slot at 02:30, a wall time that does not exist on the spring-
// forward day and occurs twice on the fall-back day, and asks the dry run
// for enough slots ahead to reach both days of 2027 (the binary has no
// clock override, so the slots must reach the DST days from today). The
// expected instants are written out by hand, not computed with the
// product's code: 02:30 on 2027-03-28 moves forward to 03:00 CEST
// (01:00 UTC); 02:30 on 2027-10-31 is its first occurrence, CEST
// (00:30 UTC); the days around keep their wall time.
func TestDSTDaysEndToEnd(t *testing.T) {
	s := needSite(t, "pretty")
	s.reset(t)
	now := time.Now()
	if now.After(time.Date(2027, 3, 20, 0, 0, 0, 0, time.UTC)) {
		t.Skip("the expected DST days below are in 2027; update them")
	}
	ahead := int(time.Date(2027, 11, 2, 0, 0, 0, 0, time.UTC).Sub(now).Hours()/24) + 2
	r := s.run(t, runOpts{env: []string{"WPQUEUE_SCHEDULE_TIMES=02:30", "WPQUEUE_SCHEDULE_LEAD=1m"}},
		"publish", "--dry-run", "--output", "json", "--schedule-ahead", strconv.Itoa(ahead))
	if r.code != 0 && r.code != 4 { // 4: far more slots than drafts
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	rep := parseReport(t, r)
	got := map[string]jsonSlot{}
	for _, sl := range rep.Slots {
		got[sl.At.UTC().Format(time.RFC3339)] = sl
	}
	for at, local := range map[string]string{
		"2027-03-27T01:30:00Z": "2027-03-27T02:30:00+01:00", // the day before: CET
		"2027-03-28T01:00:00Z": "2027-03-28T03:00:00+02:00", // 02:30 does not exist: the transition
		"2027-03-29T00:30:00Z": "2027-03-29T02:30:00+02:00", // the day after: CEST
		"2027-10-30T00:30:00Z": "2027-10-30T02:30:00+02:00",
		"2027-10-31T00:30:00Z": "2027-10-31T02:30:00+02:00", // 02:30 twice: the first, CEST
		"2027-11-01T01:30:00Z": "2027-11-01T02:30:00+01:00", // CET again
	} {
		sl, ok := got[at]
		if !ok {
			t.Errorf("no slot at %s (local %s)", at, local)
			continue
		}
		if sl.Local != local {
			t.Errorf("slot %s: local %s, want %s", at, sl.Local, local)
		}
	}
	// One slot per calendar day: nothing doubled or skipped on DST days.
	days := map[string]int{}
	for _, sl := range rep.Slots {
		days[sl.Local[:10]]++
	}
	for d, n := range days {
		if n != 1 {
			t.Errorf("%s has %d slots", d, n)
		}
	}
}
