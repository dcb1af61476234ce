package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// report is the part of wpqueue's JSON output (one object per site and
// line) the tests read.
type report struct {
	Site           string     `json:"site"`
	Command        string     `json:"command"`
	DryRun         bool       `json:"dry_run"`
	Now            time.Time  `json:"now"`
	Timezone       string     `json:"timezone"`
	TimezoneSource string     `json:"timezone_source"`
	Slots          []jsonSlot `json:"slots"`
	Queue          []jsonPost `json:"queue"`
	Missed         []jsonPost `json:"missed"`
	Warnings       []string   `json:"warnings"`
	ExitCode       int        `json:"exit_code"`
	Error          string     `json:"error"`
}

type jsonSlot struct {
	At    time.Time `json:"at"`
	Local string    `json:"local"`
	State string    `json:"state"`
	Post  *jsonPost `json:"post"`
}

type jsonPost struct {
	ID      int       `json:"id"`
	Title   string    `json:"title"`
	Status  string    `json:"status"`
	DateGMT time.Time `json:"date_gmt"`
}

func parseReport(t *testing.T, r result) report {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one JSON line (one site), got %d:\n%s", len(lines), r)
	}
	var rep report
	dec := json.NewDecoder(strings.NewReader(lines[0]))
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, r)
	}
	if rep.ExitCode != r.code {
		t.Errorf("JSON exit_code %d, process exit %d", rep.ExitCode, r.code)
	}
	return rep
}

// slotText is how publish and status name a slot: site-local day and
// time (the zone's abbreviation follows; not compared, since a fixed
// offset has no standard name) and the UTC time.
func (s *wpSite) slotText(at time.Time) (local, utc string) {
	return at.In(s.loc).Format("Mon 2006-01-02 15:04"), at.UTC().Format("2006-01-02 15:04") + " UTC"
}

// localText is the site-local part of slotText.
func (s *wpSite) localText(at time.Time) string {
	local, _ := s.slotText(at)
	return local
}

// wantScheduled checks through the REST API and the database that post id
// is scheduled (future) at slot: date_gmt is the slot in UTC, date the
// slot in site time.
func (s *wpSite) wantScheduled(t *testing.T, id int, slot time.Time) {
	t.Helper()
	p := s.restPost(t, id)
	if p.Status != "future" || p.DateGMT != slot.UTC().Format(restLayout) {
		t.Errorf("REST shows post %d as %s at date_gmt %s, want future at %s (site time %s)",
			id, p.Status, p.DateGMT, slot.UTC().Format(restLayout), slot.In(s.loc).Format(time.RFC3339))
	}
	if want := slot.In(s.loc).Format(restLayout); p.Date != want {
		t.Errorf("REST shows post %d with date (site time) %s, want %s", id, p.Date, want)
	}
	r := s.rows(t)[id]
	if r.Status != "future" || r.DateGMT != slot.UTC().Format(sqlLayout) {
		t.Errorf("database holds post %d as %s at post_date_gmt %s, want future at %s", id, r.Status, r.DateGMT, slot.UTC().Format(sqlLayout))
	}
}

// wantUntouched checks that the posts ids have exactly the rows they had.
func wantUntouched(t *testing.T, before, after map[int]row, ids ...int) {
	t.Helper()
	for _, id := range ids {
		if before[id] != after[id] {
			t.Errorf("post %d changed:\n before %+v\n after  %+v", id, before[id], after[id])
		}
	}
}

// coreCases are the cases every site runs: dry run, first publish, a
// second run, keeping three slots, and status.
func coreCases(t *testing.T, s *wpSite) {
	first, second := s.drafts[0], s.drafts[1]

	t.Run("DryRunWritesNothing", func(t *testing.T) {
		s.reset(t)
		sp := planSlots(t, s, 1)
		before := s.dumpAll(t)
		r := s.run(t, runOpts{}, "publish", "--dry-run")
		wantCode(t, r, 0)
		local, utc := s.slotText(sp.slots[0])
		wantContains(t, r, "stdout", "dry run: nothing is written")
		wantContains(t, r, "stdout", fmt.Sprintf("would schedule post #%d \"Seed draft 1\" for %s", first, local))
		wantContains(t, r, "stdout", utc)
		wantSame(t, "wp_posts after publish --dry-run", before, s.dumpAll(t))

		r = s.run(t, runOpts{}, "publish", "--dry-run", "--output", "json")
		wantCode(t, r, 0)
		rep := parseReport(t, r)
		if !rep.DryRun || rep.Command != "publish" || len(rep.Slots) != 1 {
			t.Fatalf("want a dry-run publish report with one slot, got %+v", rep)
		}
		if sl := rep.Slots[0]; !sl.At.Equal(sp.slots[0]) || sl.State != "planned" || sl.Post == nil || sl.Post.ID != first {
			t.Errorf("want slot %s planned for post %d, got %+v (post %+v)", sp.slots[0], first, sl, sl.Post)
		}
		wantSame(t, "wp_posts after publish --dry-run --output json", before, s.dumpAll(t))
	})

	t.Run("PublishSchedulesFirstDraft", func(t *testing.T) {
		s.reset(t)
		sp := planSlots(t, s, 1)
		content := s.contentDump(t)
		rowsBefore := s.rows(t)
		restBefore := s.restPost(t, first)
		if restBefore.Status != "draft" {
			t.Fatalf("setup: post %d is %s, want draft", first, restBefore.Status)
		}
		r := s.run(t, runOpts{}, "publish")
		wantCode(t, r, 0)
		local, utc := s.slotText(sp.slots[0])
		wantContains(t, r, "stdout", fmt.Sprintf("scheduled post #%d \"Seed draft 1\" for %s", first, local))
		wantContains(t, r, "stdout", utc)
		s.wantScheduled(t, first, sp.slots[0])
		if got := s.holders(t, sp.slots[0]); len(got) != 1 || got[0] != first {
			t.Errorf("slot %s holds posts %v, want only %d", sp.slots[0], got, first)
		}
		var ids []int
		for _, p := range s.restFuture(t) {
			ids = append(ids, p.ID)
		}
		if len(ids) != 1 || ids[0] != first {
			t.Errorf("REST lists future posts %v, want only %d", ids, first)
		}
		restAfter := s.restPost(t, first)
		if restAfter.Title.Raw != restBefore.Title.Raw || restAfter.Content.Raw != restBefore.Content.Raw {
			t.Errorf("post %d's title/content changed: %q/%q -> %q/%q", first,
				restBefore.Title.Raw, restBefore.Content.Raw, restAfter.Title.Raw, restAfter.Content.Raw)
		}
		wantSame(t, "title, content, excerpt, author and terms of the posts", content, s.contentDump(t))
		wantUntouched(t, rowsBefore, s.rows(t), append([]int{1}, s.drafts[1:]...)...)
	})

	t.Run("SecondRunNothingToDo", func(t *testing.T) {
		s.reset(t)
		sp := planSlots(t, s, 1)
		wantCode(t, s.run(t, runOpts{}, "publish"), 0)
		before := s.dumpAll(t)
		r := s.run(t, runOpts{}, "publish")
		wantCode(t, r, 0)
		local, _ := s.slotText(sp.slots[0])
		wantContains(t, r, "stdout", fmt.Sprintf("nothing to do: slot %s", local))
		wantContains(t, r, "stdout", fmt.Sprintf("holds post #%d \"Seed draft 1\" (future)", first))
		if strings.Contains(r.stdout, "scheduled post") {
			t.Errorf("the second run scheduled something:\n%s", r)
		}
		wantSame(t, "wp_posts after a second publish", before, s.dumpAll(t))
		s.wantScheduled(t, first, sp.slots[0])
	})

	t.Run("AheadThreeFillsNextTwoSlotsInIDOrder", func(t *testing.T) {
		s.reset(t)
		sp := planSlots(t, s, 3)
		wantCode(t, s.run(t, runOpts{}, "publish"), 0)
		rowsBefore := s.rows(t)
		ahead := runOpts{env: []string{"WPQUEUE_SCHEDULE_AHEAD=3"}}
		r := s.run(t, ahead, "publish")
		wantCode(t, r, 0)
		wantContains(t, r, "stdout", fmt.Sprintf("already filled: slot %s", s.localText(sp.slots[0])))
		wantContains(t, r, "stdout", fmt.Sprintf("scheduled post #%d \"Seed draft 2\" for %s", second, s.localText(sp.slots[1])))
		wantContains(t, r, "stdout", fmt.Sprintf("scheduled post #%d \"Seed draft 3\" for %s", s.drafts[2], s.localText(sp.slots[2])))
		rowsAfter := s.rows(t)
		wantUntouched(t, rowsBefore, rowsAfter, 1, first, s.drafts[3], s.drafts[4])
		s.wantScheduled(t, first, sp.slots[0])
		s.wantScheduled(t, second, sp.slots[1])
		s.wantScheduled(t, s.drafts[2], sp.slots[2])
		for i, slot := range sp.slots {
			if got := s.holders(t, slot); len(got) != 1 || got[0] != s.drafts[i] {
				t.Errorf("slot %d (%s) holds posts %v, want only %d", i+1, slot, got, s.drafts[i])
			}
		}
		before := s.dumpAll(t)
		r = s.run(t, ahead, "publish")
		wantCode(t, r, 0)
		if strings.Count(r.stdout, "nothing to do") != 3 || strings.Contains(r.stdout, "scheduled post") {
			t.Errorf("want \"nothing to do\" for each of the 3 slots, got:\n%s", r)
		}
		wantSame(t, "wp_posts after a second run with schedule.ahead 3", before, s.dumpAll(t))
	})

	t.Run("Status", func(t *testing.T) {
		s.reset(t)
		sp := planSlots(t, s, 1)
		local, utc := s.slotText(sp.slots[0])
		before := s.dumpAll(t)
		r := s.run(t, runOpts{}, "status")
		wantCode(t, r, 0)
		wantContains(t, r, "stdout", "timezone  "+s.spec.zoneLabel+"\n")
		wantLine(t, r, fmt.Sprintf(`%s .*%s\s+empty\s+next run schedules #%d "Seed draft 1"`, regexp.QuoteMeta(local), regexp.QuoteMeta(utc), first))
		wantSame(t, "wp_posts after status", before, s.dumpAll(t))

		wantCode(t, s.run(t, runOpts{}, "publish"), 0)
		r = s.run(t, runOpts{}, "status")
		wantCode(t, r, 0)
		wantContains(t, r, "stdout", "timezone  "+s.spec.zoneLabel+"\n")
		wantLine(t, r, fmt.Sprintf(`%s .*%s\s+#%d\s+"Seed draft 1"\s+future`, regexp.QuoteMeta(local), regexp.QuoteMeta(utc), first))

		r = s.run(t, runOpts{}, "status", "--output", "json")
		wantCode(t, r, 0)
		rep := parseReport(t, r)
		zone, src, _ := strings.Cut(s.spec.zoneLabel, " (the site's ")
		src = strings.TrimSuffix(src, ")")
		if rep.Command != "status" || rep.Timezone != zone || rep.TimezoneSource != src {
			t.Errorf("want command status, timezone %q from %q, got %q, %q from %q", zone, src, rep.Command, rep.Timezone, rep.TimezoneSource)
		}
		if len(rep.Slots) != 1 {
			t.Fatalf("want 1 slot in the JSON status, got %+v", rep.Slots)
		}
		sl := rep.Slots[0]
		if !sl.At.Equal(sp.slots[0]) || sl.Local != sp.slots[0].In(s.loc).Format(time.RFC3339) || sl.State != "filled" ||
			sl.Post == nil || sl.Post.ID != first || sl.Post.Status != "future" || !sl.Post.DateGMT.Equal(sp.slots[0]) {
			t.Errorf("want slot %s (%s) filled by post %d future at the slot, got %+v (post %+v)",
				sp.slots[0], sp.slots[0].In(s.loc).Format(time.RFC3339), first, sl, sl.Post)
		}
		var queue []int
		for _, q := range rep.Queue {
			queue = append(queue, q.ID)
		}
		if fmt.Sprint(queue) != fmt.Sprint(s.drafts[1:]) {
			t.Errorf("JSON status queue %v, want %v", queue, s.drafts[1:])
		}
	})
}

// wantLine checks that some stdout line matches the regular expression.
func wantLine(t *testing.T, r result, expr string) {
	t.Helper()
	re := regexp.MustCompile(expr)
	for _, l := range strings.Split(r.stdout, "\n") {
		if re.MatchString(l) {
			return
		}
	}
	t.Errorf("want a stdout line matching %s, got:\n%s", expr, r)
}

// TestCoreSeoul: a site with timezone_string Asia/Seoul (UTC+9, no DST).
func TestCoreSeoul(t *testing.T) { coreCases(t, needSite(t, "seoul")) }

// TestCoreUTC: a default install: timezone_string "" and gmt_offset "0".
func TestCoreUTC(t *testing.T) { coreCases(t, needSite(t, "utc")) }

// TestCorePrettyPermalinks: /%postname%/ permalinks (REST root at
// /wp-json/), site zone Europe/Berlin.
func TestCorePrettyPermalinks(t *testing.T) { coreCases(t, needSite(t, "pretty")) }

// TestCoreManualOffset: a site set to "UTC+5:30" by hand (timezone_string
// "", gmt_offset "5.5"): 07:00 there is 01:30 UTC.
func TestCoreManualOffset(t *testing.T) {
	s := needSite(t, "offset")
	if got := expectedSlots(time.Now(), s.loc, 1)[0]; got.Hour() != 1 || got.Minute() != 30 {
		t.Fatalf("test setup: 07:00 at +05:30 should be 01:30 UTC, computed %s", got)
	}
	coreCases(t, s)
	t.Run("WarnsAboutManualOffset", func(t *testing.T) {
		s.reset(t)
		r := s.run(t, runOpts{}, "status")
		wantCode(t, r, 0)
		wantContains(t, r, "stdout", "manual UTC offset")
	})
}
