package e2e

// Hostile hosts (issue 4): the ways a real WordPress host answers badly,
// each on the real WordPress, bent by the must-use plugin
// testdata/mu-plugins/hostile.php (switched per run by a token in
// site.user_agent) or by a small reverse proxy started by the test. For
// each: the documented exit status, one message naming the cause and the
// fix, and no harm: nothing scheduled twice, nothing published early,
// nothing written after a refusal.

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// hostile returns run options whose User-Agent switches on the plugin's
// modes for every request of the run (see hostile.php for the list).
func hostile(modes ...string) runOpts {
	return runOpts{env: []string{"WPQUEUE_SITE_USER_AGENT=wpqueue-e2e wpq-hostile=" + strings.Join(modes, ",")}}
}

// with returns o plus more environment.
func (o runOpts) with(env ...string) runOpts {
	o.env = append(append([]string(nil), o.env...), env...)
	return o
}

func (s *wpSite) requestLogPath() string {
	return filepath.Join(s.dir, "wp", "wp-content", "wpq-requests.log")
}

// clearRequests empties the plugin's request log.
func (s *wpSite) clearRequests(t *testing.T) {
	t.Helper()
	if err := os.WriteFile(s.requestLogPath(), nil, 0o666); err != nil {
		t.Fatal(err)
	}
}

// requests returns the plugin's log since clearRequests: one
// "METHOD ROUTE HOST/PATH" line per request that carried the token.
func (s *wpSite) requests(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(s.requestLogPath())
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// posts returns the lines of log that are writes.
func posts(log []string) []string {
	var out []string
	for _, l := range log {
		if strings.HasPrefix(l, "POST ") {
			out = append(out, l)
		}
	}
	return out
}

// wantOneWriteLast checks that the run sent exactly one write, to post
// id, and nothing after it: "no further change".
func wantOneWriteLast(t *testing.T, log []string, id int) {
	t.Helper()
	w := posts(log)
	if len(w) != 1 || !strings.HasPrefix(w[0], fmt.Sprintf("POST /wp/v2/posts/%d ", id)) {
		t.Fatalf("want exactly one write, to post %d; requests:\n%s", id, strings.Join(log, "\n"))
	}
	if log[len(log)-1] != w[0] {
		t.Errorf("requests after the write:\n%s", strings.Join(log, "\n"))
	}
}

// rawGet sends a GET to the site (path and query relative to the site
// URL) with the given User-Agent, without following redirects.
func (s *wpSite) rawGet(t *testing.T, pathQuery, ua string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.url+pathQuery, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", ua)
	c := &http.Client{Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// sqlText is a SQL expression for the UTF-8 string v, safe whatever the
// client's character set.
func sqlText(v string) string {
	if v == "" {
		return "''"
	}
	return "CONVERT(X'" + hex.EncodeToString([]byte(v)) + "' USING utf8mb4)"
}

// slotsIn fixes the next n daily 07:00 slots in loc, waiting first if the
// first one is about to change (see planSlots).
func slotsIn(t *testing.T, loc *time.Location, n int) []time.Time {
	t.Helper()
	now := time.Now()
	first := expectedSlots(now, loc, 1)[0]
	if until := first.Add(-lead).Sub(now); until < 90*time.Second {
		time.Sleep(until + 3*time.Second)
	}
	slots := expectedSlots(time.Now(), loc, n)
	t.Cleanup(func() {
		if now := expectedSlots(time.Now(), loc, 1); !now[0].Equal(slots[0]) {
			t.Errorf("timing: the next slot moved from %s to %s during the test (not a product bug)", slots[0], now[0])
		}
	})
	return slots
}

// wantNothingScheduled checks that the site holds no scheduled post and no
// published post but post 1.
func (s *wpSite) wantNothingScheduled(t *testing.T) {
	t.Helper()
	if got := parseInts(s.sql(t, `SELECT ID FROM wp_posts WHERE post_type='post' AND (post_status='future'
		OR (post_status='publish' AND ID <> 1))`)); len(got) != 0 {
		t.Errorf("posts %v are scheduled or published; want none", got)
	}
}

// ---------------------------------------------------------------- 2. credentials

// TestHostileCredentials: the Authorization header stripped by the server,
// application passwords disabled, and a security plugin that closes the
// REST API to anonymous requests (401 and 403, with a JSON code). Each
// exits 3, names the cause and its fix, and writes nothing; a security
// plugin does not stop a run whose credentials work.
func TestHostileCredentials(t *testing.T) {
	s := needSite(t, "hostile")
	s.reset(t)
	wrong := []string{"WPQUEUE_SITE_PASSWORD=Wrng Pass Word Xyzq 1234 5678"}
	for _, c := range []struct {
		name  string
		o     runOpts
		unset []string
		want  []string
	}{
		{"AuthorizationStripped", hostile("strip-auth"), nil, []string{
			"HTTP 400 rest_forbidden_status", "treated the request as anonymous",
			"The site offers application passwords (its REST index lists them)",
			"strips the Authorization header", `SetEnvIf Authorization "(.*)" HTTP_AUTHORIZATION=$1`, "CGIPassAuth On",
			"wrong WordPress login name or application password"}},
		{"AppPasswordsUnavailable", hostile("no-app-passwords"), nil, []string{
			"HTTP 400 rest_forbidden_status", "does not offer application passwords", "disabled by a plugin or the host",
			"wp_is_application_passwords_available", "HTTPS"}},
		{"SecurityPlugin401StrippedHeader", hostile("strip-auth", "rest-anon-401"), nil, []string{
			"GET /: HTTP 401 rest_cannot_access", "Only authenticated users", "treated the request as anonymous",
			`SetEnvIf Authorization "(.*)" HTTP_AUTHORIZATION=$1`}},
		{"SecurityPlugin403StrippedHeader", hostile("strip-auth", "rest-anon-403"), nil, []string{
			"GET /: HTTP 403 rest_cannot_access", "a plugin refused the request", "did not accept the credentials",
			`SetEnvIf Authorization "(.*)" HTTP_AUTHORIZATION=$1`, "Editor or Administrator"}},
		{"SecurityPlugin401WrongPassword", hostile("rest-anon-401").with(wrong...), []string{"WPQUEUE_SITE_PASSWORD_FILE"}, []string{
			"HTTP 401 rest_cannot_access", "wrong WordPress login name or application password"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.o.unset = c.unset
			before := s.dumpAll(t)
			for _, args := range [][]string{{"publish"}, {"publish", "--dry-run"}, {"status"}} {
				s.clearRequests(t)
				r := s.run(t, c.o, args...)
				wantCode(t, r, 3)
				wantContains(t, r, "stderr", "credentials not accepted")
				for _, w := range c.want {
					wantContains(t, r, "stderr", w)
				}
				if strings.Contains(r.stdout, "nothing to do") || strings.Contains(r.stdout, "schedule") {
					t.Errorf("a run whose credentials were refused reports a plan:\n%s", r)
				}
				if w := posts(s.requests(t)); len(w) != 0 {
					t.Errorf("writes sent: %v", w)
				}
			}
			wantSame(t, "wp_posts after runs whose credentials were refused", before, s.dumpAll(t))
		})
	}
	t.Run("SecurityPluginGoodCredentials", func(t *testing.T) {
		// The plugin lets logged-in users through: every request of a run,
		// discovery included, carries the credentials.
		s.reset(t)
		sp := planSlots(t, s, 1)
		if resp, _ := s.rawGet(t, "/?rest_route=/", "anonymous wpq-hostile=rest-anon-401"); resp.StatusCode != 401 {
			t.Fatalf("setup: the security plugin lets an anonymous request through (HTTP %d)", resp.StatusCode)
		}
		r := s.run(t, hostile("rest-anon-401"), "publish")
		wantCode(t, r, 0)
		s.wantScheduled(t, s.drafts[0], sp.slots[0])
	})
}

// ---------------------------------------------------------------- 3. junk before the JSON

// TestHostileJunkBeforeJSON: a UTF-8 byte-order mark before every answer
// is tolerated with one warning; a PHP notice before every answer stops the
// run with its first bytes and the fix; a notice only before the answer of
// the write makes the run re-read the post and decide from that (no second
// write).
func TestHostileJunkBeforeJSON(t *testing.T) {
	s := needSite(t, "hostile")

	t.Run("ByteOrderMark", func(t *testing.T) {
		s.reset(t)
		sp := planSlots(t, s, 1)
		if _, body := s.rawGet(t, "/?rest_route=/", "x wpq-hostile=bom"); !bytes.HasPrefix(body, []byte("\xEF\xBB\xBF{")) {
			t.Fatalf("setup: the answer does not start with a BOM: %.40q", body)
		}
		s.clearRequests(t)
		r := s.run(t, hostile("bom"), "publish")
		wantCode(t, r, 0)
		s.wantScheduled(t, s.drafts[0], sp.slots[0])
		if n := strings.Count(r.stderr, "byte-order mark"); n != 1 {
			t.Errorf("want one warning about the byte-order mark, got %d:\n%s", n, r)
		}
		wantContains(t, r, "stderr", "saved with a BOM")
		if w := posts(s.requests(t)); len(w) != 1 {
			t.Errorf("want one write, got %v", w)
		}
		r = s.run(t, hostile("bom"), "status", "--output", "json")
		wantCode(t, r, 0)
		if rep := parseReport(t, r); len(rep.Slots) != 1 || rep.Slots[0].Post == nil || rep.Slots[0].Post.ID != s.drafts[0] {
			t.Errorf("status through BOMs: %+v", rep.Slots)
		}
	})

	t.Run("PHPNoticeBeforeEveryAnswer", func(t *testing.T) {
		s.reset(t)
		planSlots(t, s, 1)
		for _, args := range [][]string{{"publish"}, {"status"}} {
			before := s.dumpAll(t)
			r := s.run(t, hostile("notice"), args...)
			wantCode(t, r, 1)
			wantContains(t, r, "stderr", `is not JSON: "<br />\n<b>Notice</b>:  Undefined index: wpq_setting`)
			wantContains(t, r, "stderr", "bytes of text before the JSON, typically PHP notices")
			wantContains(t, r, "stderr", "WP_DEBUG_DISPLAY")
			if strings.Contains(r.stderr, "REST API not found") || strings.Contains(r.stdout, "nothing to do") {
				t.Errorf("the notice is not named as the cause:\n%s", r)
			}
			wantSame(t, "wp_posts after a run on notices", before, s.dumpAll(t))
		}
	})

	t.Run("PHPNoticeBeforeTheWritesAnswerOnly", func(t *testing.T) {
		s.reset(t)
		sp := planSlots(t, s, 1)
		s.clearRequests(t)
		r := s.run(t, hostile("notice-write"), "publish")
		wantCode(t, r, 0)
		wantContains(t, r, "stderr", "re-reading the post")
		wantContains(t, r, "stderr", "bytes of text before the JSON")
		s.wantScheduled(t, s.drafts[0], sp.slots[0])
		log := s.requests(t)
		w := posts(log)
		if len(w) != 1 {
			t.Fatalf("want exactly one write, got %v; requests:\n%s", w, strings.Join(log, "\n"))
		}
		for i, l := range log {
			if l == w[0] {
				if i+1 >= len(log) || !strings.HasPrefix(log[i+1], fmt.Sprintf("GET /wp/v2/posts/%d ", s.drafts[0])) {
					t.Errorf("want a re-read of post %d right after the write; requests:\n%s", s.drafts[0], strings.Join(log, "\n"))
				}
			}
		}
		if got := s.holders(t, sp.slots[0]); len(got) != 1 {
			t.Errorf("slot holds %v, want one post", got)
		}
	})
}

// ---------------------------------------------------------------- 5. redirects

// TestHostileRedirects: a write answered with a redirect (to https://, to
// another host) is never re-sent, as a GET or otherwise, and the message
// prints the target and the site.url to set; a site that sends every
// request to another host names it, and that site.url then works; a
// same-host redirect of reads is followed with one warning.
func TestHostileRedirects(t *testing.T) {
	s := needSite(t, "hostile")
	u, err := url.Parse(s.url)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	for _, c := range []struct {
		name, mode string
		want       []string
	}{
		{"WriteToHTTPS", "redirect-write", []string{
			fmt.Sprintf("HTTP 301 redirect to https://127.0.0.1:%s/?rest_route=/wp/v2/posts/", port),
			"a write never follows redirects", fmt.Sprintf("set site.url to https://127.0.0.1:%s/", port)}},
		{"WriteToAnotherHost", "redirect-write-host", []string{
			fmt.Sprintf("HTTP 302 redirect to http://localhost:%s/?rest_route=/wp/v2/posts/", port),
			"a write never follows redirects", fmt.Sprintf("set site.url to http://localhost:%s/", port)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.reset(t)
			sp := planSlots(t, s, 1)
			before := s.dumpAll(t)
			s.clearRequests(t)
			r := s.run(t, hostile(c.mode), "publish")
			wantCode(t, r, 1)
			for _, w := range c.want {
				wantContains(t, r, "stderr", w)
			}
			wantContains(t, r, "stdout", fmt.Sprintf("FAILED to schedule post #%d", s.drafts[0]))
			log := s.requests(t)
			wantOneWriteLast(t, log, s.drafts[0])
			for _, l := range log {
				if strings.Contains(l, "localhost") {
					t.Errorf("a request went to the redirect target: %s", l)
				}
			}
			wantSame(t, "wp_posts after a redirected write", before, s.dumpAll(t))
			if got := s.holders(t, sp.slots[0]); len(got) != 0 {
				t.Errorf("slot holds %v", got)
			}
		})
	}

	t.Run("EverythingToAnotherHost", func(t *testing.T) {
		s.reset(t)
		sp := planSlots(t, s, 1)
		before := s.dumpAll(t)
		s.clearRequests(t)
		o := hostile("redirect-host")
		r := s.run(t, o, "publish")
		wantCode(t, r, 1)
		target := fmt.Sprintf("http://localhost:%s/", port)
		wantContains(t, r, "stderr", "redirect to "+target+"?rest_route=/ (not followed)")
		wantContains(t, r, "stderr", "set site.url to "+target)
		for _, l := range s.requests(t) {
			if strings.Contains(l, "localhost") || strings.HasPrefix(l, "POST") {
				t.Errorf("request %q: want only reads to site.url", l)
			}
		}
		wantSame(t, "wp_posts after a run redirected to another host", before, s.dumpAll(t))

		// The fix the message names works.
		r = s.run(t, o.with("WPQUEUE_SITE_URL="+target), "publish")
		wantCode(t, r, 0)
		s.wantScheduled(t, s.drafts[0], sp.slots[0])
	})

	t.Run("ReadsOnTheSameHost", func(t *testing.T) {
		s.reset(t)
		sp := planSlots(t, s, 1)
		s.clearRequests(t)
		r := s.run(t, hostile("redirect-read"), "publish")
		wantCode(t, r, 0)
		s.wantScheduled(t, s.drafts[0], sp.slots[0])
		if n := strings.Count(r.stderr, "following a redirect"); n != 1 {
			t.Errorf("want one warning about the redirect, got %d:\n%s", n, r)
		}
		wantContains(t, r, "stderr", s.url+"/index.php?rest_route=/")
		if w := posts(s.requests(t)); len(w) != 1 {
			t.Errorf("want one write, got %v", w)
		}
	})
}

// ---------------------------------------------------------------- 7. stale caches

// cachingProxy is a reverse proxy in front of a site that answers GETs
// from its store when key gives a stored key, as full-page caches in front
// of WordPress do; writes pass through.
type cachingProxy struct {
	srv *httptest.Server
	key func(*http.Request) string

	mu       sync.Mutex
	store    map[string]*httptest.ResponseRecorder
	hits     int
	log      []string
	noCache  int // GETs that carried Cache-Control: no-cache
	busted   int // GETs that carried the _wpq parameter
	prefix   string
	upstream *url.URL
}

// startProxy starts a proxy on 127.0.0.1 in front of target. prefix, when
// set, is a path the proxy serves the site under (a site in a
// sub-directory: /blog/x goes to /x). key nil caches nothing.
func startProxy(t *testing.T, target, prefix string, key func(*http.Request) string) *cachingProxy {
	t.Helper()
	up, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &cachingProxy{key: key, store: map[string]*httptest.ResponseRecorder{}, prefix: prefix, upstream: up}
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(up)
		pr.Out.Host = up.Host
		if prefix != "" {
			pr.Out.URL.Path = "/" + strings.TrimPrefix(pr.In.URL.Path, prefix)
			pr.Out.URL.RawPath = ""
		}
	}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if prefix != "" && !strings.HasPrefix(r.URL.Path, prefix) {
			http.Error(w, "not under "+prefix, http.StatusNotFound)
			return
		}
		p.mu.Lock()
		p.log = append(p.log, r.Method+" "+r.URL.Query().Get("rest_route"))
		if r.Method == http.MethodGet {
			if strings.Contains(r.Header.Get("Cache-Control"), "no-cache") {
				p.noCache++
			}
			if r.URL.Query().Has("_wpq") {
				p.busted++
			}
		}
		p.mu.Unlock()
		if r.Method != http.MethodGet || p.key == nil {
			rp.ServeHTTP(w, r)
			return
		}
		k := p.key(r)
		p.mu.Lock()
		stored := p.store[k]
		if stored != nil {
			p.hits++
		}
		p.mu.Unlock()
		if stored == nil {
			rec := httptest.NewRecorder()
			rp.ServeHTTP(rec, r)
			stored = rec
			if rec.Code == http.StatusOK {
				p.mu.Lock()
				p.store[k] = rec
				p.mu.Unlock()
			}
		} else {
			w.Header().Set("X-Cache", "HIT")
		}
		for name, vs := range stored.Header() {
			w.Header()[name] = vs
		}
		w.WriteHeader(stored.Code)
		w.Write(stored.Body.Bytes())
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *cachingProxy) URL() string { return p.srv.URL + p.prefix }

func (p *cachingProxy) writes() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, l := range p.log {
		if !strings.HasPrefix(l, "GET ") {
			n++
		}
	}
	return n
}

// ignoresOurParameters is the key of a cache that knows WordPress's own
// query parameters and ignores the rest (such as wpqueue's cache buster)
// and every request header.
func ignoresOurParameters(r *http.Request) string {
	q := r.URL.Query()
	return strings.Join([]string{r.URL.Path, q.Get("rest_route"), q.Get("status"), q.Get("page"), q.Get("context")}, "|")
}

// TestHostileStaleCache: a cache in front of the site that answers reads
// from its store, ignoring Cache-Control and the cache-busting parameter.
// The verification read does not show the run's own write, so the run
// fails loudly (exit 5, "answers look cached") and gives its post back;
// however often it runs, the slot never gets a second post (nor one that
// stays). A cache keyed on the whole URL is defeated by the cache buster.
func TestHostileStaleCache(t *testing.T) {
	s := needSite(t, "hostile")

	t.Run("IgnoresCacheBuster", func(t *testing.T) {
		s.reset(t)
		sp := planSlots(t, s, 1)
		p := startProxy(t, s.url, "", ignoresOurParameters)
		o := runOpts{env: []string{"WPQUEUE_SITE_URL=" + p.URL()}}
		for run := 1; run <= 3; run++ {
			r := s.run(t, o, "publish")
			wantCode(t, r, 5)
			wantContains(t, r, "stderr", fmt.Sprintf("verification failed for post %d", s.drafts[0]))
			wantContains(t, r, "stderr", "answers look cached")
			wantContains(t, r, "stderr", "gave the post back to the queue")
			wantContains(t, r, "stderr", "exclude /wp-json/ and ?rest_route= from caching")
			if got := s.holders(t, sp.slots[0]); len(got) != 0 {
				t.Errorf("run %d: slot holds %v, want it empty (the run gave its post back)", run, got)
			}
			s.wantNothingScheduled(t)
			if st := s.rows(t)[s.drafts[0]].Status; st != "draft" {
				t.Errorf("run %d: post %d is %s, want draft again", run, s.drafts[0], st)
			}
		}
		writes := p.writes()
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.hits == 0 {
			t.Error("the cache never answered from its store")
		}
		if gets := len(p.log) - writes; p.noCache != gets || p.busted != gets {
			t.Errorf("of %d reads, %d carried Cache-Control: no-cache and %d the cache buster; want all", gets, p.noCache, p.busted)
		}
		// Each run: one update and one give-back.
		if writes != 6 {
			t.Errorf("%d writes in 3 runs, want 6 (schedule and give back, once each per run): %v", writes, p.log)
		}
	})

	t.Run("KeyedOnTheWholeURL", func(t *testing.T) {
		s.reset(t)
		sp := planSlots(t, s, 1)
		p := startProxy(t, s.url, "", func(r *http.Request) string { return r.URL.RequestURI() })
		o := runOpts{env: []string{"WPQUEUE_SITE_URL=" + p.URL()}}
		wantCode(t, s.run(t, o, "publish"), 0)
		s.wantScheduled(t, s.drafts[0], sp.slots[0])
		r := s.run(t, o, "publish")
		wantCode(t, r, 0)
		wantContains(t, r, "stdout", "nothing to do")
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.hits != 0 {
			t.Errorf("the cache answered %d reads from its store despite the cache buster", p.hits)
		}
	})
}

// ---------------------------------------------------------------- 8. writes answered unexpectedly

// TestHostileWriteAnswers: the site publishes the post at once, moves its
// date, or answers 200 with the post unchanged. Each exits 5, says what
// the site answered and that wpqueue changed nothing further (one write,
// nothing after it); a second run never adds a second post.
func TestHostileWriteAnswers(t *testing.T) {
	s := needSite(t, "hostile")
	for _, c := range []struct {
		name, mode string
		want       func(slot time.Time) []string
		// second is the exit status of a second run: 0 when what the site
		// did fills the slot, 5 when the post stayed a draft.
		second int
	}{
		{"PublishedAtOnce", "publish-now", func(slot time.Time) []string {
			return []string{`the site answered status "publish" at date_gmt ` + slot.UTC().Format(restLayout), "published at once"}
		}, 0},
		{"DateRewritten", "shift-date", func(slot time.Time) []string {
			return []string{`the site answered status "future" at date_gmt ` + slot.Add(time.Hour).UTC().Format(restLayout)}
		}, 0},
		{"AnsweredUnchanged", "ignore-write", func(time.Time) []string {
			return []string{`the site answered status "draft"`}
		}, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.reset(t)
			sp := planSlots(t, s, 2)
			first := s.drafts[0]
			o := hostile(c.mode)
			rowsBefore := s.rows(t)
			s.clearRequests(t)
			r := s.run(t, o, "publish", "--schedule-ahead", "2")
			wantCode(t, r, 5)
			wantContains(t, r, "stderr", fmt.Sprintf("verification failed for post %d: asked for status future at date_gmt %s",
				first, sp.slots[0].UTC().Format(restLayout)))
			for _, w := range c.want(sp.slots[0]) {
				wantContains(t, r, "stderr", w)
			}
			wantContains(t, r, "stderr", "wpqueue made no further change")
			wantContains(t, r, "stdout", fmt.Sprintf("FAILED to schedule post #%d", first))
			wantContains(t, r, "stdout", fmt.Sprintf("not attempted: post #%d", s.drafts[1]))
			wantOneWriteLast(t, s.requests(t), first)
			wantUntouched(t, rowsBefore, s.rows(t), append([]int{1}, s.drafts[1:]...)...)

			s.clearRequests(t)
			r = s.run(t, o, "publish")
			wantCode(t, r, c.second)
			if c.second == 0 {
				wantContains(t, r, "stdout", fmt.Sprintf("nothing to do: slot %s", s.localText(sp.slots[0])))
				if w := posts(s.requests(t)); len(w) != 0 {
					t.Errorf("the second run wrote: %v", w)
				}
			} else {
				wantOneWriteLast(t, s.requests(t), first)
			}
			if got := s.holders(t, sp.slots[0]); len(got) > 1 {
				t.Errorf("slot holds %v: two posts", got)
			}
			wantUntouched(t, rowsBefore, s.rows(t), append([]int{1}, s.drafts[1:]...)...)
		})
	}
}

// ---------------------------------------------------------------- 9. time

// TestHostileTime: a manual offset sent as a number (gmt_offset 9), the
// default "0" sent as a string, schedule.timezone overriding the site, and
// machine zones far from the site's.
func TestHostileTime(t *testing.T) {
	s := needSite(t, "hostile")

	t.Run("GMTOffsetNineAsANumber", func(t *testing.T) {
		s.reset(t)
		// Stored serialized, get_option gives the integer 9 and the index
		// sends a JSON number (as for sites whose offset a plugin or an
		// import wrote as an integer).
		s.sql(t, `UPDATE wp_options SET option_value='' WHERE option_name='timezone_string';
			UPDATE wp_options SET option_value='i:9;' WHERE option_name='gmt_offset'`)
		t.Cleanup(func() { s.sql(t, `UPDATE wp_options SET option_value='0' WHERE option_name='gmt_offset'`) })
		_, body := s.rawGet(t, "/?rest_route=/&_fields=gmt_offset,timezone_string", "e2e")
		if !bytes.Contains(body, []byte(`"gmt_offset":9`)) {
			t.Fatalf("setup: the index does not send gmt_offset as the number 9: %s", body)
		}
		loc := fixedZone(9)
		zone, _ := loc()
		slot := slotsIn(t, zone, 1)[0]
		if slot.UTC().Hour() != 22 {
			t.Fatalf("setup: 07:00 at +09:00 should be 22:00 UTC, got %s", slot)
		}
		r := s.run(t, runOpts{}, "status")
		wantCode(t, r, 0)
		wantContains(t, r, "stdout", "timezone  UTC+9 (the site's gmt_offset)\n")
		wantContains(t, r, "stdout", slot.UTC().Format("2006-01-02 15:04")+" UTC")
		wantContains(t, r, "stdout", "manual UTC offset")
		r = s.run(t, runOpts{}, "publish")
		wantCode(t, r, 0)
		p := s.restPost(t, s.drafts[0])
		if p.Status != "future" || p.DateGMT != slot.UTC().Format(restLayout) || p.Date != slot.In(zone).Format(restLayout) {
			t.Errorf("post %d: %s at date_gmt %s (date %s), want future at %s (date %s)", s.drafts[0], p.Status, p.DateGMT, p.Date,
				slot.UTC().Format(restLayout), slot.In(zone).Format(restLayout))
		}
	})

	t.Run("GMTOffsetZeroAsAString", func(t *testing.T) {
		s.reset(t)
		_, body := s.rawGet(t, "/?rest_route=/&_fields=gmt_offset,timezone_string", "e2e")
		if !bytes.Contains(body, []byte(`"gmt_offset":"0"`)) || !bytes.Contains(body, []byte(`"timezone_string":""`)) {
			t.Fatalf("setup: want gmt_offset \"0\" (a string) and timezone_string \"\": %s", body)
		}
		sp := planSlots(t, s, 1)
		r := s.run(t, runOpts{}, "publish", "--output", "json")
		wantCode(t, r, 0)
		if rep := parseReport(t, r); rep.Timezone != "UTC" || rep.TimezoneSource != "gmt_offset" {
			t.Errorf("zone %q from %q, want UTC from gmt_offset", rep.Timezone, rep.TimezoneSource)
		}
		s.wantScheduled(t, s.drafts[0], sp.slots[0])
	})

	t.Run("ScheduleTimezoneOverridesTheSite", func(t *testing.T) {
		s.reset(t)
		ny, err := time.LoadLocation("America/New_York")
		if err != nil {
			t.Fatal(err)
		}
		slot := slotsIn(t, ny, 1)[0]
		o := runOpts{env: []string{"WPQUEUE_SCHEDULE_TIMEZONE=America/New_York"}}
		r := s.run(t, o, "status")
		wantCode(t, r, 0)
		wantContains(t, r, "stdout", "timezone  America/New_York (from schedule.timezone)\n")
		wantCode(t, s.run(t, o, "publish"), 0)
		p := s.restPost(t, s.drafts[0])
		// The site stays UTC: its "date" is the slot in UTC.
		if p.Status != "future" || p.DateGMT != slot.UTC().Format(restLayout) || p.Date != slot.UTC().Format(restLayout) {
			t.Errorf("post %d: %s at date_gmt %s (date %s), want future at 07:00 New York = %s UTC", s.drafts[0], p.Status, p.DateGMT, p.Date, slot.UTC().Format(restLayout))
		}
	})

	t.Run("MachineZoneIsIgnored", func(t *testing.T) {
		s.reset(t)
		planSlots(t, s, 1)
		var outs []string
		for _, tz := range []string{"Pacific/Chatham", "Asia/Kathmandu", "America/St_Johns", "UTC"} {
			r := s.run(t, runOpts{env: []string{"TZ=" + tz}}, "publish", "--dry-run")
			wantCode(t, r, 0)
			outs = append(outs, r.stdout)
		}
		for i := 1; i < len(outs); i++ {
			if outs[i] != outs[0] {
				t.Errorf("the plan depends on the machine's zone:\n%s\nvs\n%s", outs[0], outs[i])
			}
		}
	})
}

// ---------------------------------------------------------------- 10. titles

// TestHostileTitles: raw titles with &, quotes, HTML, Korean and emoji come
// out exactly as typed in text and JSON; drafts with an empty title or
// empty content are skipped with a warning and never scheduled.
func TestHostileTitles(t *testing.T) {
	s := needSite(t, "hostile")
	s.reset(t)
	const (
		html   = `Tom & Jerry's "big" <em>day</em>`
		korean = "한국어 제목: 오늘의 소식 🎉 👩‍💻 👨‍👩‍👧 ❤️"
	)
	d := s.drafts
	s.sql(t, fmt.Sprintf(`UPDATE wp_posts SET post_title=%s WHERE ID=%d; UPDATE wp_posts SET post_content='' WHERE ID=%d;
		UPDATE wp_posts SET post_title='' WHERE ID=%d; UPDATE wp_posts SET post_title=%s WHERE ID=%d`,
		sqlText(html), d[0], d[1], d[2], sqlText(korean), d[3]))
	if got := s.restPost(t, d[3]).Title.Raw; got != korean {
		t.Fatalf("setup: title.raw of post %d is %q", d[3], got)
	}
	sp := planSlots(t, s, 2)
	content := s.contentDump(t)
	ahead := runOpts{env: []string{"WPQUEUE_SCHEDULE_AHEAD=2"}}

	r := s.run(t, ahead, "publish")
	wantCode(t, r, 0)
	wantContains(t, r, "stdout", fmt.Sprintf(`scheduled post #%d "%s" for %s`, d[0], html, s.localText(sp.slots[0])))
	wantContains(t, r, "stdout", fmt.Sprintf(`scheduled post #%d "%s" for %s`, d[3], korean, s.localText(sp.slots[1])))
	wantContains(t, r, "stdout", fmt.Sprintf(`warning: draft #%d "Seed draft 2" is never scheduled: empty content`, d[1]))
	wantContains(t, r, "stdout", fmt.Sprintf(`warning: draft #%d "" is never scheduled: empty title`, d[2]))
	s.wantScheduled(t, d[0], sp.slots[0])
	s.wantScheduled(t, d[3], sp.slots[1])
	rows := s.rows(t)
	for _, id := range d[1:3] {
		if rows[id].Status != "draft" {
			t.Errorf("post %d is %s, want it still draft", id, rows[id].Status)
		}
	}
	wantSame(t, "titles and content", content, s.contentDump(t))

	r = s.run(t, ahead, "status", "--output", "json")
	wantCode(t, r, 0)
	if strings.Contains(r.stdout, `\u0026`) || strings.Contains(r.stdout, `\u003c`) || strings.Contains(r.stdout, "&amp;") || strings.Contains(r.stdout, "&#") {
		t.Errorf("JSON titles are escaped:\n%s", r.stdout)
	}
	wantContains(t, r, "stdout", `"title":"Tom & Jerry's \"big\" <em>day</em>"`)
	rep := parseReport(t, r)
	if len(rep.Slots) != 2 || rep.Slots[0].Post == nil || rep.Slots[1].Post == nil ||
		rep.Slots[0].Post.Title != html || rep.Slots[1].Post.Title != korean {
		t.Errorf("JSON slots: %+v", rep.Slots)
	}
	var raw struct {
		Skipped []struct {
			ID     int    `json:"id"`
			Title  string `json:"title"`
			Reason string `json:"reason"`
		} `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(raw.Skipped); got != fmt.Sprintf("[{%d Seed draft 2 empty content} {%d  empty title}]", d[1], d[2]) {
		t.Errorf("JSON skipped: %s", got)
	}

	r = s.run(t, ahead, "status")
	wantCode(t, r, 0)
	wantContains(t, r, "stdout", fmt.Sprintf(`#%d  "%s"`, d[0], html))
	wantContains(t, r, "stdout", fmt.Sprintf(`#%d  "%s"`, d[3], korean))
}

// ---------------------------------------------------------------- 1. discovery

// TestHostileDiscovery: a home page without the Link header (discovery
// uses ?rest_route=/), a pinned site.api_root of both forms on a
// pretty-permalink site, a pinned /wp-json/ on a plain-permalink site (an
// HTML page, never "no posts"), and a site in a sub-directory.
func TestHostileDiscovery(t *testing.T) {
	t.Run("NoLinkHeader", func(t *testing.T) {
		s := needSite(t, "hostile")
		s.reset(t)
		sp := planSlots(t, s, 1)
		resp, _ := s.rawGet(t, "/", "x wpq-hostile=no-link")
		if l := resp.Header.Values("Link"); len(l) != 0 {
			t.Fatalf("setup: the home page still sends Link %q", l)
		}
		if resp, _ := s.rawGet(t, "/", "e2e"); !strings.Contains(strings.Join(resp.Header.Values("Link"), " "), "api.w.org") {
			t.Fatalf("setup: a stock home page sends no API Link header: %v", resp.Header)
		}
		s.clearRequests(t)
		r := s.run(t, hostile("no-link"), "publish")
		wantCode(t, r, 0)
		s.wantScheduled(t, s.drafts[0], sp.slots[0])
		if log := s.requests(t); len(log) == 0 || !strings.HasPrefix(log[0], "GET / ") {
			t.Errorf("want discovery by ?rest_route=/ first; requests:\n%s", strings.Join(log, "\n"))
		}
	})

	t.Run("PinnedRootOnPrettyPermalinks", func(t *testing.T) {
		s := needSite(t, "pretty")
		for _, root := range []string{s.url + "/?rest_route=/", s.url + "/wp-json/", s.url + "/wp-json"} {
			s.reset(t)
			sp := planSlots(t, s, 1)
			o := runOpts{env: []string{"WPQUEUE_SITE_API_ROOT=" + root}}
			r := s.run(t, o, "publish", "--output", "json")
			wantCode(t, r, 0)
			s.wantScheduled(t, s.drafts[0], sp.slots[0])
			// Pinned: one index read, the holder and queue listings, the
			// write, the verification read.
			if rep := parseReport(t, r); rep.Slots[0].State != "scheduled" {
				t.Errorf("site.api_root %s: slot %+v", root, rep.Slots[0])
			}
			r = s.run(t, o, "publish")
			wantCode(t, r, 0)
			wantContains(t, r, "stdout", "nothing to do")
		}
	})

	t.Run("PinnedWPJSONOnPlainPermalinks", func(t *testing.T) {
		s := needSite(t, "hostile")
		s.reset(t)
		planSlots(t, s, 1)
		before := s.dumpAll(t)
		for _, args := range [][]string{{"publish"}, {"status"}} {
			r := s.run(t, runOpts{env: []string{"WPQUEUE_SITE_API_ROOT=" + s.url + "/wp-json/"}}, args...)
			wantCode(t, r, 1)
			wantContains(t, r, "stderr", "REST API not found for "+s.url+"/wp-json/")
			wantContains(t, r, "stderr", "text/html")
			wantContains(t, r, "stderr", "Check site.api_root")
			if strings.Contains(r.stdout, "nothing to do") || strings.Contains(r.stdout, "stays empty") {
				t.Errorf("an HTML page was read as an answer:\n%s", r)
			}
		}
		wantSame(t, "wp_posts after runs against an HTML page", before, s.dumpAll(t))
	})

	t.Run("SiteInASubDirectory", func(t *testing.T) {
		s := needSite(t, "hostile")
		s.reset(t)
		sp := planSlots(t, s, 1)
		p := startProxy(t, s.url, "/blog/", nil)
		o := runOpts{env: []string{"WPQUEUE_SITE_URL=" + p.URL()}}
		r := s.run(t, o, "publish")
		wantCode(t, r, 0)
		s.wantScheduled(t, s.drafts[0], sp.slots[0])
		p.mu.Lock()
		if len(p.log) == 0 || p.log[0] != "GET /" {
			t.Errorf("want discovery at %s?rest_route=/ first, got %v", p.URL(), p.log)
		}
		p.mu.Unlock()
		r = s.run(t, o, "status")
		wantCode(t, r, 0)
		wantContains(t, r, "stdout", "site      default ("+p.URL()+")")
	})
}
