package config

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
)

// DefaultSiteName is the name of the only site of a config without sites:.
const DefaultSiteName = "default"

// Config is the loaded, validated configuration.
type Config struct {
	// File is the absolute path of the config file read, or "" if none was.
	File string
	// Log is the logging setup, shared by all sites.
	Log Log
	// Warnings are problems that do not stop a run: WPQUEUE_* variables
	// that match no key, a config file with a password that other users
	// can read. The CLI logs them.
	Warnings []string
	// Sites holds at least one site, sorted by Name. A config without
	// sites: has exactly one, named "default".
	Sites []Site
}

// Site is everything needed to fill the queue of one WordPress site.
type Site struct {
	Name     string
	Site     SiteAccess
	Schedule Schedule
	Queue    Queue
	Lock     Lock
	Alerts   Alerts
}

// SiteAccess says how to reach the site's REST API.
type SiteAccess struct {
	// URL is the absolute http(s) address of the site. http:// is
	// accepted only with AllowInsecureHTTP.
	URL string
	// Username is the WordPress login name (not the e-mail address, not
	// the application password's name).
	Username string
	// Password is the application password, from site.password or the
	// contents of site.password_file, trimmed of surrounding white space;
	// inner spaces are kept. It may be empty.
	Password Secret
	// APIRoot is the REST API root URL, or "" to discover it.
	APIRoot string
	// AllowInsecureHTTP permits http:// in URL and APIRoot.
	AllowInsecureHTTP bool
	// UserAgent is the User-Agent header, or "" for the client's default.
	UserAgent string
	// Timeout bounds each HTTP request; it is more than zero.
	Timeout time.Duration
}

// Schedule says when posts go out.
type Schedule struct {
	// Times are the slot times of day in the site's zone: sorted, unique,
	// at least one.
	Times []Clock
	// Days are the publishing weekdays: sorted Sunday..Saturday, unique;
	// all seven when unset.
	Days []time.Weekday
	// Ahead is how many upcoming slots to keep filled, 1..1000.
	Ahead int
	// Lead skips slots that start sooner than this from now; it is >= 0.
	Lead time.Duration
	// Timezone is an IANA zone name valid for time.LoadLocation, or "" to
	// use the site's own zone.
	Timezone string
}

// Clock is a time of day, 24-hour.
type Clock struct {
	Hour, Minute int
}

// String returns the time as "HH:MM", e.g. "07:00".
func (c Clock) String() string { return fmt.Sprintf("%02d:%02d", c.Hour, c.Minute) }

// MarshalText returns the time as "HH:MM", so a Clock encodes as "07:00"
// in JSON.
func (c Clock) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Queue says which drafts are queued and in which order.
type Queue struct {
	// Status is "draft" or "pending".
	Status string
	// Category and Tag are a slug or a numeric id, or "" for any.
	Category, Tag string
	// Author is a numeric user id, or "" for any.
	Author string
	// Order is "id", "date", "modified" or "title".
	Order string
}

// Lock locates the lock file.
type Lock struct {
	// Path is the lock file, or "" for the lockfile package's per-user default.
	Path string
}

// Alerts sets when to warn that the queue runs low.
type Alerts struct {
	// LowQueue warns when this many queued posts or fewer remain; >= 0.
	LowQueue int
	// EmptyWithin warns when the queue runs dry within this time; >= 0.
	EmptyWithin time.Duration
}

// Log sets up logging.
type Log struct {
	Level slog.Level
	// Format is "text" or "json".
	Format string
	// File is a path to append JSON lines to, or "".
	File string
}

// Select returns the sites named by names (from --site), in Name order and
// without duplicates; no names selects every site. An unknown name is a
// *[FieldError] with Key "sites" and Value the name, whose message lists
// the known sites.
func (c *Config) Select(names []string) ([]Site, error) {
	if len(names) == 0 {
		return slices.Clone(c.Sites), nil
	}
	want := map[string]bool{}
	for _, n := range names {
		if !slices.ContainsFunc(c.Sites, func(s Site) bool { return s.Name == n }) {
			return nil, fieldErr("sites", n, "no site named %q (known sites: %s)", n, strings.Join(c.siteNames(), ", "))
		}
		want[n] = true
	}
	var out []Site
	for _, s := range c.Sites {
		if want[s.Name] {
			out = append(out, s)
		}
	}
	return out, nil
}

func (c *Config) siteNames() []string {
	names := make([]string, len(c.Sites))
	for i, s := range c.Sites {
		names[i] = s.Name
	}
	return names
}
