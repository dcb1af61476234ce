package lockfile

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

func TestDefaultDirPerGOOS(t *testing.T) {
	const home = "/home/ann"
	okHome := func() (string, error) { return home, nil }
	noHome := func() (string, error) { return "", errors.New("$HOME is not defined") }
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		name    string
		goos    string
		getenv  func(string) string
		home    func() (string, error)
		want    string
		wantErr bool
	}{
		{"linux XDG_STATE_HOME", "linux", env("XDG_STATE_HOME", "/srv/state"), okHome, filepath.Join("/srv/state", "wpqueue"), false},
		{"linux default", "linux", env(), okHome, filepath.Join(home, ".local", "state", "wpqueue"), false},
		{"linux relative XDG_STATE_HOME is ignored", "linux", env("XDG_STATE_HOME", "state"), okHome, filepath.Join(home, ".local", "state", "wpqueue"), false},
		{"linux XDG set, no home", "linux", env("XDG_STATE_HOME", "/srv/state"), noHome, filepath.Join("/srv/state", "wpqueue"), false},
		{"linux no home", "linux", env(), noHome, "", true},
		{"linux empty home", "linux", env(), func() (string, error) { return "", nil }, "", true},
		{"freebsd", "freebsd", env(), okHome, filepath.Join(home, ".local", "state", "wpqueue"), false},
		{"openbsd XDG", "openbsd", env("XDG_STATE_HOME", "/x"), okHome, filepath.Join("/x", "wpqueue"), false},
		{"darwin ignores XDG", "darwin", env("XDG_STATE_HOME", "/x"), okHome, filepath.Join(home, "Library", "Application Support", "wpqueue"), false},
		{"darwin no home", "darwin", env(), noHome, "", true},
		{"windows", "windows", env("LOCALAPPDATA", `C:\Users\ann\AppData\Local`), okHome, filepath.Join(`C:\Users\ann\AppData\Local`, "wpqueue"), false},
		{"windows without LOCALAPPDATA", "windows", env("XDG_STATE_HOME", "/x"), okHome, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := defaultDir(tt.goos, tt.getenv, tt.home)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v; wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

func TestDefaultDirUsesEnvironment(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("LOCALAPPDATA", state)
	got, err := DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "darwin" && runtime.GOOS != "ios" && got != filepath.Join(state, "wpqueue") {
		t.Errorf("DefaultDir() = %q; want %q", got, filepath.Join(state, "wpqueue"))
	}
}

func TestLockName(t *testing.T) {
	name := func(t *testing.T, u string) string {
		t.Helper()
		n, err := lockName(u)
		if err != nil {
			t.Fatalf("lockName(%q): %v", u, err)
		}
		return n
	}
	safe := regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*-[0-9a-f]{12}$`)

	t.Run("readable", func(t *testing.T) {
		for u, prefix := range map[string]string{
			"http://example.test/blog":          "example.test_blog-",
			"https://EXAMPLE.test/Blog/":        "example.test_blog-",
			"https://example.test:8443/a/b":     "example.test_8443_a_b-",
			"http://example.test":               "example.test-",
			"https://user:pw@example.test/":     "example.test-",
			"http://[::1]:8080/wp":              "1_8080_wp-",
			"https://xn--bcher-kva.test/":       "xn--bcher-kva.test-",
			"https://bücher.test/":              "b_cher.test-",
			"https://example.test/%7Eann/blog/": "example.test_ann_blog-",
			"https://example.test/.../":         "example.test-",
		} {
			if n := name(t, u); !strings.HasPrefix(n, prefix) {
				t.Errorf("lockName(%q) = %q; want prefix %q", u, n, prefix)
			}
		}
	})

	t.Run("same site, same name", func(t *testing.T) {
		groups := [][]string{
			{"http://example.test", "http://example.test/", "http://EXAMPLE.test/", "http://Example.Test//",
				"http://example.test:80", "HTTP://example.test/?p=1#x", "  http://example.test/  ",
				"http://user:secret@example.test/"},
			{"https://example.test/blog", "https://example.test/blog/", "https://EXAMPLE.TEST:443/blog/",
				"https://example.test/x/../blog", "https://example.test/./blog"},
		}
		for _, g := range groups {
			first := name(t, g[0])
			for _, u := range g[1:] {
				if n := name(t, u); n != first {
					t.Errorf("lockName(%q) = %q; want %q as for %q", u, n, first, g[0])
				}
			}
		}
	})

	t.Run("different sites, different names", func(t *testing.T) {
		urls := []string{
			"http://example.test",
			"https://example.test",
			"http://example.test:8080",
			"http://example.test:8081",
			"http://example.test/blog",
			"http://example.test/Blog", // paths are case-sensitive on the server
			"http://example.test/blog/en",
			"http://example.test/blog_en", // same readable name as /blog/en
			"http://example.test.",
			"http://www.example.test",
			"http://other.test",
			"http://[::1]",
			"http://[::1]:8080",
			"http://127.0.0.1",
		}
		seen := map[string]string{}
		for _, u := range urls {
			n := name(t, u)
			if prev, dup := seen[n]; dup {
				t.Errorf("%q and %q share the name %q", prev, u, n)
			}
			seen[n] = u
		}
	})

	t.Run("stable", func(t *testing.T) {
		// The name is a contract: changing it would let an old and a new
		// wpqueue binary lock different files for the same site.
		// The hash is sha256("https://example.test/blog"), first 6 bytes in hex.
		got := name(t, "https://example.test/blog")
		if got != "example.test_blog-d525db6c0cc6" {
			t.Errorf("lockName changed: got %q; if this is intended, say so in the release notes", got)
		}
	})

	t.Run("filesystem-safe", func(t *testing.T) {
		for _, u := range []string{
			"http://example.test/a b/c?d",
			"http://example.test/..%2F..%2Fetc",
			"http://example.test/" + strings.Repeat("verylongsegment/", 40),
			"http://example.test/CON/",
			"https://bücher.test/ä/ö",
			"http://[fe80::1%25eth0]:80/",
			"http://-.test/.hidden./",
		} {
			n := name(t, u)
			if !safe.MatchString(n) {
				t.Errorf("lockName(%q) = %q; not a safe file name", u, n)
			}
			if len(n) > 100 {
				t.Errorf("lockName(%q) has %d bytes", u, len(n))
			}
		}
	})

	t.Run("invalid", func(t *testing.T) {
		for _, u := range []string{"", "example.test", "example.test/blog", "ftp://example.test", "http://", "http:///blog", "://x", "http://a b/"} {
			if n, err := lockName(u); err == nil {
				t.Errorf("lockName(%q) = %q; want an error", u, n)
			}
		}
	})
}

func TestPathFor(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("LOCALAPPDATA", state)
	dir, err := DefaultDir()
	if err != nil {
		t.Fatal(err)
	}

	p, err := PathFor("https://Example.test/blog/")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(p) != filepath.Join(dir, "locks") {
		t.Errorf("PathFor = %q; want it in %q", p, filepath.Join(dir, "locks"))
	}
	if !strings.HasPrefix(filepath.Base(p), "example.test_blog-") || filepath.Ext(p) != ".lock" {
		t.Errorf("PathFor = %q; want example.test_blog-<hash>.lock", p)
	}
	if p2, _ := PathFor("https://example.test/blog"); p2 != p {
		t.Errorf("PathFor variants differ: %q vs %q", p, p2)
	}
	if _, err := PathFor("example.test"); err == nil {
		t.Error("PathFor without scheme: want an error")
	}
}

func TestIsUnderTemp(t *testing.T) {
	base := t.TempDir()
	tmp := filepath.Join(base, "tmp")
	other := filepath.Join(base, "home", "ann")
	for _, d := range []string{tmp, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	temps := []string{tmp}

	tests := []struct {
		name string
		path string
		want bool
	}{
		{"file in temp", filepath.Join(tmp, "x.lock"), true},
		{"deep, not yet existing", filepath.Join(tmp, "a", "b", "x.lock"), true},
		{"temp dir itself", tmp, true},
		{"unclean path into temp", filepath.Join(other, "..", "..", "tmp", "x.lock"), true},
		{"outside", filepath.Join(other, "x.lock"), false},
		{"sibling with common prefix", tmp + "foo" + string(filepath.Separator) + "x.lock", false},
		{"parent of temp", base, false},
	}
	if runtime.GOOS != "windows" {
		link := filepath.Join(other, "link")
		if err := os.Symlink(tmp, link); err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct {
			name string
			path string
			want bool
		}{"through a symlink", filepath.Join(link, "sub", "x.lock"), true})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isUnderTemp(tt.path, temps, other); got != tt.want {
				t.Errorf("isUnderTemp(%q) = %v; want %v", tt.path, got, tt.want)
			}
		})
	}

	t.Run("root or home as temp is ignored", func(t *testing.T) {
		p := filepath.Join(other, "x.lock")
		root := filepath.VolumeName(base) + string(filepath.Separator)
		if isUnderTemp(p, []string{root}, other) {
			t.Errorf("TMPDIR=/ made %q temporary", p)
		}
		if isUnderTemp(p, []string{other}, other) {
			t.Errorf("TMPDIR=$HOME made %q temporary", p)
		}
		if isUnderTemp(p, []string{"", root}, "") {
			t.Errorf("empty temp dir made %q temporary", p)
		}
	})
}

func TestIsUnderTempReal(t *testing.T) {
	if !IsUnderTemp(filepath.Join(os.TempDir(), "wpqueue", "site.lock")) {
		t.Error("os.TempDir() not seen as temporary")
	}
	if !IsUnderTemp(filepath.Join(t.TempDir(), "site.lock")) {
		t.Error("t.TempDir() not seen as temporary")
	}
	if runtime.GOOS != "windows" {
		for _, p := range []string{"/tmp/wpqueue.lock", "/var/tmp/wpqueue/x.lock", "/dev/shm/x.lock"} {
			if !IsUnderTemp(p) {
				t.Errorf("IsUnderTemp(%q) = false", p)
			}
		}
		for _, p := range []string{"/tmpx/wpqueue.lock", "/var/lib/wpqueue/x.lock", "/var/tmpfoo"} {
			if IsUnderTemp(p) {
				t.Errorf("IsUnderTemp(%q) = true", p)
			}
		}
	}
}
