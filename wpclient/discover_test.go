package wpclient

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
)

func TestIndexDiscovery(t *testing.T) {
	index := fixture(t, "index_berlin.json")
	front := fixture(t, "front_page.html")
	// Plain permalinks: /wp-json/ redirects (same host) to a page that is HTML.
	wpJSONHTML := func(mt *httpmock.MockTransport) {
		mt.RegisterResponder("GET", "https://wp.test/wp-json/", reply(301, "", "Location", "/front/"))
		mt.RegisterResponder("GET", "https://wp.test/front/", html(200, front))
	}
	tests := []struct {
		name      string
		site      string
		setup     func(mt *httpmock.MockTransport)
		wantRoot  string
		wantVia   string
		wantCalls int
		wantErr   error
		errHas    []string
	}{
		{
			name: "plain permalinks: ?rest_route=/ answers at once",
			site: "https://wp.test",
			setup: func(mt *httpmock.MockTransport) {
				mt.RegisterResponder("GET", "https://wp.test/", byRestRoute(map[string]httpmock.Responder{"/": reply(200, index)}))
			},
			wantRoot: "https://wp.test/?rest_route=/", wantVia: ViaRestRoute, wantCalls: 1,
		},
		{
			name: "sub-directory site keeps its path",
			site: "https://example.test/blog",
			setup: func(mt *httpmock.MockTransport) {
				mt.RegisterResponder("GET", "https://example.test/blog/", byRestRoute(map[string]httpmock.Responder{"/": reply(200, index)}))
			},
			wantRoot: "https://example.test/blog/?rest_route=/", wantVia: ViaRestRoute, wantCalls: 1,
		},
		{
			name: "?rest_route= gives the front page: fall back to /wp-json/",
			site: "https://wp.test/",
			setup: func(mt *httpmock.MockTransport) {
				mt.RegisterResponder("GET", "https://wp.test/", byRestRoute(map[string]httpmock.Responder{"/": html(200, front)}))
				mt.RegisterResponder("GET", "https://wp.test/wp-json/", reply(200, index))
			},
			wantRoot: "https://wp.test/wp-json/", wantVia: ViaWPJSON, wantCalls: 2,
		},
		{
			name: "Link header on the home page",
			site: "https://wp.test/",
			setup: func(mt *httpmock.MockTransport) {
				mt.RegisterResponder("GET", "https://wp.test/", byRestRoute(map[string]httpmock.Responder{
					"/": html(200, front),
					"":  html(200, front, "Link", `<https://wp.test/index.php?rest_route=/>; rel="https://api.w.org/"`),
				}))
				wpJSONHTML(mt)
				mt.RegisterResponder("GET", "https://wp.test/index.php", byRestRoute(map[string]httpmock.Responder{"/": reply(200, index)}))
			},
			// rest_route=/ (1), wp-json + its redirect (2), home (1), link target (1)
			wantRoot: "https://wp.test/index.php?rest_route=/", wantVia: ViaLink, wantCalls: 5,
		},
		{
			name: "200 HTML is never an index",
			site: "https://wp.test/",
			setup: func(mt *httpmock.MockTransport) {
				mt.RegisterResponder("GET", "https://wp.test/", html(200, front))
				mt.RegisterResponder("GET", "https://wp.test/wp-json/", html(200, front))
			},
			wantCalls: 3, wantErr: ErrNoAPI,
			errHas: []string{
				"GET https://wp.test/?rest_route=/: HTTP 200 text/html; charset=UTF-8", `"<!DOCTYPE html>`,
				"GET https://wp.test/wp-json/: HTTP 200",
				`no Link header with rel="https://api.w.org/"`, "site.url",
			},
		},
		{
			name: "JSON without wp/v2 is not enough",
			site: "https://wp.test/",
			setup: func(mt *httpmock.MockTransport) {
				mt.RegisterResponder("GET", "https://wp.test/", byRestRoute(map[string]httpmock.Responder{
					"/": reply(200, `{"name":"x","namespaces":["oembed/1.0"]}`),
					"":  html(200, front),
				}))
				mt.RegisterResponder("GET", "https://wp.test/wp-json/", reply(404, `{"code":"rest_no_route","message":"No route was found matching the URL and request method.","data":{"status":404}}`))
			},
			wantCalls: 3, wantErr: ErrNoAPI, errHas: []string{"without the wp/v2 namespace", "HTTP 404 rest_no_route"},
		},
		{
			name: "credentials refused stop discovery",
			site: "https://wp.test/",
			setup: func(mt *httpmock.MockTransport) {
				mt.RegisterResponder("GET", "https://wp.test/", reply(401, fixture(t, "incorrect_password.json")))
			},
			wantCalls: 1, wantErr: ErrCredentials,
		},
		{
			name: "Link to another host is not followed",
			site: "https://wp.test/",
			setup: func(mt *httpmock.MockTransport) {
				mt.RegisterResponder("GET", "https://wp.test/", byRestRoute(map[string]httpmock.Responder{
					"/": html(200, front),
					"":  html(200, front, "Link", `<https://api.other.test/wp-json/>; rel="https://api.w.org/"`),
				}))
				mt.RegisterResponder("GET", "https://wp.test/wp-json/", html(404, front))
			},
			wantCalls: 3, wantErr: ErrNoAPI, errHas: []string{"another host", "https://api.other.test/wp-json/", "site.api_root"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, _ := newTestClient(t, tt.site, Options{})
			tt.setup(mt)
			idx, err := c.Index(context.Background())
			if n := calls(mt); n != tt.wantCalls {
				t.Errorf("%d requests, want %d: %v", n, tt.wantCalls, mt.GetCallCountInfo())
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
				mustContain(t, err.Error(), tt.errHas...)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := Index{Root: tt.wantRoot, Via: tt.wantVia, Name: "test site", Home: "https://wp.test",
				TimezoneString: "Europe/Berlin", GMTOffset: 1}
			if diff := cmp.Diff(want, idx); diff != "" {
				t.Errorf("index (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIndexCrossHostRedirect(t *testing.T) {
	// www redirect: discovery reports it so the user can fix site.url.
	c, mt, _ := newTestClient(t, "https://wp.test/", Options{})
	mt.RegisterResponder("GET", "https://wp.test/", reply(301, "", "Location", "https://www.wp.test/"))
	mt.RegisterResponder("GET", "https://wp.test/wp-json/", reply(301, "", "Location", "https://www.wp.test/wp-json/"))
	_, err := c.Index(context.Background())
	var re *RedirectError
	if !errors.As(err, &re) || !errors.Is(err, ErrNoAPI) {
		t.Fatalf("error %v: want ErrNoAPI carrying a *RedirectError", err)
	}
	mustContain(t, err.Error(), "redirect to https://www.wp.test/")
	if info := mt.GetCallCountInfo(); info["GET https://www.wp.test/"] != 0 {
		t.Error("the other host was contacted")
	}
}

func TestIndexCachedAndLazyRoot(t *testing.T) {
	c, mt, _ := newTestClient(t, "https://wp.test/", Options{})
	mt.RegisterResponder("GET", "https://wp.test/", byRestRoute(map[string]httpmock.Responder{
		"/":            reply(200, fixture(t, "index_utc.json")),
		"/wp/v2/posts": reply(200, "[]"),
	}))
	ctx := context.Background()
	if _, err := c.ListPosts(ctx, ListQuery{Statuses: []Status{StatusDraft}}); err != nil {
		t.Fatal(err)
	}
	if c.Requests() != 2 {
		t.Errorf("discovery + list: %d requests, want 2", c.Requests())
	}
	for range 3 {
		idx, err := c.Index(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if idx.GMTOffset != 0 || idx.TimezoneString != "" || idx.Root != "https://wp.test/?rest_route=/" {
			t.Errorf("index = %+v", idx)
		}
	}
	if _, err := c.ListPosts(ctx, ListQuery{Statuses: []Status{StatusDraft}}); err != nil {
		t.Fatal(err)
	}
	if c.Requests() != 3 || calls(mt) != 3 {
		t.Errorf("%d requests (mock saw %d), want 3: the index is cached", c.Requests(), calls(mt))
	}
}

func TestPinnedAPIRoot(t *testing.T) {
	t.Run("ListPosts costs exactly one request", func(t *testing.T) {
		c, mt, _ := pinned(t, Options{})
		mt.RegisterResponder("GET", postsURL, reply(200, "[]"))
		if _, err := c.ListPosts(context.Background(), ListQuery{Statuses: []Status{StatusDraft}}); err != nil {
			t.Fatal(err)
		}
		if c.Requests() != 1 || calls(mt) != 1 {
			t.Errorf("%d requests, want 1", c.Requests())
		}
	})
	t.Run("Index costs one request at the pinned root", func(t *testing.T) {
		c, mt, _ := pinned(t, Options{APIRoot: "https://wp.test/wp-json"}) // slash added
		var rec recorder
		mt.RegisterResponder("GET", "https://wp.test/wp-json/", rec.wrap(reply(200, fixture(t, "index_berlin.json"))))
		idx, err := c.Index(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if idx.Root != "https://wp.test/wp-json/" || idx.Via != ViaPinned {
			t.Errorf("index = %+v", idx)
		}
		if calls(mt) != 1 {
			t.Errorf("%d requests, want 1", calls(mt))
		}
		req, _ := rec.last(t)
		if f := req.URL.Query().Get("_fields"); !strings.Contains(f, "gmt_offset") || !strings.Contains(f, "namespaces") {
			t.Errorf("index _fields = %q", f)
		}
	})
	t.Run("a pinned root that is not an index", func(t *testing.T) {
		c, mt, _ := pinned(t, Options{})
		mt.RegisterResponder("GET", testRoot, html(200, fixture(t, "front_page.html")))
		_, err := c.Index(context.Background())
		var de *DiscoveryError
		if !errors.As(err, &de) || !de.Pinned {
			t.Fatalf("error %v, want a pinned *DiscoveryError", err)
		}
		mustContain(t, err.Error(), "site.api_root", "HTTP 200 text/html")
		if calls(mt) != 1 {
			t.Errorf("%d requests, want 1", calls(mt))
		}
	})
}

func TestParseGMTOffset(t *testing.T) {
	tests := []struct {
		raw     string
		want    float64
		wantErr bool
	}{
		{`"0"`, 0, false},
		{`0`, 0, false},
		{`1`, 1, false},
		{`5.5`, 5.5, false},
		{`"5.5"`, 5.5, false},
		{`5.75`, 5.75, false},
		{`-9.5`, -9.5, false},
		{`"-9.5"`, -9.5, false},
		{`null`, 0, false},
		{`""`, 0, false},
		{``, 0, false},
		{`"UTC+2"`, 0, true},
		{`99`, 0, true},
		{`true`, 0, true},
	}
	for _, tt := range tests {
		got, err := parseGMTOffset(json.RawMessage(tt.raw))
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("parseGMTOffset(%s) = %v, %v; want %v, error %v", tt.raw, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestIndexGMTOffsetTypes(t *testing.T) {
	for _, off := range []struct {
		json string
		want float64
	}{{`"0"`, 0}, {`1`, 1}, {`5.5`, 5.5}, {`"5.5"`, 5.5}, {`-9.5`, -9.5}} {
		t.Run(off.json, func(t *testing.T) {
			c, mt, _ := pinned(t, Options{})
			mt.RegisterResponder("GET", testRoot, reply(200, `{"name":"s","home":"https://wp.test","gmt_offset":`+off.json+`,"timezone_string":"","namespaces":["wp/v2"]}`))
			idx, err := c.Index(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if idx.GMTOffset != off.want {
				t.Errorf("GMTOffset = %v, want %v", idx.GMTOffset, off.want)
			}
		})
	}
}

func TestBuildURL(t *testing.T) {
	q := url.Values{"_fields": {"id,status"}, "page": {"2"}}
	tests := []struct {
		root, route string
		q           url.Values
		want        string
		display     string
	}{
		{"https://wp.test/?rest_route=/", "/wp/v2/posts", q,
			"https://wp.test/?_fields=id%2Cstatus&page=2&rest_route=%2Fwp%2Fv2%2Fposts",
			"https://wp.test/?rest_route=/wp/v2/posts"},
		{"https://wp.test/blog/?rest_route=/", "/wp/v2/posts/4", nil,
			"https://wp.test/blog/?rest_route=%2Fwp%2Fv2%2Fposts%2F4",
			"https://wp.test/blog/?rest_route=/wp/v2/posts/4"},
		{"http://127.0.0.1:18080/index.php?rest_route=/", "/", nil,
			"http://127.0.0.1:18080/index.php?rest_route=%2F",
			"http://127.0.0.1:18080/index.php?rest_route=/"},
		{"https://wp.test/wp-json/", "/wp/v2/posts", q,
			"https://wp.test/wp-json/wp/v2/posts?_fields=id%2Cstatus&page=2",
			"https://wp.test/wp-json/wp/v2/posts"},
		{"https://wp.test/blog/wp-json/", "/", nil, "https://wp.test/blog/wp-json/", "https://wp.test/blog/wp-json/"},
	}
	for _, tt := range tests {
		if got := buildURL(tt.root, tt.route, tt.q); got != tt.want {
			t.Errorf("buildURL(%q, %q) = %q, want %q", tt.root, tt.route, got, tt.want)
		}
		if got := displayURL(tt.root, tt.route); got != tt.display {
			t.Errorf("displayURL(%q, %q) = %q, want %q", tt.root, tt.route, got, tt.display)
		}
	}
}

func TestAPILink(t *testing.T) {
	tests := []struct {
		links []string
		want  string
	}{
		{[]string{`<http://127.0.0.1:18080/index.php?rest_route=/>; rel="https://api.w.org/"`}, "http://127.0.0.1:18080/index.php?rest_route=/"},
		{[]string{`<https://wp.test/wp-json/wp/v2/pages/2>; rel="alternate"; type="application/json", <https://wp.test/wp-json/>; rel="https://api.w.org/"`}, "https://wp.test/wp-json/"},
		{[]string{`<https://wp.test/?p=2>; rel=shortlink`, `<https://wp.test/wp-json/>; rel=https://api.w.org/`}, "https://wp.test/wp-json/"},
		{[]string{`<https://wp.test/a,b/>; rel="next", <https://wp.test/wp-json/>; REL="https://api.w.org/ other"`}, "https://wp.test/wp-json/"},
		{[]string{`<https://wp.test/?p=2>; rel=shortlink`}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		h := http.Header{}
		for _, l := range tt.links {
			h.Add("Link", l)
		}
		if got := apiLink(h); got != tt.want {
			t.Errorf("apiLink(%q) = %q, want %q", tt.links, got, tt.want)
		}
	}
}

func TestConcurrentUseDiscoversOnce(t *testing.T) {
	c, mt, _ := newTestClient(t, "https://wp.test/", Options{})
	mt.RegisterResponder("GET", "https://wp.test/", byRestRoute(map[string]httpmock.Responder{
		"/":            reply(200, fixture(t, "index_utc.json")),
		"/wp/v2/posts": reply(200, postsJSON(1, 3)),
	}))
	const n = 8
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := c.ListPosts(context.Background(), ListQuery{Statuses: []Status{StatusDraft}})
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	info := mt.GetCallCountInfo()
	if c.Requests() != n+1 {
		t.Errorf("%d requests, want %d (one discovery): %v", c.Requests(), n+1, info)
	}
}
