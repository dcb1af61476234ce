package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every execute already fails a test that shows a password; these runs go
// through the paths most likely to: debug logging, error answers that echo
// the request, JSON logs and a log file.
func TestSecretsNeverShow(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, h *harness)
		args  []string
		code  int
		// skip names a known bug outside cmd/wpqueue that the case shows.
		skip string
	}{
		{name: "success, debug", args: []string{"publish", "--log-level", "debug"}, code: exitOK},
		{name: "success, debug json logs, json output", args: []string{"publish", "--log-level=debug", "--log-format=json", "-o", "json"}, code: exitOK},
		{name: "dry run, debug", args: []string{"publish", "-n", "--log-level", "debug"}, code: exitOK},
		{name: "status, debug", args: []string{"status", "--log-level", "debug"}, code: exitOK},
		{
			name:  "wrong password, debug",
			setup: func(t *testing.T, h *harness) { t.Setenv("WPQUEUE_SITE_PASSWORD", wrongPassword) },
			args:  []string{"publish", "--log-level", "debug"},
			code:  exitCredentials,
		},
		{
			name:  "wrong password, json",
			setup: func(t *testing.T, h *harness) { t.Setenv("WPQUEUE_SITE_PASSWORD", wrongPassword) },
			args:  []string{"status", "-o", "json", "--log-level", "debug", "--log-format", "json"},
			code:  exitCredentials,
		},
		{
			name:  "a page that echoes the Authorization header",
			setup: func(t *testing.T, h *harness) { h.wp.set(func(f *fakeWP) { f.echo = true }) },
			args:  []string{"publish", "--log-level", "debug"},
			code:  exitError,
		},
		{
			name: "echo page with the root pinned",
			setup: func(t *testing.T, h *harness) {
				h.wp.set(func(f *fakeWP) { f.echo = true })
				t.Setenv("WPQUEUE_SITE_API_ROOT", h.wp.srv.URL+"/?rest_route=/")
				t.Setenv("WPQUEUE_SCHEDULE_TIMEZONE", "UTC")
			},
			args: []string{"publish", "--log-level", "debug", "-o", "json"},
			code: exitError,
		},
		{
			name: "verification failure, debug",
			setup: func(t *testing.T, h *harness) {
				h.wp.set(func(f *fakeWP) { f.onUpdate = func(p *fakePost) { p.Status = "publish" } })
			},
			args: []string{"publish", "--log-level", "debug"},
			code: exitVerify,
		},
		{
			name: "password in the site URL",
			setup: func(t *testing.T, h *harness) {
				t.Setenv("WPQUEUE_SITE_URL", "http://editor:"+testPassword+"@127.0.0.1:1/")
			},
			args: []string{"publish", "--log-level", "debug"},
			code: exitUsage,
		},
		{
			name: "password with its spaces removed in the site URL",
			setup: func(t *testing.T, h *harness) {
				t.Setenv("WPQUEUE_SITE_URL", "http://editor:"+strings.ReplaceAll(testPassword, " ", "")+"@127.0.0.1:1/")
			},
			args: []string{"status"},
			code: exitUsage,
		},
		{
			name: "password both in the env and a file",
			setup: func(t *testing.T, h *harness) {
				t.Setenv("WPQUEUE_SITE_PASSWORD_FILE", writeFile(t, h.dir, "pw", testPassword))
			},
			args: []string{"publish", "--log-level", "debug"},
			code: exitUsage,
		},
		{
			name: "password file with two lines",
			setup: func(t *testing.T, h *harness) {
				t.Setenv("WPQUEUE_SITE_PASSWORD", "")
				t.Setenv("WPQUEUE_SITE_PASSWORD_FILE", writeFile(t, h.dir, "pw", testPassword+"\n"+testPassword+"\n"))
			},
			args: []string{"publish"},
			code: exitUsage,
		},
		{
			name: "password in the config file, with a config error",
			setup: func(t *testing.T, h *harness) {
				t.Setenv("WPQUEUE_SITE_PASSWORD", "")
				writeFile(t, h.dir, "wpqueue.yaml", "site:\n  password: \""+testPassword+"\"\n  pasword: \""+testPassword+"\"\n")
			},
			args: []string{"publish"},
			code: exitUsage,
		},
		{
			name:  "password used as a flag value",
			setup: func(t *testing.T, h *harness) {},
			args:  []string{"publish", "--site-password", testPassword},
			code:  exitUsage,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip != "" {
				t.Skip(tc.skip)
			}
			h := newHarness(t)
			seedQueue(h.wp)
			logFile := filepath.Join(t.TempDir(), "wpqueue.jsonl")
			t.Setenv("WPQUEUE_LOG_FILE", logFile)
			if tc.setup != nil {
				tc.setup(t, h)
			}
			r := h.run(tc.args...)
			wantCode(t, r, tc.code)
			if b, err := os.ReadFile(logFile); err == nil {
				checkNoSecrets(t, "the log file", string(b))
			}
		})
	}
}

func TestDebugLogsSayWhatHappened(t *testing.T) {
	h := newHarness(t)
	seedQueue(h.wp)
	r := h.run("publish", "--log-level", "debug")
	wantCode(t, r, exitOK)
	// Debug logging is useful, not just silent about secrets.
	wantContains(t, "stderr", r.errOut, "REST API root", "scheduled", "post_id=5")
}
