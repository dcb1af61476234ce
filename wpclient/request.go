package wpclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// cacheBustParam is the query parameter added to every read so that caches
// in front of the site (full-page caches have served cached REST answers even
// to authenticated requests) cannot answer from a stored copy. WordPress
// ignores unknown parameters.
const cacheBustParam = "_wpq"

// prefixLen is how many bytes of an unexpected body an error shows.
const prefixLen = 120

var bom = []byte("\xEF\xBB\xBF")

// request is one logical call: a read is tried up to c.attempts times, a
// write exactly once.
type request struct {
	method  string
	route   string // REST route for messages ("/wp/v2/posts"); the URL for non-REST requests
	url     string // full URL, without the cache-busting parameter
	display string // URL for messages: root + route, no parameters
	body    []byte // JSON body of a write
}

func (r request) isRead() bool { return r.method == http.MethodGet || r.method == http.MethodHead }

// answer is a response read completely (at most MaxBodyBytes), BOM stripped.
type answer struct {
	status      int
	header      http.Header
	contentType string
	body        []byte
}

// do sends r and returns the 2xx answer, or a typed error for everything
// else: *CredentialsError, *APIError, *NotJSONError, *RedirectError,
// *UnavailableError, or a wrapped context or transport error.
//
// Retries are our own loop rather than resty's: resty retries every method
// (POST included) when retries are on, draws jitter from a package-level
// source, and cannot say "after 4 tries over 38s". Here only reads are
// retried, on network errors and 429/502/503/504, never on other 4xx.
func (c *Client) do(ctx context.Context, r request) (*answer, error) {
	if !r.isRead() && c.readOnly {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.display, ErrReadOnly)
	}
	tries := 1
	if r.isRead() {
		tries = c.attempts
	}
	start := c.now()
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s %s: %w", r.method, r.display, err)
		}
		a, err := c.once(ctx, r)
		var (
			last       error
			status     int
			retryAfter time.Duration
			hasRA      bool
		)
		switch {
		case err != nil:
			if ctx.Err() != nil || !retryable(err) {
				return nil, err
			}
			last = err
		case a.status >= 200 && a.status < 300:
			return a, nil
		case a.status >= 300 && a.status < 400:
			return nil, c.redirectError(r, a)
		case a.status == 429 || a.status == 502 || a.status == 503 || a.status == 504:
			last, status = c.classify(r, a), a.status
			retryAfter, hasRA = parseRetryAfter(a.header.Get("Retry-After"), c.now())
		default:
			return nil, c.classify(r, a)
		}

		if attempt >= tries {
			ue := &UnavailableError{
				Method: r.method, URL: r.display, Tries: attempt, Elapsed: c.now().Sub(start),
				Status: status, Last: last, Write: !r.isRead(),
			}
			var nj *NotJSONError
			var ae *APIError
			switch {
			case errors.As(last, &nj):
				ue.Hint = nj.Hint
			case errors.As(last, &ae):
				ue.Hint = ae.Hint
			}
			return nil, ue
		}
		wait := c.backoff(attempt, retryAfter, hasRA)
		c.log.Warn("read failed; retrying", "method", r.method, "url", r.display,
			"try", attempt, "of", tries, "wait", wait, "error", last)
		if err := c.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("%s %s: gave up waiting to retry (%v): %w", r.method, r.display, last, err)
		}
	}
}

// once sends one HTTP request and reads the whole answer.
func (c *Client) once(ctx context.Context, r request) (*answer, error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	u := r.url
	req := c.rc.R().
		SetContext(actx).
		SetDoNotParseResponse(true).
		SetHeader("User-Agent", c.ua).
		SetHeader("Accept", "application/json, */*;q=0.1")
	if r.isRead() {
		u = c.addCacheBust(u)
		req.SetHeader("Cache-Control", "no-cache").SetHeader("Pragma", "no-cache")
	}
	if r.body != nil {
		req.SetHeader("Content-Type", "application/json; charset=utf-8").SetBody(r.body)
	}
	t0 := c.now()
	resp, err := req.Execute(r.method, u)
	if resp != nil && resp.RawResponse != nil {
		defer resp.RawResponse.Body.Close()
	}
	if err != nil {
		c.log.Debug("http", "method", r.method, "url", c.scrub(u), "err", c.scrub(err.Error()), "elapsed", c.now().Sub(t0))
		return nil, c.transportError(ctx, r, err)
	}
	raw := resp.RawResponse
	c.log.Debug("http", "method", r.method, "url", c.scrub(u), "status", raw.StatusCode, "elapsed", c.now().Sub(t0))
	a := &answer{status: raw.StatusCode, header: raw.Header, contentType: raw.Header.Get("Content-Type")}
	if raw.ContentLength > c.maxBody {
		return nil, c.tooLarge(r, a)
	}
	body, err := io.ReadAll(io.LimitReader(raw.Body, c.maxBody+1))
	if err != nil {
		return nil, c.transportError(ctx, r, fmt.Errorf("HTTP %d: reading the body: %w", raw.StatusCode, err))
	}
	if int64(len(body)) > c.maxBody {
		return nil, c.tooLarge(r, a)
	}
	a.body = c.stripBOM(body, r.display)
	return a, nil
}

// transportError names the method and URL (without the cache buster) and
// turns a per-request timeout into a readable, retryable error.
func (c *Client) transportError(ctx context.Context, r request, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s %s: no answer within %s (timeout)", r.method, r.display, c.timeout)
	}
	if msg := err.Error(); c.scrub(msg) != msg {
		// net/http quotes what the server sent (a Location header with
		// user:password, say). Drop the chain rather than keep the secret
		// reachable through Unwrap.
		return fmt.Errorf("%s %s: %s", r.method, r.display, c.scrub(msg))
	}
	return fmt.Errorf("%s %s: %w", r.method, r.display, err)
}

func (c *Client) tooLarge(r request, a *answer) error {
	return fmt.Errorf("%s %s: HTTP %d: body larger than %d bytes refused: %w", r.method, r.display, a.status, c.maxBody, ErrTooLarge)
}

// retryable reports whether a transport error is worth another try: resets,
// EOF, timeouts and refused connections are; certificate errors, unknown
// hosts, refused writes and oversized bodies are not.
func retryable(err error) bool {
	if errors.Is(err, ErrReadOnly) || errors.Is(err, errTooManyRedirects) || errors.Is(err, ErrTooLarge) ||
		errors.Is(err, context.Canceled) {
		return false
	}
	var (
		certErr     *tls.CertificateVerificationError
		unknownAuth x509.UnknownAuthorityError
		hostErr     x509.HostnameError
		invalidCert x509.CertificateInvalidError
		dnsErr      *net.DNSError
	)
	if errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) || errors.As(err, &invalidCert) {
		return false
	}
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return false
	}
	return true
}

// backoff is the wait before try attempt+1: exponential from waitMin, with
// "equal jitter" (half fixed, half random), raised to Retry-After when the
// server asked for longer, and capped at waitMax in every case.
func (c *Client) backoff(attempt int, retryAfter time.Duration, hasRetryAfter bool) time.Duration {
	d := c.waitMax
	if attempt-1 < 32 {
		if e := c.waitMin << (attempt - 1); e > 0 && e < d {
			d = e
		}
	}
	if half := d / 2; half > 0 {
		d = half + c.jitter(half)
	}
	if hasRetryAfter && retryAfter > d {
		d = retryAfter
	}
	if d > c.waitMax {
		d = c.waitMax
	}
	return d
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (RFC 9110 §10.2.3). A date in the past means no wait.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > 1<<31 {
			n = 1 << 31
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

func (c *Client) addCacheBust(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	q.Set(cacheBustParam, strconv.FormatInt(c.now().UnixNano(), 36)+"."+strconv.FormatUint(c.bust.Add(1), 36))
	u.RawQuery = q.Encode()
	return u.String()
}

// stripBOM drops leading UTF-8 byte-order marks (each PHP file saved with
// one prints another) and warns once per client.
func (c *Client) stripBOM(body []byte, display string) []byte {
	if !bytes.HasPrefix(body, bom) {
		return body
	}
	for bytes.HasPrefix(body, bom) {
		body = body[len(bom):]
	}
	c.bomOnce.Do(func() {
		c.log.Warn("the site's answers start with a UTF-8 byte-order mark, which was ignored;"+
			" a PHP file on the site (often wp-config.php or the theme's functions.php) was saved with a BOM",
			"url", display)
	})
	return body
}

// wireError is WordPress's error JSON (WP_REST_Server::error_to_response).
type wireError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Data    struct {
		Status  int                        `json:"status"`
		Params  map[string]json.RawMessage `json:"params"`
		Details map[string]struct {
			Code string `json:"code"`
		} `json:"details"`
	} `json:"data"`
}

// forbiddenStatus reports the answer stock WordPress gives a request it
// treats as anonymous when it asks for status=draft/future: 400
// rest_invalid_param with data.details.status.code rest_forbidden_status
// (WordPress ≥ 5.7 adds details; before, only data.params.status is set, and
// since wpqueue only sends valid statuses that also means "forbidden").
func (w *wireError) forbiddenStatus() bool {
	if d, ok := w.Data.Details["status"]; ok {
		return d.Code == "rest_forbidden_status"
	}
	_, ok := w.Data.Params["status"]
	return ok && w.Code == "rest_invalid_param"
}

// permissionCodes are WordPress core's 403 answers to a logged-in user who
// lacks a capability (rest_authorization_required_code gives 401 to
// anonymous requests instead). A 403 with another code comes from a plugin.
var permissionCodes = map[string]bool{
	"rest_forbidden_context": true,
	"rest_cannot_edit":       true,
	"rest_cannot_publish":    true,
	"rest_forbidden":         true,
}

// classify turns a non-2xx, non-3xx answer into a typed error.
func (c *Client) classify(r request, a *answer) error {
	valid := json.Valid(a.body)
	var w wireError
	if valid && json.Unmarshal(a.body, &w) == nil && w.Code != "" {
		msg := c.scrub(w.Message)
		if a.status == 400 && w.forbiddenStatus() {
			// Show the specific code as evidence: rest_invalid_param alone says little.
			code := w.Code
			if d, ok := w.Data.Details["status"]; ok {
				code = d.Code
			}
			if p, ok := w.Data.Params["status"]; ok {
				var pm string
				if json.Unmarshal(p, &pm) == nil && pm != "" {
					msg += ": " + c.scrub(pm)
				}
			}
			return &CredentialsError{Method: r.method, Route: r.route, URL: r.display, Status: a.status,
				Code: code, Message: msg, ContentType: a.contentType, AppPasswords: c.appPasswords()}
		}
		// Every WordPress error with 401 or 403: core answers 401 to
		// anonymous requests and 403 to users without the capability;
		// security plugins that close the REST API to anonymous requests
		// use either (CredentialsError.Error tells the cases apart).
		if a.status == 401 || a.status == 403 {
			return &CredentialsError{Method: r.method, Route: r.route, URL: r.display, Status: a.status,
				Code: w.Code, Message: msg, ContentType: a.contentType, AppPasswords: c.appPasswords()}
		}
		return &APIError{Method: r.method, Route: r.route, URL: r.display, Status: a.status, Code: w.Code, Message: msg}
	}
	if a.status == 401 {
		return &CredentialsError{Method: r.method, Route: r.route, URL: r.display, Status: a.status,
			ContentType: a.contentType, WWWAuthenticate: c.scrub(a.header.Get("WWW-Authenticate")),
			AppPasswords: c.appPasswords()}
	}
	if valid {
		return &APIError{Method: r.method, Route: r.route, URL: r.display, Status: a.status,
			Message: c.prefix(a.body), Hint: blockHint(a)}
	}
	return c.notJSON(r, a, "", nil)
}

// decode unmarshals a 2xx JSON answer into v; want describes v for messages.
func (c *Client) decode(r request, a *answer, want string, v any) error {
	err := json.Unmarshal(a.body, v)
	if err == nil {
		return nil
	}
	if !json.Valid(a.body) {
		return c.notJSON(r, a, "", nil)
	}
	return c.notJSON(r, a, want, err)
}

func (c *Client) notJSON(r request, a *answer, want string, err error) *NotJSONError {
	e := &NotJSONError{Method: r.method, URL: r.display, Status: a.status, ContentType: a.contentType,
		Prefix: c.prefix(a.body), Want: want, Err: err}
	if want == "" {
		e.JunkBefore, e.Hint = junkHint(a.body)
	}
	if e.Hint == "" {
		e.Hint = blockHint(a)
	}
	return e
}

// prefix returns the first prefixLen bytes of body, cut on a UTF-8 boundary,
// with secrets scrubbed.
func (c *Client) prefix(body []byte) string {
	b := body
	if len(b) > prefixLen+512 {
		b = b[:prefixLen+512]
	}
	s := c.scrub(string(b))
	if len(s) > prefixLen {
		cut := prefixLen
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func isHTML(a *answer) bool {
	if strings.Contains(strings.ToLower(a.contentType), "html") {
		return true
	}
	t := bytes.TrimLeft(a.body, " \t\r\n")
	return len(t) > 0 && t[0] == '<'
}

// blockHint names who probably answered instead of WordPress.
func blockHint(a *answer) string {
	h := a.header
	server := strings.ToLower(h.Get("Server"))
	html := isHTML(a)
	switch {
	case a.status == 503 && bytes.Contains(a.body, []byte("Briefly unavailable for scheduled maintenance")):
		return "WordPress is in maintenance mode (an update is running, or a stale .maintenance file was left in the WordPress directory)"
	case (h.Get("Cf-Ray") != "" || strings.Contains(server, "cloudflare")) && (html || a.status == 403 || a.status == 503 || a.status == 429):
		hint := "the request was blocked by Cloudflare/WAF, not answered by WordPress"
		if ray := h.Get("Cf-Ray"); ray != "" {
			hint += " (cf-ray " + ray + ")"
		}
		return hint + "; allow this client in the firewall rules (WAF, Bot Fight Mode) or set a User-Agent they accept"
	case h.Get("X-Sucuri-Id") != "" || strings.Contains(server, "sucuri"):
		return "the request was blocked by the Sucuri firewall, not answered by WordPress"
	case a.status == 403 && html:
		return "a firewall or server rule (ModSecurity, a security plugin, the host's WAF) answered instead of WordPress"
	case a.status == 503 && html:
		return "the server answered with an HTML error page (overloaded, or down for maintenance)"
	case a.status >= 200 && a.status < 300 && html:
		return hintHTMLPage
	case a.status == 404 && html:
		return hintNoAPIHere
	}
	return ""
}

// Hints about where a request went rather than who blocked it; a
// DiscoveryError does not repeat them (its own advice says as much).
const (
	hintHTMLPage = "an HTML page answered instead of the REST API: site.url may not be the WordPress address," +
		" the REST API may be disabled, or a cache or challenge page answered"
	hintNoAPIHere = "no REST API at this address (with plain permalinks only ?rest_route= works; check site.url or site.api_root)"
)

// junkHint explains an empty body, or text in front of a JSON value that
// runs to the end of the body (PHP notices printed before WordPress's
// answer); n is the number of bytes before that JSON, 0 if there is none.
func junkHint(body []byte) (n int, hint string) {
	t := bytes.TrimSpace(body)
	if len(t) == 0 {
		return 0, "the body is empty"
	}
	if t[0] == '{' || t[0] == '[' {
		return 0, ""
	}
	for i, tries := 0, 0; i < len(t) && tries < 50; tries++ {
		j := bytes.IndexAny(t[i:], "{[")
		if j < 0 {
			break
		}
		i += j
		if json.Valid(t[i:]) {
			return i, fmt.Sprintf("%d bytes of text before the JSON, typically PHP notices or warnings printed by a plugin or theme"+
				" (set WP_DEBUG_DISPLAY to false in wp-config.php, or fix or remove the plugin that prints them)", i)
		}
		i++
	}
	return 0, ""
}

// redirectError builds the error for a 3xx answer that was not followed.
func (c *Client) redirectError(r request, a *answer) error {
	loc := a.header.Get("Location")
	if loc != "" {
		if base, err := url.Parse(r.url); err == nil {
			if lu, err := base.Parse(loc); err == nil {
				loc = redactURL(lu)
			}
		}
	}
	return &RedirectError{Method: r.method, URL: r.display, Status: a.status, Location: c.scrub(loc),
		SiteURL: c.scrub(c.redirectedSite(r.url, loc))}
}

// redirectedSite returns the site.url a redirect of the request to loc
// points to, when loc is the same request (same rest_route, same path below
// the site's path) under another base address; "" otherwise, and always
// with a pinned site.api_root.
func (c *Client) redirectedSite(reqURL, loc string) string {
	ru, err1 := url.Parse(reqURL)
	lu, err2 := url.Parse(loc)
	if c.pinned != "" || err1 != nil || err2 != nil || lu.Host == "" ||
		(lu.Scheme != "http" && lu.Scheme != "https") || lu.User != nil ||
		ru.Query().Get("rest_route") != lu.Query().Get("rest_route") ||
		!strings.HasPrefix(ru.Path, c.site.Path) {
		return ""
	}
	tail := ru.Path[len(c.site.Path):]
	if !strings.HasSuffix(lu.Path, tail) {
		return ""
	}
	base := lu.Path[:len(lu.Path)-len(tail)]
	if !strings.HasSuffix(base, "/") {
		return ""
	}
	s := (&url.URL{Scheme: lu.Scheme, Host: lu.Host, Path: base}).String()
	if s == c.siteStr {
		return ""
	}
	return s
}
