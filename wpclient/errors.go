package wpclient

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Sentinel errors. Every error the client returns wraps at most one of them,
// so callers (cmd maps them to exit codes) test with [errors.Is].
var (
	// ErrCredentials means WordPress did not accept the credentials, or the
	// accepted user may not do what was asked. It is always carried by a
	// [*CredentialsError].
	ErrCredentials = errors.New("credentials not accepted")

	// ErrNotFound means WordPress answered 404 with a JSON error (for example
	// rest_post_invalid_id), or that a term slug matched nothing.
	ErrNotFound = errors.New("not found")

	// ErrNotJSON means an answer was not the JSON that was expected: HTML,
	// text before the JSON (PHP notices), or JSON of the wrong shape. It is
	// always carried by a [*NotJSONError].
	ErrNotJSON = errors.New("answer is not the expected JSON")

	// ErrUnavailable means the site did not answer usefully: network errors,
	// timeouts, or HTTP 429/502/503/504 after every try. It is a temporary
	// failure; it is always carried by an [*UnavailableError].
	ErrUnavailable = errors.New("site unavailable")

	// ErrRedirect means a redirect was refused: any redirect of a write, or a
	// read redirected to another host (or from https to http). It is always
	// carried by a [*RedirectError].
	ErrRedirect = errors.New("redirect refused")

	// ErrNoAPI means REST API discovery found no WordPress REST API. It is
	// always carried by a [*DiscoveryError].
	ErrNoAPI = errors.New("REST API not found")

	// ErrReadOnly is returned for any write attempted by a client built with
	// Options.ReadOnly (dry run). Nothing reaches the network.
	ErrReadOnly = errors.New("read-only client (dry run) refuses to write")

	// ErrTooLarge means an answer body was larger than Options.MaxBodyBytes
	// and was refused without being read to the end.
	ErrTooLarge = errors.New("answer body too large")
)

// APIError is a JSON error answer from WordPress,
// {"code":"...","message":"...","data":{"status":N}}, as built by
// WP_REST_Server::error_to_response. It matches [ErrNotFound] with
// [errors.Is] when Status is 404.
type APIError struct {
	// Method is the HTTP method, e.g. "GET".
	Method string
	// Route is the REST route, e.g. "/wp/v2/posts/4".
	Route string
	// URL is the URL that was requested, without the cache-busting parameter.
	URL string
	// Status is the HTTP status code.
	Status int
	// Code is the WordPress error code, e.g. "rest_post_invalid_id"; empty
	// when the body was JSON but not a WordPress error.
	Code string
	// Message is the WordPress error message (or the first bytes of a JSON
	// body that is not a WordPress error).
	Message string
	// Hint names a likely cause (a WAF, for example); may be empty.
	Hint string
}

// Error implements error.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: HTTP %d", e.Method, e.Route, e.Status)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Hint != "" {
		b.WriteString(" (" + e.Hint + ")")
	}
	return b.String()
}

// Is reports whether target is [ErrNotFound] and the status 404.
func (e *APIError) Is(target error) bool {
	return target == ErrNotFound && e.Status == 404
}

// CredentialsError means WordPress did not accept the credentials (any 401;
// a 400 whose status parameter is refused with rest_forbidden_status, which
// is how stock WordPress answers a status=draft list to a request it treats
// as anonymous, see wordpress-facts §5h) or that the accepted user lacks the
// capability (403 rest_forbidden_context, rest_cannot_edit,
// rest_cannot_publish, rest_forbidden), or a 403 with another WordPress
// error code: a security plugin that refuses the REST API to anonymous
// requests (or to this user). It matches [ErrCredentials].
type CredentialsError struct {
	Method string
	Route  string
	URL    string
	Status int
	// Code is the WordPress error code (evidence), or empty when the 401 did
	// not come from WordPress (for example HTTP authentication in front of
	// the site).
	Code    string
	Message string
	// ContentType is the answer's Content-Type, kept as evidence.
	ContentType string
	// WWWAuthenticate is the WWW-Authenticate header of a non-WordPress 401.
	WWWAuthenticate string
	// AppPasswords is what the site's REST index (read during discovery)
	// said about application passwords; it narrows the likely causes.
	AppPasswords AppPasswords
}

// AppPasswords says whether a site's REST index offers application
// passwords: WordPress lists "application-passwords" under "authentication"
// only when wp_is_application_passwords_available() is true
// (rest_add_application_passwords_to_index), i.e. over HTTPS or with
// WP_ENVIRONMENT_TYPE local, and not disabled by a plugin or the host.
type AppPasswords int

// The states of [AppPasswords].
const (
	// AppPasswordsUnknown: the index was not read (site.api_root with
	// schedule.timezone set), or it has no "authentication" key
	// (WordPress before 5.6).
	AppPasswordsUnknown AppPasswords = iota
	// AppPasswordsOffered: the index lists application passwords.
	AppPasswordsOffered
	// AppPasswordsNotOffered: the index has "authentication" without
	// application passwords.
	AppPasswordsNotOffered
)

// Causes of a request WordPress treated as anonymous, for messages.
const (
	causeWrongPassword = "a wrong WordPress login name or application password" +
		" (an application password from Users → Profile, not the login password)"
	causeStripped = "the web server strips the Authorization header" +
		` (Apache with PHP as CGI/FastCGI: add SetEnvIf Authorization "(.*)" HTTP_AUTHORIZATION=$1 to .htaccess, or CGIPassAuth On)`
)

// Error implements error. The message lists the usual causes.
func (e *CredentialsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "credentials not accepted: %s %s: HTTP %d", e.Method, e.Route, e.Status)
	if e.Code != "" {
		fmt.Fprintf(&b, " %s", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, " (%q)", e.Message)
	}
	if e.Code == "" && e.ContentType != "" {
		fmt.Fprintf(&b, " (%s, not from the WordPress REST API)", e.ContentType)
	}
	const useEditor = "use a user that can edit and publish others' posts (Editor or Administrator role)"
	switch {
	case e.Status == 403 && (permissionCodes[e.Code] || e.Code == ""):
		// WordPress core answers 401 to anonymous requests
		// (rest_authorization_required_code), so its 403 means a logged-in
		// user who lacks a capability.
		b.WriteString(": WordPress accepted the login but this user may not do this; " + useEditor)
		return b.String()
	case e.Status == 403:
		// Not a core capability code: a security plugin, which may refuse
		// anonymous requests with 403 too.
		b.WriteString(": a plugin refused the request. If it refuses anonymous requests (\"REST API for logged-in users only\")," +
			" WordPress did not accept the credentials. " + e.anonymousCauses() + ". Otherwise this user may not do this; " + useEditor)
		return b.String()
	case e.WWWAuthenticate != "":
		fmt.Fprintf(&b, ": the web server itself asks for a password (WWW-Authenticate: %s);"+
			" HTTP authentication in front of WordPress cannot be combined with application passwords", e.WWWAuthenticate)
		return b.String()
	}
	if e.AppPasswords == AppPasswordsNotOffered {
		b.WriteString(": WordPress treated the request as anonymous, and the site does not offer application passwords" +
			" (its REST index lists none under \"authentication\"): they are disabled by a plugin or the host" +
			" (filter wp_is_application_passwords_available), or the site is not on HTTPS (WordPress offers them only over HTTPS," +
			" or with WP_ENVIRONMENT_TYPE local). Enable them, or use the site's https:// address")
		return b.String()
	}
	b.WriteString(": WordPress treated the request as anonymous. " + e.anonymousCauses())
	return b.String()
}

// anonymousCauses lists why WordPress may treat a request that carries
// credentials as anonymous, narrowed by what the index said.
func (e *CredentialsError) anonymousCauses() string {
	if e.AppPasswords == AppPasswordsOffered {
		return "The site offers application passwords (its REST index lists them), so the likely causes are:" +
			" (1) " + causeWrongPassword + "; (2) " + causeStripped +
			"; (3) application passwords disabled for this user by a plugin"
	}
	return "Likely causes: (1) " + causeWrongPassword + "; (2) " + causeStripped +
		"; (3) application passwords disabled by a plugin or the host;" +
		" (4) the site is not on HTTPS (WordPress offers application passwords only over HTTPS)"
}

// Is reports whether target is [ErrCredentials].
func (e *CredentialsError) Is(target error) bool { return target == ErrCredentials }

// NotJSONError is an answer whose body is not the JSON that was expected:
// an HTML page, text before the JSON (PHP notices printed by a plugin), or
// JSON of the wrong shape. It matches [ErrNotJSON].
type NotJSONError struct {
	Method      string
	URL         string
	Status      int
	ContentType string
	// Prefix holds the first bytes of the body (about 120, cut on a UTF-8
	// boundary). The message shows it quoted, control characters escaped.
	Prefix string
	// Want describes the expected JSON ("a list of posts"); empty when the
	// body is not JSON at all.
	Want string
	// Hint names a likely cause (Cloudflare, maintenance mode, ...); may be empty.
	Hint string
	// Err is the JSON decoding error, if any.
	Err error
	// JunkBefore is the number of bytes of text before a JSON value that
	// runs to the end of the body (PHP notices printed before WordPress's
	// answer); 0 when the body holds no such JSON.
	JunkBefore int
}

// Error implements error.
func (e *NotJSONError) Error() string {
	ct := e.ContentType
	if ct == "" {
		ct = "no Content-Type"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: HTTP %d (%s)", e.Method, e.URL, e.Status, ct)
	switch {
	case e.Want != "":
		fmt.Fprintf(&b, " is not %s", e.Want)
		if e.Err != nil {
			fmt.Fprintf(&b, " (%v)", e.Err)
		}
	default:
		b.WriteString(" is not JSON")
	}
	fmt.Fprintf(&b, ": %s", strconv.Quote(e.Prefix))
	if e.Hint != "" {
		b.WriteString("; " + e.Hint)
	}
	return b.String()
}

// Is reports whether target is [ErrNotJSON].
func (e *NotJSONError) Is(target error) bool { return target == ErrNotJSON }

// Unwrap returns the JSON decoding error, if any.
func (e *NotJSONError) Unwrap() error { return e.Err }

// RedirectError is a refused redirect. Writes never follow redirects: net/http
// would re-send a POST answered 301/302/303 as a GET without its body, and the
// unchanged post would come back as if the write had worked. Reads follow
// redirects only on the same host. It matches [ErrRedirect].
type RedirectError struct {
	Method string
	URL    string
	Status int
	// Location is the redirect target, resolved against URL, with any
	// user:password removed.
	Location string
	// SiteURL is the site.url the redirect points to when the target is
	// the same request under another base address (http:// to https://,
	// www. to the bare host, another directory); empty otherwise.
	SiteURL string
}

// Error implements error. It shows the target without the request's own
// query parameters (except rest_route), so the address stands out.
func (e *RedirectError) Error() string {
	loc := "(no Location header)"
	if e.Location != "" {
		loc = shortURL(e.Location)
	}
	what := "a write never follows redirects"
	if e.Method == "GET" || e.Method == "HEAD" {
		what = "reads follow redirects only on the same host"
	}
	fix := "set site.url (or site.api_root) to the address the site redirects to"
	if e.SiteURL != "" {
		fix = "set site.url to " + e.SiteURL + ", the address the site redirects to"
	}
	return fmt.Sprintf("%s %s: HTTP %d redirect to %s refused (%s): %s", e.Method, e.URL, e.Status, loc, what, fix)
}

// shortURL shows a URL for messages: without user:password and without
// query parameters other than rest_route (which it shows decoded).
func shortURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	rr, has := u.Query().Get("rest_route"), u.Query().Has("rest_route")
	u.User, u.RawQuery, u.Fragment, u.RawFragment = nil, "", "", ""
	if has {
		return u.String() + "?rest_route=" + rr
	}
	return u.String()
}

// Is reports whether target is [ErrRedirect].
func (e *RedirectError) Is(target error) bool { return target == ErrRedirect }

// UnavailableError is a temporary failure: a network error, a timeout, or
// HTTP 429/502/503/504 on every try of a read, or on the single try of a
// write (writes are never retried). It matches [ErrUnavailable]; Unwrap
// gives the last failure.
type UnavailableError struct {
	Method string
	URL    string
	// Tries is the number of requests sent.
	Tries int
	// Elapsed is the time from the first request to the last failure.
	Elapsed time.Duration
	// Status is the last HTTP status, 0 for a network error.
	Status int
	// Last is the last failure: a network error, or the decoded error answer.
	Last error
	// Hint names a likely cause (Cloudflare, maintenance mode); may be empty.
	Hint string
	// Write is set for a write, whose effect is then unknown.
	Write bool
}

// Error implements error, e.g.
// "site unavailable: GET https://example.test/wp-json/wp/v2/posts: HTTP 503 after 4 tries over 38s".
func (e *UnavailableError) Error() string {
	what := "HTTP " + strconv.Itoa(e.Status)
	if e.Status == 0 && e.Last != nil {
		// Transport errors already start with "METHOD URL: ".
		what = strings.TrimPrefix(e.Last.Error(), e.Method+" "+e.URL+": ")
	}
	tries := "tries"
	if e.Tries == 1 {
		tries = "try"
	}
	s := fmt.Sprintf("site unavailable: %s %s: %s after %d %s over %s", e.Method, e.URL, what, e.Tries, tries, roundElapsed(e.Elapsed))
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	if e.Write {
		s += "; writes are never retried and this one may or may not have been applied: re-read the post"
	}
	return s
}

// Is reports whether target is [ErrUnavailable].
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// Unwrap returns the last failure.
func (e *UnavailableError) Unwrap() error { return e.Last }

// DiscoveryError reports that no WordPress REST API was found. Attempts lists
// every URL tried and what it answered. It matches [ErrNoAPI]; Unwrap gives
// the error of every attempt, so [errors.As] finds a [*RedirectError] among them.
type DiscoveryError struct {
	// SiteURL is site.url, or the pinned site.api_root.
	SiteURL  string
	Attempts []Attempt
	// Pinned is set when the root came from Options.APIRoot.
	Pinned bool
}

// Attempt is one URL tried during discovery and what it answered.
type Attempt struct {
	URL    string
	Result string
	Err    error
}

// Error implements error.
func (e *DiscoveryError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "REST API not found for %s; tried:", e.SiteURL)
	for i, a := range e.Attempts {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " (%d) GET %s: %s", i+1, a.URL, a.Result)
	}
	// Who answered instead of WordPress (Cloudflare, a firewall,
	// maintenance mode), once each.
	var hints []string
	for _, a := range e.Attempts {
		var (
			nj *NotJSONError
			ae *APIError
			h  string
		)
		switch {
		case errors.As(a.Err, &nj):
			h = nj.Hint
		case errors.As(a.Err, &ae):
			h = ae.Hint
		}
		if h != "" && h != hintHTMLPage && h != hintNoAPIHere && !slices.Contains(hints, h) {
			hints = append(hints, h)
		}
	}
	if len(hints) > 0 {
		b.WriteString(". " + strings.ToUpper(hints[0][:1]) + strings.Join(hints, "; ")[1:])
	}
	var re *RedirectError
	for _, a := range e.Attempts {
		if errors.As(a.Err, &re) && re.SiteURL != "" {
			break
		}
		re = nil
	}
	if re != nil && !e.Pinned {
		fmt.Fprintf(&b, ". The site redirects to another address: set site.url to %s", re.SiteURL)
		return b.String()
	}
	if e.Pinned {
		b.WriteString(". Check site.api_root: it must be the REST root, e.g. https://example.test/wp-json/ or https://example.test/?rest_route=/")
	} else {
		b.WriteString(". Check site.url (the WordPress home address), that the REST API is not disabled by a plugin, or set site.api_root")
	}
	return b.String()
}

// Is reports whether target is [ErrNoAPI].
func (e *DiscoveryError) Is(target error) bool { return target == ErrNoAPI }

// Unwrap returns the attempts' errors.
func (e *DiscoveryError) Unwrap() []error {
	var errs []error
	for _, a := range e.Attempts {
		if a.Err != nil {
			errs = append(errs, a.Err)
		}
	}
	return errs
}

// roundElapsed makes durations readable in messages: 38s, 1m2s, 4ms.
func roundElapsed(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Second)
	case d >= time.Millisecond:
		return d.Round(time.Millisecond)
	default:
		return d
	}
}

// HiddenPostsError reports that the site counted more posts than it showed
// to this account. WordPress counts the query's matches (X-WP-Total) and
// then drops each post the user may not read
// (WP_REST_Posts_Controller::get_items calls check_read_permission): an
// account with the Author or Contributor role does not see other users'
// scheduled and private posts, so slots they fill would look empty. It
// matches [ErrCredentials] (exit 3 in the CLI): the credentials work but
// cannot do the job.
type HiddenPostsError struct {
	URL      string
	Username string
	// Total is X-WP-Total; Read how many posts the answers held.
	Total, Read int
}

func (e *HiddenPostsError) Error() string {
	return fmt.Sprintf("GET %s: the site counted %d posts but showed only %d to user %q: this account cannot read other users' scheduled or private posts (Author or Contributor role), so it cannot tell which slots are filled; use an account with the Editor or Administrator role", e.URL, e.Total, e.Read, e.Username)
}

// Is makes errors.Is(err, ErrCredentials) true.
func (e *HiddenPostsError) Is(target error) bool { return target == ErrCredentials }
