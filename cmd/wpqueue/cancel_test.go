package main

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestInterrupt cancels the run's context (what SIGINT does through
// signal.NotifyContext in main) while the site holds a request.
func TestInterrupt(t *testing.T) {
	cases := []struct {
		name   string
		hold   func(r fakeRequest) bool
		writes int
	}{
		{
			name: "while reading the slots",
			hold: func(r fakeRequest) bool { return r.Route == "/wp/v2/posts" && r.Query.Get("status") != "draft" },
		},
		{
			name: "while reading the queue",
			hold: func(r fakeRequest) bool { return r.Query.Get("status") == "draft" },
		},
		{
			name:   "while writing",
			hold:   func(r fakeRequest) bool { return r.Method == http.MethodPost },
			writes: 1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			seedQueue(h.wp)
			h.wp.set(func(f *fakeWP) { f.hold = tc.hold })
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			go func() {
				select {
				case <-h.wp.entered:
					cancel()
				case <-time.After(10 * time.Second):
				}
			}()
			start := time.Now()
			r := execute(t, ctx, h.now, "publish", "--log-level", "debug")
			wantCode(t, r, exitInterrupted)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %s to stop after the interrupt", d)
			}
			if n := len(h.wp.writes()); n != tc.writes {
				t.Errorf("%d writes, want %d", n, tc.writes)
			}
			wantContains(t, "stderr", r.errOut, "context canceled")
			// The lock is released: the next run is not locked out.
			h.wp.set(func(f *fakeWP) { f.hold = nil })
			r = h.run("publish", "--dry-run")
			wantCode(t, r, exitOK)
			r = h.run("status")
			wantCode(t, r, exitOK)
		})
	}
}

func TestInterruptBeforeStart(t *testing.T) {
	h := newHarness(t)
	seedQueue(h.wp)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r := execute(t, ctx, h.now, "publish")
	wantCode(t, r, exitInterrupted)
	if n := len(h.wp.requests()); n != 0 {
		t.Errorf("a cancelled run sent %d requests", n)
	}
}
