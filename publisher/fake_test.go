package publisher

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/wpqueue/wpqueue/wpclient"
)

// fakeSite is an in-memory WordPress for Apply tests. It records every call
// and behaves like WordPress where it matters: a future date not after
// now+1min publishes at once; after/before filter on the date.
type fakeSite struct {
	now   time.Time
	posts map[int]wpclient.Post
	calls []string

	// onSchedule, when set, replaces the default write. apply writes the
	// post as WordPress would.
	onSchedule func(f *fakeSite, n int, id int, at time.Time) (wpclient.Post, error)
	// afterWrite runs after every successful SchedulePost (e.g. another
	// run's write landing).
	afterWrite func(f *fakeSite)
	// frozen, when set, is returned by ListPosts instead of the live posts
	// (a cache in front of the site).
	frozen   map[int]wpclient.Post
	schedule int
}

func newFake(now time.Time, posts ...wpclient.Post) *fakeSite {
	f := &fakeSite{now: now, posts: map[int]wpclient.Post{}}
	for _, p := range posts {
		f.posts[p.ID] = p
	}
	return f
}

func (f *fakeSite) ListPosts(_ context.Context, q wpclient.ListQuery) ([]wpclient.Post, error) {
	var st []string
	for _, s := range q.Statuses {
		st = append(st, string(s))
	}
	f.calls = append(f.calls, fmt.Sprintf("list %v", st))
	src := f.posts
	if f.frozen != nil {
		src = f.frozen
	}
	var out []wpclient.Post
	for _, p := range src {
		if !slices.Contains(q.Statuses, p.Status) {
			continue
		}
		if !q.After.IsZero() && !p.DateGMT.After(q.After) || !q.Before.IsZero() && !p.DateGMT.Before(q.Before) {
			continue
		}
		out = append(out, p)
	}
	SortQueue(out, OrderID)
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

func (f *fakeSite) GetPost(_ context.Context, id int) (wpclient.Post, error) {
	f.calls = append(f.calls, fmt.Sprintf("get %d", id))
	p, ok := f.posts[id]
	if !ok {
		return wpclient.Post{}, wpclient.ErrNotFound
	}
	return p, nil
}

// apply writes status=future at `at` as WordPress does.
func (f *fakeSite) apply(id int, at time.Time) wpclient.Post {
	p := f.posts[id]
	p.DateGMT = at
	p.Status = wpclient.StatusFuture
	if !at.After(f.now.Add(time.Minute)) {
		p.Status = wpclient.StatusPublish
	}
	f.posts[id] = p
	return p
}

func (f *fakeSite) SchedulePost(_ context.Context, id int, at time.Time) (wpclient.Post, error) {
	f.calls = append(f.calls, fmt.Sprintf("schedule %d %s", id, at.Format(wpclient.DateLayout)))
	f.schedule++
	var p wpclient.Post
	var err error
	if f.onSchedule != nil {
		p, err = f.onSchedule(f, f.schedule, id, at)
	} else {
		p = f.apply(id, at)
	}
	if err == nil && f.afterWrite != nil {
		f.afterWrite(f)
	}
	return p, err
}

func (f *fakeSite) Unschedule(_ context.Context, id int, status wpclient.Status, date string) (wpclient.Post, error) {
	f.calls = append(f.calls, fmt.Sprintf("%s %d %s", status, id, date))
	p := f.posts[id]
	p.Status = status
	p.Date = date
	f.posts[id] = p
	return p, nil
}

var _ Writer = (*fakeSite)(nil)
