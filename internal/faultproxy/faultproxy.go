// Package faultproxy is a reverse proxy for tests that stands between
// wpqueue and a WordPress site on 127.0.0.1 and injects faults per kind of
// REST request: it can hold a request before forwarding it, forward it and
// hold the answer, drop the connection after the site applied a write,
// answer 429/503 with Retry-After, reset the connection, or stall past the
// client's timeout. It counts the requests of each kind.
//
// It is a test tool (internal/racetest runs it in-process): kills and
// faults are placed from outside the product, which has no test hooks.
//
// Requests are classified by method and REST route (the rest_route query
// parameter, or the path after /wp-json):
//
//	index     GET /  (the REST index)
//	slots     GET /wp/v2/posts whose status list contains future
//	queue     GET /wp/v2/posts whose status list contains draft or pending
//	read-post GET /wp/v2/posts/<id>
//	update    POST, PUT or PATCH /wp/v2/posts/<id>
//	other     anything else
package faultproxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kind is the kind of a REST request.
type Kind string

// The request kinds.
const (
	Index    Kind = "index"
	Slots    Kind = "slots"
	Queue    Kind = "queue"
	ReadPost Kind = "read-post"
	Update   Kind = "update"
	Other    Kind = "other"
)

// Kinds lists every kind, in the order a publish run sends them.
var Kinds = []Kind{Index, Slots, Queue, ReadPost, Update, Other}

var postRoute = regexp.MustCompile(`^/wp/v2/posts/([0-9]+)/?$`)

// Route returns the REST route of r: the rest_route query parameter, or
// the path after /wp-json; "" when r is not a REST request.
func Route(r *http.Request) string {
	q := r.URL.Query()
	if q.Has("rest_route") {
		rr := q.Get("rest_route")
		if rr == "" {
			rr = "/"
		}
		return rr
	}
	if i := strings.Index(r.URL.Path, "/wp-json"); i >= 0 {
		rr := r.URL.Path[i+len("/wp-json"):]
		if rr == "" {
			rr = "/"
		}
		return rr
	}
	return ""
}

// Classify returns the kind of r.
func Classify(r *http.Request) Kind {
	route := Route(r)
	if route == "" {
		return Other
	}
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	switch {
	case route == "/" && get:
		return Index
	case strings.TrimSuffix(route, "/") == "/wp/v2/posts" && get:
		st := statuses(r.URL.Query())
		switch {
		case st["future"]:
			return Slots
		case st["draft"] || st["pending"]:
			return Queue
		}
		return Other
	case postRoute.MatchString(route):
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			return ReadPost
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			return Update
		}
	}
	return Other
}

// statuses collects status=a,b and status[]=a&status[]=b (also status[0]).
func statuses(q url.Values) map[string]bool {
	out := map[string]bool{}
	for k, vs := range q {
		if k != "status" && !strings.HasPrefix(k, "status[") {
			continue
		}
		for _, v := range vs {
			for _, s := range strings.Split(v, ",") {
				out[strings.TrimSpace(s)] = true
			}
		}
	}
	return out
}

// Action is what a rule does to the requests it applies to.
type Action int

// The actions.
const (
	// Pass forwards the request unchanged (a rule that only counts).
	Pass Action = iota
	// HoldRequest keeps the request before forwarding it until the fault
	// is released (then it is forwarded) or the client goes away (then it
	// is never forwarded).
	HoldRequest
	// HoldResponse forwards the request, reads the site's whole answer
	// (the site has applied a write by then) and keeps it until the fault
	// is released (then the client gets it) or the client goes away.
	HoldResponse
	// DropAfterApply forwards the request, reads the site's whole answer,
	// and closes the client's connection without sending any of it.
	DropAfterApply
	// Reject answers Rule.Status (default 503) with Rule.RetryAfter
	// without forwarding.
	Reject
	// Reset closes the client's connection with a TCP reset without
	// forwarding.
	Reset
	// Stall keeps the request for Rule.Delay without forwarding it; if
	// the client is still there after that (it has no timeout shorter
	// than Delay), the request is forwarded.
	Stall
)

var actionNames = map[Action]string{Pass: "pass", HoldRequest: "hold-request", HoldResponse: "hold-response",
	DropAfterApply: "drop-after-apply", Reject: "reject", Reset: "reset", Stall: "stall"}

func (a Action) String() string {
	if s, ok := actionNames[a]; ok {
		return s
	}
	return fmt.Sprintf("action(%d)", int(a))
}

// Rule says which requests a fault applies to and what it does.
type Rule struct {
	Kind   Kind
	Action Action
	// Skip lets the first Skip requests of Kind (counted from when the
	// rule was added) through untouched.
	Skip int
	// Times is how many requests after the skipped ones the rule applies
	// to; 0 means every one.
	Times int
	// Status and RetryAfter are Reject's answer; Status defaults to 503.
	// RetryAfter is sent as is when not empty ("1", or an HTTP date).
	Status     int
	RetryAfter string
	// Delay is how long Stall keeps a request.
	Delay time.Duration
}

func (r Rule) String() string {
	s := fmt.Sprintf("%s on %s", r.Action, r.Kind)
	if r.Skip > 0 {
		s += fmt.Sprintf(" after %d", r.Skip)
	}
	if r.Times > 0 {
		s += fmt.Sprintf(" ×%d", r.Times)
	}
	return s
}

// Hit records one request a fault applied to.
type Hit struct {
	Kind   Kind
	Method string
	URL    string
	// Body is the request body (writes).
	Body string
	// Status is the site's answer status for HoldResponse and
	// DropAfterApply (the request was forwarded), else 0.
	Status int
	At     time.Time
}

// Fault is a rule added to a proxy, with what it did so far.
type Fault struct {
	rule Rule

	mu      sync.Mutex
	seen    int // requests of rule.Kind since the rule was added
	hits    []Hit
	gone    int           // held requests whose client went away
	changed chan struct{} // closed and replaced on every change
	release chan struct{}
	relOnce sync.Once
}

// Rule returns the fault's rule.
func (f *Fault) Rule() Rule { return f.rule }

// Release lets every request the fault holds, and every one it would hold
// later, go on.
func (f *Fault) Release() { f.relOnce.Do(func() { close(f.release) }) }

// Hits returns the requests the fault applied to so far.
func (f *Fault) Hits() []Hit {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Hit(nil), f.hits...)
}

// Applied returns how many requests the fault applied to.
func (f *Fault) Applied() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.hits)
}

// ClientsGone returns how many held requests ended because the client went
// away (closed the connection or timed out).
func (f *Fault) ClientsGone() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gone
}

// Wait blocks until the fault applied to n requests (for the hold
// actions: until the n-th request or answer is held) or ctx ends.
func (f *Fault) Wait(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		got, ch := len(f.hits), f.changed
		f.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("fault %s: applied %d of %d: %w", f.rule, got, n, ctx.Err())
		}
	}
}

// WaitGone blocks until n held requests ended because the client went
// away, or ctx ends.
func (f *Fault) WaitGone(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		got, ch := f.gone, f.changed
		f.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("fault %s: %d of %d clients gone: %w", f.rule, got, n, ctx.Err())
		}
	}
}

func (f *Fault) notify() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// match counts r against the rule and reports whether the rule applies.
func (f *Fault) match(k Kind) bool {
	if k != f.rule.Kind {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.seen
	f.seen++
	return n >= f.rule.Skip && (f.rule.Times == 0 || n < f.rule.Skip+f.rule.Times)
}

func (f *Fault) hit(h Hit) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hits = append(f.hits, h)
	f.notify()
}

func (f *Fault) clientGone() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gone++
	f.notify()
}

// Counts are requests per kind.
type Counts map[Kind]int

// String lists the non-zero counts in Kinds order, e.g. "index 1, slots 2".
func (c Counts) String() string {
	var parts []string
	for _, k := range Kinds {
		if c[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, c[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Proxy is a fault-injecting reverse proxy listening on 127.0.0.1.
type Proxy struct {
	target *url.URL
	rp     *httputil.ReverseProxy
	srv    *http.Server
	ln     net.Listener
	tr     *http.Transport

	mu        sync.Mutex
	faults    []*Fault
	arrived   Counts
	forwarded Counts
	log       []Hit
	upErrs    []string
}

// ctxKey carries the request's fault (or nil) to the proxy's hooks.
type ctxKey struct{}

type decision struct {
	kind  Kind
	fault *Fault
	req   *http.Request // the incoming request, for the client's context
}

var (
	errClientGone = errors.New("faultproxy: the client went away")
	errDrop       = errors.New("faultproxy: connection dropped on purpose")
)

// New starts a proxy on 127.0.0.1 (a free port) in front of target, an
// http URL such as "http://127.0.0.1:18200".
func New(target string) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("faultproxy: target %q: want http://host:port", target)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{target: u, ln: ln, arrived: Counts{}, forwarded: Counts{}}
	p.tr = &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     30 * time.Second,
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Header.Del("X-Forwarded-For")
		},
		Transport:      p.tr,
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.errorHandler,
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

// URL returns the proxy's base URL, e.g. "http://127.0.0.1:40123".
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Target returns the URL the proxy forwards to.
func (p *Proxy) Target() string { return p.target.String() }

// Add adds a rule. Rules are tried in the order added; a request is
// counted by every rule of its kind and handled by the first that applies.
func (p *Proxy) Add(r Rule) *Fault {
	if r.Action == Reject && r.Status == 0 {
		r.Status = http.StatusServiceUnavailable
	}
	f := &Fault{rule: r, changed: make(chan struct{}), release: make(chan struct{})}
	p.mu.Lock()
	p.faults = append(p.faults, f)
	p.mu.Unlock()
	return f
}

// Clear releases and removes every rule.
func (p *Proxy) Clear() {
	p.mu.Lock()
	fs := p.faults
	p.faults = nil
	p.mu.Unlock()
	for _, f := range fs {
		f.Release()
	}
}

// Arrived returns the requests received per kind.
func (p *Proxy) Arrived() Counts { return p.counts(p.arrived) }

// Forwarded returns the requests forwarded to the site per kind.
func (p *Proxy) Forwarded() Counts { return p.counts(p.forwarded) }

func (p *Proxy) counts(c Counts) Counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := Counts{}
	for k, v := range c {
		out[k] = v
	}
	return out
}

// Requests returns every request received since the proxy started or
// ResetCounts, in order of arrival.
func (p *Proxy) Requests() []Hit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Hit(nil), p.log...)
}

// UpstreamErrors lists the requests the proxy could not forward to the
// site on its own (it answered them 502) since it started: faults it did
// not inject on purpose. ResetCounts keeps them.
func (p *Proxy) UpstreamErrors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.upErrs...)
}

// ResetCounts sets the counters to zero and forgets the requests.
func (p *Proxy) ResetCounts() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.arrived, p.forwarded, p.log = Counts{}, Counts{}, nil
}

// Close stops the proxy, releasing every held request.
func (p *Proxy) Close() error {
	p.Clear()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := p.srv.Shutdown(ctx)
	if err != nil {
		err = p.srv.Close()
	}
	p.tr.CloseIdleConnections()
	return err
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	// Read the body first: the server notices a client that goes away
	// only once the request body has been read to its end.
	var body []byte
	if r.Body != nil {
		var err error
		body, err = io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	k := Classify(r)
	p.mu.Lock()
	p.arrived[k]++
	p.log = append(p.log, Hit{Kind: k, Method: r.Method, URL: r.URL.String(), Body: string(body), At: time.Now()})
	var f *Fault
	for _, c := range p.faults {
		if c.match(k) && f == nil {
			f = c
		}
	}
	p.mu.Unlock()

	d := &decision{kind: k, fault: f, req: r}
	ctx := r.Context()
	if f != nil {
		h := Hit{Kind: k, Method: r.Method, URL: r.URL.String(), Body: string(body), At: time.Now()}
		switch f.rule.Action {
		case HoldRequest:
			f.hit(h)
			select {
			case <-f.release:
			case <-ctx.Done():
				f.clientGone()
				return
			}
		case Reject:
			f.hit(h)
			if f.rule.RetryAfter != "" {
				w.Header().Set("Retry-After", f.rule.RetryAfter)
			}
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(f.rule.Status)
			fmt.Fprintf(w, `{"code":"faultproxy_%d","message":"injected by faultproxy","data":{"status":%d}}`, f.rule.Status, f.rule.Status)
			return
		case Reset:
			f.hit(h)
			hangUp(w, true)
			return
		case Stall:
			f.hit(h)
			t := time.NewTimer(f.rule.Delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				f.clientGone()
				return
			}
		}
	}
	p.mu.Lock()
	p.forwarded[k]++
	p.mu.Unlock()
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(ctx, ctxKey{}, d)))
}

// modifyResponse runs once the site answered, before anything is sent to
// the client.
func (p *Proxy) modifyResponse(resp *http.Response) error {
	d, _ := resp.Request.Context().Value(ctxKey{}).(*decision)
	if d == nil || d.fault == nil {
		return nil
	}
	f := d.fault
	switch f.rule.Action {
	case HoldResponse, DropAfterApply:
	default:
		return nil
	}
	// Read the whole answer: the site has finished the request.
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	f.hit(Hit{Kind: d.kind, Method: d.req.Method, URL: d.req.URL.String(), Status: resp.StatusCode, At: time.Now()})
	if f.rule.Action == DropAfterApply {
		return errDrop
	}
	select {
	case <-f.release:
		return nil
	case <-d.req.Context().Done():
		f.clientGone()
		return errClientGone
	}
}

func (p *Proxy) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, errDrop):
		hangUp(w, false)
	case errors.Is(err, errClientGone), r.Context().Err() != nil:
		hangUp(w, false)
	default:
		p.mu.Lock()
		p.upErrs = append(p.upErrs, fmt.Sprintf("%s %s: %v", r.Method, r.URL, err))
		p.mu.Unlock()
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, "faultproxy: %v\n", err)
	}
}

// hangUp closes the client's connection without an answer; reset sends a
// TCP RST instead of a FIN.
func hangUp(w http.ResponseWriter, reset bool) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok && reset {
		tc.SetLinger(0)
	}
	conn.Close()
}

// PostID returns the post id of a read-post or update request, else 0.
func (h Hit) PostID() int {
	u, err := url.Parse(h.URL)
	if err != nil {
		return 0
	}
	m := postRoute.FindStringSubmatch(Route(&http.Request{URL: u}))
	if m == nil {
		return 0
	}
	id, _ := strconv.Atoi(m[1])
	return id
}
