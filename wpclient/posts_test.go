package wpclient

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
)

func TestListPostsQuery(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	tests := []struct {
		name string
		q    ListQuery
		want url.Values // every listed parameter must have exactly this value
		none []string   // parameters that must be absent
	}{
		{
			name: "defaults",
			q:    ListQuery{Statuses: []Status{StatusDraft}},
			want: url.Values{
				"status": {"draft"}, "context": {"edit"}, "per_page": {"100"}, "page": {"1"},
				"orderby": {"id"}, "order": {"asc"},
				"_fields": {"id,status,title.raw,date,date_gmt,modified_gmt,author,link"},
			},
			none: []string{"after", "before", "categories", "tags", "author"},
		},
		{
			name: "everything",
			q: ListQuery{
				Statuses:   []Status{StatusFuture, StatusPublish, StatusPrivate},
				After:      time.Date(2026, 11, 28, 1, 30, 0, 0, berlin), // 00:30 UTC
				Before:     time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC),
				Categories: []int{3, 5}, Tags: []int{7}, Authors: []int{1, 2},
				OrderBy: "date", Order: "DESC", Limit: 10, WithContent: true,
			},
			want: url.Values{
				"status": {"future,publish,private"}, "context": {"edit"}, "per_page": {"10"},
				"orderby": {"date"}, "order": {"desc"},
				"after": {"2026-11-28T00:30:00"}, "before": {"2026-12-02T00:00:00"},
				"categories": {"3,5"}, "tags": {"7"}, "author": {"1,2"},
				"_fields": {"id,status,title.raw,date,date_gmt,modified_gmt,author,link,content.raw"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, _ := pinned(t, Options{})
			var rec recorder
			mt.RegisterResponder("GET", postsURL, rec.wrap(reply(200, "[]", "X-WP-Total", "0", "X-WP-TotalPages", "0")))
			if _, err := c.ListPosts(context.Background(), tt.q); err != nil {
				t.Fatal(err)
			}
			req, _ := rec.last(t)
			got := req.URL.Query()
			for k, v := range tt.want {
				if diff := cmp.Diff(v, got[k]); diff != "" {
					t.Errorf("parameter %s (-want +got):\n%s", k, diff)
				}
			}
			for _, k := range tt.none {
				if got.Has(k) {
					t.Errorf("parameter %s = %q, want absent", k, got[k])
				}
			}
			if got.Get(cacheBustParam) == "" {
				t.Errorf("no cache-busting parameter %s in %s", cacheBustParam, req.URL)
			}
			if h := req.Header.Get("Cache-Control"); h != "no-cache" {
				t.Errorf("Cache-Control = %q, want no-cache", h)
			}
			if u, p, ok := req.BasicAuth(); !ok || u != "editor" || p != testPassword {
				t.Errorf("basic auth = %q, %q, %v; want the password as-is, spaces included", u, p, ok)
			}
		})
	}
}

func TestListPostsRestRouteURL(t *testing.T) {
	c, mt, _ := newTestClient(t, "https://example.test/blog", Options{APIRoot: "https://example.test/blog/?rest_route=/"})
	var rec recorder
	mt.RegisterResponder("GET", "https://example.test/blog/", rec.wrap(reply(200, "[]")))
	if _, err := c.ListPosts(context.Background(), ListQuery{Statuses: []Status{StatusDraft, StatusFuture}}); err != nil {
		t.Fatal(err)
	}
	req, _ := rec.last(t)
	mustContain(t, req.URL.RawQuery, "rest_route=%2Fwp%2Fv2%2Fposts", "status=draft%2Cfuture")
	if got := req.URL.Query().Get("rest_route"); got != "/wp/v2/posts" {
		t.Errorf("rest_route = %q", got)
	}
}

func TestListPostsDecoding(t *testing.T) {
	c, mt, _ := pinned(t, Options{})
	mt.RegisterResponder("GET", postsURL, reply(200, fixture(t, "drafts.json"), "X-WP-Total", "4", "X-WP-TotalPages", "1"))
	got, err := c.ListPosts(context.Background(), ListQuery{Statuses: []Status{StatusDraft, StatusPending, StatusFuture}, WithContent: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []Post{
		{ID: 4, Status: StatusDraft, Title: `Tom & Jerry's "big" <em>day</em>`, HasContent: true,
			DateGMT: time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC), Date: "2026-11-24T09:00:00",
			ModifiedGMT: time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC), Author: 1, Link: "https://wp.test/?p=4"},
		{ID: 5, Status: StatusDraft, Title: "안녕하세요, 워드프레스 🚀", HasContent: false,
			DateGMT: time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC), Date: "2026-11-25T09:00:00",
			ModifiedGMT: time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC), Author: 2, Link: "https://wp.test/?p=5"},
		{ID: 14, Status: StatusPending, Title: "  spaces kept  ", Date: "2026-11-26T09:00:00", Author: 1, Link: "https://wp.test/?p=14"},
		{ID: 16, Status: StatusFuture, Title: "",
			DateGMT: time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC), Date: "2026-11-30T23:00:00",
			ModifiedGMT: time.Date(2026, 11, 29, 9, 12, 13, 0, time.UTC), Author: 1, Link: "https://wp.test/seed-draft-1/"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("posts (-want +got):\n%s", diff)
	}
	for _, p := range got {
		if loc := p.DateGMT.Location(); loc != time.UTC {
			t.Errorf("post %d: DateGMT location %v, want UTC", p.ID, loc)
		}
	}
}

func TestListPostsBadDate(t *testing.T) {
	c, mt, _ := pinned(t, Options{})
	mt.RegisterResponder("GET", postsURL, reply(200, `[{"id":4,"status":"draft","date_gmt":"2026-11-24 08:00"}]`))
	_, err := c.ListPosts(context.Background(), ListQuery{Statuses: []Status{StatusDraft}})
	if err == nil {
		t.Fatal("no error for a malformed date_gmt")
	}
	mustContain(t, err.Error(), "post 4", "date_gmt", "2026-11-24 08:00")
}

func TestListPostsPaging(t *testing.T) {
	invalidPage := reply(400, `{"code":"rest_post_invalid_page_number","message":"The page number requested is larger than the number of pages available.","data":{"status":400}}`)
	tests := []struct {
		name      string
		limit     int
		pages     []httpmock.Responder // page N answers pages[N-1]
		wantPosts int
		wantCalls int
		wantErr   string
	}{
		{
			name: "X-WP-TotalPages",
			pages: []httpmock.Responder{
				reply(200, postsJSON(1, 100), "X-WP-Total", "250", "X-WP-TotalPages", "3"),
				reply(200, postsJSON(101, 100), "X-WP-Total", "250", "X-WP-TotalPages", "3"),
				reply(200, postsJSON(201, 50), "X-WP-Total", "250", "X-WP-TotalPages", "3"),
			},
			wantPosts: 250, wantCalls: 3,
		},
		{
			name: "stop at X-WP-TotalPages even on a full page",
			pages: []httpmock.Responder{
				reply(200, postsJSON(1, 100), "X-WP-TotalPages", "2"),
				reply(200, postsJSON(101, 100), "X-WP-TotalPages", "2"),
			},
			wantPosts: 200, wantCalls: 2,
		},
		{
			name:      "nothing matches: TotalPages 0",
			pages:     []httpmock.Responder{reply(200, "[]", "X-WP-Total", "0", "X-WP-TotalPages", "0")},
			wantPosts: 0, wantCalls: 1,
		},
		{
			name: "headers stripped by a cache: short page ends",
			pages: []httpmock.Responder{
				reply(200, postsJSON(1, 100)),
				reply(200, postsJSON(101, 37)),
			},
			wantPosts: 137, wantCalls: 2,
		},
		{
			name: "headers stripped: empty page ends",
			pages: []httpmock.Responder{
				reply(200, postsJSON(1, 100)),
				reply(200, postsJSON(101, 100)),
				reply(200, "[]"),
			},
			wantPosts: 200, wantCalls: 3,
		},
		{
			name: "page past the end answers 400",
			pages: []httpmock.Responder{
				reply(200, postsJSON(1, 100)),
				invalidPage,
			},
			wantPosts: 100, wantCalls: 2,
		},
		{
			name:    "400 invalid page on the first page is an error",
			pages:   []httpmock.Responder{invalidPage},
			wantErr: "rest_post_invalid_page_number", wantCalls: 1,
		},
		{
			name:  "limit below a page",
			limit: 5,
			pages: []httpmock.Responder{
				reply(200, postsJSON(1, 5), "X-WP-TotalPages", "40"),
			},
			wantPosts: 5, wantCalls: 1,
		},
		{
			name:  "limit across pages",
			limit: 150,
			pages: []httpmock.Responder{
				reply(200, postsJSON(1, 100), "X-WP-TotalPages", "3"),
				reply(200, postsJSON(101, 100), "X-WP-TotalPages", "3"),
			},
			wantPosts: 150, wantCalls: 2,
		},
		{
			name: "a cache ignoring the page parameter",
			pages: []httpmock.Responder{
				reply(200, postsJSON(1, 100)),
				reply(200, postsJSON(1, 100)),
			},
			wantErr: "look cached", wantCalls: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, _ := pinned(t, Options{})
			var perPage []string
			mt.RegisterResponder("GET", postsURL, func(req *http.Request) (*http.Response, error) {
				q := req.URL.Query()
				perPage = append(perPage, q.Get("per_page"))
				page, _ := strconv.Atoi(q.Get("page"))
				if page < 1 || page > len(tt.pages) {
					t.Errorf("unexpected page %q", q.Get("page"))
					return httpmock.NewStringResponse(500, "test: unexpected page"), nil
				}
				return tt.pages[page-1](req)
			})
			got, err := c.ListPosts(context.Background(), ListQuery{Statuses: []Status{StatusDraft}, Limit: tt.limit})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.wantPosts {
				t.Errorf("got %d posts, want %d", len(got), tt.wantPosts)
			}
			for i, p := range got {
				if p.ID != i+1 {
					t.Fatalf("post %d has id %d, want %d (order kept, no duplicates)", i, p.ID, i+1)
				}
			}
			if n := calls(mt); n != tt.wantCalls {
				t.Errorf("%d requests, want %d", n, tt.wantCalls)
			}
			for _, pp := range perPage {
				if pp != perPage[0] {
					t.Errorf("per_page changed between pages: %v", perPage)
				}
			}
		})
	}
}

func TestListPostsValidation(t *testing.T) {
	tests := []struct {
		name string
		q    ListQuery
	}{
		{"no status", ListQuery{}},
		{"bad status", ListQuery{Statuses: []Status{"draft,future"}}},
		{"bad orderby", ListQuery{Statuses: []Status{StatusDraft}, OrderBy: "rand"}},
		{"bad order", ListQuery{Statuses: []Status{StatusDraft}, Order: "up"}},
		{"negative limit", ListQuery{Statuses: []Status{StatusDraft}, Limit: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, _ := pinned(t, Options{})
			if _, err := c.ListPosts(context.Background(), tt.q); err == nil {
				t.Error("no error")
			}
			if calls(mt) != 0 {
				t.Errorf("%d requests for an invalid query", calls(mt))
			}
		})
	}
}

func TestGetPost(t *testing.T) {
	c, mt, _ := pinned(t, Options{})
	var rec recorder
	mt.RegisterResponder("GET", postsURL+"/4", rec.wrap(reply(200, fixture(t, "scheduled.json"))))
	mt.RegisterResponder("GET", postsURL+"/99", reply(404, fixture(t, "invalid_id.json")))
	mt.RegisterResponder("GET", postsURL+"/5", reply(200, fixture(t, "scheduled.json"))) // answers post 4

	p, err := c.GetPost(context.Background(), 4)
	if err != nil {
		t.Fatal(err)
	}
	want := Post{ID: 4, Status: StatusFuture, Title: "Seed draft 1", HasContent: true,
		DateGMT: time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC), Date: "2026-11-30T23:00:00",
		ModifiedGMT: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), Author: 1, Link: "https://wp.test/seed-draft-1/"}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("post (-want +got):\n%s", diff)
	}
	req, _ := rec.last(t)
	if q := req.URL.Query(); q.Get("context") != "edit" || !strings.HasSuffix(q.Get("_fields"), ",content.raw") {
		t.Errorf("query %s lacks context=edit or content.raw", req.URL.RawQuery)
	}

	_, err = c.GetPost(context.Background(), 99)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("error %v does not match ErrNotFound", err)
	}
	var ae *APIError
	if !errors.As(err, &ae) || ae.Code != "rest_post_invalid_id" || ae.Status != 404 || ae.Method != "GET" || ae.Route != "/wp/v2/posts/99" {
		t.Errorf("APIError = %+v", ae)
	}
	mustContain(t, err.Error(), "GET /wp/v2/posts/99", "HTTP 404", "rest_post_invalid_id", "Invalid post ID.")

	_, err = c.GetPost(context.Background(), 5)
	if !errors.Is(err, ErrNotJSON) {
		t.Errorf("answer for another post: error %v, want ErrNotJSON", err)
	}
}

func TestSchedulePost(t *testing.T) {
	c, mt, _ := pinned(t, Options{})
	var rec recorder
	mt.RegisterResponder("POST", postsURL+"/4", rec.wrap(reply(200, fixture(t, "scheduled.json"))))

	at := time.Date(2026, 11, 30, 23, 0, 0, 0, time.FixedZone("CET", 3600)) // 22:00 UTC
	p, err := c.SchedulePost(context.Background(), 4, at)
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != StatusFuture || !p.DateGMT.Equal(at) {
		t.Errorf("answer = %+v", p)
	}
	req, body := rec.last(t)
	if want := `{"status":"future","date_gmt":"2026-11-30T22:00:00"}`; body != want {
		t.Errorf("body = %s\nwant   %s", body, want)
	}
	var fields map[string]any
	if err := json.Unmarshal([]byte(body), &fields); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"status": "future", "date_gmt": "2026-11-30T22:00:00"}, fields); diff != "" {
		t.Errorf("body fields (-want +got):\n%s", diff)
	}
	if ct := req.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	if _, p, ok := req.BasicAuth(); !ok || p != testPassword {
		t.Error("no basic auth on the write")
	}
	if n := calls(mt); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestSchedulePostReturnsWhatWordPressDid(t *testing.T) {
	// A past date publishes at once with 200 OK (wordpress-facts §5e): the
	// client reports it faithfully; the caller checks.
	c, mt, _ := pinned(t, Options{})
	mt.RegisterResponder("POST", postsURL+"/7", reply(200, fixture(t, "published_at_once.json")))
	p, err := c.SchedulePost(context.Background(), 7, time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != StatusPublish {
		t.Errorf("status = %q, want publish as answered", p.Status)
	}
}

func TestSchedulePostErrors(t *testing.T) {
	tests := []struct {
		name      string
		responder httpmock.Responder
		is        error
		contains  []string
	}{
		{"invalid date", reply(400, fixture(t, "invalid_date.json")), nil, []string{"POST /wp/v2/posts/4", "HTTP 400", "rest_invalid_param"}},
		{"answer not JSON", html(200, fixture(t, "front_page.html")), ErrNotJSON, []string{"re-read post 4"}},
		{"answer for another post", reply(200, fixture(t, "published_at_once.json")), ErrNotJSON, []string{"post id 7", "re-read post 4"}},
		{"not allowed", reply(401, fixture(t, "cannot_edit.json")), ErrCredentials, []string{"rest_cannot_edit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, _ := pinned(t, Options{})
			mt.RegisterResponder("POST", postsURL+"/4", tt.responder)
			_, err := c.SchedulePost(context.Background(), 4, time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC))
			if err == nil {
				t.Fatal("no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not match %v", err, tt.is)
			}
			mustContain(t, err.Error(), tt.contains...)
			if calls(mt) != 1 {
				t.Errorf("%d requests, want 1", calls(mt))
			}
		})
	}
	c, mt, _ := pinned(t, Options{})
	if _, err := c.SchedulePost(context.Background(), 4, time.Time{}); err == nil {
		t.Error("zero time accepted")
	}
	if calls(mt) != 0 {
		t.Error("request sent for a zero time")
	}
}

func TestUnschedule(t *testing.T) {
	c, mt, _ := pinned(t, Options{})
	var rec recorder
	mt.RegisterResponder("POST", postsURL+"/4", rec.wrap(reply(200,
		`{"id":4,"date":"2026-11-24T09:00:00","date_gmt":"2026-11-24T08:00:00","status":"draft","title":{"raw":"Seed draft 1"},"content":{"raw":"x"}}`)))
	p, err := c.Unschedule(context.Background(), 4, StatusDraft, "2026-11-24T09:00:00")
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != StatusDraft || p.Date != "2026-11-24T09:00:00" {
		t.Errorf("answer = %+v", p)
	}
	_, body := rec.last(t)
	if want := `{"status":"draft","date":"2026-11-24T09:00:00"}`; body != want {
		t.Errorf("body = %s, want %s", body, want)
	}
	if _, err := c.Unschedule(context.Background(), 4, StatusDraft, "2026-11-24 09:00"); err == nil {
		t.Error("malformed date accepted")
	}
	if _, err := c.Unschedule(context.Background(), 4, StatusPublish, "2026-11-24T09:00:00"); err == nil {
		t.Error("status publish accepted: Unschedule only gives posts back to the queue")
	}
	if calls(mt) != 1 {
		t.Errorf("%d requests, want 1", calls(mt))
	}
}

func TestTermID(t *testing.T) {
	c, mt, _ := pinned(t, Options{})
	var rec recorder
	mt.RegisterResponder("GET", "https://wp.test/wp-json/wp/v2/categories", rec.wrap(func(req *http.Request) (*http.Response, error) {
		if req.URL.Query().Get("slug") == "news" {
			return reply(200, `[{"id":12}]`)(req)
		}
		return reply(200, `[]`)(req)
	}))
	ctx := context.Background()

	id, err := c.TermID(ctx, "categories", "42")
	if err != nil || id != 42 {
		t.Errorf("numeric: %d, %v", id, err)
	}
	if calls(mt) != 0 {
		t.Error("numeric id cost a request")
	}

	id, err = c.TermID(ctx, "categories", "news")
	if err != nil || id != 12 {
		t.Errorf("slug: %d, %v", id, err)
	}
	req, _ := rec.last(t)
	if q := req.URL.Query(); q.Get("_fields") != "id" || q.Get("slug") != "news" {
		t.Errorf("query = %s", req.URL.RawQuery)
	}

	_, err = c.TermID(ctx, "categories", "missing")
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("missing slug: %v, want ErrNotFound", err)
	}
	mustContain(t, err.Error(), "category", `"missing"`)

	for _, bad := range [][2]string{{"tag", "x"}, {"categories", ""}, {"tags", "0"}, {"tags", "-3"}, {"tags", "a,b"}} {
		if _, err := c.TermID(ctx, bad[0], bad[1]); err == nil {
			t.Errorf("TermID(%q, %q): no error", bad[0], bad[1])
		}
	}
}

// Pages where WordPress hid posts the account may not read: a short page
// does not end paging while X-WP-TotalPages says more follow; with
// Complete the shortfall is an error matching ErrCredentials (an Author
// account cannot see other users' scheduled posts); X-WP-Total moving
// between pages makes it read the listing again once.
func TestListPostsHiddenAndMovingPosts(t *testing.T) {
	tests := []struct {
		name      string
		complete  bool
		pages     [][]httpmock.Responder // per read of the listing: page N answers [read][N-1]
		wantPosts int
		wantCalls int
		wantErr   error
		wantMsg   string
	}{
		{
			name: "short first page with more pages to come",
			pages: [][]httpmock.Responder{{
				reply(200, postsJSON(1, 97), "X-WP-Total", "150", "X-WP-TotalPages", "2"),
				reply(200, postsJSON(98, 50), "X-WP-Total", "150", "X-WP-TotalPages", "2"),
			}},
			wantPosts: 147, wantCalls: 2,
		},
		{
			name:     "complete: the site hides posts from this account",
			complete: true,
			pages: [][]httpmock.Responder{
				{reply(200, postsJSON(1, 1), "X-WP-Total", "3", "X-WP-TotalPages", "1")},
				{reply(200, postsJSON(1, 1), "X-WP-Total", "3", "X-WP-TotalPages", "1")},
			},
			wantCalls: 2, wantErr: ErrCredentials,
			wantMsg: `counted 3 posts but showed only 1 to user "editor"`,
		},
		{
			name:      "complete: all shown",
			complete:  true,
			pages:     [][]httpmock.Responder{{reply(200, postsJSON(1, 3), "X-WP-Total", "3", "X-WP-TotalPages", "1")}},
			wantPosts: 3, wantCalls: 1,
		},
		{
			name: "X-WP-Total moves between pages: read again",
			pages: [][]httpmock.Responder{
				{
					reply(200, postsJSON(1, 100), "X-WP-Total", "150", "X-WP-TotalPages", "2"),
					reply(200, postsJSON(102, 48), "X-WP-Total", "149", "X-WP-TotalPages", "2"),
				},
				{
					reply(200, postsJSON(1, 100), "X-WP-Total", "149", "X-WP-TotalPages", "2"),
					reply(200, postsJSON(101, 49), "X-WP-Total", "149", "X-WP-TotalPages", "2"),
				},
			},
			wantPosts: 149, wantCalls: 4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mt, _ := pinned(t, Options{})
			read := 0
			mt.RegisterResponder("GET", postsURL, func(req *http.Request) (*http.Response, error) {
				page, _ := strconv.Atoi(req.URL.Query().Get("page"))
				if page == 1 && calls(mt) > 1 {
					read++
				}
				if read >= len(tt.pages) || page < 1 || page > len(tt.pages[read]) {
					t.Errorf("unexpected read %d page %d", read, page)
					return httpmock.NewStringResponse(500, "test: unexpected page"), nil
				}
				return tt.pages[read][page-1](req)
			})
			got, err := c.ListPosts(context.Background(), ListQuery{Statuses: []Status{StatusFuture}, Complete: tt.complete})
			switch {
			case tt.wantErr != nil:
				var he *HiddenPostsError
				if !errors.Is(err, tt.wantErr) || !errors.As(err, &he) || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("err = %v, want %v containing %q", err, tt.wantErr, tt.wantMsg)
				}
			case err != nil:
				t.Fatal(err)
			}
			if len(got) != tt.wantPosts {
				t.Errorf("got %d posts, want %d", len(got), tt.wantPosts)
			}
			if n := calls(mt); n != tt.wantCalls {
				t.Errorf("%d requests, want %d", n, tt.wantCalls)
			}
		})
	}
}
