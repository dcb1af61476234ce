package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/go-cmp/cmp"
)

func TestLostAnswerIsSettledByARereadNotASecondWrite(t *testing.T) {
	h := newHarness(t)
	seedQueue(h.wp)
	h.wp.set(func(f *fakeWP) { f.dropWrites = 1 })
	r := h.run("publish")
	wantCode(t, r, exitOK)
	wantContains(t, "stdout", r.out, `scheduled post #5 "Five" for Mon 2026-11-30 07:00 CET`)
	if n := len(h.wp.writes()); n != 1 {
		t.Errorf("%d writes after a lost answer, want exactly 1", n)
	}
	var routes []string
	for _, q := range h.wp.requests() {
		routes = append(routes, q.Method+" "+q.Route)
	}
	want := []string{"GET /", "GET /wp/v2/posts", "GET /wp/v2/posts", "POST /wp/v2/posts/5", "GET /wp/v2/posts/5", "GET /wp/v2/posts"}
	if diff := cmp.Diff(want, routes); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestLowQueueWarning(t *testing.T) {
	// alerts.low_queue (3): warn when fewer than this many publishable
	// drafts remain after the planned slots.
	for _, tc := range []struct {
		drafts int
		warn   bool
	}{{drafts: 3, warn: true}, {drafts: 4, warn: false}} {
		h := newHarness(t)
		for i := range tc.drafts {
			h.wp.add(draft(10+i, "Draft", utc(2026, 11, 1, 8, 0)))
		}
		r := h.run("status") // one slot: drafts-1 are left
		wantCode(t, r, exitOK)
		if got := strings.Contains(r.out, "the queue is low"); got != tc.warn {
			t.Errorf("%d drafts, %d left with alerts.low_queue 3: warned %v, want %v\n%s",
				tc.drafts, tc.drafts-1, got, tc.warn, r.out)
		}
	}
}

func TestFailedSiteReport(t *testing.T) {
	h := newHarness(t)
	h.wp.set(func(f *fakeWP) { f.echo = true }) // every answer is a 500 HTML page
	r := h.run("status")
	wantCode(t, r, exitError)
	wantContains(t, "stderr", r.errOut, "REST API not found", "HTTP 500")
	for _, bad := range []string{"0001-01-01", "upcoming slots"} {
		if strings.Contains(r.out, bad) {
			t.Errorf("the report of a site that could not be read shows %q:\n%s", bad, r.out)
		}
	}

	r = h.run("publish", "-o", "json")
	wantCode(t, r, exitError)
	rep := decodeReports(t, r.out)[0]
	if rep.Now != "2026-11-29T10:00:00Z" {
		t.Errorf("now = %q", rep.Now)
	}
	// Discovery tried ?rest_route=/, /wp-json/ and the home page.
	if rep.Requests != 3 {
		t.Errorf("requests = %d, want the 3 discovery requests", rep.Requests)
	}
}

func TestRunTimeout(t *testing.T) {
	h := newHarness(t)
	seedQueue(h.wp)
	h.wp.set(func(f *fakeWP) { f.hold = func(r fakeRequest) bool { return r.Route == "/wp/v2/posts" } })
	start := time.Now()
	r := h.run("publish", "--timeout", "300ms")
	wantCode(t, r, exitError)
	wantContains(t, "stderr", r.errOut, "the run took longer than --timeout 300ms")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a 300ms timeout took %s", d)
	}
}

func TestWaitForTheLock(t *testing.T) {
	h := newHarness(t)
	seedQueue(h.wp)
	fl := flock.New(h.lockPath)
	if ok, err := fl.TryLock(); !ok || err != nil {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	r := h.run("publish", "--wait", "100ms")
	wantCode(t, r, exitLocked)
	wantContains(t, "stderr", r.errOut, h.lockPath, "after waiting 100ms")

	// Released while the run waits: it goes ahead.
	go func() {
		time.Sleep(150 * time.Millisecond)
		_ = fl.Unlock()
	}()
	r = h.run("publish", "--wait", "10s")
	wantCode(t, r, exitOK)
	wantContains(t, "stdout", r.out, "scheduled post #5")
}

func TestQueueStatusPending(t *testing.T) {
	h := newHarness(t)
	seedQueue(h.wp)
	r := h.run("publish", "--queue-status", "pending")
	wantCode(t, r, exitOK)
	wantContains(t, "stdout", r.out, `scheduled post #3 "Pending"`)
}

func TestRunTimeoutNamesTheStalledRequest(t *testing.T) {
	h := newHarness(t)
	h.wp.set(func(f *fakeWP) { f.hold = func(fakeRequest) bool { return true } })
	r := h.run("status", "--timeout", "300ms")
	wantCode(t, r, exitError)
	wantContains(t, "stderr", r.errOut, "the run took longer than --timeout 300ms", "?rest_route=/")
	if strings.Contains(r.errOut, "wp-json") {
		t.Errorf("the error names a URL that was never requested:\n%s", r.errOut)
	}
	if n := len(h.wp.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestInterruptedWriteSaysItMayHaveLanded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		cancel bool
		code   int
		skip   string
	}{
		{name: "SIGINT", args: []string{"publish"}, cancel: true, code: exitInterrupted},
		{name: "--timeout", args: []string{"publish", "--timeout", "300ms"}, code: exitError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip != "" {
				t.Skip(tc.skip)
			}
			h := newHarness(t)
			seedQueue(h.wp)
			h.wp.set(func(f *fakeWP) { f.hold = func(r fakeRequest) bool { return r.Method == "POST" } })
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			go func() {
				<-h.wp.entered
				if tc.cancel {
					cancel()
				}
			}()
			r := execute(t, ctx, h.now, tc.args...)
			wantCode(t, r, tc.code)
			wantContains(t, "stderr", r.errOut, "may have applied the update", "wpqueue status")
			// Index, slots, queue, the POST; no re-read after giving up.
			if n := len(h.wp.requests()); n != 4 {
				t.Errorf("%d requests, want 4: %v", n, h.wp.requests())
			}
		})
	}
}
