package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/wpqueue/wpqueue/config"
	"github.com/wpqueue/wpqueue/lockfile"
	"github.com/wpqueue/wpqueue/publisher"
	"github.com/wpqueue/wpqueue/wpclient"
)

// siteEnv is one site, ready to plan against.
type siteEnv struct {
	client *wpclient.Client
	loc    *time.Location
	source publisher.ZoneSource
	pub    *publisher.Publisher
}

// openSite builds the client and the publisher for s. After a failure that
// follows the client's creation it returns the error with an env that holds
// only the client, so the report can count the requests sent. It asks the site for
// its index only when schedule.timezone is unset (the index carries
// timezone_string and gmt_offset), and for term ids only when the queue is
// filtered by a category or tag slug.
func (a *app) openSite(ctx context.Context, s config.Site, readOnly bool, log *slog.Logger) (*siteEnv, error) {
	if s.Site.Password.Reveal() == "" {
		key, env := "site.password", "WPQUEUE_SITE_PASSWORD"
		if s.Name != config.DefaultSiteName {
			key = "sites." + s.Name + ".site.password"
		}
		return nil, &usageError{fmt.Sprintf("config: %s is not set: create an application password in wp-admin (Users → Profile → Application Passwords) and put it in %s, site.password_file or the config file", key, env)}
	}
	c, err := newClient(s, a.httpClient, readOnly, log)
	if err != nil {
		return nil, &usageError{"config: " + err.Error()}
	}
	var idx wpclient.Index
	if s.Schedule.Timezone == "" {
		if idx, err = c.Index(ctx); err != nil {
			return &siteEnv{client: c}, err
		}
	}
	loc, src, err := publisher.SiteLocation(s.Schedule.Timezone, idx)
	if err != nil {
		return nil, &usageError{"config: " + err.Error()}
	}
	if src == publisher.ZoneFromGMTOffset && idx.GMTOffset != 0 {
		log.Warn("the site uses a manual UTC offset, which has no daylight saving time; set a city in Settings → General or schedule.timezone", "gmt_offset", idx.GMTOffset)
	}
	var filter publisher.Filter
	if s.Queue.Category != "" {
		id, err := c.TermID(ctx, "categories", s.Queue.Category)
		if err != nil {
			return &siteEnv{client: c}, fmt.Errorf("queue.category: %w", err)
		}
		filter.Categories = []int{id}
	}
	if s.Queue.Tag != "" {
		id, err := c.TermID(ctx, "tags", s.Queue.Tag)
		if err != nil {
			return &siteEnv{client: c}, fmt.Errorf("queue.tag: %w", err)
		}
		filter.Tags = []int{id}
	}
	if s.Queue.Author != "" {
		id, err := strconv.Atoi(s.Queue.Author)
		if err != nil {
			return nil, &usageError{fmt.Sprintf("config: queue.author %q is not a numeric user id", s.Queue.Author)}
		}
		filter.Authors = []int{id}
	}
	rules := publisher.Rules{
		Schedule: publisher.Schedule{
			Location: loc,
			Days:     s.Schedule.Days,
			Ahead:    s.Schedule.Ahead,
			Lead:     s.Schedule.Lead,
		},
		QueueStatus: wpclient.Status(s.Queue.Status),
		Order:       publisher.Order(s.Queue.Order),
	}
	for _, t := range s.Schedule.Times {
		rules.Schedule.Times = append(rules.Schedule.Times, publisher.Clock{Hour: t.Hour, Minute: t.Minute})
	}
	return &siteEnv{
		client: c,
		loc:    loc,
		source: src,
		pub:    &publisher.Publisher{Rules: rules, Filter: filter, Log: log, Clock: a.now},
	}, nil
}

// lockSite takes the site's lock: lock.path, else a per-user file keyed by
// the site URL. wait 0 tries once.
func lockSite(ctx context.Context, s config.Site, wait time.Duration, log *slog.Logger) (*lockfile.Lock, error) {
	path := s.Lock.Path
	if path == "" {
		p, err := lockfile.PathFor(s.Site.URL)
		if err != nil {
			return nil, err
		}
		path = p
	}
	if lockfile.IsUnderTemp(path) {
		log.Warn("lock.path is under a temporary directory: cleaners such as systemd-tmpfiles may delete it, and systemd's PrivateTmp= gives a service its own copy, so a timer and a manual run would not exclude each other", "path", path)
	}
	lk, err := lockfile.Acquire(ctx, path, 0)
	if err == nil || wait <= 0 || !errors.Is(err, lockfile.ErrLocked) {
		return lk, err
	}
	log.Warn("another run holds the lock; waiting for it", "path", path, "wait", wait)
	return lockfile.Acquire(ctx, path, wait)
}
