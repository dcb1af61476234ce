package wpclient

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-resty/resty/v2"
)

// Version is the wpqueue version sent in the default User-Agent
// ("wpqueue/<Version>"). cmd sets it at start-up, before calling [New].
var Version = "dev"

// Defaults for the zero values of [Options].
const (
	DefaultTimeout      = 30 * time.Second
	DefaultMaxAttempts  = 4
	DefaultRetryWaitMin = 1 * time.Second
	DefaultRetryWaitMax = 20 * time.Second
	DefaultMaxBodyBytes = 32 << 20 // 32 MiB
)

const redacted = "[redacted]"

// Credentials are a WordPress login name and an application password.
//
// Username is the WordPress login name (WordPress also accepts the user's
// e-mail address), never the application password's name. Password is an
// application password (Users → Profile → Application Passwords), not the
// login password; it may keep the spaces WordPress shows
// ("F6yb gumW RXAp s9K3 6XLp Ocwo"): it is sent as-is in HTTP Basic auth and
// WordPress accepts both forms (WP_Application_Passwords::chunk_password).
//
// Printing Credentials with fmt (any verb), slog or encoding/json never shows
// the password.
type Credentials struct {
	Username string
	Password string
}

// String returns the login name and a redacted password.
func (c Credentials) String() string {
	return fmt.Sprintf("{Username:%s Password:%s}", c.Username, c.maskedPassword())
}

// GoString returns a Go-syntax form with a redacted password.
func (c Credentials) GoString() string {
	return fmt.Sprintf("wpclient.Credentials{Username:%q, Password:%q}", c.Username, c.maskedPassword())
}

// Format implements fmt.Formatter so that no verb (%v, %+v, %#v, %s, %q, %x)
// can print the password.
func (c Credentials) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, c.GoString())
		return
	}
	if verb == 'q' {
		fmt.Fprintf(f, "%q", c.String())
		return
	}
	fmt.Fprint(f, c.String())
}

// LogValue implements slog.LogValuer with a redacted password.
func (c Credentials) LogValue() slog.Value {
	return slog.GroupValue(slog.String("username", c.Username), slog.String("password", c.maskedPassword()))
}

// MarshalJSON encodes the credentials with a redacted password.
func (c Credentials) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, `{"username":%q,"password":%q}`, c.Username, c.maskedPassword()), nil
}

func (c Credentials) maskedPassword() string {
	if c.Password == "" {
		return ""
	}
	return redacted
}

// Options configure a [Client]. The zero value is valid: every field has a
// default.
type Options struct {
	// HTTPClient is the HTTP client to send requests with (tests inject a
	// transport here). The client copies it and never modifies it: it sets
	// its own CheckRedirect and wraps the Transport (read-only guard and
	// request counter). Default: an http.Client whose transport is a clone
	// of http.DefaultTransport.
	HTTPClient *http.Client
	// APIRoot pins the REST root (config site.api_root), e.g.
	// "https://example.test/wp-json/" or "https://example.test/?rest_route=/",
	// and skips discovery. The same http/https rules as for the site URL apply.
	APIRoot string
	// UserAgent is sent with every request. Default "wpqueue/" + [Version].
	// Some WAFs block unknown agents; config lets the user change it.
	UserAgent string
	// Timeout bounds each request, including reading the body. Default 30s.
	Timeout time.Duration
	// MaxAttempts is the number of tries of a read (GET). Default 4; 1
	// disables retries. Writes are always tried exactly once.
	MaxAttempts int
	// RetryWaitMin and RetryWaitMax bound the wait between tries of a read:
	// exponential from RetryWaitMin, with jitter, capped at RetryWaitMax.
	// A Retry-After header (seconds or an HTTP date) is honoured, also
	// capped at RetryWaitMax. Defaults 1s and 20s.
	RetryWaitMin, RetryWaitMax time.Duration
	// ReadOnly makes the client unable to write (dry run): SchedulePost and
	// Unschedule return [ErrReadOnly] at once, and the transport itself refuses
	// every method other than GET and HEAD before anything reaches the network.
	ReadOnly bool
	// AllowInsecureHTTP allows http:// URLs to hosts other than loopback
	// (config site.allow_insecure_http). The application password then
	// travels unencrypted.
	AllowInsecureHTTP bool
	// Logger receives warnings (redirects followed, BOMs, retries) and debug
	// records. It never receives the password or the Authorization header.
	// Nil discards.
	Logger *slog.Logger
	// MaxBodyBytes caps an answer body; a larger one is refused with
	// [ErrTooLarge]. Default 32 MiB.
	MaxBodyBytes int64
}

// Client talks to one WordPress site through its REST API. It is safe for
// concurrent use. Build it with [New].
//
// Reads (GET) send "Cache-Control: no-cache" and a cache-busting query
// parameter (_wpq), and are retried on network errors and HTTP 429, 502, 503
// and 504. Writes (POST) are sent exactly once and never follow a redirect.
//
// Printing a Client with fmt (any verb) or slog never shows the password.
type Client struct {
	site     *url.URL // normalized site.url, path ends in "/"
	siteStr  string
	username string
	pinned   string // normalized Options.APIRoot, or ""

	rc       *resty.Client
	hc       *http.Client
	log      *slog.Logger
	ua       string
	timeout  time.Duration
	attempts int
	waitMin  time.Duration
	waitMax  time.Duration
	readOnly bool
	insecure bool
	maxBody  int64

	// secrets are scrubbed from body excerpts shown in errors.
	secrets []string

	requests  atomic.Int64
	bust      atomic.Uint64
	bomOnce   sync.Once
	redirOnce sync.Once
	// appPw is the index's AppPasswords, for CredentialsError (an atomic:
	// errors are built while Index holds mu).
	appPw atomic.Int32

	mu    sync.Mutex
	index *Index

	// Seams for tests; set once in New.
	now    func() time.Time
	sleep  func(ctx context.Context, d time.Duration) error
	jitter func(n time.Duration) time.Duration
}

// New returns a client for the WordPress site at siteURL (config site.url,
// the site's home address, e.g. "https://example.test/" or
// "https://example.test/blog/").
//
// siteURL must be an absolute http or https URL with a host, without a
// user:password part or a query. Plain http is refused for hosts other than
// loopback (127.0.0.0/8, ::1, localhost) unless opts.AllowInsecureHTTP,
// because the application password would travel unencrypted; the same rules
// apply to opts.APIRoot. An empty creds.Username sends no credentials
// (anonymous); a username without a password is an error.
//
// New sends no request: discovery happens on first use (see [Client.Index]).
func New(siteURL string, creds Credentials, opts Options) (*Client, error) {
	site, err := checkURL("site.url", siteURL, opts.AllowInsecureHTTP)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(site.Path, "/") {
		site.Path += "/"
		site.RawPath = ""
	}
	c := &Client{
		site:     site,
		siteStr:  site.String(),
		username: creds.Username,
		log:      opts.Logger,
		ua:       opts.UserAgent,
		timeout:  opts.Timeout,
		attempts: opts.MaxAttempts,
		waitMin:  opts.RetryWaitMin,
		waitMax:  opts.RetryWaitMax,
		readOnly: opts.ReadOnly,
		insecure: opts.AllowInsecureHTTP,
		maxBody:  opts.MaxBodyBytes,
		now:      time.Now,
		sleep:    sleepCtx,
		jitter:   func(n time.Duration) time.Duration { return rand.N(n) },
	}
	if opts.APIRoot != "" {
		root, err := checkURL("site.api_root", opts.APIRoot, opts.AllowInsecureHTTP)
		if err != nil {
			return nil, err
		}
		if !root.Query().Has("rest_route") && !strings.HasSuffix(root.Path, "/") {
			root.Path += "/"
			root.RawPath = ""
		}
		c.pinned = root.String()
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.ua == "" {
		c.ua = "wpqueue/" + Version
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.attempts <= 0 {
		c.attempts = DefaultMaxAttempts
	}
	if c.waitMin <= 0 {
		c.waitMin = DefaultRetryWaitMin
	}
	if c.waitMax <= 0 {
		c.waitMax = DefaultRetryWaitMax
	}
	if c.waitMax < c.waitMin {
		c.waitMax = c.waitMin
	}
	if c.maxBody <= 0 {
		c.maxBody = DefaultMaxBodyBytes
	}

	if strings.Contains(creds.Username, ":") {
		return nil, errors.New("credentials: the WordPress login name must not contain ':'")
	}
	if creds.Username != "" && creds.Password == "" {
		return nil, fmt.Errorf("credentials: the application password for WordPress user %q is empty", creds.Username)
	}
	if creds.Password != "" {
		c.secrets = append(c.secrets, creds.Password,
			base64.StdEncoding.EncodeToString([]byte(creds.Username+":"+creds.Password)))
		if np := strings.ReplaceAll(creds.Password, " ", ""); np != creds.Password && np != "" {
			c.secrets = append(c.secrets, np)
		}
	}

	// Our own copy of the http.Client: never mutate the caller's.
	hc := &http.Client{}
	if opts.HTTPClient != nil {
		*hc = *opts.HTTPClient
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	var rt http.RoundTripper = &countingTransport{next: base, n: &c.requests}
	if c.readOnly {
		rt = &readOnlyTransport{next: rt}
	}
	hc.Transport = rt
	hc.CheckRedirect = c.checkRedirect
	hc.Jar = nil // WordPress cookies are of no use with application passwords
	c.hc = hc

	c.rc = resty.NewWithClient(hc).
		SetLogger(restyLogger{c.log}).
		SetDisableWarn(true). // New already refuses plain http to non-loopback hosts
		SetRetryCount(0)      // retries are ours: GET only (see do)
	if creds.Username != "" {
		c.rc.SetBasicAuth(creds.Username, creds.Password)
	}
	if c.insecure && site.Scheme == "http" && !isLoopback(site.Hostname()) {
		c.log.Warn("plain http allowed by site.allow_insecure_http: the application password travels unencrypted", "site", c.siteStr)
	}
	return c, nil
}

// checkURL validates a site or API root URL; key names the config setting.
func checkURL(key, raw string, allowInsecure bool) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		// url.Error repeats the raw string, which may hold a password.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("%s %q is not a valid URL: %v", key, redactRawURL(raw), err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%s %q must be an absolute http:// or https:// URL", key, raw)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("%s %q has no host", key, raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%s %s must not contain a user name or password; set the login name and application password in their own settings", key, u.Redacted())
	}
	if key == "site.url" && u.RawQuery != "" {
		return nil, fmt.Errorf("%s %q must not have a query (?...): give the WordPress home address", key, raw)
	}
	u.Fragment, u.RawFragment = "", ""
	if u.Scheme == "http" && !allowInsecure && !isLoopback(u.Hostname()) {
		return nil, fmt.Errorf("%s %s uses plain http: the application password would travel unencrypted"+
			" (and WordPress offers application passwords only over HTTPS); use https://,"+
			" or set site.allow_insecure_http to true to allow it", key, u.Redacted())
	}
	return u, nil
}

// redactRawURL hides a user:password part in a string that did not parse
// as a URL.
func redactRawURL(raw string) string {
	rest := raw
	scheme := ""
	if i := strings.Index(raw, "://"); i >= 0 {
		scheme, rest = raw[:i+3], raw[i+3:]
	}
	auth := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		auth = rest[:i]
	}
	if at := strings.LastIndex(auth, "@"); at >= 0 {
		return scheme + redacted + rest[at:]
	}
	return raw
}

// isLoopback reports whether host is localhost, 127.0.0.0/8 or ::1.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (c *Client) appPasswords() AppPasswords { return AppPasswords(c.appPw.Load()) }

// Requests returns the number of HTTP requests sent so far, redirects and
// retries included. Requests refused by the read-only guard are not counted.
func (c *Client) Requests() int64 { return c.requests.Load() }

// String describes the client without secrets.
func (c *Client) String() string {
	if c == nil {
		return "wpclient.Client(nil)"
	}
	return fmt.Sprintf("wpclient.Client{site: %s, user: %s, read-only: %t}", c.siteStr, c.username, c.readOnly)
}

// GoString is like String: a Client has no useful Go-syntax form.
func (c *Client) GoString() string { return c.String() }

// Format implements fmt.Formatter so that no verb prints the client's
// fields (which hold the password).
func (c *Client) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		fmt.Fprintf(f, "%q", c.String())
		return
	}
	fmt.Fprint(f, c.String())
}

// LogValue implements slog.LogValuer without secrets.
func (c *Client) LogValue() slog.Value {
	return slog.GroupValue(slog.String("site", c.siteStr), slog.String("user", c.username))
}

// scrub removes the password (and the encoded Authorization value) from text
// that came from the server, in case a page echoes request headers.
func (c *Client) scrub(s string) string {
	for _, sec := range c.secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, redacted)
		}
	}
	return s
}

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// restyLogger sends resty's own log lines to slog at debug level. With
// SetDebug off and retries disabled resty hardly logs; it never sees a
// header dump.
type restyLogger struct{ l *slog.Logger }

func (r restyLogger) Errorf(format string, v ...any) {
	r.l.Debug("resty: " + fmt.Sprintf(format, v...))
}
func (r restyLogger) Warnf(format string, v ...any) {
	r.l.Debug("resty: " + fmt.Sprintf(format, v...))
}
func (r restyLogger) Debugf(format string, v ...any) {
	r.l.Debug("resty: " + fmt.Sprintf(format, v...))
}
