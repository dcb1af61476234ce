package config

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

const (
	maxAhead        = 1000
	maxPasswordFile = 64 << 10 // an application password is 24 characters
)

// builder turns resolved values into one Site (or the Log section),
// collecting every problem instead of stopping at the first.
type builder struct {
	r    *resolver
	site string // "" = top level only (the single "default" site, or log)
	errs *errList
}

func (b *builder) get(key string) value { return b.r.get(b.site, keyIndex[key]) }

// fail records a problem with v; val is the offending value as shown in
// FieldError.Value.
func (b *builder) fail(v value, val string, format string, args ...any) {
	if v.key == "site.password" || strings.HasSuffix(v.key, ".site.password") {
		val = redacted // no message about the password quotes its value either
	}
	b.errs.add(fieldErr(v.key, val, format, args...))
}

// text returns a raw scalar as text; ok is false for a list or mapping.
func text(raw any) (s string, ok bool) {
	switch x := raw.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case []any, []string, map[string]any, map[any]any:
		return "", false
	case time.Time: // YAML reads an unquoted 2024-01-01 as a timestamp
		if x.Equal(x.Truncate(24 * time.Hour)) {
			return x.Format(time.DateOnly), true
		}
		return x.Format(time.RFC3339Nano), true
	default:
		return fmt.Sprint(x), true
	}
}

// shown renders any raw value for FieldError.Value.
func shown(raw any) string {
	if s, ok := text(raw); ok {
		return s
	}
	return fmt.Sprint(raw)
}

func kindOf(raw any) string {
	switch raw.(type) {
	case []any, []string:
		return "a list"
	default:
		return "a mapping"
	}
}

// str returns a single text value, trimmed of surrounding white space.
func (b *builder) str(key string) (string, value) {
	v := b.get(key)
	s, ok := text(v.raw)
	if !ok {
		b.fail(v, shown(v.raw), "want a single value, not %s", kindOf(v.raw))
		return "", v
	}
	return strings.TrimSpace(s), v
}

// path returns a file path; a relative path written in the config file is
// relative to the file's directory, otherwise to the working directory.
func (b *builder) path(key string) (string, value) {
	p, v := b.str(key)
	if p != "" && v.layer.fromFile() && b.r.fileDir != "" && !filepath.IsAbs(p) {
		p = filepath.Join(b.r.fileDir, p)
	}
	return p, v
}

func (b *builder) boolVal(key string) bool {
	v := b.get(key)
	switch x := v.raw.(type) {
	case bool:
		return x
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "t", "1", "yes", "y", "on":
			return true
		case "false", "f", "0", "no", "n", "off", "":
			return false
		}
	case int:
		if x == 0 || x == 1 {
			return x == 1
		}
	}
	b.fail(v, shown(v.raw), "%q is not true or false", shown(v.raw))
	return false
}

// intVal returns a whole number in [lo, hi].
func (b *builder) intVal(key string, lo, hi int) int {
	v := b.get(key)
	var n int64
	switch x := v.raw.(type) {
	case int:
		n = int64(x)
	case int64:
		n = x
	case uint64:
		n = int64(min(x, uint64(hi)+1))
	case float64: // YAML 1.5, 1e3, or an integer too large for int64
		if x != math.Trunc(x) || math.IsInf(x, 0) {
			b.fail(v, shown(x), "%v is not a whole number", x)
			return lo
		}
		n = int64(max(min(x, float64(hi)+1), float64(lo)-1))
	case string:
		i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		switch {
		case errors.Is(err, strconv.ErrRange):
			b.fail(v, x, "%s is too large (at most %d)", strings.TrimSpace(x), hi)
			return hi
		case err != nil:
			b.fail(v, x, "%q is not a whole number", x)
			return lo
		}
		n = i
	default:
		b.fail(v, shown(v.raw), "%q is not a whole number", shown(v.raw))
		return lo
	}
	if s := strings.TrimSpace(shown(v.raw)); n < int64(lo) {
		b.fail(v, s, "%s must be at least %d", s, lo)
		return lo
	} else if n > int64(hi) {
		b.fail(v, s, "%s must be at most %d", s, hi)
		return hi
	}
	return int(n)
}

// duration returns a duration that is at least lo (0 or 1ns, "more than zero").
func (b *builder) duration(key string, lo time.Duration) time.Duration {
	v := b.get(key)
	var d time.Duration
	switch x := v.raw.(type) {
	case time.Duration:
		d = x
	case int:
		if x != 0 { // a bare 0 is unambiguous; any other number lacks a unit
			b.fail(v, shown(x), "%d is not a duration (want a unit, e.g. 30s, 15m or 2h)", x)
			return lo
		}
	case string:
		s := strings.TrimSpace(x)
		p, err := time.ParseDuration(s)
		if err != nil {
			b.fail(v, x, "%q is not a duration (want e.g. 30s, 15m or 2h)", x)
			return lo
		}
		d = p
	default:
		b.fail(v, shown(v.raw), "%q is not a duration (want e.g. 30s, 15m or 2h)", shown(v.raw))
		return lo
	}
	switch {
	case lo == 0 && d < 0:
		b.fail(v, shown(v.raw), "%v must not be negative", d)
		return 0
	case lo > 0 && d < lo:
		b.fail(v, shown(v.raw), "%v must be more than zero", d)
		return lo
	}
	return d
}

// list returns the non-empty items of a YAML list or a comma-separated string.
func (b *builder) list(key string) ([]string, value) {
	v := b.get(key)
	var items []string
	switch x := v.raw.(type) {
	case []string:
		items = x
	case []any:
		for _, e := range x {
			s, ok := text(e)
			if !ok {
				b.fail(v, shown(e), "want a list of single values, not a list holding %s", kindOf(e))
				return nil, v
			}
			items = append(items, s)
		}
	default:
		s, ok := text(x)
		if !ok {
			b.fail(v, shown(x), "want a list, not %s", kindOf(x))
			return nil, v
		}
		items = strings.Split(s, ",")
	}
	var out []string
	for _, s := range items {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, v
}

func (b *builder) buildLog() Log {
	var l Log
	level, v := b.str("log.level")
	switch strings.ToLower(level) {
	case "debug":
		l.Level = slog.LevelDebug
	case "info":
		l.Level = slog.LevelInfo
	case "warn", "warning":
		l.Level = slog.LevelWarn
	case "error":
		l.Level = slog.LevelError
	default:
		b.fail(v, level, "%q is not a log level (want debug, info, warn or error)", level)
	}
	l.Format = b.oneOf("log.format", "log format", "text", "json")
	l.File, _ = b.path("log.file")
	return l
}

// oneOf returns the value lower-cased if it is one of choices.
func (b *builder) oneOf(key, what string, choices ...string) string {
	s, v := b.str(key)
	ls := strings.ToLower(s)
	if slices.Contains(choices, ls) {
		return ls
	}
	want := strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
	b.fail(v, s, "%q is not a %s (want %s)", s, what, want)
	return choices[0]
}

func (b *builder) buildSite() Site {
	s := Site{Name: b.site}
	s.Site = b.access()
	s.Schedule = b.schedule()
	s.Queue = Queue{
		Status:   b.oneOf("queue.status", "queue status", "draft", "pending"),
		Category: b.term("queue.category", "category"),
		Tag:      b.term("queue.tag", "tag"),
		Author:   b.userID("queue.author"),
		Order:    b.oneOf("queue.order", "queue order", "id", "date", "modified", "title"),
	}
	s.Lock.Path, _ = b.path("lock.path")
	s.Alerts = Alerts{
		LowQueue:    b.intVal("alerts.low_queue", 0, 1<<31-1),
		EmptyWithin: b.duration("alerts.empty_within", 0),
	}
	return s
}

// required reports a missing required key, naming the variable to set.
func (b *builder) required(k string) {
	key, env := k, envName(k)
	if b.site != "" {
		key, env = "sites."+b.site+"."+k, siteEnvName(b.site, k)
	}
	b.errs.add(sentenceErr(key, "", "%s is required (set it in the config file or %s)", key, env))
}

func (b *builder) access() SiteAccess {
	var a SiteAccess
	a.AllowInsecureHTTP = b.boolVal("site.allow_insecure_http")

	u, uv := b.str("site.url")
	if u == "" {
		b.required("site.url")
	} else if b.checkURL(uv, u, a.AllowInsecureHTTP) {
		a.URL = u
	}
	if root, rv := b.str("site.api_root"); root != "" && b.checkURL(rv, root, a.AllowInsecureHTTP) {
		a.APIRoot = root
	}

	user, _ := b.str("site.username")
	if user == "" {
		b.required("site.username")
	}
	a.Username = user
	a.Password = b.password()

	ua, uav := b.str("site.user_agent")
	if strings.ContainsFunc(ua, unicode.IsControl) {
		b.fail(uav, ua, "%q contains a control character", ua)
		ua = ""
	}
	a.UserAgent = ua
	a.Timeout = b.duration("site.timeout", 1)
	return a
}

// isLoopback reports whether host is localhost or a loopback address:
// plain http there never leaves the machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkURL reports whether s is an absolute http(s) URL usable as key.
func (b *builder) checkURL(v value, s string, allowHTTP bool) bool {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		show := s
		switch {
		case err == nil && u.User != nil:
			show = u.Redacted()
		case err != nil && strings.Contains(s, "@"):
			// Unparseable with a user part (a password with spaces, say):
			// show the host side only.
			show = "[redacted]@" + s[strings.LastIndex(s, "@")+1:]
		}
		b.fail(v, show, "%q is not an absolute http(s) URL (want e.g. https://example.com)", show)
		return false
	}
	if u.User != nil {
		b.fail(v, u.Redacted(), "%q holds a user name or password; set site.username and site.password instead", u.Redacted())
		return false
	}
	if u.Scheme == "http" && !allowHTTP && !isLoopback(u.Hostname()) {
		b.fail(v, s, "%q uses plain http, so the application password would travel unencrypted (use https, or set site.allow_insecure_http)", s)
		return false
	}
	return true
}

// password resolves site.password and site.password_file as one setting:
// the one from the higher layer wins; both in the same layer is an error.
func (b *builder) password() Secret {
	pw, pwv := b.str("site.password")
	pf, pfv := b.path("site.password_file")
	if pw == "" {
		pwv.layer = layerDefault
	}
	if pf == "" {
		pfv.layer = layerDefault
	}
	switch {
	case pwv.layer == layerDefault && pfv.layer == layerDefault:
		return ""
	case pwv.layer == pfv.layer:
		b.errs.add(sentenceErr(pwv.key, redacted, "%s and %s are both set; use one", pwv.key, pfv.key))
		return ""
	case pwv.layer > pfv.layer:
		return Secret(pw)
	}
	secret, err := readPasswordFile(pf)
	if err != nil {
		b.fail(pfv, pf, "%w", err)
		return ""
	}
	return secret
}

// readPasswordFile returns the file's contents without a UTF-8 byte order
// mark and surrounding white space.
func readPasswordFile(path string) (Secret, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("cannot read password file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPasswordFile+1))
	if err != nil {
		return "", fmt.Errorf("cannot read password file %s: %w", path, err)
	}
	if len(data) > maxPasswordFile {
		return "", fmt.Errorf("password file %s is larger than %d KiB; is it the right file?", path, maxPasswordFile>>10)
	}
	s := strings.TrimSpace(strings.TrimPrefix(string(data), "\ufeff"))
	switch {
	case s == "":
		return "", fmt.Errorf("password file %s is empty", path)
	case strings.ContainsAny(s, "\r\n"):
		return "", fmt.Errorf("password file %s holds more than one line", path)
	}
	return Secret(s), nil
}

var clockRE = regexp.MustCompile(`^(\d{1,2}):(\d{2})$`)

func parseClock(s string) (Clock, bool) {
	m := clockRE.FindStringSubmatch(s)
	if m == nil {
		return Clock{}, false
	}
	h, _ := strconv.Atoi(m[1])
	mi, _ := strconv.Atoi(m[2])
	if h > 23 || mi > 59 {
		return Clock{}, false
	}
	return Clock{h, mi}, true
}

var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
	"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday,
	"thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday,
}

func (b *builder) schedule() Schedule {
	var s Schedule
	times, tv := b.list("schedule.times")
	for _, t := range times {
		c, ok := parseClock(t)
		if !ok {
			b.fail(tv, t, "%q is not a time (want HH:MM, 24-hour)", t)
			continue
		}
		if !slices.Contains(s.Times, c) {
			s.Times = append(s.Times, c)
		}
	}
	if len(times) == 0 {
		b.fail(tv, "", "no times given (want at least one HH:MM)")
	}
	slices.SortFunc(s.Times, func(a, b Clock) int { return (a.Hour*60 + a.Minute) - (b.Hour*60 + b.Minute) })

	days, dv := b.list("schedule.days")
	for _, d := range days {
		wd, ok := weekdays[strings.ToLower(d)]
		if !ok {
			b.fail(dv, d, "%q is not a weekday (want monday..sunday or mon..sun)", d)
			continue
		}
		if !slices.Contains(s.Days, wd) {
			s.Days = append(s.Days, wd)
		}
	}
	if len(days) == 0 {
		s.Days = []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday}
	}
	slices.Sort(s.Days)

	s.Ahead = b.intVal("schedule.ahead", 1, maxAhead)
	s.Lead = b.duration("schedule.lead", 0)
	if raw := b.get("schedule.lead").raw; s.Lead < time.Minute && !negative(raw) {
		// wp_insert_post publishes at once a 'future' post whose date is
		// not more than a minute ahead; a shorter lead could publish early.
		v := b.get("schedule.lead")
		b.fail(v, shown(v.raw), "%v is too short: WordPress publishes at once a post scheduled less than a minute ahead (want at least 1m; default 15m)", s.Lead)
		s.Lead = time.Minute
	}

	tz, zv := b.str("schedule.timezone")
	if tz != "" {
		if _, err := time.LoadLocation(tz); err != nil || tz == "Local" {
			b.fail(zv, tz, "unknown time zone %q", tz)
			tz = ""
		}
	}
	s.Timezone = tz
	return s
}

// slugRE is loose on purpose: WordPress slugs may hold percent-encoded
// UTF-8; this only rejects what cannot be one slug (spaces, commas, slashes).
var slugRE = regexp.MustCompile(`^[^\s,/?#&]+$`)

// term returns a category or tag: a positive numeric id or a slug.
func (b *builder) term(key, what string) string {
	s, v := b.str(key)
	if s == "" {
		return ""
	}
	if isDigits(s) {
		if n, err := strconv.Atoi(s); err != nil || n < 1 {
			b.fail(v, s, "%q is not a %s id (want a number of 1 or more, or a slug)", s, what)
			return ""
		}
		return s
	}
	if !slugRE.MatchString(s) {
		b.fail(v, s, "%q is not a %s slug or id", s, what)
		return ""
	}
	return s
}

func (b *builder) userID(key string) string {
	s, v := b.str(key)
	if s == "" {
		return ""
	}
	if n, err := strconv.Atoi(s); err != nil || n < 1 || !isDigits(s) {
		b.fail(v, s, "%q is not a user id (want a number of 1 or more)", s)
		return ""
	}
	return s
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// negative reports whether a raw duration value is negative (already
// reported by duration).
func negative(raw any) bool {
	switch x := raw.(type) {
	case time.Duration:
		return x < 0
	case string:
		return strings.HasPrefix(strings.TrimSpace(x), "-")
	}
	return false
}
