package wpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Fields requested with _fields. Nested names (title.raw, content.raw) are
// filtered by rest_filter_response_fields (WordPress ≥ 5.3; application
// passwords need ≥ 5.6 anyway), and WP_REST_Posts_Controller::
// prepare_item_for_response skips what is not requested, so the rendered
// content (the_content filters) is neither computed nor sent.
const (
	postFields        = "id,status,title.raw,date,date_gmt,modified_gmt,author,link"
	postContentFields = postFields + ",content.raw"
)

// maxPerPage is the REST API's upper bound for per_page (1..100; 101 or 0
// answer 400 rest_invalid_param).
const maxPerPage = 100

// maxPages bounds paging so that a broken cache cannot loop forever.
const maxPages = 10000

var (
	statusRe  = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
	orderBys  = []string{"author", "date", "id", "include", "modified", "parent", "relevance", "slug", "include_slugs", "title"}
	zeroDates = map[string]bool{"": true, "0000-00-00T00:00:00": true, "0000-00-00 00:00:00": true}
)

// ListPosts lists posts (GET /wp/v2/posts, context=edit, so it needs
// credentials) matching q, reading every page.
//
// The request carries status as a comma list (WordPress accepts
// status=draft,future), per_page=100 (or q.Limit when smaller),
// orderby/order (default id asc), categories, tags and author as comma lists,
// and _fields limited to what [Post] needs (content.raw only with
// q.WithContent). q.After and q.Before are sent in UTC formatted with
// [DateLayout], but WordPress compares them with the site-local post_date
// (WP_REST_Posts_Controller::get_items puts them in a date_query on
// post_date, exclusive bounds), so the caller must widen them and filter on
// Post.DateGMT itself.
//
// Paging stops at X-WP-TotalPages, at a short or empty page (for caches that
// strip the headers), at q.Limit posts, or when a page after the first
// answers 400 rest_post_invalid_page_number. A page repeating only posts
// already read is an error: the answers look cached.
//
// Dates are parsed as UTC (date_gmt, modified_gmt); a null or
// "0000-00-00T00:00:00" date gives the zero time. Errors: [ErrCredentials]
// (a 400 rest_forbidden_status is how WordPress answers status=draft to a
// request it treats as anonymous), [ErrUnavailable], [ErrNotJSON],
// [ErrNoAPI], [*APIError] for other WordPress errors.
func (c *Client) ListPosts(ctx context.Context, q ListQuery) ([]Post, error) {
	params, perPage, err := listParams(q)
	if err != nil {
		return nil, err
	}
	root, err := c.root(ctx)
	if err != nil {
		return nil, err
	}
	// The listing may change between two pages (another run writing): a
	// post can then slip past a page boundary. Read again once when the
	// pages disagree on X-WP-Total.
	var l listing
	for try := 1; try <= 2; try++ {
		l, err = c.listOnce(ctx, root, params, perPage, q.Limit)
		if err != nil {
			return nil, err
		}
		if l.stable && (!q.Complete || l.total < 0 || len(l.posts) >= l.total) {
			return l.posts, nil
		}
	}
	if !l.stable {
		return nil, fmt.Errorf("GET %s: the listing changed while it was read twice (X-WP-Total moved between pages); try again", displayURL(root, "/wp/v2/posts"))
	}
	return nil, &HiddenPostsError{URL: displayURL(root, "/wp/v2/posts"), Username: c.username, Total: l.total, Read: len(l.posts)}
}

// listing is one read of every page of a post listing.
type listing struct {
	posts []Post
	// total is X-WP-Total of the first page, or -1 when absent.
	total int
	// stable is false when a later page reported another X-WP-Total.
	stable bool
}

func (c *Client) listOnce(ctx context.Context, root string, params url.Values, perPage, limit int) (listing, error) {
	const route = "/wp/v2/posts"
	l := listing{total: -1, stable: true}
	seen := make(map[int]bool)
	for page := 1; ; page++ {
		if page > maxPages {
			return l, fmt.Errorf("GET %s: more than %d pages", displayURL(root, route), maxPages)
		}
		params.Set("page", strconv.Itoa(page))
		r := request{method: http.MethodGet, route: route, url: buildURL(root, route, params), display: displayURL(root, route)}
		a, err := c.do(ctx, r)
		if err != nil {
			var ae *APIError
			if page > 1 && errors.As(err, &ae) && ae.Code == "rest_post_invalid_page_number" {
				break
			}
			return l, err
		}
		if t, err := strconv.Atoi(strings.TrimSpace(a.header.Get("X-WP-Total"))); err == nil {
			if page == 1 {
				l.total = t
			} else if t != l.total {
				l.stable = false
			}
		}
		var batch []wirePost
		if err := c.decode(r, a, "a JSON list of posts", &batch); err != nil {
			return l, err
		}
		fresh := 0
		for _, w := range batch {
			if seen[w.ID] {
				continue
			}
			seen[w.ID] = true
			fresh++
			p, err := w.post()
			if err != nil {
				return l, fmt.Errorf("GET %s page %d: %w", r.display, page, err)
			}
			l.posts = append(l.posts, p)
			if limit > 0 && len(l.posts) >= limit {
				return l, nil
			}
		}
		if len(batch) > 0 && fresh == 0 {
			return l, fmt.Errorf("GET %s: page %d repeats posts already read: the answers look cached (a cache ignoring the page parameter?)", r.display, page)
		}
		// WordPress drops posts the user may not read after counting them
		// (WP_REST_Posts_Controller::get_items, check_read_permission), so
		// a page can be short although more pages follow: trust
		// X-WP-TotalPages when it is there, a short page only without it.
		if tp, err := strconv.Atoi(strings.TrimSpace(a.header.Get("X-WP-TotalPages"))); err == nil {
			if page >= tp {
				break
			}
			continue
		}
		if len(batch) < perPage {
			break
		}
	}
	return l, nil
}

// listParams validates q and builds the query of ListPosts (without page).
func listParams(q ListQuery) (url.Values, int, error) {
	if len(q.Statuses) == 0 {
		return nil, 0, errors.New("list posts: no status given")
	}
	statuses := make([]string, len(q.Statuses))
	for i, s := range q.Statuses {
		if !statusRe.MatchString(string(s)) {
			return nil, 0, fmt.Errorf("list posts: invalid status %q", s)
		}
		statuses[i] = string(s)
	}
	if q.Limit < 0 {
		return nil, 0, fmt.Errorf("list posts: negative limit %d", q.Limit)
	}
	orderBy := q.OrderBy
	if orderBy == "" {
		orderBy = "id"
	}
	if !slices.Contains(orderBys, orderBy) {
		return nil, 0, fmt.Errorf("list posts: orderby %q is not one of %s", orderBy, strings.Join(orderBys, ", "))
	}
	order := strings.ToLower(q.Order)
	if order == "" {
		order = "asc"
	}
	if order != "asc" && order != "desc" {
		return nil, 0, fmt.Errorf("list posts: order %q is neither asc nor desc", q.Order)
	}
	perPage := maxPerPage
	if q.Limit > 0 && q.Limit < perPage {
		perPage = q.Limit
	}
	fields := postFields
	if q.WithContent {
		fields = postContentFields
	}
	v := url.Values{
		"status":   {strings.Join(statuses, ",")},
		"context":  {"edit"},
		"per_page": {strconv.Itoa(perPage)},
		"orderby":  {orderBy},
		"order":    {order},
		"_fields":  {fields},
	}
	for name, ids := range map[string][]int{"categories": q.Categories, "tags": q.Tags, "author": q.Authors} {
		if len(ids) > 0 {
			v.Set(name, joinInts(ids))
		}
	}
	if !q.After.IsZero() {
		v.Set("after", q.After.UTC().Format(DateLayout))
	}
	if !q.Before.IsZero() {
		v.Set("before", q.Before.UTC().Format(DateLayout))
	}
	return v, perPage, nil
}

// GetPost reads one post (GET /wp/v2/posts/<id>, context=edit) with the same
// fields as ListPosts plus content.raw, so Post.HasContent is set. A missing
// post answers 404 rest_post_invalid_id: the error is an [*APIError] that
// matches [ErrNotFound]. Other errors as for [Client.ListPosts].
func (c *Client) GetPost(ctx context.Context, id int) (Post, error) {
	if id <= 0 {
		return Post{}, fmt.Errorf("get post: invalid id %d", id)
	}
	root, err := c.root(ctx)
	if err != nil {
		return Post{}, err
	}
	route := "/wp/v2/posts/" + strconv.Itoa(id)
	r := request{method: http.MethodGet, route: route, display: displayURL(root, route),
		url: buildURL(root, route, url.Values{"context": {"edit"}, "_fields": {postContentFields}})}
	a, err := c.do(ctx, r)
	if err != nil {
		return Post{}, err
	}
	return c.decodePost(r, a, id, false)
}

// SchedulePost schedules post id for at (POST /wp/v2/posts/<id>) with
// exactly the body {"status":"future","date_gmt":"<at in UTC, DateLayout>"}:
// nothing else, so that content cannot trip WAF rules, and date_gmt alone
// because WordPress lets "date" win when both are sent. at is truncated to
// the second.
//
// It returns the post as WordPress answered (POST answers are in edit
// context). The caller must check Status and DateGMT: WordPress turns a
// "future" post whose date is not ahead of now into "publish" with 200 OK
// (wp_insert_post), and a missing date would publish a floating draft at once.
//
// The request is sent exactly once: never retried, never redirected (a 3xx
// gives a [*RedirectError] naming the target; fix site.url). A lost answer
// gives an [*UnavailableError] whose message says the write may have been
// applied, and an answer that cannot be parsed a [*NotJSONError]: in both
// cases re-read the post before deciding anything. A read-only client
// returns [ErrReadOnly] without sending anything.
func (c *Client) SchedulePost(ctx context.Context, id int, at time.Time) (Post, error) {
	if at.IsZero() {
		return Post{}, fmt.Errorf("schedule post %d: no date", id)
	}
	body, err := json.Marshal(struct {
		Status  Status `json:"status"`
		DateGMT string `json:"date_gmt"`
	}{StatusFuture, at.UTC().Format(DateLayout)})
	if err != nil {
		return Post{}, err
	}
	return c.writePost(ctx, id, body)
}

// Unschedule gives post id back to the queue: status (draft or pending,
// the status it had before wpqueue scheduled it) dated date, a site-local
// time in [DateLayout] (the "date" field, not date_gmt), with exactly the
// body {"status":"<status>","date":"<date>"}. wpqueue uses it only to
// revert its own write. WordPress cannot make the date floating again: it
// stores post_date_gmt from date (rest_get_date_with_gmt), so the post
// keeps its local date and queue position but gains a fixed GMT date.
// Same once-only, no-redirect and read-only rules as [Client.SchedulePost].
func (c *Client) Unschedule(ctx context.Context, id int, status Status, date string) (Post, error) {
	if status != StatusDraft && status != StatusPending {
		return Post{}, fmt.Errorf("unschedule post %d: status %q is neither draft nor pending", id, status)
	}
	if _, err := time.Parse(DateLayout, date); err != nil {
		return Post{}, fmt.Errorf("unschedule post %d: date %q is not in the layout %s", id, date, DateLayout)
	}
	body, err := json.Marshal(struct {
		Status Status `json:"status"`
		Date   string `json:"date"`
	}{status, date})
	if err != nil {
		return Post{}, err
	}
	return c.writePost(ctx, id, body)
}

func (c *Client) writePost(ctx context.Context, id int, body []byte) (Post, error) {
	route := "/wp/v2/posts/" + strconv.Itoa(id)
	if c.readOnly {
		return Post{}, fmt.Errorf("POST %s: %w", route, ErrReadOnly)
	}
	if id <= 0 {
		return Post{}, fmt.Errorf("POST %s: invalid post id", route)
	}
	root, err := c.root(ctx)
	if err != nil {
		return Post{}, err
	}
	r := request{method: http.MethodPost, route: route, display: displayURL(root, route), body: body,
		url: buildURL(root, route, url.Values{"_fields": {postContentFields}})}
	a, err := c.do(ctx, r)
	if err != nil {
		return Post{}, err
	}
	return c.decodePost(r, a, id, true)
}

// decodePost decodes a single post answer and checks that it is post id.
func (c *Client) decodePost(r request, a *answer, id int, write bool) (Post, error) {
	var w wirePost
	err := c.decode(r, a, "a JSON post object", &w)
	if err == nil && w.ID != id {
		err = c.notJSON(r, a, fmt.Sprintf("post %d", id), fmt.Errorf("the answer is for post id %d", w.ID))
	}
	var p Post
	if err == nil {
		p, err = w.post()
		if err != nil {
			err = fmt.Errorf("%s %s: %w", r.method, r.display, err)
		}
	}
	if err != nil && write {
		return Post{}, fmt.Errorf("%w; the write may have been applied: re-read post %d", err, id)
	}
	return p, err
}

// TermID returns the id of a category or tag. taxonomy is the REST base,
// "categories" or "tags"; slugOrID is a positive number, returned as is
// without a request, or a slug looked up with
// GET /wp/v2/<taxonomy>?slug=<slug>&_fields=id (WordPress sanitizes the slug
// with sanitize_title, so "News" finds "news"). No match gives an error that
// names the taxonomy and slug and matches [ErrNotFound].
func (c *Client) TermID(ctx context.Context, taxonomy string, slugOrID string) (int, error) {
	if taxonomy != "categories" && taxonomy != "tags" {
		return 0, fmt.Errorf("term %q: taxonomy %q is neither categories nor tags", slugOrID, taxonomy)
	}
	s := strings.TrimSpace(slugOrID)
	if s == "" {
		return 0, fmt.Errorf("%s: empty slug", taxonomy)
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n <= 0 {
			return 0, fmt.Errorf("%s: invalid id %d", taxonomy, n)
		}
		return n, nil
	}
	if strings.Contains(s, ",") {
		return 0, fmt.Errorf("%s: slug %q must not contain a comma", taxonomy, s)
	}
	root, err := c.root(ctx)
	if err != nil {
		return 0, err
	}
	route := "/wp/v2/" + taxonomy
	r := request{method: http.MethodGet, route: route, display: displayURL(root, route),
		url: buildURL(root, route, url.Values{"slug": {s}, "_fields": {"id"}})}
	a, err := c.do(ctx, r)
	if err != nil {
		return 0, err
	}
	var terms []struct {
		ID int `json:"id"`
	}
	if err := c.decode(r, a, "a JSON list of terms", &terms); err != nil {
		return 0, err
	}
	if len(terms) == 0 || terms[0].ID <= 0 {
		kind := "category"
		if taxonomy == "tags" {
			kind = "tag"
		}
		return 0, fmt.Errorf("%w: no %s with slug %q (GET %s)", ErrNotFound, kind, s, r.display)
	}
	return terms[0].ID, nil
}

// wirePost is a post as the REST API sends it with our _fields.
type wirePost struct {
	ID          int      `json:"id"`
	Status      string   `json:"status"`
	Title       wireText `json:"title"`
	Content     wireText `json:"content"`
	Date        *string  `json:"date"`
	DateGMT     *string  `json:"date_gmt"`
	ModifiedGMT *string  `json:"modified_gmt"`
	Author      int      `json:"author"`
	Link        string   `json:"link"`
}

// wireText is a {"raw": ..., "rendered": ...} field.
type wireText struct {
	Raw *string `json:"raw"`
}

func (w wirePost) post() (Post, error) {
	p := Post{ID: w.ID, Status: Status(w.Status), Author: w.Author, Link: w.Link}
	if w.Title.Raw != nil {
		p.Title = *w.Title.Raw
	}
	if w.Content.Raw != nil {
		p.HasContent = strings.TrimSpace(*w.Content.Raw) != ""
	}
	if w.Date != nil && !zeroDates[*w.Date] {
		p.Date = *w.Date
	}
	var err error
	if p.DateGMT, err = parseGMT("date_gmt", w.DateGMT); err != nil {
		return Post{}, fmt.Errorf("post %d: %w", w.ID, err)
	}
	if p.ModifiedGMT, err = parseGMT("modified_gmt", w.ModifiedGMT); err != nil {
		return Post{}, fmt.Errorf("post %d: %w", w.ID, err)
	}
	return p, nil
}

// parseGMT parses a *_gmt field as UTC: the REST API sends no zone suffix
// ("2026-11-30T22:00:00"), and only the field name says it is UTC. Null and
// the zero date give the zero time.
func parseGMT(field string, s *string) (time.Time, error) {
	if s == nil || zeroDates[*s] {
		return time.Time{}, nil
	}
	t, err := time.ParseInLocation(DateLayout, *s, time.UTC)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q is not a date in the layout %s", field, *s, DateLayout)
	}
	return t, nil
}

func joinInts(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ",")
}
