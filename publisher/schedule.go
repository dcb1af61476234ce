package publisher

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/wpqueue/wpqueue/wpclient"
)

// Clock is a wall-clock time of day in the site zone, minute resolution.
type Clock struct {
	Hour, Minute int
}

// String returns the clock as "HH:MM".
func (c Clock) String() string { return fmt.Sprintf("%02d:%02d", c.Hour, c.Minute) }

// Schedule says when posts go out.
type Schedule struct {
	// Location is the site zone in which Times are read. Required.
	Location *time.Location
	// Times are the site-local times of day of the slots. Order and
	// duplicates do not matter. At least one is required.
	Times []Clock
	// Days are the weekdays (in the site zone) that have slots; empty means
	// every day.
	Days []time.Weekday
	// Ahead is how many upcoming slots to keep filled; at least 1.
	Ahead int
	// Lead is the least time between now and a slot that may be filled.
	// WordPress publishes at once a post whose future date is less than
	// about a minute away (wp_insert_post turns 'future' into 'publish'
	// when post_date_gmt is not in the future), so Lead keeps a margin.
	Lead time.Duration
}

// Slot is one publishing slot.
type Slot struct {
	// At is the instant the post goes out, UTC.
	At time.Time
	// Start and End bound the slot's window, UTC, half-open [Start, End):
	// the instants nearer to At than to the neighbouring slots. A post
	// dated inside the window fills the slot.
	Start, End time.Time
}

// Local returns At in the given zone (the site zone), for display.
func (s Slot) Local(loc *time.Location) time.Time { return s.At.In(loc) }

// Contains reports whether t lies in the slot's window.
func (s Slot) Contains(t time.Time) bool {
	return !t.Before(s.Start) && t.Before(s.End)
}

// ErrSchedule is wrapped by every error [Schedule.Validate] returns.
var ErrSchedule = errors.New("invalid schedule")

// Validate checks the schedule's fields. It returns an error wrapping
// [ErrSchedule] naming the field.
func (s Schedule) Validate() error {
	switch {
	case s.Location == nil:
		return fmt.Errorf("%w: no time zone", ErrSchedule)
	case len(s.Times) == 0:
		return fmt.Errorf("%w: no slot times", ErrSchedule)
	case s.Ahead < 1:
		return fmt.Errorf("%w: ahead %d must be at least 1", ErrSchedule, s.Ahead)
	case s.Lead < 0:
		return fmt.Errorf("%w: lead %s must not be negative", ErrSchedule, s.Lead)
	}
	for _, c := range s.Times {
		if c.Hour < 0 || c.Hour > 23 || c.Minute < 0 || c.Minute > 59 {
			return fmt.Errorf("%w: time %02d:%02d out of range", ErrSchedule, c.Hour, c.Minute)
		}
	}
	for _, d := range s.Days {
		if d < time.Sunday || d > time.Saturday {
			return fmt.Errorf("%w: weekday %d out of range", ErrSchedule, d)
		}
	}
	return nil
}

// Slots returns the next s.Ahead slots whose instant is at least s.Lead
// after now, in time order, with their windows.
//
// Slot instants come from calendar arithmetic in s.Location: "07:00 on the
// next day", never "+24h", so a DST day of 23 or 25 hours keeps the wall
// time. A wall time that does not exist on a day (the spring-forward gap)
// moves forward to the first instant that does (the transition itself); a
// wall time that occurs twice (fall-back) means its first occurrence. Two
// times that land on one instant make one slot.
//
// Each window reaches half-way to the neighbouring slot instants, including
// neighbours that are already past or beyond Ahead. Slots panics if s is
// invalid; call [Schedule.Validate] first.
func Slots(now time.Time, s Schedule) []Slot {
	if err := s.Validate(); err != nil {
		panic(err)
	}
	now = now.UTC()
	earliest := now.Add(s.Lead)
	// Collect slot instants from a few days before now until we have one
	// before earliest and Ahead+1 at or after it (the extra one bounds the
	// last window).
	var all []time.Time
	first := now.In(s.Location)
	day := time.Date(first.Year(), first.Month(), first.Day(), 12, 0, 0, 0, s.Location).AddDate(0, 0, -8)
	for i := 0; countFrom(all, earliest) < s.Ahead+1; i++ {
		d := day.AddDate(0, 0, i)
		if !dayAllowed(s.Days, d.Weekday()) {
			continue
		}
		all = append(all, dayInstants(d, s.Times, s.Location)...)
		// Not only within a day: in America/Nuuk clocks jump from
		// Saturday 23:00 to Sunday 00:00, so 23:30 (moved to the
		// transition) and the next day's 00:00 are one instant.
		sort.Slice(all, func(i, j int) bool { return all[i].Before(all[j]) })
		all = dedupe(all)
	}

	var out []Slot
	for i, at := range all {
		if at.Before(earliest) || i == 0 || i == len(all)-1 {
			continue
		}
		out = append(out, Slot{
			At:    at,
			Start: midpoint(all[i-1], at),
			End:   midpoint(at, all[i+1]),
		})
		if len(out) == s.Ahead {
			break
		}
	}
	return out
}

// countFrom counts the instants in sorted ts at or after t.
func countFrom(ts []time.Time, t time.Time) int {
	i := sort.Search(len(ts), func(i int) bool { return !ts[i].Before(t) })
	return len(ts) - i
}

func dayAllowed(days []time.Weekday, wd time.Weekday) bool {
	if len(days) == 0 {
		return true
	}
	for _, d := range days {
		if d == wd {
			return true
		}
	}
	return false
}

// dayInstants returns the UTC instants of the given wall times on the
// calendar day of d (in loc).
func dayInstants(d time.Time, times []Clock, loc *time.Location) []time.Time {
	out := make([]time.Time, 0, len(times))
	for _, c := range times {
		out = append(out, WallTime(d.Year(), d.Month(), d.Day(), c.Hour, c.Minute, loc))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return dedupe(out)
}

// WallTime returns the UTC instant at which the wall clock in loc shows the
// given date and time. Unlike [time.Date], whose choice in a DST gap or
// overlap is not specified (and differs between zones in practice), it
// resolves both cases one way: a wall time inside a spring-forward gap
// moves forward to the transition instant, the first that exists after it;
// a wall time that occurs twice (fall-back) gives the earlier instant.
func WallTime(year int, month time.Month, day, hour, min int, loc *time.Location) time.Time {
	naive := time.Date(year, month, day, hour, min, 0, 0, time.UTC)
	var best time.Time
	found := false
	for _, probe := range []time.Duration{-26 * time.Hour, 0, 26 * time.Hour} {
		_, off := naive.Add(probe).In(loc).Zone()
		inst := naive.Add(-time.Duration(off) * time.Second)
		w := inst.In(loc)
		if w.Year() == year && w.Month() == month && w.Day() == day && w.Hour() == hour && w.Minute() == min {
			if !found || inst.Before(best) {
				best, found = inst, true
			}
		}
	}
	if found {
		return best.UTC()
	}
	// In a gap: read the wall time with the offset in force before the
	// transition; that instant lies after the transition, whose start is
	// the first instant that exists.
	_, off := naive.Add(-26 * time.Hour).In(loc).Zone()
	inst := naive.Add(-time.Duration(off) * time.Second).In(loc)
	start, _ := inst.ZoneBounds()
	if start.IsZero() {
		return inst.UTC()
	}
	return start.UTC()
}

func midpoint(a, b time.Time) time.Time { return a.Add(b.Sub(a) / 2) }

func dedupe(ts []time.Time) []time.Time {
	out := ts[:0]
	for i, t := range ts {
		if i > 0 && t.Equal(out[len(out)-1]) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// ZoneSource says where a site's zone came from.
type ZoneSource string

// Where a zone may come from, in the order [SiteLocation] tries them.
const (
	ZoneFromConfig         ZoneSource = "schedule.timezone"
	ZoneFromTimezoneString ZoneSource = "timezone_string"
	ZoneFromGMTOffset      ZoneSource = "gmt_offset"
)

// SiteLocation returns the zone slots are computed in: override (an IANA
// name from schedule.timezone) when set; else the site's timezone_string;
// else a fixed zone from its gmt_offset (hours, possibly fractional, as in
// Settings → General "UTC+5:30"), which has no DST. The second result
// names the source. An unknown zone name is an error naming it.
func SiteLocation(override string, idx wpclient.Index) (*time.Location, ZoneSource, error) {
	if override != "" {
		loc, err := time.LoadLocation(override)
		if err != nil {
			return nil, "", fmt.Errorf("schedule.timezone %q: %w", override, err)
		}
		return loc, ZoneFromConfig, nil
	}
	if idx.TimezoneString != "" {
		loc, err := time.LoadLocation(idx.TimezoneString)
		if err == nil {
			return loc, ZoneFromTimezoneString, nil
		}
		// WordPress also stores "UTC+9"-style values here on some sites;
		// fall through to gmt_offset, which it keeps in step.
	}
	return FixedZone(idx.GMTOffset), ZoneFromGMTOffset, nil
}

// FixedZone returns a zone at a fixed offset of hours from UTC, named like
// WordPress shows it ("UTC", "UTC+9", "UTC+5:30", "UTC-9:30"). Fractional
// hours are rounded to the minute.
func FixedZone(hours float64) *time.Location {
	mins := int(math.Round(hours * 60))
	if mins == 0 {
		return time.FixedZone("UTC", 0)
	}
	sign := "+"
	a := mins
	if a < 0 {
		sign, a = "-", -a
	}
	name := fmt.Sprintf("UTC%s%d", sign, a/60)
	if a%60 != 0 {
		name += fmt.Sprintf(":%02d", a%60)
	}
	return time.FixedZone(name, mins*60)
}
