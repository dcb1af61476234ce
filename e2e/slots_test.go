package e2e

import (
	"testing"
	"time"
)

// The product's defaults, which the tests rely on: one slot a day at 07:00
// site time, the first at least 15 minutes from now.
const (
	slotHour, slotMinute = 7, 0
	lead                 = 15 * time.Minute
)

// expectedSlots computes, independently of the product's code, the next n
// daily 07:00 instants in loc that lie at least lead after now: calendar
// arithmetic on the wall clock (time.Date per day), in UTC.
func expectedSlots(now time.Time, loc *time.Location, n int) []time.Time {
	return expectedSlotsAt(now, loc, slotHour, slotMinute, n)
}

// expectedSlotsAt is expectedSlots for daily slots at hh:mm site time.
func expectedSlotsAt(now time.Time, loc *time.Location, hh, mm, n int) []time.Time {
	local := now.In(loc)
	y, m, d := local.Date()
	earliest := now.Add(lead)
	var out []time.Time
	for i := 0; len(out) < n; i++ {
		at := time.Date(y, m, d+i, hh, mm, 0, 0, loc)
		if at.Before(earliest) {
			continue
		}
		out = append(out, at.UTC())
	}
	return out
}

// slotPlan is the slots one test expects; fixed at the test's start.
type slotPlan struct {
	site  *wpSite
	slots []time.Time
}

// planSlots fixes the next n slots for a test. When the first slot would
// change within the next minute and a half (now+15m crossing 07:00 site
// time), it first waits for that to pass, so that the test and every
// wpqueue run in it agree on the slots. done (deferred by the caller)
// fails loudly if the slots changed during the test anyway.
func planSlots(t *testing.T, s *wpSite, n int) *slotPlan {
	t.Helper()
	now := time.Now()
	first := expectedSlots(now, s.loc, 1)[0]
	if until := first.Add(-lead).Sub(now); until < 90*time.Second {
		wait := until + 3*time.Second
		t.Logf("the next slot changes in %s (now+15m reaches %s); waiting for that", until.Round(time.Second), first.In(s.loc).Format(time.RFC3339))
		time.Sleep(wait)
	}
	p := &slotPlan{site: s, slots: expectedSlots(time.Now(), s.loc, n)}
	t.Cleanup(func() {
		now := expectedSlots(time.Now(), s.loc, n)
		if !now[0].Equal(p.slots[0]) {
			t.Errorf("timing: the next slot moved from %s to %s during the test; its results are not meaningful (not a product bug)", p.slots[0], now[0])
		}
	})
	return p
}

// TestExpectedSlots checks the test's own slot arithmetic on known
// instants, so a failure elsewhere points at the product, not the test.
func TestExpectedSlots(t *testing.T) {
	seoul, err := time.LoadLocation("Asia/Seoul")
	if err != nil {
		t.Fatal(err)
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	kolkata := time.FixedZone("+05:30", 5*3600+1800)
	u := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		now  string
		loc  *time.Location
		want []string
	}{
		// 08:15 KST: today's 07:00 is past; tomorrow 07:00 KST = 22:00 UTC today.
		{"2026-11-29T23:15:00Z", seoul, []string{"2026-11-30T22:00:00Z", "2026-12-01T22:00:00Z"}},
		// 06:44 KST: 07:00 is 16 min away, at least the lead: today.
		{"2026-11-29T21:44:00Z", seoul, []string{"2026-11-29T22:00:00Z"}},
		// 06:46 KST: 07:00 is 14 min away, less than the lead: tomorrow.
		{"2026-11-29T21:46:00Z", seoul, []string{"2026-11-30T22:00:00Z"}},
		// 06:45 KST exactly: 07:00 is exactly the lead away: still today.
		{"2026-11-29T21:45:00Z", seoul, []string{"2026-11-29T22:00:00Z"}},
		{"2026-11-29T06:00:00Z", time.UTC, []string{"2026-11-29T07:00:00Z", "2026-11-30T07:00:00Z", "2026-12-01T07:00:00Z"}},
		// 07:00 at +05:30 is 01:30 UTC.
		{"2026-11-29T02:00:00Z", kolkata, []string{"2026-11-30T01:30:00Z"}},
		// Berlin across the end of DST (2026-10-25): 07:00 CEST = 05:00Z, then 07:00 CET = 06:00Z.
		{"2026-10-24T12:00:00Z", berlin, []string{"2026-10-25T06:00:00Z", "2026-10-26T06:00:00Z"}},
		{"2026-10-23T12:00:00Z", berlin, []string{"2026-10-24T05:00:00Z", "2026-10-25T06:00:00Z"}},
	} {
		got := expectedSlots(u(c.now), c.loc, len(c.want))
		for i := range c.want {
			if !got[i].Equal(u(c.want[i])) {
				t.Errorf("expectedSlots(%s, %s)[%d] = %s, want %s", c.now, c.loc, i, got[i].Format(time.RFC3339), c.want[i])
			}
		}
	}
}
