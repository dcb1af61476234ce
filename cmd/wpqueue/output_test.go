package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// jsonPost and jsonReport mirror the documented JSON output; dates are kept
// as strings to check their exact form.
type jsonPost struct {
	ID        int    `json:"id"`
	Title     string `json:"title"`
	Status    string `json:"status"`
	DateGMT   string `json:"date_gmt"`
	DateLocal string `json:"date_local"`
	Link      string `json:"link"`
}

type jsonSlot struct {
	At     string    `json:"at"`
	Local  string    `json:"local"`
	State  string    `json:"state"`
	Post   *jsonPost `json:"post"`
	Winner *jsonPost `json:"winner"`
	Error  string    `json:"error"`
}

type jsonReport struct {
	Site           string     `json:"site"`
	URL            string     `json:"url"`
	Command        string     `json:"command"`
	DryRun         bool       `json:"dry_run"`
	Now            string     `json:"now"`
	Timezone       string     `json:"timezone"`
	TimezoneSource string     `json:"timezone_source"`
	Slots          []jsonSlot `json:"slots"`
	Queue          []jsonPost `json:"queue"`
	Missed         []jsonPost `json:"missed"`
	Warnings       []string   `json:"warnings"`
	Requests       int        `json:"requests"`
	ExitCode       int        `json:"exit_code"`
	Error          string     `json:"error"`
}

// decodeReports decodes JSON Lines output strictly: one object per line,
// no unknown fields beyond the documented ones.
func decodeReports(t *testing.T, out string) []jsonReport {
	t.Helper()
	var reps []jsonReport
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			t.Fatalf("line %d of the JSON output is empty:\n%s", i+1, out)
		}
		var r jsonReport
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %d is not a JSON object: %v\n%s", i+1, err, line)
		}
		reps = append(reps, r)
	}
	return reps
}

// Titles as authors type them: HTML, entities-to-be, quotes, Korean, emoji
// (including ZWJ sequences and a variation selector).
var (
	titleHTML   = `Tom & Jerry's "big" <em>day</em>`
	titleKorean = "한국어 제목: 오늘의 소식 🎉 👩‍💻 👨‍👩‍👧 ❤️"
)

func TestJSONOutput(t *testing.T) {
	h := newHarness(t)
	h.wp.add(
		draft(7, titleHTML, utc(2026, 11, 1, 8, 0)),
		draft(8, titleKorean, utc(2026, 11, 2, 8, 0)),
		draft(9, "Third", utc(2026, 11, 3, 8, 0)),
	)
	r := h.run("publish", "--output", "json", "--schedule-ahead", "2")
	wantCode(t, r, exitOK)
	if n := strings.Count(r.out, "\n"); n != 1 {
		t.Fatalf("want one JSON line for one site, got %d:\n%s", n, r.out)
	}
	reps := decodeReports(t, r.out)
	rep := reps[0]
	if rep.Site != "default" || rep.Command != "publish" || rep.DryRun || rep.ExitCode != 0 || rep.Error != "" {
		t.Errorf("site %q command %q dry_run %v exit_code %d error %q", rep.Site, rep.Command, rep.DryRun, rep.ExitCode, rep.Error)
	}
	if rep.URL != h.wp.URL() {
		t.Errorf("url = %q, want %q", rep.URL, h.wp.URL())
	}
	if rep.Now != "2026-11-29T10:00:00Z" {
		t.Errorf("now = %q", rep.Now)
	}
	if rep.Timezone != "Europe/Berlin" || rep.TimezoneSource != "timezone_string" {
		t.Errorf("timezone %q from %q", rep.Timezone, rep.TimezoneSource)
	}
	want := []jsonSlot{
		{At: "2026-11-30T06:00:00Z", Local: "2026-11-30T07:00:00+01:00", State: "scheduled", Post: &jsonPost{
			ID: 7, Title: titleHTML, Status: "future", DateGMT: "2026-11-30T06:00:00Z", DateLocal: "2026-11-30T07:00:00+01:00",
			Link: h.wp.srv.URL + "/?p=7"}},
		{At: "2026-12-01T06:00:00Z", Local: "2026-12-01T07:00:00+01:00", State: "scheduled", Post: &jsonPost{
			ID: 8, Title: titleKorean, Status: "future", DateGMT: "2026-12-01T06:00:00Z", DateLocal: "2026-12-01T07:00:00+01:00",
			Link: h.wp.srv.URL + "/?p=8"}},
	}
	if diff := cmp.Diff(want, rep.Slots); diff != "" {
		t.Errorf("slots (-want +got):\n%s", diff)
	}
	if len(rep.Queue) != 1 || rep.Queue[0].ID != 9 {
		t.Errorf("queue = %+v, want just #9", rep.Queue)
	}
	if rep.Missed == nil || len(rep.Missed) != 0 {
		t.Errorf("missed = %#v, want []", rep.Missed)
	}
	if rep.Requests != len(h.wp.requests()) {
		t.Errorf("requests = %d, the site saw %d", rep.Requests, len(h.wp.requests()))
	}
	wantWarning(t, rep.Warnings, "the queue is low: 1 publishable draft(s) left")
	// The raw line holds the titles as typed, not HTML-escaped (grep-able).
	wantContains(t, "the JSON line", r.out, `Tom & Jerry's \"big\" <em>day</em>`, titleKorean)
	// Warnings are diagnostics: in JSON mode they are in the object, and
	// stdout holds nothing but JSON.
	if strings.Contains(r.out, "warning:") {
		t.Errorf("text warnings in JSON output:\n%s", r.out)
	}
}

func wantWarning(t *testing.T, warnings []string, sub string) {
	t.Helper()
	for _, w := range warnings {
		if strings.Contains(w, sub) {
			return
		}
	}
	t.Errorf("no warning contains %q: %q", sub, warnings)
}

func TestJSONOutputOnErrors(t *testing.T) {
	h := newHarness(t)
	t.Setenv("WPQUEUE_SITE_PASSWORD", wrongPassword)
	r := h.run("publish", "-o", "json")
	wantCode(t, r, exitCredentials)
	rep := decodeReports(t, r.out)
	if len(rep) != 1 {
		t.Fatalf("%d reports", len(rep))
	}
	if rep[0].ExitCode != exitCredentials || !strings.Contains(rep[0].Error, "credentials not accepted") {
		t.Errorf("exit_code %d error %q", rep[0].ExitCode, rep[0].Error)
	}
	if rep[0].Slots == nil || rep[0].Warnings == nil {
		t.Errorf("slots %#v warnings %#v: want [] rather than null", rep[0].Slots, rep[0].Warnings)
	}
	// The error is on stderr too, for cron mail.
	wantContains(t, "stderr", r.errOut, "credentials not accepted")
}

func TestTitlesComeOutExactly(t *testing.T) {
	h := newHarness(t)
	h.wp.add(
		draft(7, titleHTML, utc(2026, 11, 1, 8, 0)),
		draft(8, titleKorean, utc(2026, 11, 2, 8, 0)),
	)
	for _, args := range [][]string{
		{"publish", "--dry-run", "--schedule-ahead", "2"},
		{"status", "--schedule-ahead", "1"},
		{"publish", "--schedule-ahead", "2"},
		{"status", "--schedule-ahead", "2"},
	} {
		r := h.run(args...)
		wantCode(t, r, exitOK)
		wantContains(t, strings.Join(args, " "), r.out, titleHTML, titleKorean)
		for _, bad := range []string{"&#038;", "&#8217;", "&#8221;", `\"`, `\u`} {
			if strings.Contains(r.out, bad) {
				t.Errorf("%s: output has %q:\n%s", strings.Join(args, " "), bad, r.out)
			}
		}
	}
}

func TestTitlesWithControlCharactersAreEscaped(t *testing.T) {
	h := newHarness(t)
	h.wp.add(draft(7, "Line one\nLine two \x1b[31mred\x1b[0m", utc(2026, 11, 1, 8, 0)))
	r := h.run("publish")
	wantCode(t, r, exitOK)
	if strings.Contains(r.out, "\x1b") || strings.Contains(r.out, "one\nLine") {
		t.Errorf("a title wrote control characters to the terminal:\n%q", r.out)
	}
	wantContains(t, "stdout", r.out, `"Line one\nLine two \x1b[31mred\x1b[0m"`)
	// JSON keeps the title exact.
	r = h.run("status", "-o", "json")
	rep := decodeReports(t, r.out)
	if got := rep[0].Slots[0].Post.Title; got != "Line one\nLine two \x1b[31mred\x1b[0m" {
		t.Errorf("JSON title = %q", got)
	}
}

func TestTextOutputIsNotJSON(t *testing.T) {
	h := newHarness(t)
	seedQueue(h.wp)
	r := h.run("publish")
	wantCode(t, r, exitOK)
	if json.Valid(bytes.TrimSpace([]byte(r.out))) {
		t.Errorf("text output is JSON:\n%s", r.out)
	}
}
