package faultproxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// upstream is a fake site that records what reached it.
type upstream struct {
	mu   sync.Mutex
	reqs []string // "METHOD rest_route"
	srv  *httptest.Server
}

func newUpstream(t *testing.T) *upstream {
	t.Helper()
	u := &upstream{}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.reqs = append(u.reqs, r.Method+" "+r.URL.Query().Get("rest_route")+" "+string(body))
		u.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":4,"status":"future"}`)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) got() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.reqs...)
}

func newProxy(t *testing.T, u *upstream) *Proxy {
	t.Helper()
	p, err := New(u.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

const (
	indexQ  = "/?rest_route=%2F"
	slotsQ  = "/?rest_route=%2Fwp%2Fv2%2Fposts&status=future%2Cpublish%2Cprivate&context=edit"
	queueQ  = "/?rest_route=%2Fwp%2Fv2%2Fposts&status=draft&context=edit"
	postQ   = "/?rest_route=%2Fwp%2Fv2%2Fposts%2F4&context=edit"
	updateQ = "/?rest_route=%2Fwp%2Fv2%2Fposts%2F4"
)

// send sends one request through the proxy with the given client timeout
// (0: none) and returns the status and body, or the error.
func send(ctx context.Context, p *Proxy, method, path string, timeout time.Duration) (int, string, error) {
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(`{"status":"future","date_gmt":"2026-11-30T22:00:00"}`)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.URL()+path, body)
	if err != nil {
		return 0, "", err
	}
	c := &http.Client{Timeout: timeout, Transport: &http.Transport{}}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

type reply struct {
	status int
	body   string
	err    error
}

func sendAsync(ctx context.Context, p *Proxy, method, path string, timeout time.Duration) <-chan reply {
	ch := make(chan reply, 1)
	go func() {
		s, b, err := send(ctx, p, method, path, timeout)
		ch <- reply{s, b, err}
	}()
	return ch
}

func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		method, target string
		want           Kind
	}{
		{"GET", "/?rest_route=/", Index},
		{"GET", "/?rest_route=%2F&_fields=name", Index},
		{"GET", "/wp-json/", Index},
		{"GET", "/wp-json", Index},
		{"GET", slotsQ, Slots},
		{"GET", "/?rest_route=/wp/v2/posts&status[]=publish&status[]=future", Slots},
		{"GET", "/wp-json/wp/v2/posts?status=future", Slots},
		{"GET", queueQ, Queue},
		{"GET", "/?rest_route=/wp/v2/posts&status=pending", Queue},
		{"GET", "/?rest_route=/wp/v2/posts", Other},
		{"GET", postQ, ReadPost},
		{"GET", "/wp-json/wp/v2/posts/17/", ReadPost},
		{"POST", updateQ, Update},
		{"PUT", "/wp-json/wp/v2/posts/4", Update},
		{"POST", "/?rest_route=/wp/v2/posts", Other},
		{"DELETE", updateQ, Other},
		{"GET", "/", Other},
		{"GET", "/?rest_route=/wp/v2/users/me", Other},
	} {
		r := httptest.NewRequest(c.method, c.target, nil)
		if got := Classify(r); got != c.want {
			t.Errorf("Classify(%s %s) = %s, want %s", c.method, c.target, got, c.want)
		}
	}
}

func TestPassAndCounts(t *testing.T) {
	u := newUpstream(t)
	p := newProxy(t, u)
	ctx := waitCtx(t)
	for _, q := range []string{indexQ, slotsQ, queueQ, slotsQ} {
		if s, _, err := send(ctx, p, "GET", q, 0); err != nil || s != 200 {
			t.Fatalf("GET %s: %d %v", q, s, err)
		}
	}
	if s, body, err := send(ctx, p, "POST", updateQ, 0); err != nil || s != 200 || !strings.Contains(body, "future") {
		t.Fatalf("POST: %d %q %v", s, body, err)
	}
	want := Counts{Index: 1, Slots: 2, Queue: 1, Update: 1}
	if got := p.Arrived(); got.String() != want.String() {
		t.Errorf("arrived %s, want %s", got, want)
	}
	if got := p.Forwarded(); got.String() != want.String() {
		t.Errorf("forwarded %s, want %s", got, want)
	}
	if got := u.got(); len(got) != 5 || !strings.Contains(got[4], `"date_gmt"`) {
		t.Errorf("upstream got %q; want 5 requests, the body of the POST forwarded", got)
	}
	p.ResetCounts()
	if got := p.Arrived().String(); got != "none" {
		t.Errorf("after ResetCounts: %s", got)
	}
}

func TestHoldRequestReleased(t *testing.T) {
	u := newUpstream(t)
	p := newProxy(t, u)
	ctx := waitCtx(t)
	f := p.Add(Rule{Kind: Update, Action: HoldRequest, Times: 1})
	ch := sendAsync(ctx, p, "POST", updateQ, 0)
	if err := f.Wait(ctx, 1); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if got := u.got(); len(got) != 0 {
		t.Fatalf("a held request reached the site: %q", got)
	}
	f.Release()
	r := <-ch
	if r.err != nil || r.status != 200 {
		t.Fatalf("after release: %d %v", r.status, r.err)
	}
	if got := u.got(); len(got) != 1 {
		t.Errorf("after release the site got %q, want the one request", got)
	}
	// Times 1: the next update passes at once.
	if s, _, err := send(ctx, p, "POST", updateQ, 0); err != nil || s != 200 {
		t.Fatalf("second POST: %d %v", s, err)
	}
}

func TestHoldRequestClientGoneNeverForwards(t *testing.T) {
	u := newUpstream(t)
	p := newProxy(t, u)
	ctx := waitCtx(t)
	f := p.Add(Rule{Kind: Update, Action: HoldRequest})
	cctx, cancel := context.WithCancel(ctx)
	ch := sendAsync(cctx, p, "POST", updateQ, 0)
	if err := f.Wait(ctx, 1); err != nil {
		t.Fatal(err)
	}
	cancel() // the client goes away (as a killed process would)
	if r := <-ch; r.err == nil {
		t.Fatalf("the client got an answer: %d", r.status)
	}
	if err := f.WaitGone(ctx, 1); err != nil {
		t.Fatal(err)
	}
	f.Release()
	time.Sleep(50 * time.Millisecond)
	if got := u.got(); len(got) != 0 {
		t.Errorf("the request of a client that went away reached the site: %q", got)
	}
	if got := p.Forwarded()[Update]; got != 0 {
		t.Errorf("forwarded %d updates, want 0", got)
	}
}

func TestHoldResponse(t *testing.T) {
	u := newUpstream(t)
	p := newProxy(t, u)
	ctx := waitCtx(t)
	f := p.Add(Rule{Kind: Update, Action: HoldResponse, Times: 1})
	ch := sendAsync(ctx, p, "POST", updateQ, 0)
	if err := f.Wait(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := u.got(); len(got) != 1 {
		t.Fatalf("the site got %q; want the write applied while the answer is held", got)
	}
	if h := f.Hits(); len(h) != 1 || h[0].Status != 200 || h[0].Kind != Update {
		t.Errorf("hits %+v", h)
	}
	select {
	case r := <-ch:
		t.Fatalf("the client got an answer while it was held: %+v", r)
	case <-time.After(50 * time.Millisecond):
	}
	f.Release()
	r := <-ch
	if r.err != nil || r.status != 200 || !strings.Contains(r.body, `"future"`) {
		t.Fatalf("after release: %+v", r)
	}
}

func TestHoldResponseClientGone(t *testing.T) {
	u := newUpstream(t)
	p := newProxy(t, u)
	ctx := waitCtx(t)
	f := p.Add(Rule{Kind: Slots, Action: HoldResponse, Skip: 1})
	if s, _, err := send(ctx, p, "GET", slotsQ, 0); err != nil || s != 200 {
		t.Fatalf("first slots read (skipped): %d %v", s, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	ch := sendAsync(cctx, p, "GET", slotsQ, 0)
	if err := f.Wait(ctx, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if r := <-ch; r.err == nil {
		t.Fatalf("the client got an answer: %+v", r)
	}
	if err := f.WaitGone(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := p.Forwarded()[Slots]; got != 2 {
		t.Errorf("forwarded %d slot reads, want 2", got)
	}
}

func TestDropAfterApply(t *testing.T) {
	u := newUpstream(t)
	p := newProxy(t, u)
	ctx := waitCtx(t)
	f := p.Add(Rule{Kind: Update, Action: DropAfterApply, Times: 1})
	_, _, err := send(ctx, p, "POST", updateQ, 0)
	if err == nil {
		t.Fatal("the client got an answer; want the connection dropped")
	}
	if got := u.got(); len(got) != 1 {
		t.Errorf("the site got %q, want the write applied", got)
	}
	if f.Applied() != 1 {
		t.Errorf("applied %d", f.Applied())
	}
	// Reads are untouched, and the next write passes.
	if s, _, err := send(ctx, p, "GET", postQ, 0); err != nil || s != 200 {
		t.Fatalf("GET post: %d %v", s, err)
	}
	if s, _, err := send(ctx, p, "POST", updateQ, 0); err != nil || s != 200 {
		t.Fatalf("second POST: %d %v", s, err)
	}
}

func TestRejectWithRetryAfter(t *testing.T) {
	for _, status := range []int{429, 503} {
		u := newUpstream(t)
		p := newProxy(t, u)
		ctx := waitCtx(t)
		p.Add(Rule{Kind: Slots, Action: Reject, Status: status, RetryAfter: "1", Times: 2})
		for i := 0; i < 2; i++ {
			req, _ := http.NewRequestWithContext(ctx, "GET", p.URL()+slotsQ, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != status || resp.Header.Get("Retry-After") != "1" {
				t.Errorf("try %d: %d Retry-After %q, want %d and 1", i+1, resp.StatusCode, resp.Header.Get("Retry-After"), status)
			}
		}
		if s, _, err := send(ctx, p, "GET", slotsQ, 0); err != nil || s != 200 {
			t.Errorf("third read: %d %v, want it to pass", s, err)
		}
		if got := len(u.got()); got != 1 {
			t.Errorf("%d: the site got %d requests, want 1", status, got)
		}
		if a, f := p.Arrived()[Slots], p.Forwarded()[Slots]; a != 3 || f != 1 {
			t.Errorf("arrived %d forwarded %d, want 3 and 1", a, f)
		}
	}
}

func TestReset(t *testing.T) {
	u := newUpstream(t)
	p := newProxy(t, u)
	ctx := waitCtx(t)
	p.Add(Rule{Kind: Queue, Action: Reset})
	if _, _, err := send(ctx, p, "GET", queueQ, 0); err == nil {
		t.Fatal("want a connection error")
	}
	if got := u.got(); len(got) != 0 {
		t.Errorf("the site got %q", got)
	}
}

func TestStall(t *testing.T) {
	u := newUpstream(t)
	p := newProxy(t, u)
	ctx := waitCtx(t)
	f := p.Add(Rule{Kind: Index, Action: Stall, Delay: 2 * time.Second, Times: 1})
	t0 := time.Now()
	_, _, err := send(ctx, p, "GET", indexQ, 200*time.Millisecond)
	if err == nil {
		t.Fatal("want the client to time out")
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("the client waited %s", d)
	}
	if err := f.WaitGone(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := u.got(); len(got) != 0 {
		t.Errorf("a stalled request whose client timed out reached the site: %q", got)
	}
	// A short stall and a patient client: forwarded after the delay.
	p.Add(Rule{Kind: Index, Action: Stall, Delay: 100 * time.Millisecond, Times: 1})
	t0 = time.Now()
	if s, _, err := send(ctx, p, "GET", indexQ, 0); err != nil || s != 200 {
		t.Fatalf("patient client: %d %v", s, err)
	}
	if d := time.Since(t0); d < 100*time.Millisecond {
		t.Errorf("answered after %s, want at least the delay", d)
	}
}

func TestRulesInOrderAndClear(t *testing.T) {
	u := newUpstream(t)
	p := newProxy(t, u)
	ctx := waitCtx(t)
	// The first slots read is rejected, the second held; both rules count
	// every slots read.
	p.Add(Rule{Kind: Slots, Action: Reject, Times: 1})
	hold := p.Add(Rule{Kind: Slots, Action: HoldRequest, Skip: 1, Times: 1})
	if s, _, _ := send(ctx, p, "GET", slotsQ, 0); s != 503 {
		t.Fatalf("first read: %d, want 503", s)
	}
	ch := sendAsync(ctx, p, "GET", slotsQ, 0)
	if err := hold.Wait(ctx, 1); err != nil {
		t.Fatal(err)
	}
	p.Clear()
	if r := <-ch; r.err != nil || r.status != 200 {
		t.Fatalf("after Clear: %+v", r)
	}
	if s, _, err := send(ctx, p, "GET", slotsQ, 0); err != nil || s != 200 {
		t.Fatalf("after Clear: %d %v", s, err)
	}
}

func TestRequestsLog(t *testing.T) {
	u := newUpstream(t)
	p := newProxy(t, u)
	ctx := waitCtx(t)
	send(ctx, p, "GET", slotsQ, 0)
	send(ctx, p, "POST", updateQ, 0)
	rs := p.Requests()
	if len(rs) != 2 || rs[0].Kind != Slots || rs[1].Kind != Update || rs[1].PostID() != 4 || !strings.Contains(rs[1].Body, "future") {
		t.Fatalf("requests %+v", rs)
	}
	if rs[0].PostID() != 0 {
		t.Errorf("a listing has post id %d", rs[0].PostID())
	}
}
