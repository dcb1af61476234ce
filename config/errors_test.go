package config

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
)

func TestValidationErrors(t *testing.T) {
	_, statErr := os.Stat("/nonexistent/wpqueue-pw")
	enoent := errors.Unwrap(statErr).Error() // the OS's wording
	tests := []struct {
		name      string
		yaml      string            // file content; base keys are added unless noBase
		noBase    bool              // the case sets the required keys itself
		env       map[string]string // extra variables
		args      []string          // flags
		wantKey   string
		wantValue string
		wantMsg   string // exact message; "" checks only key and value
	}{
		{name: "time", yaml: "schedule: {times: [\"07:00\", 7am]}",
			wantKey: "schedule.times", wantValue: "7am",
			wantMsg: `config: schedule.times: "7am" is not a time (want HH:MM, 24-hour)`},
		{name: "time out of range", env: map[string]string{"WPQUEUE_SCHEDULE_TIMES": "07:00,24:00"},
			wantKey: "schedule.times", wantValue: "24:00"},
		{name: "no times", yaml: "schedule: {times: []}", wantKey: "schedule.times", wantValue: "",
			wantMsg: "config: schedule.times: no times given (want at least one HH:MM)"},
		{name: "weekday", args: []string{"--schedule-days=mon,funday"}, wantKey: "schedule.days", wantValue: "funday",
			wantMsg: `config: schedule.days: "funday" is not a weekday (want monday..sunday or mon..sun)`},
		{name: "time zone", yaml: "schedule: {timezone: Mars/Olympus}", wantKey: "schedule.timezone", wantValue: "Mars/Olympus",
			wantMsg: `config: schedule.timezone: unknown time zone "Mars/Olympus"`},
		{name: "time zone Local", env: map[string]string{"WPQUEUE_SCHEDULE_TIMEZONE": "Local"}, wantKey: "schedule.timezone", wantValue: "Local"},
		{name: "ahead zero", yaml: "schedule: {ahead: 0}", wantKey: "schedule.ahead", wantValue: "0",
			wantMsg: "config: schedule.ahead: 0 must be at least 1"},
		{name: "ahead over cap", env: map[string]string{"WPQUEUE_SCHEDULE_AHEAD": "1001"}, wantKey: "schedule.ahead", wantValue: "1001",
			wantMsg: "config: schedule.ahead: 1001 must be at most 1000"},
		{name: "ahead not a number", env: map[string]string{"WPQUEUE_SCHEDULE_AHEAD": "three"}, wantKey: "schedule.ahead", wantValue: "three",
			wantMsg: `config: schedule.ahead: "three" is not a whole number`},
		{name: "ahead huge in env", env: map[string]string{"WPQUEUE_SCHEDULE_AHEAD": "99999999999999999999"}, wantKey: "schedule.ahead",
			wantValue: "99999999999999999999", wantMsg: "config: schedule.ahead: 99999999999999999999 is too large (at most 1000)"},
		{name: "ahead huge in file", yaml: "schedule: {ahead: 18446744073709551616}", wantKey: "schedule.ahead", wantValue: "1.8446744073709552e+19",
			wantMsg: "config: schedule.ahead: 1.8446744073709552e+19 must be at most 1000"},
		{name: "ahead fraction", yaml: "schedule: {ahead: 1.5}", wantKey: "schedule.ahead", wantValue: "1.5"},
		{name: "negative lead", env: map[string]string{"WPQUEUE_SCHEDULE_LEAD": "-5m"}, wantKey: "schedule.lead", wantValue: "-5m",
			wantMsg: "config: schedule.lead: -5m0s must not be negative"},
		{name: "duration without unit", yaml: "site: {timeout: 30}", wantKey: "site.timeout", wantValue: "30",
			wantMsg: "config: site.timeout: 30 is not a duration (want a unit, e.g. 30s, 15m or 2h)"},
		{name: "bad duration", env: map[string]string{"WPQUEUE_ALERTS_EMPTY_WITHIN": "half a day"}, wantKey: "alerts.empty_within", wantValue: "half a day"},
		{name: "zero timeout", args: []string{"--site-timeout=0s"}, wantKey: "site.timeout", wantValue: "0s",
			wantMsg: "config: site.timeout: 0s must be more than zero"},
		{name: "negative low_queue", yaml: "alerts: {low_queue: -1}", wantKey: "alerts.low_queue", wantValue: "-1"},
		{name: "bool", env: map[string]string{"WPQUEUE_SITE_ALLOW_INSECURE_HTTP": "maybe"}, wantKey: "site.allow_insecure_http", wantValue: "maybe",
			wantMsg: `config: site.allow_insecure_http: "maybe" is not true or false`},
		{name: "queue status", yaml: "queue: {status: publish}", wantKey: "queue.status", wantValue: "publish",
			wantMsg: `config: queue.status: "publish" is not a queue status (want draft or pending)`},
		{name: "queue order", env: map[string]string{"WPQUEUE_QUEUE_ORDER": "random"}, wantKey: "queue.order", wantValue: "random"},
		{name: "queue author", yaml: "queue: {author: bob}", wantKey: "queue.author", wantValue: "bob",
			wantMsg: `config: queue.author: "bob" is not a user id (want a number of 1 or more)`},
		{name: "queue category", yaml: "queue: {category: \"news, tips\"}", wantKey: "queue.category", wantValue: "news, tips"},
		{name: "queue tag id zero", yaml: "queue: {tag: 0}", wantKey: "queue.tag", wantValue: "0"},
		{name: "log level", env: map[string]string{"WPQUEUE_LOG_LEVEL": "loud"}, wantKey: "log.level", wantValue: "loud",
			wantMsg: `config: log.level: "loud" is not a log level (want debug, info, warn or error)`},
		{name: "log format", yaml: "log: {format: xml}", wantKey: "log.format", wantValue: "xml"},
		{name: "list where a value belongs", yaml: "site: {user_agent: [a, b]}", wantKey: "site.user_agent", wantValue: "[a b]",
			wantMsg: "config: site.user_agent: want a single value, not a list"},
		{name: "user agent control char", env: map[string]string{"WPQUEUE_SITE_USER_AGENT": "a\nb"}, wantKey: "site.user_agent", wantValue: "a\nb"},

		{name: "url required", noBase: true, yaml: "site: {username: editor}", wantKey: "site.url", wantValue: "",
			wantMsg: "config: site.url is required (set it in the config file or WPQUEUE_SITE_URL)"},
		{name: "username required", noBase: true, yaml: "site: {url: https://example.com}", wantKey: "site.username", wantValue: "",
			wantMsg: "config: site.username is required (set it in the config file or WPQUEUE_SITE_USERNAME)"},
		{name: "url not absolute", env: map[string]string{"WPQUEUE_SITE_URL": "example.com"}, wantKey: "site.url", wantValue: "example.com",
			wantMsg: `config: site.url: "example.com" is not an absolute http(s) URL (want e.g. https://example.com)`},
		{name: "url scheme", env: map[string]string{"WPQUEUE_SITE_URL": "ftp://example.com"}, wantKey: "site.url", wantValue: "ftp://example.com"},
		{name: "url plain http", env: map[string]string{"WPQUEUE_SITE_URL": "http://example.com"}, wantKey: "site.url", wantValue: "http://example.com",
			wantMsg: `config: site.url: "http://example.com" uses plain http, so the application password would travel unencrypted (use https, or set site.allow_insecure_http)`},
		{name: "url with credentials", env: map[string]string{"WPQUEUE_SITE_URL": "https://bob:hunter2@example.com"}, wantKey: "site.url",
			wantValue: "https://bob:xxxxx@example.com"},
		{name: "api root plain http", yaml: "site: {api_root: http://example.com/wp-json/}", wantKey: "site.api_root", wantValue: "http://example.com/wp-json/"},
		{name: "password file missing", env: map[string]string{"WPQUEUE_SITE_PASSWORD_FILE": "/nonexistent/wpqueue-pw"},
			wantKey: "site.password_file", wantValue: "/nonexistent/wpqueue-pw",
			wantMsg: "config: site.password_file: cannot read password file: open /nonexistent/wpqueue-pw: " + enoent},
		{name: "password as a list", yaml: "site: {password: [hunter2]}", wantKey: "site.password", wantValue: redacted},
		{name: "both passwords", yaml: "site: {password: hunter2, password_file: /x}", wantKey: "site.password", wantValue: redacted,
			wantMsg: "config: site.password and site.password_file are both set; use one"},

		{name: "unknown top-level key", yaml: "shedule: {times: [\"07:00\"]}", wantKey: "shedule", wantValue: "",
			wantMsg: `config: unknown key "shedule" in FILE (did you mean "schedule"?)`},
		{name: "unknown section key", yaml: "schedule: {tims: [\"07:00\"]}", wantKey: "schedule.tims",
			wantMsg: `config: unknown key "schedule.tims" in FILE (did you mean "schedule.times"?)`},
		{name: "key in the wrong section", yaml: "site: {timezone: UTC}", wantKey: "site.timezone",
			wantMsg: `config: unknown key "site.timezone" in FILE (did you mean "schedule.timezone"?)`},
		{name: "unknown key, nothing near", yaml: "colour: blue", wantKey: "colour",
			wantMsg: `config: unknown key "colour" in FILE`},
		{name: "keys are case-sensitive", yaml: "Site: {url: x}", wantKey: "Site",
			wantMsg: `config: unknown key "Site" in FILE (did you mean "site"?)`},
		{name: "unknown per-site key", yaml: "sites: {blog: {schedule: {ahaed: 2}}}", wantKey: "sites.blog.schedule.ahaed",
			wantMsg: `config: unknown key "sites.blog.schedule.ahaed" in FILE (did you mean "sites.blog.schedule.ahead"?)`},
		{name: "unknown per-site section", yaml: "sites: {blog: {sched: {}}}", wantKey: "sites.blog.sched",
			wantMsg: `config: unknown key "sites.blog.sched" in FILE (did you mean "sites.blog.schedule"?)`},
		{name: "log inside a site", yaml: "sites: {blog: {log: {level: debug}}}", wantKey: "sites.blog.log",
			wantMsg: `config: unknown key "sites.blog.log" in FILE (log settings apply to every site; set them at the top level)`},
		{name: "section not a mapping", yaml: "schedule: daily", wantKey: "schedule"},
		{name: "duplicate key", yaml: "queue: {status: draft}\nqueue: {order: date}", wantKey: "queue",
			wantMsg: `config: FILE:6: key "queue" is set twice (first at line 5)`},
		{name: "bad site name", yaml: "sites: {Blog: {site: {url: https://b.example}}}", wantKey: "sites", wantValue: "Blog"},
		{name: "site names clash in env", yaml: "sites: {my-blog: {}, my_blog: {}}", wantKey: "sites", wantValue: "my_blog"},
		{name: "per-site invalid value", yaml: "sites: {blog: {schedule: {ahead: 0}}}", wantKey: "sites.blog.schedule.ahead", wantValue: "0",
			wantMsg: "config: sites.blog.schedule.ahead: 0 must be at least 1"},
		{name: "per-site env invalid value", yaml: "sites: {blog: {}}", env: map[string]string{"WPQUEUE_SITES_BLOG_SCHEDULE_LEAD": "soon"},
			wantKey: "sites.blog.schedule.lead", wantValue: "soon"},
		{name: "inherited invalid value names the top-level key", yaml: "schedule: {ahead: 0}\nsites: {a: {}, b: {}}",
			wantKey: "schedule.ahead", wantValue: "0", wantMsg: "config: schedule.ahead: 0 must be at least 1"},
		{name: "stray per-site env", yaml: "sites: {blog: {}}", env: map[string]string{"WPQUEUE_SITES_BLGO_SITE_PASSWORD": "hunter2"},
			wantKey: "WPQUEUE_SITES_BLGO_SITE_PASSWORD", wantValue: "",
			wantMsg: "config: WPQUEUE_SITES_BLGO_SITE_PASSWORD: matches no site and key (sites: blog); sites are defined in the config file"},
		{name: "per-site env without sites", env: map[string]string{"WPQUEUE_SITES_DEFAULT_SITE_URL": "https://x.example"},
			wantKey: "WPQUEUE_SITES_DEFAULT_SITE_URL"},
		{name: "syntax error", yaml: "site:\n  url: x\n   username: y", wantKey: "", wantValue: "FILE",
			wantMsg: "config: FILE:7: mapping values are not allowed in this context"},
		{name: "top level is a list", noBase: true, yaml: "- site", wantKey: "", wantValue: "FILE",
			wantMsg: "config: FILE:1: want a mapping of keys at the top level, not a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := isolate(t)
			content := tt.yaml
			if !tt.noBase {
				// The required keys come from the environment; four comment
				// lines put the case's YAML at line 5 either way.
				content = "# test\n#\n#\n#\n" + tt.yaml
				t.Setenv("WPQUEUE_SITE_URL", "https://example.com")
				t.Setenv("WPQUEUE_SITE_USERNAME", "editor")
			}
			path := writeFile(t, dir, "wpqueue.yaml", content+"\n")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			fe, err := fieldError(t, LoadOptions{Path: path, Flags: flags(t, tt.args...)})
			wantValue := strings.ReplaceAll(tt.wantValue, "FILE", path)
			if fe.Key != tt.wantKey || fe.Value != wantValue {
				t.Errorf("FieldError{Key: %q, Value: %q}, want {%q, %q}; error: %v", fe.Key, fe.Value, tt.wantKey, wantValue, err)
			}
			if tt.wantMsg != "" {
				if want := strings.ReplaceAll(tt.wantMsg, "FILE", path); err.Error() != want {
					t.Errorf("error:\n got %q\nwant %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(fe.Value, "hunter2") {
				t.Errorf("error shows the password: %q", err)
			}
		})
	}
}

func TestTestdataErrors(t *testing.T) {
	isolate(t)
	for file, want := range map[string]string{
		"unknown-key.yaml":  `config: unknown key "shedule" in ` + testdata("unknown-key.yaml") + ` (did you mean "schedule"?)`,
		"syntax-error.yaml": "config: " + testdata("syntax-error.yaml") + ":3: mapping values are not allowed in this context",
	} {
		_, err := fieldError(t, LoadOptions{Path: testdata(file)})
		if err.Error() != want {
			t.Errorf("%s:\n got %q\nwant %q", file, err, want)
		}
	}
}

// TestAllErrorsReported checks that Load reports every problem, not just
// the first, and that each one is a *FieldError matching ErrConfig.
func TestAllErrorsReported(t *testing.T) {
	dir := isolate(t)
	path := writeFile(t, dir, "wpqueue.yaml", "schedule: {ahead: 0, timezone: Mars/Olympus}\nqueue: {status: publish}\n")
	_, err := Load(LoadOptions{Path: path})
	if !errors.Is(err, ErrConfig) {
		t.Fatalf("err = %v, want ErrConfig", err)
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("err = %v (%T), want several joined", err, err)
	}
	var keys []string
	for _, e := range joined.Unwrap() {
		var fe *FieldError
		if !errors.As(e, &fe) || !errors.Is(e, ErrConfig) {
			t.Errorf("%v is not a *FieldError matching ErrConfig", e)
			continue
		}
		keys = append(keys, fe.Key)
	}
	want := "site.url site.username schedule.ahead schedule.timezone queue.status"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("keys %q, want %q", got, want)
	}
}

func TestPasswordFileErrors(t *testing.T) {
	dir := isolate(t)
	t.Setenv("WPQUEUE_SITE_URL", "https://example.com")
	t.Setenv("WPQUEUE_SITE_USERNAME", "editor")
	for name, content := range map[string]string{
		"empty":     " \n",
		"two lines": "abcd efgh\nijkl mnop\n",
		"too large": strings.Repeat("x", maxPasswordFile+1),
	} {
		p := writeFile(t, dir, name, content)
		t.Setenv("WPQUEUE_SITE_PASSWORD_FILE", p)
		fe, err := fieldError(t, LoadOptions{})
		if fe.Key != "site.password_file" || fe.Value != p || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: FieldError{Key: %q, Value: %q} %q; want the key and path", name, fe.Key, fe.Value, err)
		}
		if strings.Contains(err.Error(), "abcd") {
			t.Errorf("%s: error shows the file's contents: %q", name, err)
		}
	}
	if runtime.GOOS != "windows" && os.Getuid() != 0 {
		p := writeFile(t, dir, "unreadable", "pw\n")
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		t.Setenv("WPQUEUE_SITE_PASSWORD_FILE", p)
		_, err := fieldError(t, LoadOptions{})
		if !errors.Is(err, os.ErrPermission) {
			t.Errorf("err = %v, want it to wrap ErrPermission", err)
		}
	}
}

func TestFieldErrorFormat(t *testing.T) {
	e := &FieldError{Key: "schedule.ahead", Value: "0", Err: errors.New("0 must be at least 1")}
	if got, want := e.Error(), "config: schedule.ahead: 0 must be at least 1"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(e, ErrConfig) || errors.Unwrap(e) != e.Err {
		t.Error("FieldError must match ErrConfig and unwrap to Err")
	}
}

func TestSuggest(t *testing.T) {
	for word, want := range map[string]string{
		"shedule": "schedule", "sites": "sites", "sitess": "sites", "qeueu": "queue", "lok": "lock",
		"x": "", "completely-different": "", "log": "log", "lg": "log",
	} {
		if got := suggest(word, append(sectionNames, "sites")); got != want {
			t.Errorf("suggest(%q) = %q, want %q", word, got, want)
		}
	}
}

// Plain http to a loopback address never leaves the machine: it needs no
// site.allow_insecure_http (the local WordPress of the tests and README).
func TestPlainHTTPOnLoopbackIsAllowed(t *testing.T) {
	for _, u := range []string{"http://127.0.0.1:18080", "http://localhost:8080/blog/", "http://[::1]:8080/", "http://127.0.0.2/"} {
		t.Chdir(t.TempDir())
		t.Setenv("WPQUEUE_SITE_URL", u)
		t.Setenv("WPQUEUE_SITE_USERNAME", "admin")
		cfg, err := Load(LoadOptions{})
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		if cfg.Sites[0].Site.URL != u {
			t.Errorf("%s: URL = %q", u, cfg.Sites[0].Site.URL)
		}
	}
	t.Setenv("WPQUEUE_SITE_URL", "http://127.0.0.1.example.com/")
	if _, err := Load(LoadOptions{}); err == nil || !strings.Contains(err.Error(), "plain http") {
		t.Errorf("a host that only starts like loopback: err = %v", err)
	}
}

// WordPress publishes at once a post scheduled less than a minute ahead:
// a lead under 1m is refused, naming the key and value.
func TestLeadAtLeastAMinute(t *testing.T) {
	for _, v := range []string{"0", "0s", "30s", "59s"} {
		t.Chdir(t.TempDir())
		t.Setenv("WPQUEUE_SITE_URL", "https://blog.example.com")
		t.Setenv("WPQUEUE_SITE_USERNAME", "editor")
		t.Setenv("WPQUEUE_SCHEDULE_LEAD", v)
		_, err := Load(LoadOptions{})
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Key != "schedule.lead" || fe.Value != v || !strings.Contains(err.Error(), "at least 1m") {
			t.Errorf("lead %q: err = %v", v, err)
		}
	}
	t.Setenv("WPQUEUE_SCHEDULE_LEAD", "1m")
	if _, err := Load(LoadOptions{}); err != nil {
		t.Errorf("lead 1m: %v", err)
	}
}
