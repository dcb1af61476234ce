package publisher

import (
	"math/rand/v2"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/wpqueue/wpqueue/wpclient"
)

func mustLoc(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func clocks(hm ...string) []Clock {
	var out []Clock
	for _, s := range hm {
		t, err := time.Parse("15:04", s)
		if err != nil {
			panic(err)
		}
		out = append(out, Clock{t.Hour(), t.Minute()})
	}
	return out
}

func TestSlots(t *testing.T) {
	seoul := mustLoc(t, "Asia/Seoul")
	berlin := mustLoc(t, "Europe/Berlin")
	ny := mustLoc(t, "America/New_York")
	tests := []struct {
		name string
		now  string
		s    Schedule
		want []string // slot instants, UTC RFC3339
	}{
		{"seoul daily 07:00, morning after the slot", "2026-11-29T23:00:00Z",
			Schedule{Location: seoul, Times: clocks("07:00"), Ahead: 1, Lead: 15 * time.Minute},
			[]string{"2026-11-30T22:00:00Z"}},
		{"seoul, lead pushes a slot 10 min away to the next day", "2026-11-29T21:50:00Z",
			Schedule{Location: seoul, Times: clocks("07:00"), Ahead: 1, Lead: 15 * time.Minute},
			[]string{"2026-11-30T22:00:00Z"}},
		{"seoul, a slot 10 min away with lead 5m is taken", "2026-11-29T21:50:00Z",
			Schedule{Location: seoul, Times: clocks("07:00"), Ahead: 1, Lead: 5 * time.Minute},
			[]string{"2026-11-29T22:00:00Z"}},
		{"slot exactly lead away is taken", "2026-11-29T21:45:00Z",
			Schedule{Location: seoul, Times: clocks("07:00"), Ahead: 1, Lead: 15 * time.Minute},
			[]string{"2026-11-29T22:00:00Z"}},
		{"two times, ahead 3, unsorted input", "2026-11-29T00:00:00Z",
			Schedule{Location: time.UTC, Times: clocks("19:00", "07:00"), Ahead: 3},
			[]string{"2026-11-29T07:00:00Z", "2026-11-29T19:00:00Z", "2026-11-30T07:00:00Z"}},
		{"weekdays only: saturday night gives monday", "2026-11-28T22:00:00Z", // Sat
			Schedule{Location: time.UTC, Times: clocks("07:00"), Days: []time.Weekday{time.Monday, time.Tuesday}, Ahead: 2},
			[]string{"2026-11-30T07:00:00Z", "2026-12-01T07:00:00Z"}},
		{"berlin across spring-forward keeps 07:00 wall time", "2026-03-27T12:00:00Z",
			Schedule{Location: berlin, Times: clocks("07:00"), Ahead: 3},
			[]string{"2026-03-28T06:00:00Z", "2026-03-29T05:00:00Z", "2026-03-30T05:00:00Z"}},
		{"berlin across fall-back keeps 07:00 wall time", "2026-10-24T12:00:00Z",
			Schedule{Location: berlin, Times: clocks("07:00"), Ahead: 2},
			[]string{"2026-10-25T06:00:00Z", "2026-10-26T06:00:00Z"}},
		{"berlin 02:30 in the spring gap moves to 03:00 CEST", "2026-03-28T12:00:00Z",
			Schedule{Location: berlin, Times: clocks("02:30"), Ahead: 2},
			[]string{"2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"}},
		{"berlin 02:15 and 02:45 collapse into one slot on the gap day", "2026-03-28T12:00:00Z",
			Schedule{Location: berlin, Times: clocks("02:15", "02:45"), Ahead: 3},
			[]string{"2026-03-29T01:00:00Z", "2026-03-30T00:15:00Z", "2026-03-30T00:45:00Z"}},
		{"berlin 02:30 twice on fall-back day: first occurrence (CEST)", "2026-10-24T12:00:00Z",
			Schedule{Location: berlin, Times: clocks("02:30"), Ahead: 2},
			[]string{"2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"}},
		{"new york 02:30 in the spring gap moves to 03:00 EDT", "2026-03-07T12:00:00Z",
			Schedule{Location: ny, Times: clocks("02:30"), Ahead: 2},
			[]string{"2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"}},
		{"new york 01:30 on fall-back day: first occurrence (EDT)", "2026-10-31T12:00:00Z",
			Schedule{Location: ny, Times: clocks("01:30"), Ahead: 2},
			[]string{"2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"}},
		{"manual offset +05:30", "2026-11-29T00:00:00Z",
			Schedule{Location: FixedZone(5.5), Times: clocks("07:00"), Ahead: 2},
			[]string{"2026-11-29T01:30:00Z", "2026-11-30T01:30:00Z"}},
		{"manual offset -9:30", "2026-11-29T00:00:00Z",
			Schedule{Location: FixedZone(-9.5), Times: clocks("07:00"), Ahead: 1},
			[]string{"2026-11-29T16:30:00Z"}},
		{"manual offset 0", "2026-11-29T08:00:00Z",
			Schedule{Location: FixedZone(0), Times: clocks("07:00"), Ahead: 1},
			[]string{"2026-11-30T07:00:00Z"}},
		{"end of year", "2026-12-31T23:30:00Z",
			Schedule{Location: time.UTC, Times: clocks("00:00"), Ahead: 2},
			[]string{"2027-01-01T00:00:00Z", "2027-01-02T00:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Slots(utc(tt.now), tt.s)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d slots %v, want %v", len(got), got, tt.want)
			}
			for i, w := range tt.want {
				if !got[i].At.Equal(utc(w)) {
					t.Errorf("slot %d = %s (%s local), want %s", i, got[i].At.Format(time.RFC3339), got[i].Local(tt.s.Location), w)
				}
				if got[i].At.Location() != time.UTC {
					t.Errorf("slot %d not UTC: %v", i, got[i].At.Location())
				}
			}
		})
	}
}

func TestSlotWindows(t *testing.T) {
	// One daily time: 12 h either side.
	s := Schedule{Location: time.UTC, Times: clocks("07:00"), Ahead: 1}
	got := Slots(utc("2026-11-29T08:00:00Z"), s)[0]
	if !got.Start.Equal(utc("2026-11-29T19:00:00Z")) || !got.End.Equal(utc("2026-11-30T19:00:00Z")) {
		t.Errorf("window = [%s, %s), want [19:00, 19:00 next day)", got.Start, got.End)
	}
	if !got.Contains(got.Start) || got.Contains(got.End) {
		t.Error("window must be half-open [Start, End)")
	}
	// Two times 07:00 and 09:00: the 07:00 slot owns 20:00 (prev day) to 08:00.
	s = Schedule{Location: time.UTC, Times: clocks("07:00", "09:00"), Ahead: 2}
	sl := Slots(utc("2026-11-29T05:00:00Z"), s)
	if !sl[0].Start.Equal(utc("2026-11-28T20:00:00Z")) || !sl[0].End.Equal(utc("2026-11-29T08:00:00Z")) ||
		!sl[1].Start.Equal(utc("2026-11-29T08:00:00Z")) || !sl[1].End.Equal(utc("2026-11-29T20:00:00Z")) {
		t.Errorf("windows = %+v", sl)
	}
	// America/Nuuk 2027-03-27: clocks jump from Saturday 23:00 to Sunday
	// 00:00, so Saturday's 23:30 and Sunday's 00:00 are one instant: one
	// slot, whose window contains it.
	nuuk := mustLoc(t, "America/Nuuk")
	s = Schedule{Location: nuuk, Times: clocks("23:30", "00:00"), Ahead: 3}
	sl = Slots(utc("2027-03-27T12:00:00Z"), s)
	for i, x := range sl {
		if !x.Contains(x.At) || i > 0 && !sl[i-1].At.Before(x.At) {
			t.Errorf("nuuk slots %d: %+v", i, sl)
		}
	}
	if !sl[0].At.Equal(utc("2027-03-28T01:00:00Z")) {
		t.Errorf("nuuk first slot %s, want the transition 2027-03-28T01:00Z", sl[0].At)
	}
	// Mondays only: half a week either side.
	s = Schedule{Location: time.UTC, Times: clocks("07:00"), Days: []time.Weekday{time.Monday}, Ahead: 1}
	w := Slots(utc("2026-11-29T00:00:00Z"), s)[0]
	if w.End.Sub(w.Start) != 7*24*time.Hour || !w.At.Equal(utc("2026-11-30T07:00:00Z")) {
		t.Errorf("weekly window = %+v", w)
	}
}

// TestSlotsProperties checks invariants over many random instants, zones
// and schedules: never in the past or inside lead, exactly Ahead, strictly
// increasing, windows contiguous and containing their slot, wall time kept
// unless in a gap.
func TestSlotsProperties(t *testing.T) {
	zones := []string{"UTC", "Europe/Berlin", "America/New_York", "Asia/Seoul", "Australia/Lord_Howe", "Asia/Kolkata", "America/St_Johns", "Pacific/Chatham", "America/Santiago", "America/Havana", "Africa/Casablanca", "America/Nuuk"}
	r := rand.New(rand.NewPCG(1, 2))
	base := utc("2026-01-01T00:00:00Z")
	for i := 0; i < 3000; i++ {
		loc := mustLoc(t, zones[r.IntN(len(zones))])
		now := base.Add(time.Duration(r.Int64N(int64(366 * 24 * time.Hour))))
		var times []Clock
		for n := 1 + r.IntN(3); n > 0; n-- {
			times = append(times, Clock{r.IntN(24), r.IntN(60)})
		}
		var days []time.Weekday
		if r.IntN(3) == 0 {
			days = []time.Weekday{time.Weekday(r.IntN(7)), time.Weekday(r.IntN(7))}
		}
		s := Schedule{Location: loc, Times: times, Days: days, Ahead: 1 + r.IntN(5), Lead: time.Duration(r.IntN(120)) * time.Minute}
		sl := Slots(now, s)
		if len(sl) != s.Ahead {
			t.Fatalf("%v %+v: %d slots, want %d", now, s, len(sl), s.Ahead)
		}
		for j, x := range sl {
			if x.At.Before(now.Add(s.Lead)) {
				t.Fatalf("%v %+v: slot %v inside lead", now, s, x.At)
			}
			if !x.Contains(x.At) || !x.Start.Before(x.End) {
				t.Fatalf("slot %+v does not contain its instant", x)
			}
			if j > 0 && !sl[j-1].End.Equal(x.Start) {
				t.Fatalf("windows not contiguous: %+v then %+v", sl[j-1], x)
			}
			if !dayAllowed(days, x.At.In(loc).Weekday()) && !inGap(x.At, loc) {
				t.Fatalf("slot %v on a weekday not allowed %v", x.At.In(loc), days)
			}
			local := x.At.In(loc)
			ok := false
			for _, c := range times {
				if local.Hour() == c.Hour && local.Minute() == c.Minute {
					ok = true
				}
			}
			if !ok && !inGap(x.At, loc) {
				t.Fatalf("slot %v (%v) matches no configured time %v", x.At, local, times)
			}
		}
	}
}

// inGap reports whether t is a zone transition instant (where gap times go).
func inGap(t time.Time, loc *time.Location) bool {
	start, _ := t.In(loc).ZoneBounds()
	return start.Equal(t)
}

func TestSiteLocation(t *testing.T) {
	tests := []struct {
		name     string
		override string
		idx      wpclient.Index
		want     string // zone name at a fixed instant
		offset   int
		src      ZoneSource
	}{
		{"timezone_string", "", wpclient.Index{TimezoneString: "Asia/Seoul", GMTOffset: 9}, "KST", 9 * 3600, ZoneFromTimezoneString},
		{"gmt_offset 9", "", wpclient.Index{GMTOffset: 9}, "UTC+9", 9 * 3600, ZoneFromGMTOffset},
		{"gmt_offset 5.5", "", wpclient.Index{GMTOffset: 5.5}, "UTC+5:30", 5*3600 + 1800, ZoneFromGMTOffset},
		{"gmt_offset 5.75", "", wpclient.Index{GMTOffset: 5.75}, "UTC+5:45", 5*3600 + 2700, ZoneFromGMTOffset},
		{"gmt_offset -3.5", "", wpclient.Index{GMTOffset: -3.5}, "UTC-3:30", -3*3600 - 1800, ZoneFromGMTOffset},
		{"gmt_offset 0 (default site)", "", wpclient.Index{}, "UTC", 0, ZoneFromGMTOffset},
		{"override wins", "Europe/Berlin", wpclient.Index{TimezoneString: "Asia/Seoul"}, "CET", 3600, ZoneFromConfig},
		{"unparseable timezone_string falls back to gmt_offset", "", wpclient.Index{TimezoneString: "UTC+9", GMTOffset: 9}, "UTC+9", 9 * 3600, ZoneFromGMTOffset},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, src, err := SiteLocation(tt.override, tt.idx)
			if err != nil {
				t.Fatal(err)
			}
			name, off := utc("2026-01-15T00:00:00Z").In(loc).Zone()
			if name != tt.want || off != tt.offset || src != tt.src {
				t.Errorf("got %s %d %s, want %s %d %s", name, off, src, tt.want, tt.offset, tt.src)
			}
		})
	}
	if _, _, err := SiteLocation("Mars/Olympus", wpclient.Index{}); err == nil {
		t.Error("unknown override zone: want error")
	}
}

// BenchmarkSlots measures slot arithmetic for a busy schedule.
// Run: go test -run '^$' -bench Slots -benchmem ./publisher/
func BenchmarkSlots(b *testing.B) {
	s := Schedule{Location: mustLoc(b, "Europe/Berlin"), Times: clocks("07:00", "12:00", "19:00"), Ahead: 30, Lead: 15 * time.Minute}
	now := utc("2026-03-20T10:00:00Z")
	for b.Loop() {
		Slots(now, s)
	}
}
