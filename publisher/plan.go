package publisher

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/wpqueue/wpqueue/wpclient"
)

// Order is the queue order: which draft goes first. Ties are always broken
// by post id, ascending.
type Order string

// The queue orders. All are ascending: oldest, or A before Z, first.
const (
	OrderID       Order = "id"       // creation order
	OrderDate     Order = "date"     // the draft's date (date_gmt)
	OrderModified Order = "modified" // last modified (modified_gmt)
	OrderTitle    Order = "title"    // raw title, case-insensitive
)

// Rules is everything besides the clock and the posts that [Decide] needs.
type Rules struct {
	Schedule Schedule
	// QueueStatus is the status of queued posts: draft (default) or pending.
	QueueStatus wpclient.Status
	// Order is the queue order; empty means [OrderID].
	Order Order
}

func (r Rules) queueStatus() wpclient.Status {
	if r.QueueStatus == "" {
		return wpclient.StatusDraft
	}
	return r.QueueStatus
}

// Plan is the outcome of [Decide]: a value that says what a run would do,
// rendered by --dry-run and executed by [Publisher.Apply].
type Plan struct {
	// Now is the instant the plan was made for, UTC.
	Now time.Time
	// Slots are the upcoming slots in time order.
	Slots []SlotPlan
	// Missed are posts with status future whose date_gmt is not after Now:
	// WordPress missed their schedule (WP-Cron did not run). They never
	// fill an upcoming slot and wpqueue never changes them. Sorted by
	// date_gmt, then id.
	Missed []wpclient.Post
	// Skipped are queued posts that are never scheduled, with the reason
	// (empty title or empty content). Queue order.
	Skipped []Skip
	// Queue is the publishable queue left after this plan's assignments,
	// in queue order. It is nil when the plan was made without reading
	// the queue (every slot was already filled).
	Queue []wpclient.Post
	// QueueRead reports whether the queue was part of the input.
	QueueRead bool
}

// SlotPlan is one upcoming slot and what fills it.
type SlotPlan struct {
	Slot Slot
	// Holders are the posts that fill the slot now (status future with a
	// date after Now, publish or private, dated inside the window),
	// nearest to the slot instant first (ties: earlier date_gmt, then id). More than one means the slot already holds two
	// posts; wpqueue reports that and never adds a third.
	Holders []wpclient.Post
	// Draft is the queued post to schedule into the slot, or nil.
	Draft *wpclient.Post
	// Blocked lists missed-schedule posts dated inside the window (a
	// future post whose date passed before WP-Cron published it). They do
	// not fill the slot, but WordPress publishes them as soon as its cron
	// runs, so wpqueue puts nothing into a slot that has one: adding a
	// post would make two.
	Blocked []wpclient.Post
}

// Filled reports whether the slot holds at least one post.
func (sp SlotPlan) Filled() bool { return len(sp.Holders) > 0 }

// Skip is a queued post that is never scheduled, and why.
type Skip struct {
	Post   wpclient.Post
	Reason string
}

// Assignment is one write the plan asks for: schedule Post at Slot.At.
type Assignment struct {
	Slot Slot
	Post wpclient.Post
}

// Assignments returns the writes the plan asks for, in slot order.
func (p Plan) Assignments() []Assignment {
	var out []Assignment
	for _, sp := range p.Slots {
		if sp.Draft != nil {
			out = append(out, Assignment{Slot: sp.Slot, Post: *sp.Draft})
		}
	}
	return out
}

// Empty returns the slots that are neither filled, blocked nor assigned a
// draft: the queue ran dry.
func (p Plan) Empty() []Slot {
	var out []Slot
	for _, sp := range p.Slots {
		if !sp.Filled() && len(sp.Blocked) == 0 && sp.Draft == nil {
			out = append(out, sp.Slot)
		}
	}
	return out
}

// NeedsQueue reports whether some slot is empty and unassigned, i.e.
// whether the queue must be read (or, if it was, ran dry).
func (p Plan) NeedsQueue() bool { return len(p.Empty()) > 0 }

// Decide decides which queued post goes into which empty upcoming slot.
// A slot is empty when no post fills it and no missed-schedule post is
// dated inside its window (see [SlotPlan.Blocked]).
//
// It is a pure function: the result depends only on its arguments; it
// reads no clock, does no I/O and does not modify posts. posts is
// everything read from the site, in any order: posts with status future,
// publish or private are slot holders (or missed, see [Plan.Missed]);
// posts with rules.QueueStatus are the queue; other statuses are ignored.
// The caller filters the queue by category, tag or author.
//
// Empty slots are filled in time order with the queue in rules.Order;
// a queued post with an empty (all-space) title or without content is
// skipped. A queued post is never assigned twice. A slot that has a holder
// is never assigned a draft.
func Decide(now time.Time, rules Rules, posts []wpclient.Post) Plan {
	now = now.UTC()
	plan := Plan{Now: now}
	slots := Slots(now, rules.Schedule)

	var holders, queue []wpclient.Post
	qs := rules.queueStatus()
	for _, p := range posts {
		switch {
		case p.Status == wpclient.StatusFuture && !p.DateGMT.After(now):
			plan.Missed = append(plan.Missed, p)
		case IsHolderStatus(p.Status):
			holders = append(holders, p)
		case p.Status == qs:
			plan.QueueRead = true
			queue = append(queue, p)
		}
	}
	slices.SortFunc(plan.Missed, byDateThenID)
	slices.SortFunc(holders, byDateThenID)
	SortQueue(queue, rules.Order)

	for _, s := range slots {
		sp := SlotPlan{Slot: s}
		for _, h := range holders {
			if s.Contains(h.DateGMT) {
				sp.Holders = append(sp.Holders, h)
			}
		}
		for _, m := range plan.Missed {
			if s.Contains(m.DateGMT) {
				sp.Blocked = append(sp.Blocked, m)
			}
		}
		slices.SortStableFunc(sp.Holders, func(a, b wpclient.Post) int {
			return cmp.Compare(absDur(a.DateGMT.Sub(s.At)), absDur(b.DateGMT.Sub(s.At)))
		})
		plan.Slots = append(plan.Slots, sp)
	}

	var publishable []wpclient.Post
	for _, q := range queue {
		if reason := unpublishable(q); reason != "" {
			plan.Skipped = append(plan.Skipped, Skip{Post: q, Reason: reason})
			continue
		}
		publishable = append(publishable, q)
	}
	for i := range plan.Slots {
		if plan.Slots[i].Filled() || len(plan.Slots[i].Blocked) > 0 || len(publishable) == 0 {
			continue
		}
		d := publishable[0]
		publishable = publishable[1:]
		plan.Slots[i].Draft = &d
	}
	if plan.QueueRead {
		plan.Queue = publishable
		if plan.Queue == nil {
			plan.Queue = []wpclient.Post{}
		}
	}
	return plan
}

// fills reports whether p fills the slot its date falls in, at now: a
// missed-schedule post (future, date not after now) does not.
func fills(p wpclient.Post, now time.Time) bool {
	return IsHolderStatus(p.Status) && !(p.Status == wpclient.StatusFuture && !p.DateGMT.After(now))
}

// IsHolderStatus reports whether a post with status s, dated inside a
// slot's window, fills the slot: future (not yet missed), publish or
// private.
func IsHolderStatus(s wpclient.Status) bool {
	return s == wpclient.StatusFuture || s == wpclient.StatusPublish || s == wpclient.StatusPrivate
}

func unpublishable(p wpclient.Post) string {
	switch {
	case strings.TrimSpace(p.Title) == "":
		return "empty title"
	case !p.HasContent:
		return "empty content"
	}
	return ""
}

func byDateThenID(a, b wpclient.Post) int {
	if c := a.DateGMT.Compare(b.DateGMT); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// SortQueue sorts posts in queue order o (ascending), ties broken by id.
// An unknown or empty order sorts by id.
func SortQueue(posts []wpclient.Post, o Order) {
	slices.SortStableFunc(posts, func(a, b wpclient.Post) int {
		var c int
		switch o {
		case OrderDate:
			c = a.DateGMT.Compare(b.DateGMT)
		case OrderModified:
			c = a.ModifiedGMT.Compare(b.ModifiedGMT)
		case OrderTitle:
			c = strings.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title))
			if c == 0 {
				c = strings.Compare(a.Title, b.Title)
			}
		}
		if c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
