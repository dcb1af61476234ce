package wpclient

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
)

func TestNewValidatesURLs(t *testing.T) {
	tests := []struct {
		name    string
		site    string
		opts    Options
		wantErr []string // substrings; nil means success
	}{
		{"https", "https://wp.test", Options{}, nil},
		{"https sub-directory", "https://example.test/blog", Options{}, nil},
		{"http loopback IPv4", "http://127.0.0.1:18080", Options{}, nil},
		{"http loopback 127/8", "http://127.10.0.1/", Options{}, nil},
		{"http localhost", "http://localhost:8080/", Options{}, nil},
		{"http ::1", "http://[::1]:8080/", Options{}, nil},
		{"http remote refused", "http://example.test/", Options{}, []string{"site.url", "site.allow_insecure_http", "plain http"}},
		{"http remote allowed", "http://example.test/", Options{AllowInsecureHTTP: true}, nil},
		{"http 10.x is not loopback", "http://10.0.0.5/", Options{}, []string{"site.allow_insecure_http"}},
		{"no scheme", "wp.test", Options{}, []string{"site.url", "absolute"}},
		{"ftp", "ftp://wp.test/", Options{}, []string{"site.url", "http"}},
		{"no host", "https:///blog", Options{}, []string{"site.url", "no host"}},
		{"query", "https://wp.test/?p=1", Options{}, []string{"site.url", "query"}},
		{"user info", "https://editor:secret@wp.test/", Options{}, []string{"site.url", "user name or password"}},
		{"user info that does not parse", "https://editor:" + testPassword + "@wp.test/", Options{}, []string{"site.url", "[redacted]@wp.test/", "invalid userinfo"}},
		{"api root https", "https://wp.test", Options{APIRoot: "https://wp.test/wp-json/"}, nil},
		{"api root http remote", "https://wp.test", Options{APIRoot: "http://wp.test/wp-json/"}, []string{"site.api_root", "site.allow_insecure_http"}},
		{"api root not a URL", "https://wp.test", Options{APIRoot: "/wp-json/"}, []string{"site.api_root"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.site, testCreds, tt.opts)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("New(%q): %v", tt.site, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("New(%q): no error", tt.site)
			}
			mustContain(t, err.Error(), tt.wantErr...)
			if strings.Contains(err.Error(), testPassword) || strings.Contains(err.Error(), "secret") {
				t.Errorf("error reveals the password: %v", err)
			}
		})
	}
}

func TestNewCredentials(t *testing.T) {
	if _, err := New(testSite, Credentials{Username: "a:b", Password: "x"}, Options{}); err == nil {
		t.Error("a ':' in the login name accepted")
	}
	if _, err := New(testSite, Credentials{Username: "editor"}, Options{}); err == nil {
		t.Error("a login name without password accepted")
	}
	// Anonymous: no Authorization header at all.
	mt := httpmock.NewMockTransport()
	c, err := New(testSite, Credentials{}, Options{APIRoot: testRoot, HTTPClient: &http.Client{Transport: mt}})
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder
	mt.RegisterResponder("GET", postsURL, rec.wrap(reply(200, "[]")))
	if _, err := c.ListPosts(context.Background(), listDrafts); err != nil {
		t.Fatal(err)
	}
	if req, _ := rec.last(t); req.Header.Get("Authorization") != "" {
		t.Error("anonymous client sent an Authorization header")
	}
}

func TestHeaders(t *testing.T) {
	old := Version
	Version = "1.2.3"
	defer func() { Version = old }()
	for _, tt := range []struct{ ua, want string }{{"", "wpqueue/1.2.3"}, {"MyAgent/1", "MyAgent/1"}} {
		c, mt, _ := pinned(t, Options{UserAgent: tt.ua})
		var rec recorder
		mt.RegisterResponder("GET", postsURL, rec.wrap(reply(200, "[]")))
		mt.RegisterResponder("POST", postsURL+"/4", rec.wrap(reply(200, fixture(t, "scheduled.json"))))
		if _, err := c.ListPosts(context.Background(), listDrafts); err != nil {
			t.Fatal(err)
		}
		get, _ := rec.last(t)
		if _, err := c.SchedulePost(context.Background(), 4, time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		post, _ := rec.last(t)
		for _, req := range []*http.Request{get, post} {
			if got := req.Header.Get("User-Agent"); got != tt.want {
				t.Errorf("%s User-Agent = %q, want %q", req.Method, got, tt.want)
			}
			if !strings.Contains(req.Header.Get("Accept"), "application/json") {
				t.Errorf("%s Accept = %q", req.Method, req.Header.Get("Accept"))
			}
		}
		if get.Header.Get("Cache-Control") != "no-cache" || get.URL.Query().Get(cacheBustParam) == "" {
			t.Errorf("GET without cache busting: %v %s", get.Header, get.URL)
		}
		if post.URL.Query().Has(cacheBustParam) {
			t.Errorf("POST carries the cache-busting parameter: %s", post.URL)
		}
	}
}

func TestCacheBustUnique(t *testing.T) {
	c, mt, _ := pinned(t, Options{}) // the fake clock stands still: the counter must differ
	var rec recorder
	mt.RegisterResponder("GET", postsURL, rec.wrap(reply(200, "[]")))
	for range 3 {
		if _, err := c.ListPosts(context.Background(), listDrafts); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for _, r := range rec.reqs {
		v := r.URL.Query().Get(cacheBustParam)
		if seen[v] {
			t.Errorf("cache-busting value %q repeated", v)
		}
		seen[v] = true
	}
}

func TestHTTPClientNotModified(t *testing.T) {
	mt := httpmock.NewMockTransport()
	hc := &http.Client{Transport: mt, Timeout: 7 * time.Second}
	c, err := New(testSite, testCreds, Options{APIRoot: testRoot, HTTPClient: hc, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	mt.RegisterResponder("GET", postsURL, reply(200, "[]"))
	if _, err := c.ListPosts(context.Background(), listDrafts); err != nil {
		t.Fatal(err)
	}
	if hc.Transport != mt || hc.CheckRedirect != nil || hc.Jar != nil || hc.Timeout != 7*time.Second {
		t.Errorf("the caller's http.Client was modified: %+v", hc)
	}
}

func TestRequestsCount(t *testing.T) {
	c, mt, _ := pinned(t, Options{})
	mt.RegisterResponder("GET", postsURL, sequence(reply(503, ""), reply(301, "", "Location", postsURL+"/"), reply(200, "[]")))
	mt.RegisterResponder("GET", postsURL+"/", reply(200, "[]"))
	if _, err := c.ListPosts(context.Background(), listDrafts); err != nil {
		t.Fatal(err)
	}
	// 503, then 301 + the redirected request.
	if c.Requests() != 3 || calls(mt) != 3 {
		t.Errorf("Requests() = %d, mock saw %d; want 3", c.Requests(), calls(mt))
	}
}

func TestContextCancelled(t *testing.T) {
	c, mt, _ := pinned(t, Options{})
	mt.RegisterResponder("GET", postsURL, reply(200, "[]"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.ListPosts(ctx, listDrafts)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if errors.Is(err, ErrUnavailable) {
		t.Errorf("a cancelled run is not an unavailable site: %v", err)
	}
}
