package wpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// How the REST root was found; see [Index.Via].
const (
	ViaPinned    = "pinned"     // Options.APIRoot (site.api_root)
	ViaRestRoute = "rest_route" // <site.url>/?rest_route=/
	ViaWPJSON    = "wp-json"    // <site.url>/wp-json/
	ViaLink      = "link"       // the home page's Link: <...>; rel="https://api.w.org/"
)

// indexFields keeps the index answer small: without it the index lists every
// route of every plugin (often hundreds of kB). rest_filter_response_fields
// applies _fields to the index like to any answer.
const indexFields = "name,url,home,gmt_offset,timezone_string,namespaces,authentication"

// Index returns the site's REST API index (GET <root>), discovering the REST
// root first unless Options.APIRoot pins it. The result is cached: later
// calls send no request.
//
// Discovery tries, in order, and stops at the first answer that is a JSON
// object whose "namespaces" include "wp/v2":
//
//  1. <site.url>/?rest_route=/ (works with every permalink setting,
//     including plain permalinks, the fresh-install default);
//  2. <site.url>/wp-json/ (pretty permalinks only; with plain permalinks it
//     redirects to an HTML page);
//  3. the home page's Link header rel="https://api.w.org/" (sent by
//     rest_output_link_header), and GET of that root, if it is on the same host.
//
// So discovery costs one request when step 1 works. A 200 answer with HTML
// is never an index. When nothing works the error is a [*DiscoveryError]
// (errors.Is [ErrNoAPI]) listing every URL tried with its status, content
// type and first bytes. Credentials rejected ([ErrCredentials]), an
// unavailable site ([ErrUnavailable]) or a cancelled ctx stop discovery at
// once and are returned as they are.
//
// GMTOffset is read whether WordPress sends it as a string ("0", "5.5") or a
// number (1, -9.5): the index copies the option's stored type.
func (c *Client) Index(ctx context.Context) (Index, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.index != nil {
		return *c.index, nil
	}
	var (
		idx Index
		err error
	)
	if c.pinned != "" {
		idx, err = c.pinnedIndex(ctx)
	} else {
		idx, err = c.discover(ctx)
	}
	if err != nil {
		return Index{}, err
	}
	c.index = &idx
	c.log.Debug("REST API root", "root", idx.Root, "via", idx.Via)
	return idx, nil
}

// root returns the REST root without a request when it is pinned, and
// discovers it (once) otherwise.
func (c *Client) root(ctx context.Context) (string, error) {
	if c.pinned != "" {
		return c.pinned, nil
	}
	idx, err := c.Index(ctx)
	if err != nil {
		return "", err
	}
	return idx.Root, nil
}

func (c *Client) pinnedIndex(ctx context.Context) (Index, error) {
	idx, res, err := c.tryIndex(ctx, c.pinned)
	if err == nil && res == "" {
		idx.Via = ViaPinned
		return idx, nil
	}
	if fatal(err) {
		return Index{}, err
	}
	return Index{}, &DiscoveryError{SiteURL: c.pinned, Pinned: true,
		Attempts: []Attempt{{URL: displayURL(c.pinned, "/"), Result: res, Err: err}}}
}

func (c *Client) discover(ctx context.Context) (Index, error) {
	derr := &DiscoveryError{SiteURL: c.siteStr}

	// 1. ?rest_route=/ under the site URL (keeps a sub-directory: /blog/?rest_route=/).
	for _, step := range []struct{ root, via string }{
		{c.siteStr + "?rest_route=/", ViaRestRoute},
		{c.siteStr + "wp-json/", ViaWPJSON},
	} {
		idx, res, err := c.tryIndex(ctx, step.root)
		if err == nil && res == "" {
			idx.Via = step.via
			return idx, nil
		}
		if fatal(err) {
			return Index{}, err
		}
		derr.Attempts = append(derr.Attempts, Attempt{URL: displayURL(step.root, "/"), Result: res, Err: err})
	}

	// 3. The home page's Link header.
	home := request{method: http.MethodGet, route: c.siteStr, url: c.siteStr, display: c.siteStr}
	a, err := c.do(ctx, home)
	if fatal(err) {
		return Index{}, err
	}
	if err != nil {
		derr.Attempts = append(derr.Attempts, Attempt{URL: c.siteStr, Result: errorResult(err), Err: err})
		return Index{}, derr
	}
	link := apiLink(a.header)
	if link == "" {
		derr.Attempts = append(derr.Attempts, Attempt{URL: c.siteStr,
			Result: c.describe(a) + `, no Link header with rel="https://api.w.org/"`})
		return Index{}, derr
	}
	lu, err := c.site.Parse(link)
	if err != nil || (lu.Scheme != "http" && lu.Scheme != "https") {
		derr.Attempts = append(derr.Attempts, Attempt{URL: c.siteStr, Result: fmt.Sprintf("unusable API link %q", link)})
		return Index{}, derr
	}
	if !sameSite(c.site, lu) {
		derr.Attempts = append(derr.Attempts, Attempt{URL: c.siteStr, Result: fmt.Sprintf(
			"the API link points to another host or scheme (%s); credentials are sent only to site.url's host: set site.api_root if that is right",
			redactURL(lu))})
		return Index{}, derr
	}
	root := lu.String()
	idx, res, err := c.tryIndex(ctx, root)
	if err == nil && res == "" {
		idx.Via = ViaLink
		return idx, nil
	}
	if fatal(err) {
		return Index{}, err
	}
	derr.Attempts = append(derr.Attempts, Attempt{URL: displayURL(root, "/"), Result: res, Err: err})
	return Index{}, derr
}

// fatal reports errors that end discovery at once: the site answered as
// WordPress but refused the credentials, the site is down, the caller gave
// up, the client may not send the request, or the REST API answered with
// text (PHP notices) before its JSON: the API is there, and the text is
// what the user must fix, not site.url.
func fatal(err error) bool {
	var nj *NotJSONError
	return err != nil && (errors.Is(err, ErrCredentials) || errors.Is(err, ErrUnavailable) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrReadOnly) || (errors.As(err, &nj) && nj.JunkBefore > 0))
}

// wireIndex is the part of the index (WP_REST_Server::get_index) we read.
type wireIndex struct {
	Name           string          `json:"name"`
	URL            string          `json:"url"`
	Home           string          `json:"home"`
	GMTOffset      json.RawMessage `json:"gmt_offset"`
	TimezoneString string          `json:"timezone_string"`
	Namespaces     []string        `json:"namespaces"`
	// Authentication is an object keyed by scheme ("application-passwords"),
	// or [] when none is offered; absent before WordPress 5.6.
	Authentication json.RawMessage `json:"authentication"`
}

// appPasswords reads what the index's "authentication" says about
// application passwords.
func (w *wireIndex) appPasswords() AppPasswords {
	s := strings.TrimSpace(string(w.Authentication))
	if s == "" || s == "null" {
		return AppPasswordsUnknown
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(w.Authentication, &m) == nil {
		if _, ok := m["application-passwords"]; ok {
			return AppPasswordsOffered
		}
	}
	return AppPasswordsNotOffered // [] (PHP's empty array) or an object without it
}

// tryIndex GETs the index at root. It returns the index and an empty result
// when the answer is a WordPress index; otherwise a short description of
// what answered, and the error if there was one.
func (c *Client) tryIndex(ctx context.Context, root string) (Index, string, error) {
	r := request{method: http.MethodGet, route: "/", display: displayURL(root, "/"),
		url: buildURL(root, "/", url.Values{"_fields": {indexFields}})}
	a, err := c.do(ctx, r)
	if err != nil {
		return Index{}, errorResult(err), err
	}
	var w wireIndex
	if err := c.decode(r, a, "a REST API index (a JSON object)", &w); err != nil {
		return Index{}, c.describe(a), err
	}
	if !slices.Contains(w.Namespaces, "wp/v2") {
		return Index{}, c.describe(a) + ", a JSON answer without the wp/v2 namespace (REST API disabled or filtered by a plugin?)", nil
	}
	off, err := parseGMTOffset(w.GMTOffset)
	if err != nil {
		return Index{}, c.describe(a), fmt.Errorf("%s %s: %w", r.method, r.display, err)
	}
	ap := w.appPasswords()
	c.appPw.Store(int32(ap))
	return Index{Root: root, Name: w.Name, Home: w.Home, TimezoneString: w.TimezoneString, GMTOffset: off, AppPasswords: ap}, "", nil
}

// parseGMTOffset reads gmt_offset: WordPress sends the option as stored, a
// string on a default site ("0") and a number once set (1, 5.5, -9.5).
func parseGMTOffset(raw json.RawMessage) (float64, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return 0, nil
	}
	if s[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, fmt.Errorf("gmt_offset %s: %w", raw, err)
		}
		s = strings.TrimSpace(s)
		if s == "" {
			return 0, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < -14 || f > 14 {
		return 0, fmt.Errorf("gmt_offset %s is not an offset in hours", raw)
	}
	return f, nil
}

// describe summarizes an answer for discovery messages.
func (c *Client) describe(a *answer) string {
	return fmt.Sprintf("HTTP %d %s %s", a.status, orNone(a.contentType), strconv.Quote(truncate(c.prefix(a.body), 60)))
}

// errorResult summarizes an error for discovery messages.
func errorResult(err error) string {
	var (
		nj *NotJSONError
		ae *APIError
		re *RedirectError
	)
	switch {
	case errors.As(err, &nj):
		return fmt.Sprintf("HTTP %d %s %s", nj.Status, orNone(nj.ContentType), strconv.Quote(truncate(nj.Prefix, 60)))
	case errors.As(err, &ae):
		return fmt.Sprintf("HTTP %d %s %s", ae.Status, ae.Code, strconv.Quote(truncate(ae.Message, 60)))
	case errors.As(err, &re):
		return fmt.Sprintf("HTTP %d redirect to %s (not followed)", re.Status, shortURL(re.Location))
	}
	return err.Error()
}

func orNone(ct string) string {
	if ct == "" {
		return "no Content-Type"
	}
	return ct
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// apiLink returns the target of the Link header with rel="https://api.w.org/".
func apiLink(h http.Header) string {
	for _, v := range h.Values("Link") {
		for _, part := range splitLinks(v) {
			part = strings.TrimSpace(part)
			if !strings.HasPrefix(part, "<") {
				continue
			}
			end := strings.Index(part, ">")
			if end < 0 {
				continue
			}
			target := part[1:end]
			for _, p := range strings.Split(part[end+1:], ";") {
				k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
				if !ok || !strings.EqualFold(strings.TrimSpace(k), "rel") {
					continue
				}
				val = strings.Trim(strings.TrimSpace(val), `"`)
				if slices.Contains(strings.Fields(val), "https://api.w.org/") {
					return target
				}
			}
		}
	}
	return ""
}

// splitLinks splits a Link header value on the commas between links (not
// those inside <...> or quotes).
func splitLinks(v string) []string {
	var (
		parts         []string
		start         int
		inURL, inQuot bool
	)
	for i, r := range v {
		switch {
		case r == '<' && !inQuot:
			inURL = true
		case r == '>' && !inQuot:
			inURL = false
		case r == '"' && !inURL:
			inQuot = !inQuot
		case r == ',' && !inURL && !inQuot:
			parts = append(parts, v[start:i])
			start = i + 1
		}
	}
	return append(parts, v[start:])
}

// buildURL joins a REST root and a route and adds the query q:
//
//	https://example.test/?rest_route=/ + /wp/v2/posts -> https://example.test/?rest_route=%2Fwp%2Fv2%2Fposts&...
//	https://example.test/wp-json/      + /wp/v2/posts -> https://example.test/wp-json/wp/v2/posts?...
//
// WordPress decodes the encoded rest_route (measured on 6.1).
func buildURL(root, route string, q url.Values) string {
	u, err := url.Parse(root)
	if err != nil {
		return root
	}
	vals := u.Query()
	if vals.Has("rest_route") {
		vals.Set("rest_route", strings.TrimSuffix(vals.Get("rest_route"), "/")+route)
	} else {
		u.Path = strings.TrimSuffix(u.Path, "/") + route
		u.RawPath = ""
	}
	for k, v := range q {
		vals[k] = v
	}
	u.RawQuery = vals.Encode()
	return u.String()
}

// displayURL is root + route without parameters, for messages.
func displayURL(root, route string) string {
	u, err := url.Parse(root)
	if err != nil {
		return root + route
	}
	u.User = nil
	vals := u.Query()
	if vals.Has("rest_route") {
		rr := strings.TrimSuffix(vals.Get("rest_route"), "/") + route
		u.RawQuery = ""
		return u.String() + "?rest_route=" + rr
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + route
	u.RawPath = ""
	u.RawQuery = ""
	return u.String()
}
