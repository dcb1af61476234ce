package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/go-cmp/cmp"
)

// seedQueue adds an old published post, a pending post (not queued by
// default) and three drafts whose id order differs from their date order.
func seedQueue(wp *fakeWP) {
	wp.add(
		fakePost{ID: 1, Status: "publish", Title: "Hello world!", Content: "x", DateGMT: utc(2026, 11, 1, 8, 0)},
		fakePost{ID: 3, Status: "pending", Title: "Pending", Content: "x", DateGMT: utc(2026, 10, 1, 8, 0)},
		draft(9, "Nine", utc(2026, 10, 2, 8, 0)),
		draft(5, "Five", utc(2026, 11, 20, 8, 0)),
		draft(12, "Twelve", utc(2026, 9, 1, 8, 0)),
	)
}

func TestPublishFillsTheEmptySlotOnce(t *testing.T) {
	h := newHarness(t)
	seedQueue(h.wp)

	r := h.run("publish")
	wantCode(t, r, exitOK)
	wantContains(t, "stdout", r.out,
		`scheduled post #5 "Five" for Mon 2026-11-30 07:00 CET (2026-11-30 06:00 UTC)`)

	w := h.wp.writes()
	if len(w) != 1 {
		t.Fatalf("sent %d writes, want 1: %v", len(w), w)
	}
	if w[0].Method != http.MethodPost || w[0].Route != "/wp/v2/posts/5" {
		t.Errorf("write = %s, want POST /wp/v2/posts/5", w[0])
	}
	if want := `{"status":"future","date_gmt":"2026-11-30T06:00:00"}`; w[0].Body != want {
		t.Errorf("body = %s, want exactly %s", w[0].Body, want)
	}
	if p := h.wp.post(5); p.Status != "future" || !p.DateGMT.Equal(slot1) {
		t.Errorf("post 5 is %s at %s, want future at %s", p.Status, p.DateGMT, slot1)
	}
	for _, id := range []int{9, 12, 3} {
		if p := h.wp.post(id); p.Status == "future" {
			t.Errorf("post %d was scheduled too", id)
		}
	}

	// Again, later the same day: the slot holds #5, nothing is written.
	h.wp.reset()
	h.now = h.now.Add(3 * time.Hour)
	r = h.run("publish")
	wantCode(t, r, exitOK)
	wantContains(t, "stdout", r.out, `nothing to do: slot Mon 2026-11-30 07:00 CET (2026-11-30 06:00 UTC) holds post #5 "Five" (future)`)
	if w := h.wp.writes(); len(w) != 0 {
		t.Errorf("second run wrote %v", w)
	}
	if r.errOut != "" && strings.Contains(r.errOut, "error") {
		t.Errorf("second run complained:\n%s", r.errOut)
	}
}

func TestDryRunPrintsThePlanAndOnlyReads(t *testing.T) {
	h := newHarness(t)
	seedQueue(h.wp)

	r := h.run("publish", "--dry-run")
	wantCode(t, r, exitOK)
	want := "dry run: nothing is written\n" +
		`would schedule post #5 "Five" for Mon 2026-11-30 07:00 CET (2026-11-30 06:00 UTC)` + "\n"
	if !strings.HasPrefix(r.out, want) {
		t.Errorf("stdout:\n%s\nwant it to start with:\n%s", r.out, want)
	}
	if len(h.wp.requests()) == 0 {
		t.Fatal("the dry run sent no request at all")
	}
	wantOnlyGets(t, h.wp)
	if p := h.wp.post(5); p.Status != "draft" {
		t.Errorf("post 5 is %s after a dry run", p.Status)
	}
	if _, err := os.Stat(h.lockPath); !os.IsNotExist(err) {
		t.Errorf("the dry run created the lock file (stat: %v)", err)
	}

	// Another run holds the lock: the dry run still works, publish does not.
	fl := flock.New(h.lockPath)
	if ok, err := fl.TryLock(); !ok || err != nil {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	t.Cleanup(func() { _ = fl.Unlock() })

	h.wp.reset()
	r = h.run("publish", "-n")
	wantCode(t, r, exitOK)
	wantContains(t, "stdout", r.out, "would schedule post #5")
	wantOnlyGets(t, h.wp)

	h.wp.reset()
	r = h.run("publish")
	wantCode(t, r, exitLocked)
	wantContains(t, "stderr", r.errOut, h.lockPath, "held by another wpqueue run")
	if n := len(h.wp.requests()); n != 0 {
		t.Errorf("a locked-out run sent %d requests: %v", n, h.wp.requests())
	}
}

func TestExitStatuses(t *testing.T) {
	// Each case starts from a fresh harness with seedQueue's posts.
	cases := []struct {
		name  string
		setup func(t *testing.T, h *harness)
		args  []string
		code  int
		// stderr must contain each of these.
		stderr []string
		// stdout must contain each of these.
		stdout []string
		// writes is the number of POSTs expected; -1 skips the check.
		writes int
		// noRequests: nothing may reach the site.
		noRequests bool
	}{
		{
			name:  "wrong password",
			setup: func(t *testing.T, h *harness) { t.Setenv("WPQUEUE_SITE_PASSWORD", wrongPassword) },
			args:  []string{"publish"},
			code:  exitCredentials,
			stderr: []string{"credentials not accepted", "rest_forbidden_status", "Likely causes",
				"application password", "Authorization header"},
		},
		{
			name: "no drafts",
			setup: func(t *testing.T, h *harness) {
				for _, id := range []int{5, 9, 12} {
					h.wp.setStatus(id, "trash")
				}
			},
			args:   []string{"publish"},
			code:   exitNoDraft,
			stdout: []string{"slot Mon 2026-11-30 07:00 CET (2026-11-30 06:00 UTC) stays empty"},
			stderr: []string{"no publishable draft is queued"},
		},
		{
			name: "site publishes at once",
			setup: func(t *testing.T, h *harness) {
				h.wp.set(func(f *fakeWP) { f.onUpdate = func(p *fakePost) { p.Status = "publish" } })
			},
			args:   []string{"publish", "--schedule-ahead", "2"},
			code:   exitVerify,
			writes: 1,
			stderr: []string{"verification failed for post 5", `status "publish"`, "published at once", "no further change"},
			stdout: []string{`FAILED to schedule post #5 "Five"`, `not attempted: post #9 "Nine"`},
		},
		{
			name: "unknown key in ./wpqueue.yaml",
			setup: func(t *testing.T, h *harness) {
				writeFile(t, h.dir, "wpqueue.yaml", "shedule:\n  times: [\"07:00\"]\n")
			},
			args:       []string{"publish"},
			code:       exitUsage,
			stderr:     []string{"shedule", "schedule", "wpqueue.yaml"},
			noRequests: true,
		},
		{
			name:       "schedule ahead 0",
			setup:      func(t *testing.T, h *harness) { t.Setenv("WPQUEUE_SCHEDULE_AHEAD", "0") },
			args:       []string{"publish"},
			code:       exitUsage,
			stderr:     []string{"schedule.ahead", "0"},
			noRequests: true,
		},
		{
			name:       "bad time from the environment",
			setup:      func(t *testing.T, h *harness) { t.Setenv("WPQUEUE_SCHEDULE_TIMES", "07:00,7pm") },
			args:       []string{"publish"},
			code:       exitUsage,
			stderr:     []string{"schedule.times", `"7pm"`},
			noRequests: true,
		},
		{
			name: "bad time in the file",
			setup: func(t *testing.T, h *harness) {
				writeFile(t, h.dir, "wpqueue.yaml", "schedule:\n  times: [\"25:00\"]\n")
			},
			args:       []string{"status"},
			code:       exitUsage,
			stderr:     []string{"schedule.times", `"25:00"`},
			noRequests: true,
		},
		{
			name:       "bad time from a flag",
			args:       []string{"publish", "--schedule-times", "07:60"},
			code:       exitUsage,
			stderr:     []string{"schedule.times", `"07:60"`},
			noRequests: true,
		},
		{
			name:       "unknown time zone",
			setup:      func(t *testing.T, h *harness) { t.Setenv("WPQUEUE_SCHEDULE_TIMEZONE", "Europe/Atlantis") },
			args:       []string{"publish"},
			code:       exitUsage,
			stderr:     []string{"schedule.timezone", "Europe/Atlantis"},
			noRequests: true,
		},
		{
			name:       "unknown flag",
			args:       []string{"publish", "--bogus"},
			code:       exitUsage,
			stderr:     []string{"unknown flag: --bogus", "wpqueue --help"},
			noRequests: true,
		},
		{
			name:       "unknown command",
			args:       []string{"frobnicate"},
			code:       exitUsage,
			stderr:     []string{`unknown command "frobnicate"`, "wpqueue --help"},
			noRequests: true,
		},
		{
			name:       "stray argument",
			args:       []string{"publish", "now"},
			code:       exitUsage,
			stderr:     []string{"now"},
			noRequests: true,
		},
		{
			name:       "bad output format",
			args:       []string{"publish", "-o", "yaml"},
			code:       exitUsage,
			stderr:     []string{"--output", "yaml"},
			noRequests: true,
		},
		{
			name:       "missing password",
			setup:      func(t *testing.T, h *harness) { t.Setenv("WPQUEUE_SITE_PASSWORD", "") },
			args:       []string{"publish"},
			code:       exitUsage,
			stderr:     []string{"site.password is not set", "WPQUEUE_SITE_PASSWORD", "Application Passwords"},
			noRequests: true,
		},
		{
			name: "unreachable site",
			setup: func(t *testing.T, h *harness) {
				t.Setenv("WPQUEUE_SITE_URL", "http://"+closedPort(t)+"/")
			},
			args:   []string{"publish", "--log-level", "debug"},
			code:   exitError,
			stderr: []string{"site unavailable", "connection refused", "after 4 tries"},
		},
		{
			name: "lock held",
			setup: func(t *testing.T, h *harness) {
				fl := flock.New(h.lockPath)
				if ok, err := fl.TryLock(); !ok || err != nil {
					t.Fatalf("TryLock = %v, %v", ok, err)
				}
				t.Cleanup(func() { _ = fl.Unlock() })
			},
			args:       []string{"publish"},
			code:       exitLocked,
			stderr:     []string{h0LockPathMarker},
			noRequests: true,
		},
		{
			name:   "ahead 3 with 2 drafts fills two",
			setup:  func(t *testing.T, h *harness) { h.wp.setStatus(12, "trash") },
			args:   []string{"publish", "--schedule-ahead=3"},
			code:   exitNoDraft,
			writes: 2,
			stdout: []string{
				`scheduled post #5 "Five" for Mon 2026-11-30 07:00 CET`,
				`scheduled post #9 "Nine" for Tue 2026-12-01 07:00 CET`,
				"slot Wed 2026-12-02 07:00 CET (2026-12-02 06:00 UTC) stays empty",
			},
			stderr: []string{"no publishable draft is queued"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			seedQueue(h.wp)
			if tc.setup != nil {
				tc.setup(t, h)
			}
			r := h.run(tc.args...)
			wantCode(t, r, tc.code)
			for _, s := range tc.stderr {
				if s == h0LockPathMarker {
					s = h.lockPath
				}
				wantContains(t, "stderr", r.errOut, s)
			}
			wantContains(t, "stdout", r.out, tc.stdout...)
			if tc.writes >= 0 {
				if w := h.wp.writes(); len(w) != tc.writes {
					t.Errorf("sent %d writes, want %d: %v", len(w), tc.writes, w)
				}
			}
			if tc.noRequests {
				if n := len(h.wp.requests()); n != 0 {
					t.Errorf("sent %d requests, want none: %v", n, h.wp.requests())
				}
			}
		})
	}
}

// h0LockPathMarker in a case's stderr stands for the harness's lock path.
const h0LockPathMarker = "\x00lock path\x00"

func TestVerifyFailureWritesNothingFurther(t *testing.T) {
	h := newHarness(t)
	seedQueue(h.wp)
	h.wp.set(func(f *fakeWP) { f.onUpdate = func(p *fakePost) { p.Status = "publish" } })
	r := h.run("publish", "--schedule-ahead", "3")
	wantCode(t, r, exitVerify)
	var routes []string
	for _, w := range h.wp.writes() {
		routes = append(routes, w.Method+" "+w.Route)
	}
	if diff := cmp.Diff([]string{"POST /wp/v2/posts/5"}, routes); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	// Nothing re-reads or "repairs" after the failed check.
	reqs := h.wp.requests()
	if last := reqs[len(reqs)-1]; last.Method != http.MethodPost {
		t.Errorf("after the refused write it still sent %s", last)
	}
}

func TestRequestCounts(t *testing.T) {
	filled := func(h *harness) {
		h.wp.add(fakePost{ID: 40, Status: "future", Title: "Scheduled", Content: "x", DateGMT: slot1})
		seedQueue(h.wp)
	}
	cases := []struct {
		name    string
		pinRoot bool
		pinZone bool
		fill    bool
		want    []string // method and route of each request, in order
	}{
		{name: "no-op, root and zone pinned", pinRoot: true, pinZone: true,
			want: []string{"GET /wp/v2/posts?status=future,publish,private"}},
		{name: "no-op, nothing pinned",
			want: []string{"GET /", "GET /wp/v2/posts?status=future,publish,private"}},
		{name: "no-op, root pinned", pinRoot: true,
			want: []string{"GET /", "GET /wp/v2/posts?status=future,publish,private"}},
		{name: "no-op, zone pinned", pinZone: true,
			want: []string{"GET /", "GET /wp/v2/posts?status=future,publish,private"}},
		{name: "fill one slot, pinned", pinRoot: true, pinZone: true, fill: true,
			want: []string{
				"GET /wp/v2/posts?status=future,publish,private",
				"GET /wp/v2/posts?status=draft",
				"POST /wp/v2/posts/5",
				"GET /wp/v2/posts?status=future,publish,private",
			}},
		{name: "fill one slot, nothing pinned", fill: true,
			want: []string{
				"GET /",
				"GET /wp/v2/posts?status=future,publish,private",
				"GET /wp/v2/posts?status=draft",
				"POST /wp/v2/posts/5",
				"GET /wp/v2/posts?status=future,publish,private",
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			if tc.fill {
				seedQueue(h.wp)
			} else {
				filled(h)
			}
			if tc.pinRoot {
				t.Setenv("WPQUEUE_SITE_API_ROOT", h.wp.srv.URL+"/?rest_route=/")
			}
			if tc.pinZone {
				t.Setenv("WPQUEUE_SCHEDULE_TIMEZONE", "Europe/Berlin")
			}
			r := h.run("publish", "-o", "json")
			wantCode(t, r, exitOK)
			var got []string
			for _, q := range h.wp.requests() {
				s := q.Method + " " + q.Route
				if st := q.Query.Get("status"); st != "" {
					s += "?status=" + st
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			rep := decodeReports(t, r.out)
			if len(rep) == 1 && rep[0].Requests != len(got) {
				t.Errorf("the report says %d requests, the site saw %d", rep[0].Requests, len(got))
			}
		})
	}
}

func TestLockFileIsKeptAndReused(t *testing.T) {
	h := newHarness(t)
	seedQueue(h.wp)
	t.Setenv("WPQUEUE_LOCK_PATH", filepath.Join(t.TempDir(), "nested", "dir", "site.lock"))
	r := h.run("publish")
	wantCode(t, r, exitOK)
	if _, err := os.Stat(os.Getenv("WPQUEUE_LOCK_PATH")); err != nil {
		t.Errorf("lock file: %v", err)
	}
	// The lock was released: a second run is not locked out.
	r = h.run("publish")
	wantCode(t, r, exitOK)
}
