package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "time/tzdata" // the binary embeds it; tests must not depend on the host's zoneinfo
)

// The application passwords the tests configure. They are distinctive so
// that any leak into stdout or stderr is found by checkNoSecrets.
const (
	testPassword  = "Qx7v Kp2m Wz9r Lb4t Hn6c Jd3s"
	wrongPassword = "Zz0z Yy1y Xx2x Ww3w Vv4v Uu5u"
	testUser      = "editor"
)

var (
	// testNow is Sunday 2026-11-29 11:00 in Berlin (CET, UTC+1).
	testNow = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	// slot1 and slot2 are the next 07:00 Berlin slots after testNow.
	slot1 = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	slot2 = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
)

// secretForms are the ways a password could leak: as configured, without
// its spaces, and inside an Authorization header.
func secretForms() []string {
	var out []string
	for _, p := range []string{testPassword, wrongPassword} {
		np := strings.ReplaceAll(p, " ", "")
		out = append(out, p, np, basicAuth(testUser, p), basicAuth(testUser, np))
	}
	return out
}

// checkNoSecrets fails the test if any form of a test password appears in s.
func checkNoSecrets(t *testing.T, where, s string) {
	t.Helper()
	for _, sec := range secretForms() {
		if strings.Contains(s, sec) {
			t.Errorf("%s shows a secret (%q):\n%s", where, sec, s)
		}
	}
}

// isolate gives the test an empty working directory, an empty user config
// and state directory and no WPQUEUE_* variables, so nothing on the host
// leaks in. It returns the working directory.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	home := filepath.Join(dir, "home")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".state"))
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(strings.ToUpper(name), "WPQUEUE_") {
			t.Setenv(name, "") // restores the value after the test
			os.Unsetenv(name)
		}
	}
	return dir
}

// harness is one isolated single-site setup: a fake WordPress, the
// WPQUEUE_* variables pointing at it and a lock file in a temporary dir.
type harness struct {
	t        *testing.T
	wp       *fakeWP
	dir      string // working directory
	lockPath string
	now      time.Time
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	dir := isolate(t)
	h := &harness{t: t, dir: dir, now: testNow, wp: newFakeWP(t, testNow, testPassword)}
	h.lockPath = filepath.Join(t.TempDir(), "x.lock")
	t.Setenv("WPQUEUE_SITE_URL", h.wp.URL())
	t.Setenv("WPQUEUE_SITE_USERNAME", testUser)
	t.Setenv("WPQUEUE_SITE_PASSWORD", testPassword)
	t.Setenv("WPQUEUE_LOCK_PATH", h.lockPath)
	return h
}

// result is what one execute gave.
type result struct {
	code        int
	out, errOut string
}

func (r result) String() string {
	return "exit " + strconv.Itoa(r.code) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.errOut
}

func (h *harness) run(args ...string) result {
	h.t.Helper()
	return execute(h.t, context.Background(), h.now, args...)
}

// execute runs wpqueue like a user would, with buffers for the streams, the
// clock fixed at now and an HTTP client of its own. Every test goes through
// it: it fails the test if a password shows up in stdout or stderr.
func execute(t *testing.T, ctx context.Context, now time.Time, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	a := &app{
		streams:    Streams{In: strings.NewReader(""), Out: &out, Err: &errOut},
		now:        func() time.Time { return now },
		httpClient: &http.Client{Transport: tr},
	}
	code := a.execute(ctx, args)
	r := result{code: code, out: out.String(), errOut: errOut.String()}
	checkNoSecrets(t, "stdout of wpqueue "+strings.Join(args, " "), r.out)
	checkNoSecrets(t, "stderr of wpqueue "+strings.Join(args, " "), r.errOut)
	return r
}

// wantCode fails the test unless r exited with code.
func wantCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit status %d, want %d\n%s", r.code, code, r)
	}
}

// wantContains fails the test unless s contains every one of subs.
func wantContains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s does not contain %q:\n%s", what, sub, s)
		}
	}
}

// wantOnlyGets fails the test if any request other than GET was sent.
func wantOnlyGets(t *testing.T, wp *fakeWP) {
	t.Helper()
	for _, r := range wp.requests() {
		if r.Method != http.MethodGet {
			t.Errorf("a dry run or status sent %s", r)
		}
	}
}

// writeFile writes content to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// closedPort returns the address of a 127.0.0.1 port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// draft returns a publishable draft dated d.
func draft(id int, title string, d time.Time) fakePost {
	return fakePost{ID: id, Status: "draft", Title: title, Content: "Body of " + title, DateGMT: d}
}

// utc is a shorthand for a UTC instant.
func utc(y int, mo time.Month, d, h, mi int) time.Time {
	return time.Date(y, mo, d, h, mi, 0, 0, time.UTC)
}
