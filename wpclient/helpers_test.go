package wpclient

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
)

// testPassword is an application password in the form WordPress displays it.
const testPassword = "F6yb gumW RXAp s9K3 6XLp Ocwo"

var testCreds = Credentials{Username: "editor", Password: testPassword}

const (
	testSite = "https://wp.test/"
	testRoot = "https://wp.test/wp-json/"
	postsURL = "https://wp.test/wp-json/wp/v2/posts"
)

// fakeClock replaces the client's clock and sleep: waits are recorded and
// advance the clock, so retry tests are instant and deterministic.
type fakeClock struct {
	mu    sync.Mutex
	t     time.Time
	waits []time.Duration
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits = append(f.waits, d)
	f.t = f.t.Add(d)
	return nil
}

func (f *fakeClock) Waits() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.waits...)
}

var clockStart = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// newTestClient builds a client on its own mock transport (never
// httpmock.Activate) with a fake clock and zero jitter. Without an APIRoot in
// opts the root is pinned to testRoot, so most tests cost no discovery.
func newTestClient(t *testing.T, site string, opts Options) (*Client, *httpmock.MockTransport, *fakeClock) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Transport: mt}
	}
	c, err := New(site, testCreds, opts)
	if err != nil {
		t.Fatalf("New(%q): %v", site, err)
	}
	clock := &fakeClock{t: clockStart}
	c.now = clock.Now
	c.sleep = clock.Sleep
	c.jitter = func(time.Duration) time.Duration { return 0 }
	return c, mt, clock
}

// pinned is the usual client: REST root pinned to testRoot.
func pinned(t *testing.T, opts Options) (*Client, *httpmock.MockTransport, *fakeClock) {
	t.Helper()
	if opts.APIRoot == "" {
		opts.APIRoot = testRoot
	}
	return newTestClient(t, testSite, opts)
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// reply answers with status and body; headers are name, value pairs. The
// Content-Type is WordPress's JSON type unless given.
func reply(status int, body string, headers ...string) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "application/json; charset=UTF-8")
		for i := 0; i+1 < len(headers); i += 2 {
			resp.Header.Set(headers[i], headers[i+1])
		}
		resp.Request = req
		return resp, nil
	}
}

func html(status int, body string, headers ...string) httpmock.Responder {
	return reply(status, body, append([]string{"Content-Type", "text/html; charset=UTF-8"}, headers...)...)
}

// sequence answers with the responders in turn; the last one repeats.
func sequence(rs ...httpmock.Responder) httpmock.Responder {
	var mu sync.Mutex
	i := 0
	return func(req *http.Request) (*http.Response, error) {
		mu.Lock()
		r := rs[min(i, len(rs)-1)]
		i++
		mu.Unlock()
		return r(req)
	}
}

// recorder keeps the requests a responder saw, with their bodies.
type recorder struct {
	mu     sync.Mutex
	reqs   []*http.Request
	bodies []string
}

func (r *recorder) wrap(next httpmock.Responder) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		var body []byte
		if req.Body != nil {
			body, _ = io.ReadAll(req.Body)
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		r.mu.Lock()
		r.reqs = append(r.reqs, req)
		r.bodies = append(r.bodies, string(body))
		r.mu.Unlock()
		return next(req)
	}
}

func (r *recorder) last(t *testing.T) (*http.Request, string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) == 0 {
		t.Fatal("no request recorded")
	}
	return r.reqs[len(r.reqs)-1], r.bodies[len(r.bodies)-1]
}

// byRestRoute dispatches requests to a ?rest_route= site on the rest_route
// parameter; "" is the home page.
func byRestRoute(routes map[string]httpmock.Responder) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		rr := req.URL.Query().Get("rest_route")
		if r, ok := routes[rr]; ok {
			return r(req)
		}
		return nil, fmt.Errorf("test: no responder for rest_route %q", rr)
	}
}

// postsJSON returns n posts with ids from, from+1, ...
func postsJSON(from, n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"status":"draft","title":{"raw":"Draft %d"},"date":"2026-11-24T09:00:00","date_gmt":"2026-11-24T08:00:00","modified_gmt":"2026-11-24T08:00:00","author":1,"link":"https://wp.test/?p=%d"}`,
			from+i, from+i, from+i)
	}
	b.WriteString("]")
	return b.String()
}

// logBuffer is a debug-level text logger writing to a buffer.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func newLog() (*slog.Logger, *logBuffer) {
	lb := &logBuffer{}
	return slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug})), lb
}

func mustContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%q\ndoes not contain %q", s, sub)
		}
	}
}

func calls(mt *httpmock.MockTransport) int { return mt.GetTotalCallCount() }
