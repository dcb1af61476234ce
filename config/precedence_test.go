package config

import (
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// layerValue is a value as written in one source and as Load must return it.
type layerValue struct {
	in   any // YAML value for the file; a string for env and flags
	want any
}

// precCase exercises one key in every source. Each layer's value differs
// from the layer below it, so an implementation that takes the wrong source
// returns the wrong value.
type precCase struct {
	key   string
	get   func(s Site, log Log) any
	def   any // want with nothing set; noDefault for required keys
	file  layerValue
	env   layerValue
	flag  *layerValue // nil: the key has no flag
	multi bool        // false for log.*, which is not per site
}

// noDefault marks a required key, which has no default to test.
var noDefault = struct{}{}

func clocks(s ...string) []Clock {
	var out []Clock
	for _, x := range s {
		c, ok := parseClock(x)
		if !ok {
			panic(x)
		}
		out = append(out, c)
	}
	return out
}

var everyDay = []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday}

// precCases returns one case per key; dir holds the password files and
// the absolute paths used for path keys.
func precCases(t *testing.T, dir string) []precCase {
	pw := func(layer string) string {
		return writeFile(t, dir, "pw-"+layer, layer+"-layer password\n")
	}
	pwFile, pwEnv, pwFlag := pw("file"), pw("env"), pw("flag")
	abs := func(name string) string { return filepath.Join(dir, name) }
	site := func(f func(SiteAccess) any) func(Site, Log) any { return func(s Site, _ Log) any { return f(s.Site) } }
	sched := func(f func(Schedule) any) func(Site, Log) any {
		return func(s Site, _ Log) any { return f(s.Schedule) }
	}
	queue := func(f func(Queue) any) func(Site, Log) any { return func(s Site, _ Log) any { return f(s.Queue) } }
	logf := func(f func(Log) any) func(Site, Log) any { return func(_ Site, l Log) any { return f(l) } }
	lv := func(in, want any) *layerValue { return &layerValue{in, want} }

	return []precCase{
		{key: "site.url", get: site(func(a SiteAccess) any { return a.URL }), def: noDefault,
			file: layerValue{"https://file.example", "https://file.example"},
			env:  layerValue{"https://env.example", "https://env.example"},
			flag: lv("https://flag.example", "https://flag.example"), multi: true},
		{key: "site.username", get: site(func(a SiteAccess) any { return a.Username }), def: noDefault,
			file: layerValue{"file-user", "file-user"},
			env:  layerValue{"env user", "env user"},
			flag: lv("flag-user", "flag-user"), multi: true},
		{key: "site.password", get: site(func(a SiteAccess) any { return a.Password.Reveal() }), def: "",
			file: layerValue{"file pass word", "file pass word"},
			env:  layerValue{"env pass word", "env pass word"},
			flag: nil, multi: true},
		{key: "site.password_file", get: site(func(a SiteAccess) any { return a.Password.Reveal() }), def: "",
			file: layerValue{pwFile, "file-layer password"},
			env:  layerValue{pwEnv, "env-layer password"},
			flag: lv(pwFlag, "flag-layer password"), multi: true},
		{key: "site.api_root", get: site(func(a SiteAccess) any { return a.APIRoot }), def: "",
			file: layerValue{"https://file.example/wp-json/", "https://file.example/wp-json/"},
			env:  layerValue{"https://env.example/?rest_route=/", "https://env.example/?rest_route=/"},
			flag: lv("https://flag.example/api/", "https://flag.example/api/"), multi: true},
		{key: "site.allow_insecure_http", get: site(func(a SiteAccess) any { return a.AllowInsecureHTTP }), def: false,
			file: layerValue{true, true},
			env:  layerValue{"0", false},
			flag: lv("true", true), multi: true},
		{key: "site.user_agent", get: site(func(a SiteAccess) any { return a.UserAgent }), def: "",
			file: layerValue{"file-agent/1", "file-agent/1"},
			env:  layerValue{"env-agent/2", "env-agent/2"},
			flag: lv("flag-agent/3", "flag-agent/3"), multi: true},
		{key: "site.timeout", get: site(func(a SiteAccess) any { return a.Timeout }), def: 30 * time.Second,
			file: layerValue{"45s", 45 * time.Second},
			env:  layerValue{"1m", time.Minute},
			flag: lv("2m", 2*time.Minute), multi: true},
		{key: "schedule.times", get: sched(func(s Schedule) any { return s.Times }), def: clocks("07:00"),
			file: layerValue{[]any{"08:00", "06:30"}, clocks("06:30", "08:00")},
			env:  layerValue{"21:15, 09:00", clocks("09:00", "21:15")},
			flag: lv("10:00,22:00", clocks("10:00", "22:00")), multi: true},
		{key: "schedule.days", get: sched(func(s Schedule) any { return s.Days }), def: everyDay,
			file: layerValue{[]any{"Wednesday", "mon"}, []time.Weekday{time.Monday, time.Wednesday}},
			env:  layerValue{"sat,FRI", []time.Weekday{time.Friday, time.Saturday}},
			flag: lv("sun", []time.Weekday{time.Sunday}), multi: true},
		{key: "schedule.ahead", get: sched(func(s Schedule) any { return s.Ahead }), def: 1,
			file: layerValue{2, 2},
			env:  layerValue{"3", 3},
			flag: lv("4", 4), multi: true},
		{key: "schedule.lead", get: sched(func(s Schedule) any { return s.Lead }), def: 15 * time.Minute,
			file: layerValue{"5m", 5 * time.Minute},
			env:  layerValue{"2m", 2 * time.Minute},
			flag: lv("1h", time.Hour), multi: true},
		{key: "schedule.timezone", get: sched(func(s Schedule) any { return s.Timezone }), def: "",
			file: layerValue{"Europe/Paris", "Europe/Paris"},
			env:  layerValue{"Asia/Tokyo", "Asia/Tokyo"},
			flag: lv("America/New_York", "America/New_York"), multi: true},
		{key: "queue.status", get: queue(func(q Queue) any { return q.Status }), def: "draft",
			file: layerValue{"pending", "pending"},
			env:  layerValue{"DRAFT", "draft"},
			flag: lv("pending", "pending"), multi: true},
		{key: "queue.category", get: queue(func(q Queue) any { return q.Category }), def: "",
			file: layerValue{"news", "news"},
			env:  layerValue{"12", "12"},
			flag: lv("flag-cat", "flag-cat"), multi: true},
		{key: "queue.tag", get: queue(func(q Queue) any { return q.Tag }), def: "",
			file: layerValue{"featured", "featured"},
			env:  layerValue{"34", "34"},
			flag: lv("flag-tag", "flag-tag"), multi: true},
		{key: "queue.author", get: queue(func(q Queue) any { return q.Author }), def: "",
			file: layerValue{5, "5"},
			env:  layerValue{"6", "6"},
			flag: lv("7", "7"), multi: true},
		{key: "queue.order", get: queue(func(q Queue) any { return q.Order }), def: "id",
			file: layerValue{"date", "date"},
			env:  layerValue{"modified", "modified"},
			flag: lv("title", "title"), multi: true},
		{key: "lock.path", get: func(s Site, _ Log) any { return s.Lock.Path }, def: "",
			file: layerValue{abs("file.lock"), abs("file.lock")},
			env:  layerValue{abs("env.lock"), abs("env.lock")},
			flag: lv(abs("flag.lock"), abs("flag.lock")), multi: true},
		{key: "alerts.low_queue", get: func(s Site, _ Log) any { return s.Alerts.LowQueue }, def: 3,
			file: layerValue{0, 0},
			env:  layerValue{"5", 5},
			flag: lv("7", 7), multi: true},
		{key: "alerts.empty_within", get: func(s Site, _ Log) any { return s.Alerts.EmptyWithin }, def: 12 * time.Hour,
			file: layerValue{"24h", 24 * time.Hour},
			env:  layerValue{"1h30m", 90 * time.Minute},
			flag: lv("0s", time.Duration(0)), multi: true},
		{key: "log.level", get: logf(func(l Log) any { return l.Level }), def: slog.LevelWarn,
			file: layerValue{"debug", slog.LevelDebug},
			env:  layerValue{"warn", slog.LevelWarn},
			flag: lv("error", slog.LevelError)},
		{key: "log.format", get: logf(func(l Log) any { return l.Format }), def: "text",
			file: layerValue{"json", "json"},
			env:  layerValue{"text", "text"},
			flag: lv("json", "json")},
		{key: "log.file", get: logf(func(l Log) any { return l.File }), def: "",
			file: layerValue{abs("file.jsonl"), abs("file.jsonl")},
			env:  layerValue{abs("env.jsonl"), abs("env.jsonl")},
			flag: lv(abs("flag.jsonl"), abs("flag.jsonl"))},
	}
}

// TestPrecedenceCoversEveryKey keeps the table below in step with keyDefs.
func TestPrecedenceCoversEveryKey(t *testing.T) {
	var got, want []string
	for _, c := range precCases(t, t.TempDir()) {
		got = append(got, c.key)
		if (c.flag == nil) != keyIndex[c.key].noFlag {
			t.Errorf("%s: flag case present = %v, but noFlag = %v", c.key, c.flag != nil, keyIndex[c.key].noFlag)
		}
		if c.multi == keyIndex[c.key].topOnly {
			t.Errorf("%s: multi = %v, but topOnly = %v", c.key, c.multi, keyIndex[c.key].topOnly)
		}
	}
	for _, d := range keyDefs {
		want = append(want, d.key)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("precedence cases differ from keyDefs (-want +got):\n%s", diff)
	}
}

// baseTree is the least a config needs: the two required keys.
func baseTree() map[string]any {
	return map[string]any{"site": map[string]any{"url": "https://base.example", "username": "base-user"}}
}

// TestPrecedence checks flag > env > file > default for every key in a
// single-site config, and that each key works from the environment alone.
func TestPrecedence(t *testing.T) {
	const (
		upToDefault = iota
		upToFile
		upToEnv
		upToFlag
		envOnly
	)
	layers := []string{"default", "file", "env", "flag", "env-only"}
	for _, c := range precCases(t, t.TempDir()) {
		for layer, name := range layers {
			if layer == upToDefault && c.def == noDefault || layer == upToFlag && c.flag == nil {
				continue
			}
			t.Run(c.key+"/"+name, func(t *testing.T) {
				dir := isolate(t)
				opts := LoadOptions{}
				var args []string
				if layer == envOnly {
					// No file anywhere: the required keys and this key come from the environment.
					t.Setenv("WPQUEUE_SITE_URL", "https://base.example")
					t.Setenv("WPQUEUE_SITE_USERNAME", "base-user")
				} else {
					tree := baseTree()
					if layer >= upToFile {
						setKey(tree, c.key, c.file.in)
					}
					opts.Path = writeYAML(t, dir, "wpqueue.yaml", tree)
				}
				if layer >= upToEnv {
					t.Setenv(envName(c.key), c.env.in.(string))
				}
				if layer == upToFlag {
					args = []string{"--" + flagName(c.key) + "=" + c.flag.in.(string)}
				}
				// Always pass the flag set: unchanged flags (with defaults) must not mask anything.
				opts.Flags = flags(t, args...)

				cfg := mustLoad(t, opts)
				want := map[int]any{upToDefault: c.def, upToFile: c.file.want, upToEnv: c.env.want, envOnly: c.env.want}[layer]
				if layer == upToFlag {
					want = c.flag.want
				}
				if len(cfg.Sites) != 1 || cfg.Sites[0].Name != DefaultSiteName {
					t.Fatalf("sites = %+v, want one named %q", cfg.Sites, DefaultSiteName)
				}
				if diff := cmp.Diff(want, c.get(cfg.Sites[0], cfg.Log)); diff != "" {
					t.Errorf("%s with sources up to %s (-want +got):\n%s", c.key, name, diff)
				}
			})
		}
	}
}

// TestPrecedencePerSite checks, for every per-site key, the multi-site
// order flag > per-site env > per-site file > top-level env > top-level file.
func TestPrecedencePerSite(t *testing.T) {
	type scenario struct {
		name      string
		needsFlag bool
		want      func(c precCase) any
	}
	scenarios := []scenario{
		{name: "inherits top-level file", want: func(c precCase) any { return c.file.want }},
		{name: "inherits top-level env", want: func(c precCase) any { return c.env.want }},
		{name: "site file beats top-level env", want: func(c precCase) any { return c.file.want }},
		{name: "site env beats site file", want: func(c precCase) any { return c.env.want }},
		{name: "flag beats site env", needsFlag: true, want: func(c precCase) any { return c.flag.want }},
	}
	for _, c := range precCases(t, t.TempDir()) {
		if !c.multi {
			continue
		}
		for _, sc := range scenarios {
			if sc.needsFlag && c.flag == nil {
				continue
			}
			t.Run(c.key+"/"+sc.name, func(t *testing.T) {
				dir := isolate(t)
				tree := map[string]any{}
				setKey(tree, "site.username", "top-user")
				if c.key == "site.url" {
					setKey(tree, "sites.blog", map[string]any{}) // blog's URL comes from the scenario
				} else {
					setKey(tree, "sites.blog.site.url", "https://blog.example")
				}
				setKey(tree, "sites.other.site.url", "https://other.example")
				siteKey := "sites.blog." + c.key
				siteEnv := siteEnvName("blog", c.key)
				var args []string
				switch sc.name {
				case "inherits top-level file":
					setKey(tree, c.key, c.file.in)
				case "inherits top-level env":
					setKey(tree, c.key, c.file.in)
					t.Setenv(envName(c.key), c.env.in.(string))
				case "site file beats top-level env":
					setKey(tree, siteKey, c.file.in)
					t.Setenv(envName(c.key), c.env.in.(string))
				case "site env beats site file":
					setKey(tree, siteKey, c.file.in)
					t.Setenv(siteEnv, c.env.in.(string))
				case "flag beats site env":
					setKey(tree, siteKey, c.file.in)
					t.Setenv(siteEnv, c.env.in.(string))
					args = []string{"--" + flagName(c.key) + "=" + c.flag.in.(string)}
				}
				path := writeYAML(t, dir, "wpqueue.yaml", tree)
				cfg := mustLoad(t, LoadOptions{Path: path, Flags: flags(t, args...)})
				blog, err := cfg.Select([]string{"blog"})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(sc.want(c), c.get(blog[0], cfg.Log)); diff != "" {
					t.Errorf("blog %s (-want +got):\n%s", c.key, diff)
				}
				// The other site does not see blog's per-site value; it inherits the top-level one.
				if sc.name == "site file beats top-level env" && c.key != "site.url" {
					other, err := cfg.Select([]string{"other"})
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(c.env.want, c.get(other[0], cfg.Log)); diff != "" {
						t.Errorf("other %s (-want +got):\n%s", c.key, diff)
					}
				}
			})
		}
	}
}

// TestFlagSetToItsDefaultStillWins catches an implementation that compares
// a flag with its default instead of asking whether it was given.
func TestFlagSetToItsDefaultStillWins(t *testing.T) {
	dir := isolate(t)
	tree := baseTree()
	setKey(tree, "schedule.ahead", 5)
	setKey(tree, "queue.status", "pending")
	path := writeYAML(t, dir, "wpqueue.yaml", tree)
	t.Setenv("WPQUEUE_SCHEDULE_TIMES", "09:00")
	cfg := mustLoad(t, LoadOptions{Path: path, Flags: flags(t, "--schedule-ahead=1", "--queue-status=draft", "--schedule-times=07:00")})
	s := cfg.Sites[0]
	got := []any{s.Schedule.Ahead, s.Queue.Status, s.Schedule.Times}
	want := []any{1, "draft", clocks("07:00")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestEnvOnlyEveryKey sets every key from the environment at once, with
// no config file anywhere (a systemd unit or Task Scheduler action).
func TestEnvOnlyEveryKey(t *testing.T) {
	isolate(t)
	cases := precCases(t, t.TempDir())
	for _, c := range cases {
		if c.key == "site.password" {
			continue // exclusive with site.password_file at the same level
		}
		t.Setenv(envName(c.key), c.env.in.(string))
	}
	cfg := mustLoad(t, LoadOptions{})
	if cfg.File != "" {
		t.Errorf("File = %q, want none", cfg.File)
	}
	for _, c := range cases {
		if c.key == "site.password" {
			continue
		}
		if diff := cmp.Diff(c.env.want, c.get(cfg.Sites[0], cfg.Log)); diff != "" {
			t.Errorf("%s from %s (-want +got):\n%s", c.key, envName(c.key), diff)
		}
	}
}

// TestPasswordLayers checks that site.password and site.password_file act
// as one setting: the higher layer wins, the same layer is an error.
func TestPasswordLayers(t *testing.T) {
	tests := []struct {
		name    string
		file    map[string]any // site.* keys in the file
		env     map[string]string
		args    []string
		want    string
		wantErr bool
	}{
		{name: "env password beats file password_file",
			file: map[string]any{"password_file": "PWFILE"}, env: map[string]string{"WPQUEUE_SITE_PASSWORD": "from env"}, want: "from env"},
		{name: "env password_file beats file password",
			file: map[string]any{"password": "from file"}, env: map[string]string{"WPQUEUE_SITE_PASSWORD_FILE": "PWFILE"}, want: "from password file"},
		{name: "flag password_file beats env password",
			env: map[string]string{"WPQUEUE_SITE_PASSWORD": "from env"}, args: []string{"--site-password-file=PWFILE"}, want: "from password file"},
		{name: "both in file", file: map[string]any{"password": "x", "password_file": "PWFILE"}, wantErr: true},
		{name: "both in env", env: map[string]string{"WPQUEUE_SITE_PASSWORD": "x", "WPQUEUE_SITE_PASSWORD_FILE": "PWFILE"}, wantErr: true},
		{name: "spaces kept, ends trimmed", file: map[string]any{"password": "  abcd efgh ijkl  "}, want: "abcd efgh ijkl"},
		{name: "relative password_file is relative to the config file", file: map[string]any{"password_file": "secrets/pw"}, want: "relative secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := isolate(t)
			pwFile := writeFile(t, dir, "pw.txt", "\ufefffrom password file \r\n\n")
			writeFile(t, dir, "conf/secrets/pw", "relative secret\n")
			fix := func(s string) string {
				if s == "PWFILE" {
					return pwFile
				}
				return s
			}
			tree := baseTree()
			for k, v := range tt.file {
				if s, ok := v.(string); ok {
					v = fix(s)
				}
				setKey(tree, "site."+k, v)
			}
			for k, v := range tt.env {
				t.Setenv(k, fix(v))
			}
			for i := range tt.args {
				tt.args[i] = strings.Replace(tt.args[i], "PWFILE", pwFile, 1)
			}
			path := writeYAML(t, dir, "conf/wpqueue.yaml", tree)
			t.Chdir(t.TempDir()) // relative paths must not resolve against the working directory
			if tt.wantErr {
				fe, err := fieldError(t, LoadOptions{Path: path, Flags: flags(t, tt.args...)})
				if fe.Key != "site.password" || fe.Value != redacted {
					t.Errorf("FieldError{Key: %q, Value: %q}, want site.password, [redacted]", fe.Key, fe.Value)
				}
				if want := "config: site.password and site.password_file are both set; use one"; err.Error() != want {
					t.Errorf("error = %q, want %q", err, want)
				}
				return
			}
			cfg := mustLoad(t, LoadOptions{Path: path, Flags: flags(t, tt.args...)})
			if got := cfg.Sites[0].Site.Password.Reveal(); got != tt.want {
				t.Errorf("password = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRelativePathsFromFile(t *testing.T) {
	dir := isolate(t)
	tree := baseTree()
	setKey(tree, "lock.path", "run/wpqueue.lock")
	setKey(tree, "log.file", "wpqueue.jsonl")
	path := writeYAML(t, dir, "etc/wpqueue.yaml", tree)
	cfg := mustLoad(t, LoadOptions{Path: path})
	want := []string{filepath.Join(dir, "etc", "run", "wpqueue.lock"), filepath.Join(dir, "etc", "wpqueue.jsonl")}
	if diff := cmp.Diff(want, []string{cfg.Sites[0].Lock.Path, cfg.Log.File}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// From the environment, a relative path stays relative to the working directory.
	t.Setenv("WPQUEUE_LOCK_PATH", "here.lock")
	cfg = mustLoad(t, LoadOptions{Path: path})
	if got := cfg.Sites[0].Lock.Path; got != "here.lock" {
		t.Errorf("lock path from env = %q, want here.lock", got)
	}
}

func TestKeyDefsAreConsistent(t *testing.T) {
	fs := flags(t)
	for _, d := range keyDefs {
		f := fs.Lookup(flagName(d.key))
		if d.noFlag {
			if f != nil {
				t.Errorf("%s must have no flag, found --%s", d.key, f.Name)
			}
			continue
		}
		if f == nil {
			t.Errorf("%s: no flag --%s", d.key, flagName(d.key))
			continue
		}
		if !strings.Contains(f.Usage, d.key) || !strings.Contains(f.Usage, envName(d.key)) {
			t.Errorf("--%s help %q names neither key %s nor %s", f.Name, f.Usage, d.key, envName(d.key))
		}
	}
	if !slices.ContainsFunc(keyDefs, func(d keyDef) bool { return d.key == "site.password" && d.noFlag }) {
		t.Error("site.password must be noFlag")
	}
}
