package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofrs/flock"
)

// multi is a two-site setup: ./wpqueue.yaml with sites alpha and beta, each
// on its own fake WordPress with its own lock file. The password comes
// from WPQUEUE_SITE_PASSWORD and is inherited by both sites.
type multi struct {
	alpha, beta *fakeWP
	locks       map[string]string
}

func newMulti(t *testing.T) *multi {
	t.Helper()
	dir := isolate(t)
	m := &multi{
		alpha: newFakeWP(t, testNow, testPassword),
		beta:  newFakeWP(t, testNow, testPassword),
		locks: map[string]string{},
	}
	lockDir := t.TempDir()
	m.locks["alpha"] = filepath.Join(lockDir, "alpha.lock")
	m.locks["beta"] = filepath.Join(lockDir, "beta.lock")
	writeFile(t, dir, "wpqueue.yaml", `site:
  username: editor
schedule:
  times: ["07:00"]
sites:
  beta:
    site:
      url: `+m.beta.URL()+`
    lock:
      path: `+m.locks["beta"]+`
  alpha:
    site:
      url: `+m.alpha.URL()+`
    lock:
      path: `+m.locks["alpha"]+`
`)
	t.Setenv("WPQUEUE_SITE_PASSWORD", testPassword)
	seedQueue(m.alpha)
	seedQueue(m.beta)
	return m
}

func TestMultiSiteBothFill(t *testing.T) {
	m := newMulti(t)
	r := execute(t, t.Context(), testNow, "publish")
	wantCode(t, r, exitOK)
	// Grouped by site, in name order.
	a := strings.Index(r.out, "== alpha ("+m.alpha.URL()+")\n")
	b := strings.Index(r.out, "== beta ("+m.beta.URL()+")\n")
	if a < 0 || b < 0 || b < a {
		t.Fatalf("want an alpha then a beta section:\n%s", r.out)
	}
	for _, sec := range []string{r.out[a:b], r.out[b:]} {
		wantContains(t, "section", sec, `scheduled post #5 "Five" for Mon 2026-11-30 07:00 CET`)
	}
	for _, wp := range []*fakeWP{m.alpha, m.beta} {
		if n := len(wp.writes()); n != 1 {
			t.Errorf("%s got %d writes", wp.URL(), n)
		}
	}
}

func TestMultiSiteSelect(t *testing.T) {
	m := newMulti(t)
	r := execute(t, t.Context(), testNow, "publish", "--site", "beta")
	wantCode(t, r, exitOK)
	if n := len(m.alpha.requests()); n != 0 {
		t.Errorf("--site beta sent %d requests to alpha", n)
	}
	if n := len(m.beta.writes()); n != 1 {
		t.Errorf("beta got %d writes", n)
	}
	// One site selected: no group header needed.
	wantContains(t, "stdout", r.out, `scheduled post #5 "Five"`)

	r = execute(t, t.Context(), testNow, "status", "--site", "gamma")
	wantCode(t, r, exitUsage)
	wantContains(t, "stderr", r.errOut, `no site named "gamma"`, "alpha, beta")
}

func TestMultiSiteOneFailingDoesNotStopTheOther(t *testing.T) {
	m := newMulti(t)
	// alpha (first in name order) refuses the password.
	m.alpha.set(func(f *fakeWP) { f.pass = "something else entirely" })
	r := execute(t, t.Context(), testNow, "publish")
	wantCode(t, r, exitCredentials)
	if n := len(m.beta.writes()); n != 1 {
		t.Errorf("beta got %d writes after alpha failed", n)
	}
	wantContains(t, "stderr", r.errOut, "wpqueue: alpha: read scheduled posts: credentials not accepted")
	if strings.Contains(r.errOut, "wpqueue: beta:") {
		t.Errorf("beta reported an error:\n%s", r.errOut)
	}
	b := strings.Index(r.out, "== beta (")
	if b < 0 || !strings.Contains(r.out[b:], `scheduled post #5 "Five"`) {
		t.Errorf("beta's section does not show its schedule:\n%s", r.out)
	}
	if !strings.Contains(r.out, "== alpha (") {
		t.Errorf("the failing site has no section:\n%s", r.out)
	}

	// JSON: one line per site, each with its own exit code.
	r = execute(t, t.Context(), testNow, "publish", "-o", "json")
	wantCode(t, r, exitCredentials)
	reps := decodeReports(t, r.out)
	if len(reps) != 2 || reps[0].Site != "alpha" || reps[1].Site != "beta" {
		t.Fatalf("reports: %+v", reps)
	}
	if reps[0].ExitCode != exitCredentials || reps[1].ExitCode != exitOK {
		t.Errorf("exit codes alpha %d beta %d", reps[0].ExitCode, reps[1].ExitCode)
	}
	if reps[1].Slots[0].State != "filled" {
		t.Errorf("beta slot state %q on the second run", reps[1].Slots[0].State)
	}
}

func TestMultiSiteSeverity(t *testing.T) {
	noDrafts := func(wp *fakeWP) {
		for _, id := range []int{5, 9, 12} {
			wp.setStatus(id, "trash")
		}
	}
	cases := []struct {
		name        string
		alpha, beta func(t *testing.T, m *multi, wp *fakeWP)
		want        int
	}{
		{
			name:  "no draft beats lock held",
			alpha: func(t *testing.T, m *multi, wp *fakeWP) { noDrafts(wp) },
			beta:  func(t *testing.T, m *multi, wp *fakeWP) { holdLock(t, m.locks["beta"]) },
			want:  exitNoDraft,
		},
		{
			name:  "error beats no draft",
			alpha: func(t *testing.T, m *multi, wp *fakeWP) { noDrafts(wp) },
			beta:  func(t *testing.T, m *multi, wp *fakeWP) { wp.set(func(f *fakeWP) { f.echo = true }) },
			want:  exitError,
		},
		{
			name: "verification beats error",
			alpha: func(t *testing.T, m *multi, wp *fakeWP) {
				wp.set(func(f *fakeWP) { f.onUpdate = func(p *fakePost) { p.Status = "publish" } })
			},
			beta: func(t *testing.T, m *multi, wp *fakeWP) { wp.set(func(f *fakeWP) { f.echo = true }) },
			want: exitVerify,
		},
		{
			name:  "credentials beat verification",
			alpha: func(t *testing.T, m *multi, wp *fakeWP) { wp.set(func(f *fakeWP) { f.pass = "other" }) },
			beta: func(t *testing.T, m *multi, wp *fakeWP) {
				wp.set(func(f *fakeWP) { f.onUpdate = func(p *fakePost) { p.Status = "publish" } })
			},
			want: exitCredentials,
		},
		{
			name:  "lock held beats success",
			alpha: func(t *testing.T, m *multi, wp *fakeWP) { holdLock(t, m.locks["alpha"]) },
			beta:  func(t *testing.T, m *multi, wp *fakeWP) {},
			want:  exitLocked,
		},
		{
			name: "usage beats credentials",
			alpha: func(t *testing.T, m *multi, wp *fakeWP) {
				t.Setenv("WPQUEUE_SITES_ALPHA_SITE_PASSWORD", "")
				t.Setenv("WPQUEUE_SITE_PASSWORD", "")
				t.Setenv("WPQUEUE_SITES_BETA_SITE_PASSWORD", wrongPassword)
			},
			beta: func(t *testing.T, m *multi, wp *fakeWP) {},
			want: exitUsage,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newMulti(t)
			tc.alpha(t, m, m.alpha)
			tc.beta(t, m, m.beta)
			r := execute(t, t.Context(), testNow, "publish")
			wantCode(t, r, tc.want)
			// Both sites were tried.
			if !strings.Contains(r.out, "== alpha (") || !strings.Contains(r.out, "== beta (") {
				t.Errorf("a site is missing from the output:\n%s", r.out)
			}
		})
	}
}

func holdLock(t *testing.T, path string) {
	t.Helper()
	fl := flock.New(path)
	if ok, err := fl.TryLock(); !ok || err != nil {
		t.Fatalf("TryLock(%s) = %v, %v", path, ok, err)
	}
	t.Cleanup(func() { _ = fl.Unlock() })
}
