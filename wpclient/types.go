package wpclient

import (
	"time"
)

// Status is a WordPress post status as the REST API spells it
// (see get_post_stati() in wp-includes/post.php).
type Status string

// The post statuses wpqueue reads or writes.
const (
	StatusDraft   Status = "draft"
	StatusPending Status = "pending"
	StatusFuture  Status = "future"
	StatusPublish Status = "publish"
	StatusPrivate Status = "private"
)

// DateLayout is the layout of every date the REST API returns: no zone suffix.
// A "date_gmt" value in this layout is UTC; a "date" value is site-local time.
const DateLayout = "2006-01-02T15:04:05"

// Post is the part of a WordPress post wpqueue needs. It is read with
// context=edit, so Title is the raw title as typed in the editor (not the
// texturized title.rendered).
type Post struct {
	ID     int    `json:"id"`
	Status Status `json:"status"`
	// Title is title.raw: exactly what the author typed, unescaped.
	Title string `json:"title"`
	// HasContent reports whether content.raw is non-empty after trimming
	// white space. wpqueue never reads or changes the content itself.
	HasContent bool `json:"has_content"`
	// DateGMT is the post's date_gmt, in UTC. For a draft whose date is
	// floating, WordPress computes it from the local date (see
	// WP_REST_Posts_Controller::prepare_item_for_response).
	DateGMT time.Time `json:"date_gmt"`
	// Date is the site-local date as WordPress stores it in post_date, kept
	// as the wire string ("2006-01-02T15:04:05", no zone) because only the
	// site's zone gives it meaning.
	Date string `json:"date"`
	// ModifiedGMT is modified_gmt, in UTC.
	ModifiedGMT time.Time `json:"modified_gmt"`
	Author      int       `json:"author"`
	// Link is the post's permalink (or ?p=ID for drafts).
	Link string `json:"link"`
}

// Index is the part of the REST API index (GET ?rest_route=/) wpqueue uses.
type Index struct {
	// Root is the discovered REST root URL, e.g.
	// "https://example.test/?rest_route=/" or "https://example.test/wp-json/".
	Root string
	// Name is the site title.
	Name string
	// Home is the site's home URL.
	Home string
	// TimezoneString is the IANA zone set in Settings → General
	// (option timezone_string); empty when the site uses a manual offset.
	TimezoneString string
	// GMTOffset is the option gmt_offset in hours (may be fractional, e.g.
	// 5.5 or -9.5). The API sends it as a string ("0") or a number.
	GMTOffset float64
	// Via records how Root was found: [ViaPinned], [ViaRestRoute],
	// [ViaWPJSON] or [ViaLink].
	Via string
	// AppPasswords says whether the index offers application passwords.
	AppPasswords AppPasswords
}

// ListQuery selects posts for [Client.ListPosts].
type ListQuery struct {
	// Statuses is the status filter; at least one is required.
	Statuses []Status
	// After and Before are UTC instants. WordPress compares them with the
	// site-local post_date (WP_REST_Posts_Controller::get_items builds a
	// date_query on post_date), so callers must widen them by a day and
	// filter on DateGMT themselves. Zero means no bound.
	After, Before time.Time
	// Categories, Tags and Authors filter by term or user id; empty means any.
	Categories []int
	Tags       []int
	Authors    []int
	// OrderBy is a REST orderby value ("id", "date", "modified", "title");
	// empty means "id". Order is "asc" (default) or "desc".
	OrderBy string
	Order   string
	// Limit stops paging once this many posts were read; 0 means all.
	Limit int
	// WithContent asks for content.raw so that Post.HasContent is set.
	WithContent bool
	// Complete makes ListPosts fail with a *HiddenPostsError when the site
	// counted more matching posts (X-WP-Total) than it showed: WordPress
	// drops posts the account may not read, e.g. other users' scheduled
	// and private posts for an Author. Ignored with Limit.
	Complete bool
}
