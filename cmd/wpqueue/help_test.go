package main

import (
	"regexp"
	"strings"
	"testing"
)

func TestHelpDocumentsExitStatus(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"publish", "--help"}, {"status", "--help"}, {"help", "publish"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := execute(t, t.Context(), testNow, args...)
			wantCode(t, r, exitOK)
			if r.errOut != "" {
				t.Errorf("help wrote to stderr:\n%s", r.errOut)
			}
			wantContains(t, "help", r.out, "EXIT STATUS")
			for _, code := range []string{"0", "1", "2", "3", "4", "5", "75", "130"} {
				mustMatch(t, r.out, `(?m)^  `+code+` +\S`)
			}
		})
	}
}

func TestPublishHelpNamesItsFlags(t *testing.T) {
	isolate(t)
	r := execute(t, t.Context(), testNow, "publish", "--help")
	wantCode(t, r, exitOK)
	wantContains(t, "publish --help", r.out, "--dry-run", "--wait", "--timeout", "--site ", "--output", "--config",
		"--schedule-times", "WPQUEUE_SCHEDULE_TIMES")
	if strings.Contains(r.out, "--site-password ") {
		t.Errorf("there is a flag for the password:\n%s", r.out)
	}
}

func TestVersion(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := execute(t, t.Context(), testNow, args...)
		wantCode(t, r, exitOK)
		mustMatch(t, r.out, `^wpqueue (version )?(devel|v\S+) \(go\S+, \w+/\w+\)\n$`)
	}
	// version takes no arguments.
	r := execute(t, t.Context(), testNow, "version", "extra")
	wantCode(t, r, exitUsage)
}

func TestVersionIsSetByLdflags(t *testing.T) {
	isolate(t)
	old := version
	version = "v1.2.3"
	t.Cleanup(func() { version = old })
	r := execute(t, t.Context(), testNow, "version")
	wantCode(t, r, exitOK)
	if !regexp.MustCompile(`^wpqueue v1\.2\.3 \(`).MatchString(r.out) {
		t.Errorf("version output %q", r.out)
	}
}
