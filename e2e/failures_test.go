package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCredentialsRejected: a wrong application password, the login
// password instead of an application password, and an unknown user all
// exit 3, say why on stderr, and write nothing. Stock WordPress treats
// such requests as anonymous (no 401 on reads), so this also checks that
// "anonymous" is never mistaken for "nothing scheduled".
func TestCredentialsRejected(t *testing.T) {
	s := needSite(t, "seoul")
	s.reset(t)
	cases := []struct {
		name string
		o    runOpts
	}{
		{"WrongPassword", runOpts{env: []string{"WPQUEUE_SITE_PASSWORD=Wrng Pass Word Xyzq 1234 5678"}, unset: []string{"WPQUEUE_SITE_PASSWORD_FILE"}}},
		{"LoginPasswordNotAppPassword", runOpts{env: []string{"WPQUEUE_SITE_PASSWORD=" + s.adminPass}, unset: []string{"WPQUEUE_SITE_PASSWORD_FILE"}}},
		{"UnknownUser", runOpts{env: []string{"WPQUEUE_SITE_USERNAME=nobody-here"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, args := range [][]string{{"publish"}, {"publish", "--dry-run"}, {"status"}} {
				before := s.dumpAll(t)
				r := s.run(t, c.o, args...)
				wantCode(t, r, 3)
				wantContains(t, r, "stderr", "credentials not accepted")
				wantContains(t, r, "stderr", "application password")
				if strings.Contains(r.stdout, "nothing to do") || strings.Contains(r.stdout, "scheduled") {
					t.Errorf("a rejected run reports a plan:\n%s", r)
				}
				wantSame(t, "wp_posts after a run with rejected credentials", before, s.dumpAll(t))
			}
			r := s.run(t, c.o, "publish", "--output", "json")
			wantCode(t, r, 3)
			if rep := parseReport(t, r); rep.ExitCode != 3 || !strings.Contains(rep.Error, "credentials not accepted") {
				t.Errorf("JSON report: want exit_code 3 and the cause in error, got %+v", rep)
			}
		})
	}
}

// TestNoDrafts: with nothing queued, publish exits 4 and writes nothing;
// queue.status pending then picks the pending posts; a run that fills
// some slots and runs out exits 4 after filling them.
func TestNoDrafts(t *testing.T) {
	s := needSite(t, "seoul")
	first := s.drafts[0]
	pendingAll := fmt.Sprintf("UPDATE wp_posts SET post_status='pending' WHERE ID IN (%s)", joinInts(s.drafts))

	t.Run("AllPendingExits4", func(t *testing.T) {
		s.reset(t)
		sp := planSlots(t, s, 1)
		s.sql(t, pendingAll)
		before := s.dumpAll(t)
		r := s.run(t, runOpts{}, "publish")
		wantCode(t, r, 4)
		wantContains(t, r, "stdout", fmt.Sprintf("slot %s", s.localText(sp.slots[0])))
		wantContains(t, r, "stdout", "stays empty: no publishable draft is queued")
		wantContains(t, r, "stderr", "no publishable draft is queued")
		wantSame(t, "wp_posts after publish with an empty queue", before, s.dumpAll(t))

		r = s.run(t, runOpts{}, "publish", "--dry-run")
		wantCode(t, r, 4)
		wantSame(t, "wp_posts after publish --dry-run with an empty queue", before, s.dumpAll(t))
	})

	t.Run("QueueStatusPending", func(t *testing.T) {
		s.reset(t)
		sp := planSlots(t, s, 1)
		s.sql(t, pendingAll)
		r := s.run(t, runOpts{env: []string{"WPQUEUE_QUEUE_STATUS=pending"}}, "publish")
		wantCode(t, r, 0)
		s.wantScheduled(t, first, sp.slots[0])
	})

	t.Run("FreshSiteWithoutDrafts", func(t *testing.T) {
		// The seeded drafts deleted outright: only post 1 (published a year ago) is left.
		s.reset(t)
		planSlots(t, s, 1)
		s.sql(t, fmt.Sprintf("DELETE FROM wp_posts WHERE ID IN (%s)", joinInts(s.drafts)))
		before := s.dumpAll(t)
		r := s.run(t, runOpts{}, "publish")
		wantCode(t, r, 4)
		wantSame(t, "wp_posts after publish on a site without drafts", before, s.dumpAll(t))
	})

	t.Run("PartialFillExits4", func(t *testing.T) {
		s.reset(t)
		sp := planSlots(t, s, 3)
		s.sql(t, fmt.Sprintf("UPDATE wp_posts SET post_status='pending' WHERE ID IN (%s)", joinInts(s.drafts[2:])))
		r := s.run(t, runOpts{env: []string{"WPQUEUE_SCHEDULE_AHEAD=3"}}, "publish")
		wantCode(t, r, 4)
		s.wantScheduled(t, s.drafts[0], sp.slots[0])
		s.wantScheduled(t, s.drafts[1], sp.slots[1])
		if got := s.holders(t, sp.slots[2]); len(got) != 0 {
			t.Errorf("slot 3 holds %v, want it empty", got)
		}
		wantContains(t, r, "stdout", fmt.Sprintf("slot %s", s.localText(sp.slots[2])))
		wantContains(t, r, "stdout", "stays empty")
	})
}

// TestSlotAlreadyHeld: a slot whose window already holds a post that
// wpqueue did not schedule (published or scheduled by hand) means
// "nothing to do": exit 0, no write. The window of a daily 07:00 slot is
// [slot-12h, slot+12h); a post at slot+12h belongs to the next slot.
func TestSlotAlreadyHeld(t *testing.T) {
	s := needSite(t, "seoul")
	first := s.drafts[0]
	for _, c := range []struct {
		name   string
		id     int
		status string
		offset time.Duration // from the slot
	}{
		{"HelloWorldPublishedAnHourBefore", 1, "publish", -time.Hour},
		{"PublishedAtWindowStart", 1, "publish", -12 * time.Hour},
		{"PublishedJustBeforeWindowEnd", 1, "publish", 12*time.Hour - time.Second},
		{"ScheduledByHandLaterDraft", s.drafts[3], "future", 3 * time.Hour},
		{"PrivatePostInWindow", s.drafts[4], "private", 30 * time.Minute},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.reset(t)
			sp := planSlots(t, s, 1)
			at := sp.slots[0].Add(c.offset)
			s.setPost(t, c.id, c.status, at)
			before := s.dumpAll(t)
			r := s.run(t, runOpts{}, "publish")
			wantCode(t, r, 0)
			wantContains(t, r, "stdout", fmt.Sprintf("nothing to do: slot %s", s.localText(sp.slots[0])))
			wantContains(t, r, "stdout", fmt.Sprintf("holds post #%d ", c.id))
			wantContains(t, r, "stdout", "("+c.status+")")
			wantSame(t, "wp_posts when the slot is already held", before, s.dumpAll(t))
			if st := s.restPost(t, first).Status; st != "draft" {
				t.Errorf("post %d is %s, want it still draft", first, st)
			}
		})
	}

	t.Run("PublishedAtWindowEndFillsNextSlot", func(t *testing.T) {
		s.reset(t)
		sp := planSlots(t, s, 2)
		s.setPost(t, 1, "publish", sp.slots[0].Add(12*time.Hour))
		r := s.run(t, runOpts{env: []string{"WPQUEUE_SCHEDULE_AHEAD=2"}}, "publish")
		wantCode(t, r, 0)
		s.wantScheduled(t, first, sp.slots[0])
		wantContains(t, r, "stdout", fmt.Sprintf("already filled: slot %s", s.localText(sp.slots[1])))
		wantContains(t, r, "stdout", "holds post #1 ")
		if st := s.rows(t)[s.drafts[1]].Status; st != "draft" {
			t.Errorf("post %d is %s, want draft (slot 2 was held by post 1)", s.drafts[1], st)
		}
	})

	t.Run("MissedSchedulePostFillsNothing", func(t *testing.T) {
		// A future post whose time has passed (WP-Cron did not run) is
		// reported, left alone, and does not count as the slot's post.
		s.reset(t)
		sp := planSlots(t, s, 1)
		missed := s.drafts[4]
		s.setPost(t, missed, "future", time.Now().Add(-2*time.Hour).Truncate(time.Second))
		before := s.rows(t)
		r := s.run(t, runOpts{}, "publish", "--output", "json")
		wantCode(t, r, 0)
		rep := parseReport(t, r)
		if len(rep.Missed) != 1 || rep.Missed[0].ID != missed {
			t.Errorf("JSON missed: want post %d, got %+v", missed, rep.Missed)
		}
		found := false
		for _, w := range rep.Warnings {
			found = found || strings.Contains(w, "missed schedule") && strings.Contains(w, fmt.Sprintf("#%d", missed))
		}
		if !found {
			t.Errorf("want a missed-schedule warning naming post %d, got %q", missed, rep.Warnings)
		}
		s.wantScheduled(t, first, sp.slots[0])
		wantUntouched(t, before, s.rows(t), missed)
	})
}

// TestLockHeld: while another process holds the site's lock, publish
// exits 75 at once (or after --wait) and writes nothing; --dry-run takes
// no lock.
func TestLockHeld(t *testing.T) {
	s := needSite(t, "seoul")
	s.reset(t)
	planSlots(t, s, 1)
	lock := filepath.Join(t.TempDir(), "held.lock")
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	before := s.dumpAll(t)
	r := s.run(t, runOpts{lock: lock}, "publish")
	wantCode(t, r, 75)
	wantContains(t, r, "stderr", "lock is held by another wpqueue run")
	r = s.run(t, runOpts{lock: lock}, "publish", "--wait", "1500ms")
	wantCode(t, r, 75)
	if r.took < 1400*time.Millisecond {
		t.Errorf("publish --wait 1500ms gave up after %s", r.took)
	}
	wantSame(t, "wp_posts while the lock is held", before, s.dumpAll(t))
	r = s.run(t, runOpts{lock: lock}, "publish", "--dry-run")
	wantCode(t, r, 0)
	wantContains(t, r, "stdout", "would schedule")
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.run(t, runOpts{lock: lock}, "publish"), 0)
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("the lock file must stay in place after a run: %v", err)
	}
}

func joinInts(ids []int) string {
	var parts []string
	for _, id := range ids {
		parts = append(parts, fmt.Sprint(id))
	}
	return strings.Join(parts, ",")
}

// TestLead: a slot less than schedule.lead (15m) away is skipped, since
// WordPress would publish a post dated that close at once; one just over
// the lead is taken. The slot time is set a few minutes from now.
func TestLead(t *testing.T) {
	s := needSite(t, "seoul")
	first := s.drafts[0]
	for _, c := range []struct {
		name     string
		in       time.Duration // slot time from now, before truncating to the minute
		tomorrow bool
	}{
		{"TenMinutesAwayIsSkipped", 10 * time.Minute, true},
		{"TwentyMinutesAwayIsTaken", 21 * time.Minute, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.reset(t)
			now := time.Now()
			wall := now.Add(c.in).In(s.loc)
			times := wall.Format("15:04")
			want := expectedSlotsAt(now, s.loc, wall.Hour(), wall.Minute(), 1)[0]
			if d := want.Sub(now); (d > 24*time.Hour-time.Hour) != c.tomorrow {
				t.Fatalf("test setup: slot %s is %s away", want, d)
			}
			r := s.run(t, runOpts{env: []string{"WPQUEUE_SCHEDULE_TIMES=" + times}}, "publish")
			wantCode(t, r, 0)
			s.wantScheduled(t, first, want)
			if p := s.restPost(t, first); p.Status == "publish" {
				t.Errorf("post %d was published at once", first)
			}
		})
	}
}

// TestQueueOrder: the queue is taken in id order by default whatever the
// drafts' dates; queue.order=date takes the oldest date first.
func TestQueueOrder(t *testing.T) {
	s := needSite(t, "seoul")
	// The seeded drafts' dates (floating, site-local) reversed: the
	// highest id gets the oldest date.
	oldestLast := func(t *testing.T) {
		for i, id := range s.drafts {
			s.sql(t, fmt.Sprintf("UPDATE wp_posts SET post_date = post_date - INTERVAL %d HOUR WHERE ID = %d", 10*(i+1), id))
		}
	}
	for _, c := range []struct {
		name  string
		env   []string
		want  int
		other int
	}{
		{"DefaultIsID", nil, s.drafts[0], s.drafts[4]},
		{"OrderDate", []string{"WPQUEUE_QUEUE_ORDER=date"}, s.drafts[4], s.drafts[0]},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.reset(t)
			sp := planSlots(t, s, 1)
			oldestLast(t)
			r := s.run(t, runOpts{env: c.env}, "publish")
			wantCode(t, r, 0)
			s.wantScheduled(t, c.want, sp.slots[0])
			if st := s.rows(t)[c.other].Status; st != "draft" {
				t.Errorf("post %d is %s, want draft", c.other, st)
			}
		})
	}
}

// TestAuthorAccountRefused: an application password of an Author account
// cannot see other users' scheduled posts (WordPress drops them after
// counting them), so a slot filled by someone else would look empty. wpqueue
// notices the shortfall (X-WP-Total above what it was shown), exits 3 and
// writes nothing.
func TestAuthorAccountRefused(t *testing.T) {
	s := needSite(t, "utc")
	s.reset(t)
	pwFile := filepath.Join(t.TempDir(), "author-password")
	php := filepath.Join(t.TempDir(), "author.php")
	// Idempotent: the user survives the post resets between tests.
	src := `<?php
$u = get_user_by('login', 'e2e-author');
$id = $u ? $u->ID : wp_insert_user(['user_login'=>'e2e-author','user_pass'=>wp_generate_password(),'user_email'=>'e2e-author@example.com','role'=>'author']);
list($plain,) = WP_Application_Passwords::create_new_application_password($id, ['name'=>'e2e-'.uniqid()]);
file_put_contents($argv[1], $plain."\n");
`
	if err := os.WriteFile(php, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("bash", suite.script, "php", "--dir", s.dir, php, pwFile).CombinedOutput(); err != nil {
		t.Fatalf("creating the author: %v\n%s", err, out)
	}
	// The admin's first draft holds the next slot.
	slot := expectedSlots(time.Now(), s.loc, 1)[0]
	s.setPost(t, s.drafts[0], "future", slot)
	before := s.dumpAll(t)
	o := runOpts{env: []string{"WPQUEUE_SITE_USERNAME=e2e-author", "WPQUEUE_SITE_PASSWORD_FILE=" + pwFile}}
	r := s.run(t, o, "publish")
	wantCode(t, r, 3)
	wantContains(t, r, "stderr", "Editor or Administrator")
	wantSame(t, "wp_posts after an Author account's run", before, s.dumpAll(t))
}
