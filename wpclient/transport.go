package wpclient

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
)

// readOnlyTransport is the structural dry-run guarantee: it refuses every
// method other than GET and HEAD before the request reaches the wrapped
// transport, whatever code path built the request.
type readOnlyTransport struct{ next http.RoundTripper }

func (t *readOnlyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead && req.Method != "" {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper must close the body, even on errors
		}
		return nil, fmt.Errorf("%s %s: %w", req.Method, redactURL(req.URL), ErrReadOnly)
	}
	return t.next.RoundTrip(req)
}

// countingTransport counts requests that reach the network side.
type countingTransport struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.n.Add(1)
	return t.next.RoundTrip(req)
}

var errTooManyRedirects = errors.New("stopped after 10 redirects")

// checkRedirect is the http.Client redirect policy. Writes never follow a
// redirect (net/http would turn a POST into a GET and drop the body). Reads
// follow a redirect only to the same host (http→https on that host is fine,
// https→http is not), and log a warning naming the target so the user fixes
// site.url. A refused redirect hands the 3xx answer back (ErrUseLastResponse)
// and do turns it into a *RedirectError.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	first := via[0]
	if first.Method != http.MethodGet && first.Method != http.MethodHead {
		return http.ErrUseLastResponse
	}
	if len(via) >= 10 {
		return errTooManyRedirects
	}
	if !sameSite(first.URL, req.URL) {
		return http.ErrUseLastResponse
	}
	status := 0
	if req.Response != nil {
		status = req.Response.StatusCode
	}
	from, to := shortURL(redactURL(via[len(via)-1].URL)), shortURL(redactURL(req.URL))
	warned := false
	c.redirOnce.Do(func() {
		warned = true
		c.log.Warn("following a redirect of a read on the same host (warned once per run);"+
			" set site.url (or site.api_root) to the address the site redirects to",
			"status", status, "from", from, "to", to)
	})
	if !warned {
		c.log.Debug("following a redirect", "status", status, "from", from, "to", to)
	}
	return nil
}

// sameSite reports whether a redirect from a to b stays on the same host and
// does not downgrade https to http. An http→https upgrade may change the
// port from the default 80 to the default 443.
func sameSite(a, b *url.URL) bool {
	if !strings.EqualFold(a.Hostname(), b.Hostname()) {
		return false
	}
	switch {
	case a.Scheme == b.Scheme:
		return portOf(a) == portOf(b)
	case a.Scheme == "http" && b.Scheme == "https":
		return a.Port() == "" && b.Port() == "" || portOf(a) == portOf(b)
	default:
		return false
	}
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// redactURL prints u without user:password and without our cache-busting
// parameter.
func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	v := *u
	v.User = nil
	if q := v.Query(); q.Has(cacheBustParam) {
		q.Del(cacheBustParam)
		v.RawQuery = q.Encode()
	}
	return v.String()
}
