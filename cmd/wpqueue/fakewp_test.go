package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeWP is an in-process WordPress that implements just enough of the REST
// API (6.1, plain permalinks: every route is ?rest_route=) for the CLI:
// the index, the post list with status/after/before/orderby/order/per_page/
// page/_fields and the X-WP-Total headers, and GET/POST of one post. On a
// wrong password it answers like stock WordPress (wordpress-facts §5h):
// 400 rest_forbidden_status for a list with a non-public status, 401
// rest_forbidden_context for context=edit, 401 rest_cannot_edit for a POST.
//
// It records every request so tests can count them and check methods.
type fakeWP struct {
	t    *testing.T
	srv  *httptest.Server
	user string
	pass string

	// Index fields. gmtOffset is sent as is (WordPress sends "0" or a number).
	timezoneString string
	gmtOffset      any
	loc            *time.Location // the zone post_date is kept in

	// now is the site's clock: a future date not after it publishes at once.
	now time.Time

	mu    sync.Mutex
	posts map[int]*fakePost
	reqs  []fakeRequest

	// onUpdate, when set, runs after a POST has been applied and may change
	// the post before it is answered (e.g. a site that publishes at once).
	onUpdate func(p *fakePost)
	// hold, when it returns true for a request, makes the handler signal
	// on entered and block until the client goes away.
	hold    func(r fakeRequest) bool
	entered chan fakeRequest
	// dropWrites is how many POSTs are applied and then answered by
	// closing the connection: the write took, its answer was lost.
	dropWrites int
	// after, when set, runs once a request has been answered (e.g. another
	// run's write landing between two of ours).
	after func(r fakeRequest)
	// echo makes every answer a 500 HTML page that repeats the
	// Authorization header and the password it carries (a debugging page).
	echo bool
}

// fakePost is a post as the fake stores it.
type fakePost struct {
	ID       int
	Status   string
	Title    string
	Content  string
	DateGMT  time.Time
	Modified time.Time
	Author   int
}

// fakeRequest is one request as the fake saw it.
type fakeRequest struct {
	Method string
	Route  string // the rest_route, e.g. "/wp/v2/posts/4", or the URL path for non-REST requests
	Query  url.Values
	Body   string
}

func (r fakeRequest) String() string {
	q := url.Values{}
	for k, v := range r.Query {
		if k != "rest_route" && k != "_wpq" {
			q[k] = v
		}
	}
	return r.Method + " " + r.Route + "?" + q.Encode()
}

// newFakeWP starts a fake on 127.0.0.1 with site zone Europe/Berlin whose
// clock is now. It accepts user "editor" with password.
func newFakeWP(t *testing.T, now time.Time, password string) *fakeWP {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeWP{
		t: t, user: "editor", pass: password,
		timezoneString: "Europe/Berlin", gmtOffset: 1, loc: loc,
		now: now, posts: map[int]*fakePost{}, entered: make(chan fakeRequest, 16),
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the site address, with a trailing slash.
func (f *fakeWP) URL() string { return f.srv.URL + "/" }

// add stores posts.
func (f *fakeWP) add(ps ...fakePost) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range ps {
		if p.Modified.IsZero() {
			p.Modified = p.DateGMT
		}
		f.posts[p.ID] = &p
	}
}

// post returns a copy of post id.
func (f *fakeWP) post(id int) fakePost {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.posts[id]
	if !ok {
		f.t.Fatalf("fake: no post %d", id)
	}
	return *p
}

// set changes the fake's settings (hooks, index fields) under its lock,
// so that handlers running on other goroutines see the change.
func (f *fakeWP) set(fn func(f *fakeWP)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// setStatus changes the status of post id.
func (f *fakeWP) setStatus(id int, status string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posts[id].Status = status
}

// requests returns the requests recorded so far.
func (f *fakeWP) requests() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reqs)
}

// writes returns the recorded requests other than GET and HEAD.
func (f *fakeWP) writes() []fakeRequest {
	var out []fakeRequest
	for _, r := range f.requests() {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			out = append(out, r)
		}
	}
	return out
}

// reset forgets the recorded requests.
func (f *fakeWP) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = nil
}

func (f *fakeWP) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	q := r.URL.Query()
	route := q.Get("rest_route")
	if route == "" {
		route = r.URL.Path
	}
	fr := fakeRequest{Method: r.Method, Route: route, Query: q, Body: string(body)}
	f.mu.Lock()
	f.reqs = append(f.reqs, fr)
	hold, echo, after := f.hold, f.echo, f.after
	f.mu.Unlock()
	if after != nil {
		defer after(fr)
	}

	if hold != nil && hold(fr) {
		f.entered <- fr
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
			f.t.Errorf("fake: held %s for 10s and the client never went away", fr)
		}
		return
	}
	if echo {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusInternalServerError)
		u, p, _ := r.BasicAuth()
		fmt.Fprintf(w, "<html>debug: Authorization: %s user=%s password=%s</html>", r.Header.Get("Authorization"), u, p)
		return
	}
	if !q.Has("rest_route") {
		// The home page: no theme, an empty 200 with the API link.
		w.Header().Set("Link", `<`+f.srv.URL+`/index.php?rest_route=/>; rel="https://api.w.org/"`)
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		return
	}
	authed := f.authed(r)
	switch {
	case route == "/" || route == "":
		f.index(w, q)
	case route == "/wp/v2/posts" && r.Method == http.MethodGet:
		f.list(w, q, authed)
	case strings.HasPrefix(route, "/wp/v2/posts/"):
		id, err := strconv.Atoi(strings.TrimPrefix(route, "/wp/v2/posts/"))
		if err != nil {
			wpError(w, 404, "rest_no_route", "No route was found matching the URL and request method.")
			return
		}
		switch r.Method {
		case http.MethodGet:
			f.get(w, q, id, authed)
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			f.update(w, q, id, body, authed)
		default:
			wpError(w, 404, "rest_no_route", "No route was found matching the URL and request method.")
		}
	default:
		wpError(w, 404, "rest_no_route", "No route was found matching the URL and request method.")
	}
}

// authed checks HTTP Basic auth; WordPress accepts the application
// password with or without its spaces.
func (f *fakeWP) authed(r *http.Request) bool {
	u, p, ok := r.BasicAuth()
	f.mu.Lock()
	defer f.mu.Unlock()
	return ok && u == f.user && strings.ReplaceAll(p, " ", "") == strings.ReplaceAll(f.pass, " ", "")
}

func (f *fakeWP) index(w http.ResponseWriter, q url.Values) {
	f.mu.Lock()
	defer f.mu.Unlock()
	full := map[string]any{
		"name": "Fake site", "description": "", "url": f.srv.URL, "home": f.srv.URL,
		"gmt_offset": f.gmtOffset, "timezone_string": f.timezoneString,
		"namespaces": []string{"oembed/1.0", "wp/v2", "wp-site-health/v1"},
		"routes":     map[string]any{"/": map[string]any{}},
	}
	writeJSON(w, 200, filterFields(full, q.Get("_fields")))
}

var publicStatuses = []string{"publish"}

func (f *fakeWP) list(w http.ResponseWriter, q url.Values, authed bool) {
	statuses := []string{"publish"}
	if s := q.Get("status"); s != "" {
		statuses = strings.Split(s, ",")
	} else if s := q["status[]"]; len(s) > 0 {
		statuses = s
	}
	for _, s := range statuses {
		if !authed && !slices.Contains(publicStatuses, s) {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(400)
			io.WriteString(w, `{"code":"rest_invalid_param","message":"Invalid parameter(s): status","data":{"status":400,"params":{"status":"Status is forbidden."},"details":{"status":{"code":"rest_forbidden_status","message":"Status is forbidden.","data":{"status":401}}}}}`)
			return
		}
	}
	if q.Get("context") == "edit" && !authed {
		wpError(w, 401, "rest_forbidden_context", "Sorry, you are not allowed to edit posts in this post type.")
		return
	}
	perPage, page := 10, 1
	if s := q.Get("per_page"); s != "" {
		perPage, _ = strconv.Atoi(s)
	}
	if perPage < 1 || perPage > 100 {
		io.WriteString(jsonHeader(w, 400), `{"code":"rest_invalid_param","message":"Invalid parameter(s): per_page","data":{"status":400,"params":{"per_page":"per_page must be between 1 (inclusive) and 100 (inclusive)"}}}`)
		return
	}
	if s := q.Get("page"); s != "" {
		page, _ = strconv.Atoi(s)
	}
	// after/before compare with the site-local post_date, exclusive.
	var after, before string
	if s := q.Get("after"); s != "" {
		after = strings.Replace(s, " ", "T", 1)
	}
	if s := q.Get("before"); s != "" {
		before = strings.Replace(s, " ", "T", 1)
	}

	f.mu.Lock()
	var match []fakePost
	for _, p := range f.posts {
		local := p.DateGMT.In(f.loc).Format(layout)
		if !slices.Contains(statuses, p.Status) || after != "" && local <= after || before != "" && local >= before {
			continue
		}
		match = append(match, *p)
	}
	f.mu.Unlock()

	orderby, desc := q.Get("orderby"), q.Get("order") == "desc"
	slices.SortFunc(match, func(a, b fakePost) int {
		c := 0
		switch orderby {
		case "date":
			c = a.DateGMT.Compare(b.DateGMT)
		case "modified":
			c = a.Modified.Compare(b.Modified)
		case "title":
			c = strings.Compare(a.Title, b.Title)
		}
		if c == 0 {
			c = a.ID - b.ID
		}
		if desc {
			c = -c
		}
		return c
	})
	total := len(match)
	pages := (total + perPage - 1) / perPage
	if page < 1 || page > max(pages, 1) {
		wpError(w, 400, "rest_post_invalid_page_number", "The page number requested is larger than the number of pages available.")
		return
	}
	from := min((page-1)*perPage, total)
	to := min(from+perPage, total)
	out := []any{}
	for _, p := range match[from:to] {
		out = append(out, filterFields(f.view(p), q.Get("_fields")))
	}
	w.Header().Set("X-WP-Total", strconv.Itoa(total))
	w.Header().Set("X-WP-TotalPages", strconv.Itoa(pages))
	writeJSON(w, 200, out)
}

func (f *fakeWP) get(w http.ResponseWriter, q url.Values, id int, authed bool) {
	f.mu.Lock()
	p, ok := f.posts[id]
	var cp fakePost
	if ok {
		cp = *p
	}
	f.mu.Unlock()
	switch {
	case !ok:
		wpError(w, 404, "rest_post_invalid_id", "Invalid post ID.")
	case q.Get("context") == "edit" && !authed:
		wpError(w, 401, "rest_forbidden_context", "Sorry, you are not allowed to edit this post.")
	default:
		writeJSON(w, 200, filterFields(f.view(cp), q.Get("_fields")))
	}
}

// update applies a JSON body like WP_REST_Posts_Controller::update_item for
// the fields wpqueue sends: status, date_gmt (UTC without offset) and date
// (site-local). A future date not after the site's now publishes at once.
func (f *fakeWP) update(w http.ResponseWriter, q url.Values, id int, body []byte, authed bool) {
	if !authed {
		wpError(w, 401, "rest_cannot_edit", "Sorry, you are not allowed to edit this post.")
		return
	}
	var in map[string]string
	if err := json.Unmarshal(body, &in); err != nil {
		wpError(w, 400, "rest_invalid_json", "Invalid JSON body passed.")
		return
	}
	f.mu.Lock()
	p, ok := f.posts[id]
	if !ok {
		f.mu.Unlock()
		wpError(w, 404, "rest_post_invalid_id", "Invalid post ID.")
		return
	}
	if s, ok := in["date_gmt"]; ok {
		t, err := time.ParseInLocation(layout, s, time.UTC)
		if err != nil {
			f.mu.Unlock()
			wpError(w, 400, "rest_invalid_param", "Invalid parameter(s): date_gmt")
			return
		}
		p.DateGMT = t
	}
	if s, ok := in["date"]; ok { // date wins over date_gmt
		t, err := time.ParseInLocation(layout, s, f.loc)
		if err != nil {
			f.mu.Unlock()
			wpError(w, 400, "rest_invalid_param", "Invalid parameter(s): date")
			return
		}
		p.DateGMT = t.UTC()
	}
	if s, ok := in["status"]; ok {
		p.Status = s
	}
	if p.Status == "future" && !p.DateGMT.After(f.now) {
		p.Status = "publish"
	}
	if p.Status == "publish" && p.DateGMT.After(f.now) {
		p.Status = "future"
	}
	p.Modified = f.now
	if f.onUpdate != nil {
		f.onUpdate(p)
	}
	cp := *p
	drop := f.dropWrites > 0
	if drop {
		f.dropWrites--
	}
	f.mu.Unlock()
	if drop {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			f.t.Errorf("fake: hijack: %v", err)
			return
		}
		conn.Close()
		return
	}
	writeJSON(w, 200, filterFields(f.view(cp), q.Get("_fields")))
}

const layout = "2006-01-02T15:04:05"

// view is a post in edit context, with title.rendered texturized the way
// WordPress does it, so a client that reads rendered shows entities.
func (f *fakeWP) view(p fakePost) map[string]any {
	rendered := strings.NewReplacer("&", "&#038;", "'", "&#8217;", `"`, "&#8221;").Replace(p.Title)
	return map[string]any{
		"id":           p.ID,
		"date":         p.DateGMT.In(f.loc).Format(layout),
		"date_gmt":     p.DateGMT.UTC().Format(layout),
		"modified":     p.Modified.In(f.loc).Format(layout),
		"modified_gmt": p.Modified.UTC().Format(layout),
		"slug":         "",
		"status":       p.Status,
		"link":         f.srv.URL + "/?p=" + strconv.Itoa(p.ID),
		"author":       max(p.Author, 1),
		"title":        map[string]any{"raw": p.Title, "rendered": rendered},
		"content":      map[string]any{"raw": p.Content, "rendered": "<p>" + p.Content + "</p>\n", "protected": false},
	}
}

// filterFields applies _fields like rest_filter_response_fields: top-level
// names and one level of nesting ("title.raw").
func filterFields(full map[string]any, fields string) map[string]any {
	if fields == "" {
		return full
	}
	out := map[string]any{}
	for _, f := range strings.Split(fields, ",") {
		top, sub, nested := strings.Cut(strings.TrimSpace(f), ".")
		v, ok := full[top]
		if !ok {
			continue
		}
		if !nested {
			out[top] = v
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		o, _ := out[top].(map[string]any)
		if o == nil {
			o = map[string]any{}
			out[top] = o
		}
		if sv, ok := m[sub]; ok {
			o[sub] = sv
		}
	}
	return out
}

func jsonHeader(w http.ResponseWriter, status int) http.ResponseWriter {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	return w
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	jsonHeader(w, status).Write(b)
}

func wpError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"code": code, "message": msg, "data": map[string]any{"status": status}})
}

// basicAuth is the Authorization value for user and password.
func basicAuth(user, pass string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
}
