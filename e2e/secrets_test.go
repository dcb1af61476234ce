package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoSecretsInOutput runs every command at log level debug, in text
// and JSON log formats, with a log file, with the password from the file
// and from WPQUEUE_SITE_PASSWORD, and with a wrong password, and checks
// that neither stdout, stderr nor the log file ever holds the application
// password (with or without spaces), the Basic credentials made from it,
// or the login password. (Every other run in this package is checked for
// the same on stdout and stderr.)
func TestNoSecretsInOutput(t *testing.T) {
	s := needSite(t, "seoul")
	s.reset(t)
	planSlots(t, s, 1)
	logFile := filepath.Join(t.TempDir(), "wpqueue.log")
	debug := []string{"WPQUEUE_LOG_LEVEL=debug", "WPQUEUE_LOG_FILE=" + logFile}
	viaEnv := append([]string{"WPQUEUE_SITE_PASSWORD=" + s.password}, debug...)
	wrong := append([]string{"WPQUEUE_SITE_PASSWORD=Wrng Pass Word Xyzq 1234 5678"}, debug...)
	for _, c := range []struct {
		name string
		o    runOpts
		args []string
		code int
	}{
		{"DryRunText", runOpts{env: debug}, []string{"publish", "--dry-run"}, 0},
		{"DryRunJSONLogs", runOpts{env: append([]string{"WPQUEUE_LOG_FORMAT=json"}, debug...)}, []string{"publish", "--dry-run", "-o", "json"}, 0},
		{"StatusPasswordFromEnv", runOpts{env: viaEnv, unset: []string{"WPQUEUE_SITE_PASSWORD_FILE"}}, []string{"status", "-o", "json"}, 0},
		{"PublishPasswordFromEnv", runOpts{env: viaEnv, unset: []string{"WPQUEUE_SITE_PASSWORD_FILE"}}, []string{"publish"}, 0},
		{"PublishAgain", runOpts{env: debug}, []string{"publish"}, 0},
		{"WrongPassword", runOpts{env: wrong, unset: []string{"WPQUEUE_SITE_PASSWORD_FILE"}}, []string{"publish"}, 3},
		{"BothPasswordSources", runOpts{env: viaEnv}, []string{"publish"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := s.run(t, c.o, c.args...)
			if c.code >= 0 {
				wantCode(t, r, c.code)
			}
			if c.code == 0 && !strings.Contains(r.stderr, "level=DEBUG") && !strings.Contains(r.stderr, `"level":"DEBUG"`) {
				t.Errorf("want debug log lines on stderr (else this test checks nothing), got:\n%s", r)
			}
		})
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatalf("the log file: %v", err)
	}
	if !strings.Contains(string(b), "DEBUG") {
		t.Errorf("want debug lines in the log file %s, got:\n%s", logFile, b)
	}
	s.checkTextNoSecrets(t, "the log file", string(b), wrong[0])
}
