package publisher

import (
	"sort"
	"testing"
	"time"
)

// fuzzZones are zones with the awkward cases: no DST, DST forward and
// back, half- and quarter-hour offsets, +13:45 and +14, a negative DST
// (Dublin), a two-hour DST (Troll), a skipped calendar day (Apia, 2011), a
// transition at midnight (Nuuk, Havana, Santiago) and moving rules
// (Casablanca).
var fuzzZones = []string{
	"UTC", "Europe/Berlin", "America/New_York", "Asia/Seoul", "Australia/Lord_Howe", "Asia/Kolkata",
	"America/St_Johns", "Pacific/Chatham", "America/Santiago", "America/Havana", "Africa/Casablanca",
	"America/Nuuk", "Pacific/Apia", "Pacific/Kiritimati", "Europe/Dublin", "Antarctica/Troll",
	"Asia/Kathmandu", "Asia/Tehran", "Australia/Adelaide", "America/Caracas",
}

// FuzzSlots checks the invariants of Slots over arbitrary zones, instants
// and schedules: exactly Ahead slots, none before now+Lead, strictly
// increasing, windows contiguous and each containing its slot, wall times
// and weekdays as configured (unless moved out of a DST gap), and no slot
// time skipped between now+Lead and the last slot. Without -fuzz only the
// seeds and testdata/fuzz run:
//
//	go test -run '^$' -fuzz FuzzSlots -fuzztime 2m ./publisher/
func FuzzSlots(f *testing.F) {
	f.Add(uint8(1), int64(1795900000), []byte{7, 0}, uint8(0), uint8(1), uint16(15))
	f.Add(uint8(11), int64(1806000000), []byte{23, 30, 0, 0}, uint8(0x41), uint8(5), uint16(0))
	f.Add(uint8(12), int64(1325203200), []byte{7, 0, 12, 0, 19, 0}, uint8(0), uint8(10), uint16(60))
	f.Add(uint8(2), int64(1793512800), []byte{2, 30}, uint8(0x7f), uint8(3), uint16(1440))
	f.Add(uint8(15), int64(1774749600), []byte{1, 0, 2, 0, 3, 0}, uint8(0x01), uint8(4), uint16(1))
	f.Fuzz(func(t *testing.T, zone uint8, now int64, times []byte, days uint8, ahead uint8, leadMin uint16) {
		loc, err := time.LoadLocation(fuzzZones[int(zone)%len(fuzzZones)])
		if err != nil {
			t.Fatal(err)
		}
		// Instants from 1970 to 2100, to the second.
		const lo, span = 0, 130 * 365 * 24 * 3600
		n := now % span
		if n < 0 {
			n += span
		}
		at := time.Unix(lo+n, 0).UTC()
		s := Schedule{Location: loc, Ahead: 1 + int(ahead)%40, Lead: time.Duration(leadMin%(3*24*60)) * time.Minute}
		for i := 0; i+1 < len(times) && len(s.Times) < 8; i += 2 {
			s.Times = append(s.Times, Clock{Hour: int(times[i]) % 24, Minute: int(times[i+1]) % 60})
		}
		if len(s.Times) == 0 {
			s.Times = []Clock{{7, 0}}
		}
		for d := time.Sunday; d <= time.Saturday; d++ {
			if days&(1<<d) != 0 {
				s.Days = append(s.Days, d)
			}
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}

		sl := Slots(at, s)
		if len(sl) != s.Ahead {
			t.Fatalf("%s %+v: %d slots, want %d", at, s, len(sl), s.Ahead)
		}
		earliest := at.Add(s.Lead)
		for j, x := range sl {
			if x.At.Location() != time.UTC || x.Start.Location() != time.UTC || x.End.Location() != time.UTC {
				t.Fatalf("slot %+v: not UTC", x)
			}
			if x.At.Before(earliest) {
				t.Fatalf("%s lead %s: slot %s before now+lead", at, s.Lead, x.At)
			}
			if !x.Start.Before(x.End) || !x.Contains(x.At) {
				t.Fatalf("slot %+v: window does not contain its instant", x)
			}
			if j > 0 {
				if !sl[j-1].At.Before(x.At) {
					t.Fatalf("slots not strictly increasing: %s then %s", sl[j-1].At, x.At)
				}
				if !sl[j-1].End.Equal(x.Start) {
					t.Fatalf("windows not contiguous: %+v then %+v", sl[j-1], x)
				}
			}
			gap := inGap(x.At, loc)
			local := x.At.In(loc)
			if !dayAllowed(s.Days, local.Weekday()) && !gap {
				t.Fatalf("slot %s on %s, days %v", local, local.Weekday(), s.Days)
			}
			ok := gap
			for _, c := range s.Times {
				ok = ok || (local.Hour() == c.Hour && local.Minute() == c.Minute)
			}
			if !ok {
				t.Fatalf("slot %s (%s) matches no time in %v", x.At, local, s.Times)
			}
		}

		// Every configured wall time between now+lead and the last slot is
		// one of the slots: none skipped. Candidates come from WallTime on
		// each calendar day around that range.
		last := sl[len(sl)-1].At
		var want []time.Time
		first := earliest.In(loc)
		day := time.Date(first.Year(), first.Month(), first.Day(), 12, 0, 0, 0, loc).AddDate(0, 0, -2)
		for d := day; !d.After(last.Add(72 * time.Hour)); d = d.AddDate(0, 0, 1) {
			if !dayAllowed(s.Days, d.Weekday()) {
				continue
			}
			for _, c := range s.Times {
				w := WallTime(d.Year(), d.Month(), d.Day(), c.Hour, c.Minute, loc)
				if !w.Before(earliest) && !w.After(last) {
					want = append(want, w)
				}
			}
		}
		sort.Slice(want, func(i, j int) bool { return want[i].Before(want[j]) })
		want = dedupe(want)
		if len(want) != len(sl) {
			t.Fatalf("%s %+v: %d slot times in [now+lead, last slot], Slots gave %d:\nwant %v\ngot  %v", at, s, len(want), len(sl), want, sl)
		}
		for i := range want {
			if !want[i].Equal(sl[i].At) {
				t.Fatalf("%s %+v: slot %d is %s, want %s", at, s, i, sl[i].At, want[i])
			}
		}
	})
}
