package wpclient

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
)

func TestCredentialsRejected(t *testing.T) {
	anonymousCauses := []string{
		"credentials not accepted", "WordPress login name", "application password", "not the login password",
		`SetEnvIf Authorization "(.*)" HTTP_AUTHORIZATION=$1`, "CGIPassAuth On", "disabled by a plugin or the host", "HTTPS",
	}
	tests := []struct {
		name   string
		method string // GET (ListPosts) or POST (SchedulePost)
		resp   httpmock.Responder
		has    []string
	}{
		{"400 rest_forbidden_status (stock WordPress, wrong password)", "GET", reply(400, fixture(t, "forbidden_status.json")),
			append([]string{"GET /wp/v2/posts: HTTP 400 rest_forbidden_status", "Invalid parameter(s): status: Status is forbidden."}, anonymousCauses...)},
		{"400 status refused, WordPress before 5.7 (no details)", "GET",
			reply(400, `{"code":"rest_invalid_param","message":"Invalid parameter(s): status","data":{"status":400,"params":{"status":"Status is forbidden."}}}`),
			[]string{"HTTP 400 rest_invalid_param", "Status is forbidden."}},
		{"401 rest_not_logged_in", "GET", reply(401, fixture(t, "not_logged_in.json")), append([]string{"HTTP 401 rest_not_logged_in"}, anonymousCauses...)},
		{"401 incorrect_password (plugins)", "GET", reply(401, fixture(t, "incorrect_password.json")), []string{"incorrect_password"}},
		{"401 rest_forbidden_context", "GET", reply(401, `{"code":"rest_forbidden_context","message":"Sorry, you are not allowed to edit posts in this post type.","data":{"status":401}}`), []string{"rest_forbidden_context"}},
		{"401 from HTTP authentication in front of WordPress", "GET",
			html(401, "<html><body><h1>401 Authorization Required</h1></body></html>", "WWW-Authenticate", `Basic realm="Staging"`),
			[]string{"HTTP 401", "text/html", `WWW-Authenticate: Basic realm="Staging"`}},
		{"403 rest_forbidden_context: user lacks the role", "GET", reply(403, fixture(t, "forbidden_context.json")),
			[]string{"HTTP 403 rest_forbidden_context", "Editor or Administrator"}},
		{"401 rest_cannot_edit on a write", "POST", reply(401, fixture(t, "cannot_edit.json")),
			append([]string{"POST /wp/v2/posts/4: HTTP 401 rest_cannot_edit"}, anonymousCauses...)},
		{"403 rest_cannot_publish on a write", "POST",
			reply(403, `{"code":"rest_cannot_publish","message":"Sorry, you are not allowed to publish posts in this post type.","data":{"status":403}}`),
			[]string{"rest_cannot_publish", "Editor or Administrator"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, _ := pinned(t, Options{})
			var err error
			if tt.method == "GET" {
				mt.RegisterResponder("GET", postsURL, tt.resp)
				_, err = c.ListPosts(context.Background(), ListQuery{Statuses: []Status{StatusDraft, StatusFuture}})
			} else {
				mt.RegisterResponder("POST", postsURL+"/4", tt.resp)
				_, err = c.SchedulePost(context.Background(), 4, time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC))
			}
			if !errors.Is(err, ErrCredentials) {
				t.Fatalf("error %v does not match ErrCredentials", err)
			}
			var ce *CredentialsError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not a *CredentialsError", err)
			}
			mustContain(t, err.Error(), tt.has...)
			if calls(mt) != 1 {
				t.Errorf("%d requests, want 1 (never retried)", calls(mt))
			}
		})
	}
}

func TestNotCredentials(t *testing.T) {
	// A 400 about the status parameter that is not rest_forbidden_status
	// is an ordinary API error.
	c, mt, _ := pinned(t, Options{})
	mt.RegisterResponder("GET", postsURL, reply(400, fixture(t, "not_in_enum.json")))
	_, err := c.ListPosts(context.Background(), listDrafts)
	var ae *APIError
	if errors.Is(err, ErrCredentials) || !errors.As(err, &ae) || ae.Code != "rest_invalid_param" || ae.Status != 400 {
		t.Errorf("error %v (%T), want a plain *APIError", err, err)
	}
}

func TestNotJSON(t *testing.T) {
	tests := []struct {
		name   string
		resp   httpmock.Responder
		is     error
		has    []string
		hasNot []string
	}{
		{"200 HTML page", html(200, fixture(t, "front_page.html")), ErrNotJSON,
			[]string{"GET https://wp.test/wp-json/wp/v2/posts: HTTP 200 (text/html; charset=UTF-8) is not JSON", `"<!DOCTYPE html>\n<html lang=\"en-US\">`, "HTML page answered instead of the REST API"}, nil},
		{"PHP notice before the JSON", reply(200, fixture(t, "php_notice.txt")), ErrNotJSON,
			[]string{"is not JSON", `"<br />\n<b>Deprecated</b>`, "text before the JSON", "WP_DEBUG_DISPLAY"}, nil},
		{"control characters escaped", reply(200, "\x00\x1b[31mboom\r\n"), ErrNotJSON,
			[]string{`"\x00\x1b[31mboom\r\n"`}, []string{"\x1b"}},
		{"long body cut to about 120 bytes", reply(200, "<p>"+strings.Repeat("가", 200)+"</p>"), ErrNotJSON,
			[]string{"…"}, []string{strings.Repeat("가", 41)}},
		{"JSON of the wrong shape", reply(200, `{"id":4}`), ErrNotJSON,
			[]string{"is not a JSON list of posts", "cannot unmarshal object"}, nil},
		{"empty body", reply(200, ""), ErrNotJSON, []string{`is not JSON: ""`, "the body is empty"}, nil},
		{"cloudflare block page", html(403, fixture(t, "cloudflare_block.html"), "Cf-Ray", "8c1f2a3b4c5d6e7f-FRA", "Server", "cloudflare"), ErrNotJSON,
			[]string{"HTTP 403", "blocked by Cloudflare/WAF", "cf-ray 8c1f2a3b4c5d6e7f-FRA"}, nil},
		{"cloudflare challenge with 200", html(200, "<html><title>Just a moment...</title></html>", "Server", "cloudflare"), ErrNotJSON,
			[]string{"blocked by Cloudflare/WAF"}, nil},
		{"403 HTML from ModSecurity", html(403, "<html><head><title>403 Forbidden</title></head><body>Mod_Security</body></html>"), ErrNotJSON,
			[]string{"firewall or server rule"}, nil},
		{"JSON error that is not WordPress's", reply(418, `{"error":"teapot"}`), nil,
			[]string{"HTTP 418", `{"error":"teapot"}`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, _ := pinned(t, Options{})
			mt.RegisterResponder("GET", postsURL, tt.resp)
			_, err := c.ListPosts(context.Background(), listDrafts)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not match %v", err, tt.is)
			}
			mustContain(t, err.Error(), tt.has...)
			for _, s := range tt.hasNot {
				if strings.Contains(err.Error(), s) {
					t.Errorf("%q contains %q", err, s)
				}
			}
			var nj *NotJSONError
			if errors.As(err, &nj) && len(strings.TrimSuffix(nj.Prefix, "…")) > prefixLen {
				t.Errorf("prefix of %d bytes", len(nj.Prefix))
			}
		})
	}
}

func TestUnavailableHints(t *testing.T) {
	tests := []struct {
		name string
		resp httpmock.Responder
		has  []string
	}{
		{"maintenance mode", html(503, fixture(t, "maintenance.html"), "Retry-After", "600"),
			[]string{"site unavailable", "HTTP 503 after 4 tries", "maintenance mode", ".maintenance"}},
		{"cloudflare 503", html(503, "<html>error 503</html>", "Server", "cloudflare", "Cf-Ray", "8c1f-AMS"),
			[]string{"blocked by Cloudflare/WAF", "cf-ray 8c1f-AMS"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, _ := pinned(t, Options{})
			mt.RegisterResponder("GET", postsURL, tt.resp)
			_, err := c.ListPosts(context.Background(), listDrafts)
			if !errors.Is(err, ErrUnavailable) {
				t.Fatalf("error %v, want ErrUnavailable", err)
			}
			mustContain(t, err.Error(), tt.has...)
		})
	}
}

func TestBOMTolerated(t *testing.T) {
	log, logs := newLog()
	c, mt, _ := pinned(t, Options{Logger: log})
	mt.RegisterResponder("GET", postsURL, reply(200, "\xEF\xBB\xBF\xEF\xBB\xBF"+fixture(t, "drafts.json")))
	mt.RegisterResponder("GET", postsURL+"/4", reply(200, "\xEF\xBB\xBF"+fixture(t, "scheduled.json")))
	posts, err := c.ListPosts(context.Background(), listDrafts)
	if err != nil {
		t.Fatal(err)
	}
	if len(posts) != 4 || posts[0].Title != `Tom & Jerry's "big" <em>day</em>` {
		t.Errorf("posts = %+v", posts)
	}
	if _, err := c.GetPost(context.Background(), 4); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "byte-order mark"); n != 1 {
		t.Errorf("BOM warned %d times, want once per client:\n%s", n, logs)
	}
}

func TestBodyTooLarge(t *testing.T) {
	big := "[" + strings.Repeat(" ", 4096) + "]"
	tests := []struct {
		name string
		resp httpmock.Responder
	}{
		{"with Content-Length", reply(200, big).SetContentLength()},
		{"without Content-Length", reply(200, big)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, _ := pinned(t, Options{MaxBodyBytes: 1024})
			mt.RegisterResponder("GET", postsURL, tt.resp)
			_, err := c.ListPosts(context.Background(), listDrafts)
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("error %v, want ErrTooLarge", err)
			}
			mustContain(t, err.Error(), "larger than 1024 bytes")
			if calls(mt) != 1 {
				t.Errorf("%d requests, want 1", calls(mt))
			}
		})
	}
	c, mt, _ := pinned(t, Options{MaxBodyBytes: 1024})
	mt.RegisterResponder("GET", postsURL, reply(200, "["+strings.Repeat(" ", 1022)+"]"))
	if _, err := c.ListPosts(context.Background(), listDrafts); err != nil {
		t.Errorf("a body of exactly the cap: %v", err)
	}
}

func TestReadRedirects(t *testing.T) {
	t.Run("same host followed with a warning", func(t *testing.T) {
		log, logs := newLog()
		c, mt, _ := pinned(t, Options{Logger: log})
		mt.RegisterResponder("GET", postsURL, reply(301, "", "Location", "https://wp.test/wp-json/wp/v2/posts/"))
		mt.RegisterResponder("GET", postsURL+"/", reply(200, "[]"))
		if _, err := c.ListPosts(context.Background(), listDrafts); err != nil {
			t.Fatal(err)
		}
		mustContain(t, logs.String(), "following a redirect", "site.url", "to=https://wp.test/wp-json/wp/v2/posts/")
	})
	t.Run("http to https on the same host", func(t *testing.T) {
		c, mt, _ := newTestClient(t, "http://localhost/", Options{APIRoot: "http://localhost/wp-json/"})
		mt.RegisterResponder("GET", "http://localhost/wp-json/wp/v2/posts", reply(301, "", "Location", "https://localhost/wp-json/wp/v2/posts"))
		mt.RegisterResponder("GET", "https://localhost/wp-json/wp/v2/posts", reply(200, "[]"))
		if _, err := c.ListPosts(context.Background(), listDrafts); err != nil {
			t.Fatal(err)
		}
	})
	for _, tt := range []struct{ name, site, from, to string }{
		{"another host", "https://wp.test/", postsURL, "https://www.wp.test/wp-json/wp/v2/posts"},
		{"https to http", "https://wp.test/", postsURL, "http://wp.test/wp-json/wp/v2/posts"},
		{"another port", "https://wp.test/", postsURL, "https://wp.test:8443/wp-json/wp/v2/posts"},
	} {
		t.Run(tt.name+" refused", func(t *testing.T) {
			c, mt, _ := pinned(t, Options{})
			mt.RegisterResponder("GET", tt.from, reply(302, "", "Location", tt.to))
			mt.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
				t.Errorf("followed to %s", req.URL)
				return nil, errors.New("test: not followed")
			})
			_, err := c.ListPosts(context.Background(), listDrafts)
			var re *RedirectError
			if !errors.As(err, &re) || !errors.Is(err, ErrRedirect) {
				t.Fatalf("error %v, want a *RedirectError", err)
			}
			if re.Location != tt.to || re.Status != 302 {
				t.Errorf("RedirectError = %+v", re)
			}
			mustContain(t, err.Error(), "GET https://wp.test/wp-json/wp/v2/posts: HTTP 302 redirect to "+tt.to, "site.url")
			if calls(mt) != 1 {
				t.Errorf("%d requests, want 1", calls(mt))
			}
		})
	}
}

func TestWriteRedirectRefused(t *testing.T) {
	for _, status := range []int{301, 302, 303, 307, 308} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			c, mt, _ := pinned(t, Options{})
			// Even a same-host redirect: net/http would re-send 301/302/303 as a GET.
			mt.RegisterResponder("POST", postsURL+"/4", reply(status, "", "Location", "/wp-json/wp/v2/posts/4/"))
			mt.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
				t.Errorf("followed: %s %s", req.Method, req.URL)
				return nil, errors.New("test: not followed")
			})
			_, err := c.SchedulePost(context.Background(), 4, time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC))
			var re *RedirectError
			if !errors.As(err, &re) {
				t.Fatalf("error %v, want a *RedirectError", err)
			}
			mustContain(t, err.Error(), "POST https://wp.test/wp-json/wp/v2/posts/4", fmt.Sprintf("HTTP %d", status),
				"redirect to https://wp.test/wp-json/wp/v2/posts/4/", "never follows redirects", "site.url")
			if calls(mt) != 1 {
				t.Errorf("%d requests, want 1", calls(mt))
			}
		})
	}
}

// TestNoSecretsInOutput formats every error type, the Credentials and the
// Client with many verbs and checks that neither the password nor the
// Authorization value appears, even when the server echoes them.
func TestNoSecretsInOutput(t *testing.T) {
	auth := "Basic ZWRpdG9yOkY2eWIgZ3VtVyBSWEFwIHM5SzMgNlhMcCBPY3dv" // editor:<testPassword>
	if got := "Basic " + b64(testCreds.Username+":"+testPassword); got != auth {
		t.Fatalf("test setup: %s", got)
	}
	// The last one is a fragment of the Authorization value: excerpts cut to a
	// length must not show part of it either.
	secrets := []string{testPassword, strings.ReplaceAll(testPassword, " ", ""), auth[len("Basic "):], auth[len("Basic ") : len("Basic ")+20]}
	echo := func(status int) httpmock.Responder {
		return func(req *http.Request) (*http.Response, error) {
			u, p, _ := req.BasicAuth()
			body := fmt.Sprintf("<html>debug: Authorization: %s user=%s pass=%s</html>", req.Header.Get("Authorization"), u, p)
			return html(status, body, "WWW-Authenticate", "Basic realm=\""+p+"\"")(req)
		}
	}
	log, logs := newLog()
	var errs []error
	run := func(resp httpmock.Responder, method string, opts Options) {
		opts.Logger = log
		c, mt, _ := pinned(t, opts)
		mt.RegisterResponder(method, postsURL, resp)
		mt.RegisterResponder(method, postsURL+"/4", resp)
		var err error
		if method == "GET" {
			_, err = c.ListPosts(context.Background(), listDrafts)
		} else {
			_, err = c.SchedulePost(context.Background(), 4, time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC))
		}
		if err == nil {
			t.Fatalf("%s: no error", method)
		}
		errs = append(errs, err)
	}
	run(echo(200), "GET", Options{})                                                                     // *NotJSONError
	run(echo(401), "GET", Options{})                                                                     // *CredentialsError, WWW-Authenticate echoed
	run(reply(400, fixture(t, "forbidden_status.json")), "GET", Options{})                               // *CredentialsError
	run(reply(404, `{"code":"x","message":"`+testPassword+`","data":{"status":404}}`), "GET", Options{}) // *APIError
	run(echo(503), "GET", Options{})                                                                     // *UnavailableError
	run(reply(301, "", "Location", "https://editor:"+testPassword+"@www.wp.test/"), "POST", Options{})   // *RedirectError
	run(reply(200, "{}"), "POST", Options{ReadOnly: true})                                               // ErrReadOnly
	c, mt, _ := newTestClient(t, testSite, Options{Logger: log})
	mt.RegisterResponder("GET", testSite, echo(200))
	mt.RegisterResponder("GET", testSite+"wp-json/", echo(200))
	_, err := c.Index(context.Background()) // *DiscoveryError
	if err == nil {
		t.Fatal("discovery: no error")
	}
	errs = append(errs, err)

	run(reply(302, "", "Location", "https://editor:"+strings.ReplaceAll(testPassword, " ", "")+"@www.wp.test/"), "POST", Options{}) // *RedirectError

	kinds := map[string]bool{}
	for _, e := range errs {
		for _, k := range []any{new(*NotJSONError), new(*CredentialsError), new(*APIError), new(*UnavailableError), new(*RedirectError), new(*DiscoveryError)} {
			if errors.As(e, k) {
				kinds[fmt.Sprintf("%T", k)] = true
			}
		}
		if errors.Is(e, ErrReadOnly) {
			kinds["ErrReadOnly"] = true
		}
	}
	if len(kinds) != 7 {
		t.Errorf("error kinds covered: %v, want all 7", kinds)
	}

	values := []any{testCreds, &testCreds, c, []Credentials{testCreds}, map[string]any{"creds": testCreds}}
	for _, e := range errs {
		values = append(values, e)
	}
	for _, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%T"} {
			out := fmt.Sprintf(verb, v)
			for _, s := range secrets {
				if strings.Contains(out, s) {
					t.Errorf("%s of %T reveals a secret: %s", verb, v, out)
				}
			}
		}
	}
	for _, e := range errs {
		for _, s := range secrets {
			if strings.Contains(e.Error(), s) {
				t.Errorf("error reveals a secret: %v", e)
			}
		}
	}
	log.Info("creds", "creds", testCreds, "client", c)
	for _, s := range secrets {
		if strings.Contains(logs.String(), s) {
			t.Errorf("log reveals a secret:\n%s", logs)
		}
	}
	js, err := json.Marshal(struct{ C Credentials }{testCreds})
	if err != nil || strings.Contains(string(js), testPassword) {
		t.Errorf("json: %s, %v", js, err)
	}
	if !strings.Contains(fmt.Sprint(testCreds), "editor") || !strings.Contains(fmt.Sprint(testCreds), redacted) {
		t.Errorf("Credentials print as %v", testCreds)
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
