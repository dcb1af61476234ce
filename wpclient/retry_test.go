package wpclient

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
)

var listDrafts = ListQuery{Statuses: []Status{StatusDraft}}

func TestReadRetried(t *testing.T) {
	ok := reply(200, postsJSON(1, 2))
	httpDate := func(d time.Duration) string { return clockStart.Add(d).Format(http.TimeFormat) }
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	tests := []struct {
		name      string
		responses []httpmock.Responder
		wantWaits []time.Duration // with zero jitter: backoff is half the exponential step
	}{
		{"503 with Retry-After seconds", []httpmock.Responder{reply(503, "", "Retry-After", "7"), ok}, []time.Duration{7 * time.Second}},
		{"503 with Retry-After over the cap", []httpmock.Responder{reply(503, "", "Retry-After", "120"), ok}, []time.Duration{20 * time.Second}},
		{"503 with Retry-After HTTP date", []httpmock.Responder{reply(503, "", "Retry-After", httpDate(3*time.Second)), ok}, []time.Duration{3 * time.Second}},
		{"503 with Retry-After HTTP date over the cap", []httpmock.Responder{reply(503, "", "Retry-After", httpDate(time.Hour)), ok}, []time.Duration{20 * time.Second}},
		{"503 with Retry-After in the past", []httpmock.Responder{reply(503, "", "Retry-After", httpDate(-time.Hour)), ok}, []time.Duration{500 * time.Millisecond}},
		{"503 with a garbled Retry-After", []httpmock.Responder{reply(503, "", "Retry-After", "soon"), ok}, []time.Duration{500 * time.Millisecond}},
		{"429 rate limited", []httpmock.Responder{reply(429, `{"code":"too_many_requests","message":"slow down"}`, "Retry-After", "2"), ok}, []time.Duration{2 * time.Second}},
		{"502 then 504 then ok", []httpmock.Responder{html(502, "<h1>Bad Gateway</h1>"), html(504, "<h1>Gateway Timeout</h1>"), ok},
			[]time.Duration{500 * time.Millisecond, time.Second}},
		{"connection reset", []httpmock.Responder{httpmock.NewErrorResponder(reset), ok}, []time.Duration{500 * time.Millisecond}},
		{"EOF", []httpmock.Responder{httpmock.NewErrorResponder(io.EOF), ok}, []time.Duration{500 * time.Millisecond}},
		{"connection refused", []httpmock.Responder{httpmock.ConnectionFailure, ok}, []time.Duration{500 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, clock := pinned(t, Options{})
			mt.RegisterResponder("GET", postsURL, sequence(tt.responses...))
			posts, err := c.ListPosts(context.Background(), listDrafts)
			if err != nil {
				t.Fatal(err)
			}
			if len(posts) != 2 {
				t.Errorf("%d posts, want 2", len(posts))
			}
			if n := calls(mt); n != len(tt.responses) {
				t.Errorf("%d requests, want %d", n, len(tt.responses))
			}
			if diff := cmp.Diff(tt.wantWaits, clock.Waits()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadTimeoutRetried(t *testing.T) {
	c, mt, _ := pinned(t, Options{Timeout: 20 * time.Millisecond})
	hang := func(req *http.Request) (*http.Response, error) {
		<-req.Context().Done()
		return nil, req.Context().Err()
	}
	mt.RegisterResponder("GET", postsURL, sequence(hang, reply(200, "[]")))
	if _, err := c.ListPosts(context.Background(), listDrafts); err != nil {
		t.Fatal(err)
	}
	if calls(mt) != 2 {
		t.Errorf("%d requests, want 2", calls(mt))
	}

	// Every try times out: the final error says so.
	c, mt, _ = pinned(t, Options{Timeout: 10 * time.Millisecond, MaxAttempts: 2})
	mt.RegisterResponder("GET", postsURL, hang)
	_, err := c.ListPosts(context.Background(), listDrafts)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("error %v, want ErrUnavailable", err)
	}
	mustContain(t, err.Error(), "no answer within 10ms (timeout)", "after 2 tries")
}

func TestReadNotRetried(t *testing.T) {
	tests := []struct {
		name string
		resp httpmock.Responder
		is   error
	}{
		{"403 WAF", html(403, fixture(t, "cloudflare_block.html"), "Cf-Ray", "8c1f2a3b4c5d6e7f-FRA", "Server", "cloudflare"), ErrNotJSON},
		{"403 forbidden context", reply(403, fixture(t, "forbidden_context.json")), ErrCredentials},
		{"401", reply(401, fixture(t, "not_logged_in.json")), ErrCredentials},
		{"400", reply(400, fixture(t, "not_in_enum.json")), nil},
		{"404", reply(404, fixture(t, "invalid_id.json")), ErrNotFound},
		{"500", reply(500, `{"code":"internal_server_error","message":"There has been a critical error on this website.","data":{"status":500}}`), nil},
		{"unknown host", httpmock.NewErrorResponder(&net.DNSError{Err: "no such host", Name: "wp.test", IsNotFound: true}), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, clock := pinned(t, Options{})
			mt.RegisterResponder("GET", postsURL, tt.resp)
			_, err := c.ListPosts(context.Background(), listDrafts)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not match %v", err, tt.is)
			}
			if errors.Is(err, ErrUnavailable) {
				t.Errorf("error %v must not be a temporary failure", err)
			}
			if calls(mt) != 1 || len(clock.Waits()) != 0 {
				t.Errorf("%d requests and %d waits, want 1 and 0", calls(mt), len(clock.Waits()))
			}
		})
	}
}

func TestReadGivesUp(t *testing.T) {
	c, mt, clock := pinned(t, Options{})
	mt.RegisterResponder("GET", postsURL, sequence(
		html(503, "<h1>Service Unavailable</h1>", "Retry-After", "8"),
		html(503, "<h1>Service Unavailable</h1>", "Retry-After", "10"),
		html(503, "<h1>Service Unavailable</h1>", "Retry-After", "20"),
		html(503, "<h1>Service Unavailable</h1>", "Retry-After", "20"),
	))
	_, err := c.ListPosts(context.Background(), listDrafts)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("error %v, want ErrUnavailable", err)
	}
	if want := "site unavailable: GET https://wp.test/wp-json/wp/v2/posts: HTTP 503 after 4 tries over 38s"; err.Error()[:len(want)] != want {
		t.Errorf("message %q\ndoes not start with %q", err, want)
	}
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Tries != 4 || ue.Status != 503 || ue.Write {
		t.Errorf("UnavailableError = %+v", ue)
	}
	var nj *NotJSONError
	if !errors.As(err, &nj) {
		t.Errorf("the last answer is not reachable with errors.As: %v", err)
	}
	if calls(mt) != 4 || len(clock.Waits()) != 3 {
		t.Errorf("%d requests and %d waits, want 4 and 3", calls(mt), len(clock.Waits()))
	}
}

func TestMaxAttemptsOne(t *testing.T) {
	c, mt, _ := pinned(t, Options{MaxAttempts: 1})
	mt.RegisterResponder("GET", postsURL, reply(503, ""))
	_, err := c.ListPosts(context.Background(), listDrafts)
	if !errors.Is(err, ErrUnavailable) || calls(mt) != 1 {
		t.Errorf("error %v after %d requests; want ErrUnavailable after 1", err, calls(mt))
	}
	mustContain(t, err.Error(), "after 1 try over")
}

func TestWriteNeverRetried(t *testing.T) {
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	tests := []struct {
		name string
		resp httpmock.Responder
	}{
		{"503", reply(503, "", "Retry-After", "1")},
		{"429", reply(429, "", "Retry-After", "1")},
		{"502", html(502, "<h1>Bad Gateway</h1>")},
		{"504", html(504, "<h1>Gateway Timeout</h1>")},
		{"connection reset", httpmock.NewErrorResponder(reset)},
		{"EOF", httpmock.NewErrorResponder(io.EOF)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, clock := pinned(t, Options{})
			mt.RegisterResponder("POST", postsURL+"/4", tt.resp)
			_, err := c.SchedulePost(context.Background(), 4, time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC))
			if n := calls(mt); n != 1 {
				t.Errorf("%d POST requests, want exactly 1", n)
			}
			if len(clock.Waits()) != 0 {
				t.Errorf("waited %v before a write retry", clock.Waits())
			}
			if !errors.Is(err, ErrUnavailable) {
				t.Fatalf("error %v, want ErrUnavailable", err)
			}
			mustContain(t, err.Error(), "POST https://wp.test/wp-json/wp/v2/posts/4", "after 1 try", "writes are never retried", "re-read the post")
		})
	}
}

func TestBackoff(t *testing.T) {
	c, _, _ := pinned(t, Options{RetryWaitMin: time.Second, RetryWaitMax: 20 * time.Second})
	tests := []struct {
		attempt int
		jitter  string // "min" or "max"
		ra      time.Duration
		hasRA   bool
		want    time.Duration
	}{
		{1, "min", 0, false, 500 * time.Millisecond},
		{1, "max", 0, false, time.Second - 1},
		{2, "min", 0, false, time.Second},
		{3, "min", 0, false, 2 * time.Second},
		{5, "min", 0, false, 8 * time.Second},
		{6, "min", 0, false, 10 * time.Second}, // 16s step, capped at 20s, half of it fixed
		{60, "max", 0, false, 20*time.Second - 1},
		{1, "min", 3 * time.Second, true, 3 * time.Second},
		{1, "min", 0, true, 500 * time.Millisecond},
		{1, "min", time.Hour, true, 20 * time.Second},
	}
	for _, tt := range tests {
		if tt.jitter == "max" {
			c.jitter = func(n time.Duration) time.Duration { return n - 1 }
		} else {
			c.jitter = func(time.Duration) time.Duration { return 0 }
		}
		if got := c.backoff(tt.attempt, tt.ra, tt.hasRA); got != tt.want {
			t.Errorf("backoff(%d, jitter %s, retry-after %v/%v) = %v, want %v", tt.attempt, tt.jitter, tt.ra, tt.hasRA, got, tt.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := clockStart
	tests := []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"  12 ", 12 * time.Second, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{"Sunday, 29-Nov-26 10:01:00 GMT", time.Minute, true}, // RFC 850
		{"tomorrow", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.v, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.v, got, ok, tt.want, tt.ok)
		}
	}
}

// TestRealSleep runs the real clock with tiny waits, and a context that ends
// during the backoff.
func TestRealSleep(t *testing.T) {
	mt := httpmock.NewMockTransport()
	c, err := New(testSite, testCreds, Options{APIRoot: testRoot, HTTPClient: &http.Client{Transport: mt},
		RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	mt.RegisterResponder("GET", postsURL, sequence(reply(503, "", "Retry-After", "60"), reply(503, ""), reply(200, "[]")))
	start := time.Now()
	if _, err := c.ListPosts(context.Background(), listDrafts); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("took %v: Retry-After 60 was not capped at RetryWaitMax", el)
	}
	if calls(mt) != 3 {
		t.Errorf("%d requests, want 3", calls(mt))
	}

	c, err = New(testSite, testCreds, Options{APIRoot: testRoot, HTTPClient: &http.Client{Transport: mt},
		RetryWaitMin: time.Hour, RetryWaitMax: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	mt.RegisterResponder("GET", postsURL, reply(503, ""))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err = c.ListPosts(ctx, listDrafts)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want the context's deadline", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("backoff ignored the context: took %v", el)
	}
}
