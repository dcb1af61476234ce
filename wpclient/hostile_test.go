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

// Hostile hosts (issue 4): classification and messages the end-to-end
// suite (e2e/hostile_test.go) checks on a real WordPress, here on mocks.

var slotAt = time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC)

// TestSecurityPlugin403: a security plugin closing the REST API to
// anonymous requests may answer 403 with its own code; that is
// "credentials not accepted" (exit 3), and the message covers both
// readings. Core's own 403 codes keep the role message; a 403 JSON that
// is not a WordPress error stays an API error.
func TestSecurityPlugin403(t *testing.T) {
	tests := []struct {
		name   string
		resp   httpmock.Responder
		creds  bool
		has    []string
		hasNot []string
	}{
		{"plugin code", reply(403, `{"code":"rest_cannot_access","message":"DRA: Only authenticated users can access the REST API.","data":{"status":403}}`),
			true, []string{"HTTP 403 rest_cannot_access", "a plugin refused the request", "did not accept the credentials",
				"SetEnvIf Authorization", "Editor or Administrator"}, nil},
		{"iThemes code", reply(403, `{"code":"itsec_rest_api_access_restricted","message":"You do not have sufficient permission to access this endpoint.","data":{"status":403}}`),
			true, []string{"itsec_rest_api_access_restricted", "a plugin refused the request"}, nil},
		{"core capability code", reply(403, fixture(t, "forbidden_context.json")),
			true, []string{"accepted the login", "Editor or Administrator"}, []string{"plugin refused", "SetEnvIf"}},
		{"JSON that is no WordPress error", reply(403, `{"error":"blocked"}`), false, []string{"HTTP 403", `{"error":"blocked"}`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, _ := pinned(t, Options{})
			mt.RegisterResponder("GET", postsURL, tt.resp)
			_, err := c.ListPosts(context.Background(), listDrafts)
			if errors.Is(err, ErrCredentials) != tt.creds {
				t.Fatalf("error %v: ErrCredentials %v, want %v", err, !tt.creds, tt.creds)
			}
			mustContain(t, err.Error(), tt.has...)
			for _, s := range tt.hasNot {
				if strings.Contains(err.Error(), s) {
					t.Errorf("%q contains %q", err, s)
				}
			}
			if calls(mt) != 1 {
				t.Errorf("%d requests, want 1 (403 is never retried)", calls(mt))
			}
		})
	}
}

// TestCredentialsCausesFromIndex: the REST index says whether the site
// offers application passwords; a request then treated as anonymous
// names the causes that remain.
func TestCredentialsCausesFromIndex(t *testing.T) {
	const base = `{"name":"s","home":"https://wp.test","gmt_offset":"0","timezone_string":"","namespaces":["wp/v2"]`
	tests := []struct {
		name   string
		index  string
		want   AppPasswords
		has    []string
		hasNot []string
	}{
		{"offered", base + `,"authentication":{"application-passwords":{"endpoints":{"authorization":"https://wp.test/wp-admin/authorize-application.php"}}}}`,
			AppPasswordsOffered,
			[]string{"The site offers application passwords", "wrong WordPress login name", "strips the Authorization header", "CGIPassAuth On"},
			[]string{"not on HTTPS"}},
		{"not offered", base + `,"authentication":[]}`, AppPasswordsNotOffered,
			[]string{"does not offer application passwords", "disabled by a plugin or the host", "wp_is_application_passwords_available", "HTTPS"},
			[]string{"strips the Authorization header"}},
		{"other schemes only", base + `,"authentication":{"jwt":{}}}`, AppPasswordsNotOffered,
			[]string{"does not offer application passwords"}, nil},
		{"WordPress before 5.6", base + `}`, AppPasswordsUnknown,
			[]string{"Likely causes", "strips the Authorization header", "disabled by a plugin or the host", "not on HTTPS"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, _ := newTestClient(t, testSite, Options{})
			var rec recorder
			mt.RegisterResponder("GET", testSite, rec.wrap(byRestRoute(map[string]httpmock.Responder{
				"/":            reply(200, tt.index),
				"/wp/v2/posts": reply(400, fixture(t, "forbidden_status.json")),
			})))
			idx, err := c.Index(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if idx.AppPasswords != tt.want {
				t.Errorf("Index.AppPasswords = %v, want %v", idx.AppPasswords, tt.want)
			}
			req, _ := rec.last(t)
			if f := req.URL.Query().Get("_fields"); !strings.Contains(f, "authentication") {
				t.Errorf("index _fields %q lacks authentication", f)
			}
			_, err = c.ListPosts(context.Background(), listDrafts)
			var ce *CredentialsError
			if !errors.As(err, &ce) || ce.AppPasswords != tt.want {
				t.Fatalf("error %v, want a *CredentialsError with AppPasswords %v", err, tt.want)
			}
			mustContain(t, err.Error(), append([]string{"credentials not accepted", "HTTP 400 rest_forbidden_status"}, tt.has...)...)
			for _, s := range tt.hasNot {
				if strings.Contains(err.Error(), s) {
					t.Errorf("%q contains %q", err, s)
				}
			}
		})
	}
}

// TestDiscoveryStopsAtJunkBeforeJSON: a REST API whose answers start with
// PHP notices is there: the error is the notice (first bytes and fix),
// not "REST API not found".
func TestDiscoveryStopsAtJunkBeforeJSON(t *testing.T) {
	notice := "<br />\n<b>Notice</b>:  Undefined index: x in <b>/var/www/wp-content/plugins/p/p.php</b> on line <b>3</b><br />\n"
	for _, pin := range []bool{false, true} {
		opts := Options{}
		if pin {
			opts.APIRoot = "https://wp.test/?rest_route=/"
		}
		c, mt, _ := newTestClient(t, testSite, opts)
		mt.RegisterResponder("GET", testSite, byRestRoute(map[string]httpmock.Responder{
			"/": reply(200, notice+fixture(t, "index_utc.json")),
		}))
		_, err := c.Index(context.Background())
		var nj *NotJSONError
		if !errors.As(err, &nj) || errors.Is(err, ErrNoAPI) {
			t.Fatalf("pinned %v: error %v, want a *NotJSONError and not ErrNoAPI", pin, err)
		}
		if nj.JunkBefore != len(notice) {
			t.Errorf("JunkBefore = %d, want %d", nj.JunkBefore, len(notice))
		}
		mustContain(t, err.Error(), "GET https://wp.test/?rest_route=/: HTTP 200", `"<br />\n<b>Notice</b>`,
			"bytes of text before the JSON", "WP_DEBUG_DISPLAY")
		if calls(mt) != 1 {
			t.Errorf("pinned %v: %d requests, want 1", pin, calls(mt))
		}
	}
}

// TestRedirectNamesTheSiteURL: a redirect of the same request to another
// base address (https, another host, another directory) names the
// site.url to set, and shows the target without our query parameters.
func TestRedirectNamesTheSiteURL(t *testing.T) {
	index := fixture(t, "index_utc.json")
	tests := []struct {
		name, site, location string
		wantSite, wantShown  string
	}{
		{"http to https", "http://localhost/blog/",
			"https://localhost/blog/?_fields=id&rest_route=%2Fwp%2Fv2%2Fposts%2F4",
			"https://localhost/blog/", "https://localhost/blog/?rest_route=/wp/v2/posts/4"},
		{"www", "http://localhost/",
			"http://www.localhost/?_fields=id&rest_route=%2Fwp%2Fv2%2Fposts%2F4",
			"http://www.localhost/", "http://www.localhost/?rest_route=/wp/v2/posts/4"},
		{"out of a directory", "http://localhost/blog/",
			"http://localhost/?rest_route=%2Fwp%2Fv2%2Fposts%2F4&_fields=id",
			"http://localhost/", "http://localhost/?rest_route=/wp/v2/posts/4"},
		{"another route: no suggestion", "http://localhost/",
			"http://localhost/?rest_route=%2Fwp%2Fv2%2Fposts%2F4%2F",
			"", "http://localhost/?rest_route=/wp/v2/posts/4/"},
		{"login page: no suggestion", "http://localhost/",
			"http://localhost/wp-login.php?redirect_to=x",
			"", "http://localhost/wp-login.php"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, _ := newTestClient(t, tt.site, Options{})
			mt.RegisterResponder("GET", tt.site, byRestRoute(map[string]httpmock.Responder{"/": reply(200, index)}))
			mt.RegisterResponder("POST", tt.site, reply(301, "", "Location", tt.location))
			_, err := c.SchedulePost(context.Background(), 4, slotAt)
			var re *RedirectError
			if !errors.As(err, &re) {
				t.Fatalf("error %v, want a *RedirectError", err)
			}
			if re.SiteURL != tt.wantSite || re.Location != tt.location {
				t.Errorf("SiteURL %q, Location %q; want %q, %q", re.SiteURL, re.Location, tt.wantSite, tt.location)
			}
			mustContain(t, err.Error(), "HTTP 301 redirect to "+tt.wantShown+" refused", "a write never follows redirects")
			if tt.wantSite != "" {
				mustContain(t, err.Error(), "set site.url to "+tt.wantSite)
			} else {
				mustContain(t, err.Error(), "set site.url (or site.api_root) to the address the site redirects to")
			}
			if strings.Contains(err.Error(), "_fields") {
				t.Errorf("message shows our query parameters: %v", err)
			}
		})
	}
	t.Run("pinned root: no suggestion", func(t *testing.T) {
		c, mt, _ := pinned(t, Options{})
		mt.RegisterResponder("POST", postsURL+"/4", reply(301, "", "Location", "https://www.wp.test/wp-json/wp/v2/posts/4"))
		_, err := c.SchedulePost(context.Background(), 4, slotAt)
		var re *RedirectError
		if !errors.As(err, &re) || re.SiteURL != "" {
			t.Fatalf("error %v, want a *RedirectError without SiteURL", err)
		}
	})
}

// TestDiscoveryNamesTheRedirectTarget: a site that sends every request to
// another host says which site.url to set.
func TestDiscoveryNamesTheRedirectTarget(t *testing.T) {
	c, mt, _ := newTestClient(t, "https://wp.test/", Options{})
	mt.RegisterResponder("GET", "https://wp.test/", func(req *http.Request) (*http.Response, error) {
		return reply(301, "", "Location", "https://www.wp.test"+req.URL.RequestURI())(req)
	})
	mt.RegisterResponder("GET", "https://wp.test/wp-json/", func(req *http.Request) (*http.Response, error) {
		return reply(301, "", "Location", "https://www.wp.test"+req.URL.RequestURI())(req)
	})
	_, err := c.Index(context.Background())
	if !errors.Is(err, ErrNoAPI) {
		t.Fatalf("error %v, want ErrNoAPI", err)
	}
	mustContain(t, err.Error(), "redirect to https://www.wp.test/?rest_route=/ (not followed)", "set site.url to https://www.wp.test/")
	if strings.Contains(err.Error(), "_fields") {
		t.Errorf("message shows our query parameters: %v", err)
	}
}

// TestReadRedirectWarnsOnce: a site that redirects every read on the same
// host gets one warning per client, not one per request.
func TestReadRedirectWarnsOnce(t *testing.T) {
	log, logs := newLog()
	c, mt, _ := pinned(t, Options{Logger: log})
	mt.RegisterResponder("GET", postsURL, reply(302, "", "Location", "https://wp.test/index.php/wp-json/wp/v2/posts"))
	mt.RegisterResponder("GET", "https://wp.test/index.php/wp-json/wp/v2/posts", reply(200, "[]"))
	for range 3 {
		if _, err := c.ListPosts(context.Background(), listDrafts); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(logs.String(), `level=WARN msg="following a redirect`); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, logs)
	}
	mustContain(t, logs.String(), "to=https://wp.test/index.php/wp-json/wp/v2/posts", "site.url")
}

// TestDiscoveryNamesTheBlocker: when a firewall or maintenance mode
// answers every discovery request, the message says so once.
func TestDiscoveryNamesTheBlocker(t *testing.T) {
	c, mt, _ := newTestClient(t, "https://wp.test/", Options{MaxAttempts: 1})
	block := html(403, fixture(t, "cloudflare_block.html"), "Cf-Ray", "8c1f2a3b4c5d6e7f-FRA", "Server", "cloudflare")
	mt.RegisterResponder("GET", "https://wp.test/", block)
	mt.RegisterResponder("GET", "https://wp.test/wp-json/", block)
	_, err := c.Index(context.Background())
	if !errors.Is(err, ErrNoAPI) {
		t.Fatalf("error %v, want ErrNoAPI", err)
	}
	mustContain(t, err.Error(), "HTTP 403 text/html", ". The request was blocked by Cloudflare/WAF, not answered by WordPress (cf-ray 8c1f2a3b4c5d6e7f-FRA)")
	if n := strings.Count(err.Error(), "Cloudflare/WAF"); n != 1 {
		t.Errorf("the hint appears %d times: %v", n, err)
	}
	if calls(mt) != 3 {
		t.Errorf("%d requests, want 3 (403 is never retried)", calls(mt))
	}
}

// TestHTML404: a 404 HTML page (a wrong site.api_root, or plain
// permalinks at /wp-json/) is not JSON, not retried, and says where to
// look.
func TestHTML404(t *testing.T) {
	c, mt, clock := pinned(t, Options{})
	mt.RegisterResponder("GET", postsURL, html(404, "<!DOCTYPE html><html><head><title>Page not found</title></head></html>"))
	_, err := c.ListPosts(context.Background(), listDrafts)
	if !errors.Is(err, ErrNotJSON) || errors.Is(err, ErrNotFound) {
		t.Fatalf("error %v, want ErrNotJSON and not ErrNotFound", err)
	}
	mustContain(t, err.Error(), "HTTP 404 (text/html; charset=UTF-8) is not JSON", "<title>Page not found", "no REST API at this address", "?rest_route=")
	if calls(mt) != 1 || len(clock.Waits()) != 0 {
		t.Errorf("%d requests, %d waits; want 1, 0", calls(mt), len(clock.Waits()))
	}
}
