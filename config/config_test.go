package config

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// ignoreWarnings: the fixtures are checked out 0644, which the
// world-readable-password warning would flag; TestWarnings covers it.
var ignoreWarnings = cmpopts.IgnoreFields(Config{}, "Warnings")

func TestWarnings(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "wpqueue.yaml")
	body := "site: {url: https://blog.example.com, username: editor, password: \"abcd efgh\"}\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WPQUEUE_SHEDULE_AHEAD", "2")
	t.Setenv("WPQUEUE_REQUIRE_WORDPRESS", "1")
	cfg := mustLoad(t, LoadOptions{Path: path})
	want := []string{"environment variable WPQUEUE_SHEDULE_AHEAD matches no config key and is ignored (did you mean WPQUEUE_SCHEDULE_AHEAD?)"}
	if diff := cmp.Diff(want, cfg.Warnings); diff != "" {
		t.Errorf("0600 file (-want +got):\n%s", diff)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg = mustLoad(t, LoadOptions{Path: path})
	if len(cfg.Warnings) != 2 || !strings.Contains(cfg.Warnings[1]+cfg.Warnings[0], "chmod 600 "+path) {
		t.Errorf("0644 file with a password: warnings = %q", cfg.Warnings)
	}
}

func TestLoadMinimal(t *testing.T) {
	isolate(t)
	cfg := mustLoad(t, LoadOptions{Path: testdata("minimal.yaml")})
	want := &Config{
		File: testdata("minimal.yaml"),
		Log:  Log{Level: slog.LevelWarn, Format: "text"},
		Sites: []Site{{
			Name:     "default",
			Site:     SiteAccess{URL: "https://example.com", Username: "editor", Timeout: 30 * time.Second},
			Schedule: Schedule{Times: clocks("07:00"), Days: everyDay, Ahead: 1, Lead: 15 * time.Minute},
			Queue:    Queue{Status: "draft", Order: "id"},
			Alerts:   Alerts{LowQueue: 3, EmptyWithin: 12 * time.Hour},
		}},
	}
	if diff := cmp.Diff(want, cfg, ignoreWarnings); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLoadFull decodes every key from the file, with YAML's own types
// (ints, bools, lists) and duplicates and mixed case to normalize.
func TestLoadFull(t *testing.T) {
	isolate(t)
	cfg := mustLoad(t, LoadOptions{Path: testdata("full.yaml")})
	want := &Config{
		File: testdata("full.yaml"),
		Log:  Log{Level: slog.LevelDebug, Format: "json", File: "/var/log/wpqueue.jsonl"},
		Sites: []Site{{
			Name: "default",
			Site: SiteAccess{
				URL:               "https://blog.example.com",
				Username:          "editor",
				Password:          "abcd efgh ijkl mnop qrst uvwx",
				APIRoot:           "https://blog.example.com/?rest_route=/",
				AllowInsecureHTTP: true,
				UserAgent:         "wpqueue-test/1.0",
				Timeout:           45 * time.Second,
			},
			Schedule: Schedule{
				Times:    clocks("07:00", "19:30"),
				Days:     []time.Weekday{time.Monday, time.Friday},
				Ahead:    3,
				Lead:     time.Minute,
				Timezone: "Europe/Berlin",
			},
			Queue:  Queue{Status: "pending", Category: "news", Tag: "42", Author: "7", Order: "modified"},
			Lock:   Lock{Path: filepath.Join(filepath.Dir(testdata("full.yaml")), "locks", "blog.lock")},
			Alerts: Alerts{LowQueue: 0, EmptyWithin: 36 * time.Hour},
		}},
	}
	if diff := cmp.Diff(want, cfg, ignoreWarnings); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestMultiSite(t *testing.T) {
	isolate(t)
	path := testdata("multi.yaml")

	t.Run("inherit and override", func(t *testing.T) {
		cfg := mustLoad(t, LoadOptions{Path: path})
		blog := Site{
			Name:     "blog",
			Site:     SiteAccess{URL: "https://blog.example.com", Username: "editor", Password: "top-level-password", Timeout: 10 * time.Second},
			Schedule: Schedule{Times: clocks("07:00", "19:00"), Days: everyDay, Ahead: 2, Lead: 15 * time.Minute},
			Queue:    Queue{Status: "draft", Order: "id"},
			Alerts:   Alerts{LowQueue: 3, EmptyWithin: 12 * time.Hour},
		}
		shop := blog
		shop.Name = "shop-news"
		shop.Site.URL = "https://shop.example.com"
		shop.Site.Username = "shopkeeper"
		shop.Schedule.Days = []time.Weekday{time.Monday, time.Wednesday, time.Friday}
		shop.Schedule.Ahead = 5
		shop.Lock.Path = filepath.Join(filepath.Dir(path), "shop.lock")
		want := &Config{File: path, Log: Log{Level: slog.LevelWarn, Format: "text"}, Sites: []Site{blog, shop}}
		if diff := cmp.Diff(want, cfg, ignoreWarnings); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("per-site env", func(t *testing.T) {
		t.Setenv("WPQUEUE_SITES_BLOG_SITE_PASSWORD", "blog only")
		t.Setenv("WPQUEUE_SITES_SHOP_NEWS_SCHEDULE_AHEAD", "9") // '-' becomes '_'; beats the per-site file
		t.Setenv("WPQUEUE_SCHEDULE_AHEAD", "4")                 // top-level env: blog inherits it, shop's file beats it
		cfg := mustLoad(t, LoadOptions{Path: path})
		got := map[string]any{
			"blog password": cfg.Sites[0].Site.Password.Reveal(),
			"shop password": cfg.Sites[1].Site.Password.Reveal(),
			"blog ahead":    cfg.Sites[0].Schedule.Ahead,
			"shop ahead":    cfg.Sites[1].Schedule.Ahead,
		}
		want := map[string]any{"blog password": "blog only", "shop password": "top-level-password", "blog ahead": 4, "shop ahead": 9}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("flag beats per-site", func(t *testing.T) {
		t.Setenv("WPQUEUE_SITES_SHOP_NEWS_SCHEDULE_AHEAD", "9")
		cfg := mustLoad(t, LoadOptions{Path: path, Flags: flags(t, "--schedule-ahead=7", "--site-username=cli")})
		for _, s := range cfg.Sites {
			if s.Schedule.Ahead != 7 || s.Site.Username != "cli" {
				t.Errorf("%s: ahead %d, username %q; want 7, cli", s.Name, s.Schedule.Ahead, s.Site.Username)
			}
		}
	})

	t.Run("top-level site.url is not required", func(t *testing.T) {
		cfg := mustLoad(t, LoadOptions{Path: path})
		if len(cfg.Sites) != 2 {
			t.Fatalf("got %d sites, want 2", len(cfg.Sites))
		}
	})

	t.Run("missing per-site url", func(t *testing.T) {
		dir := t.TempDir()
		p := writeFile(t, dir, "wpqueue.yaml", "site: {username: u}\nsites:\n  blog: {}\n")
		fe, err := fieldError(t, LoadOptions{Path: p})
		want := "config: sites.blog.site.url is required (set it in the config file or WPQUEUE_SITES_BLOG_SITE_URL)"
		if err.Error() != want || fe.Key != "sites.blog.site.url" {
			t.Errorf("error %q (key %q), want %q", err, fe.Key, want)
		}
	})
}

func TestSelect(t *testing.T) {
	isolate(t)
	cfg := mustLoad(t, LoadOptions{Path: testdata("multi.yaml")})
	names := func(ss []Site) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return out
	}
	for _, tt := range []struct {
		in, want []string
	}{
		{nil, []string{"blog", "shop-news"}},
		{[]string{"shop-news"}, []string{"shop-news"}},
		{[]string{"shop-news", "blog", "blog"}, []string{"blog", "shop-news"}},
	} {
		got, err := cfg.Select(tt.in)
		if err != nil {
			t.Fatalf("Select(%q): %v", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, names(got)); diff != "" {
			t.Errorf("Select(%q) (-want +got):\n%s", tt.in, diff)
		}
	}

	_, err := cfg.Select([]string{"blog", "shop"})
	var fe *FieldError
	if !errors.As(err, &fe) || !errors.Is(err, ErrConfig) {
		t.Fatalf("Select(shop) = %v, want a *FieldError matching ErrConfig", err)
	}
	if fe.Key != "sites" || fe.Value != "shop" {
		t.Errorf("FieldError{Key: %q, Value: %q}, want sites, shop", fe.Key, fe.Value)
	}
	if want := `config: sites: no site named "shop" (known sites: blog, shop-news)`; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}

	// Selecting a site returns a copy: changing it leaves the config alone.
	got, _ := cfg.Select(nil)
	got[0].Name = "changed"
	if cfg.Sites[0].Name != "blog" {
		t.Error("Select returned the config's own slice")
	}
}

func TestSearchOrder(t *testing.T) {
	const local = "site: {url: https://local.example, username: u}\n"
	const user = "site: {url: https://user.example, username: u}\n"

	t.Run("working directory first", func(t *testing.T) {
		dir := isolate(t)
		writeFile(t, dir, "wpqueue.yaml", local)
		writeFile(t, os.Getenv("XDG_CONFIG_HOME"), "wpqueue/config.yaml", user)
		cfg := mustLoad(t, LoadOptions{})
		if cfg.File != filepath.Join(dir, "wpqueue.yaml") || cfg.Sites[0].Site.URL != "https://local.example" {
			t.Errorf("read %s (url %s), want ./wpqueue.yaml", cfg.File, cfg.Sites[0].Site.URL)
		}
	})
	t.Run("then the user config dir", func(t *testing.T) {
		isolate(t)
		p := writeFile(t, os.Getenv("XDG_CONFIG_HOME"), "wpqueue/config.yaml", user)
		cfg := mustLoad(t, LoadOptions{})
		if cfg.File != p || cfg.Sites[0].Site.URL != "https://user.example" {
			t.Errorf("read %q (url %s), want %s", cfg.File, cfg.Sites[0].Site.URL, p)
		}
	})
	t.Run("HOME/.config without XDG_CONFIG_HOME", func(t *testing.T) {
		isolate(t)
		t.Setenv("XDG_CONFIG_HOME", "")
		if dir, _ := os.UserConfigDir(); dir != filepath.Join(os.Getenv("HOME"), ".config") {
			t.Skip("os.UserConfigDir is not $HOME/.config on this OS")
		}
		p := writeFile(t, os.Getenv("HOME"), ".config/wpqueue/config.yaml", user)
		cfg := mustLoad(t, LoadOptions{})
		if cfg.File != p {
			t.Errorf("read %q, want %s", cfg.File, p)
		}
	})
	t.Run("explicit path skips the search", func(t *testing.T) {
		dir := isolate(t)
		writeFile(t, dir, "wpqueue.yaml", local)
		cfg := mustLoad(t, LoadOptions{Path: testdata("minimal.yaml")})
		if cfg.File != testdata("minimal.yaml") {
			t.Errorf("read %q, want minimal.yaml", cfg.File)
		}
	})
	t.Run("nothing found is fine", func(t *testing.T) {
		isolate(t)
		t.Setenv("WPQUEUE_SITE_URL", "https://env.example")
		t.Setenv("WPQUEUE_SITE_USERNAME", "u")
		cfg := mustLoad(t, LoadOptions{})
		if cfg.File != "" {
			t.Errorf("File = %q, want empty", cfg.File)
		}
	})
	t.Run("missing explicit file is an error", func(t *testing.T) {
		dir := isolate(t)
		missing := filepath.Join(dir, "nope.yaml")
		fe, err := fieldError(t, LoadOptions{Path: missing})
		if !errors.Is(err, os.ErrNotExist) || fe.Value != missing || !strings.Contains(err.Error(), missing) {
			t.Errorf("error %q (value %q), want one naming %s and wrapping ErrNotExist", err, fe.Value, missing)
		}
	})
	t.Run("an unreadable searched file is an error", func(t *testing.T) {
		dir := isolate(t)
		if err := os.Mkdir(filepath.Join(dir, "wpqueue.yaml"), 0o755); err != nil {
			t.Fatal(err)
		}
		fieldError(t, LoadOptions{})
	})
}

func TestByteOrderMark(t *testing.T) {
	dir := isolate(t)
	p := writeFile(t, dir, "bom.yaml", "\ufeffsite:\n  url: https://example.com\n  username: editor\n")
	cfg := mustLoad(t, LoadOptions{Path: p})
	if cfg.Sites[0].Site.URL != "https://example.com" {
		t.Errorf("url = %q", cfg.Sites[0].Site.URL)
	}
}

func TestYAMLMergeKeys(t *testing.T) {
	dir := isolate(t)
	p := writeFile(t, dir, "wpqueue.yaml", `
site: {username: editor}
x-common: &common
  schedule: {ahead: 4}
sites:
  blog:
    <<: *common
    site: {url: https://blog.example}
`)
	_, err := Load(LoadOptions{Path: p})
	// x-common is not a known key: anchors must live inside known keys.
	if err == nil || !strings.Contains(err.Error(), `unknown key "x-common"`) {
		t.Fatalf("err = %v, want unknown key x-common", err)
	}
	p = writeFile(t, dir, "wpqueue.yaml", `
site: {username: editor}
sites:
  blog: &blog
    site: {url: https://blog.example}
    schedule: {ahead: 4}
  shop:
    <<: *blog
    site: {url: https://shop.example}
`)
	cfg := mustLoad(t, LoadOptions{Path: p})
	if s := cfg.Sites[1]; s.Name != "shop" || s.Schedule.Ahead != 4 || s.Site.URL != "https://shop.example" {
		t.Errorf("shop = %+v, want ahead 4 merged in and its own url", s)
	}
}

func TestEmptyFileAndEmptySites(t *testing.T) {
	dir := isolate(t)
	t.Setenv("WPQUEUE_SITE_URL", "https://env.example")
	t.Setenv("WPQUEUE_SITE_USERNAME", "u")
	for _, content := range []string{"", "# nothing\n", "sites:\n", "sites: {}\n"} {
		p := writeFile(t, dir, "wpqueue.yaml", content)
		cfg := mustLoad(t, LoadOptions{Path: p})
		if len(cfg.Sites) != 1 || cfg.Sites[0].Name != "default" {
			t.Errorf("%q: sites %+v, want the single default site", content, cfg.Sites)
		}
	}
}

// TestYAMLScalarTypes checks values YAML reads as something other than a
// string: an unquoted date, an integer id, a bool.
func TestYAMLScalarTypes(t *testing.T) {
	dir := isolate(t)
	p := writeFile(t, dir, "wpqueue.yaml", "site: {url: https://example.com, username: 2024}\nqueue: {category: 2024-01-01, tag: 12, author: 3}\n")
	q := mustLoad(t, LoadOptions{Path: p}).Sites[0]
	got := []string{q.Site.Username, q.Queue.Category, q.Queue.Tag, q.Queue.Author}
	if diff := cmp.Diff([]string{"2024", "2024-01-01", "12", "3"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
