package publisher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/wpqueue/wpqueue/wpclient"
)

// Reader is the read side of a site. *wpclient.Client satisfies it.
type Reader interface {
	// ListPosts returns every post matching q (all pages).
	ListPosts(ctx context.Context, q wpclient.ListQuery) ([]wpclient.Post, error)
	// GetPost returns one post; an error wrapping wpclient.ErrNotFound if
	// it does not exist.
	GetPost(ctx context.Context, id int) (wpclient.Post, error)
}

// Writer is a site wpqueue may change. *wpclient.Client satisfies it. Its
// two writes change only a post's status and date, never its content.
type Writer interface {
	Reader
	// SchedulePost sends {"status":"future","date_gmt":at} for post id and
	// returns the post as the site answered. It is never retried blindly.
	SchedulePost(ctx context.Context, id int, at time.Time) (wpclient.Post, error)
	// SetDraft sends {"status":"draft","date":date} (date site-local, the
	// post's former date) to give back a post this run scheduled.
	SetDraft(ctx context.Context, id int, date string) (wpclient.Post, error)
}

// Filter narrows the queue; ids already resolved from slugs. Empty means
// any.
type Filter struct {
	Categories, Tags, Authors []int
}

// readMargin widens the REST after/before bounds: WordPress compares them
// with the site-local post_date, which differs from UTC by at most 14 h.
const readMargin = 26 * time.Hour

// Publisher reads a site, plans, applies and verifies. Its zero Log
// discards.
type Publisher struct {
	Rules  Rules
	Filter Filter
	Log    *slog.Logger
	// ReadQueue makes Plan read the queue even when every slot is filled
	// (for reports that show the queue).
	ReadQueue bool
	// ExtraQueue is how many publishable posts beyond those needed to fill
	// the empty slots the queue read should try to see, so the queue
	// length can be reported (e.g. alerts.low_queue). Paging stops once
	// that many (plus room for skipped ones) were read.
	ExtraQueue int
}

func (p *Publisher) log() *slog.Logger {
	if p.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return p.Log
}

// holderQuery lists the posts that may fill any of slots.
func holderQuery(slots []Slot) wpclient.ListQuery {
	return wpclient.ListQuery{
		Statuses: []wpclient.Status{wpclient.StatusFuture, wpclient.StatusPublish, wpclient.StatusPrivate},
		After:    slots[0].Start.Add(-readMargin),
		Before:   slots[len(slots)-1].End.Add(readMargin),
		OrderBy:  "date",
	}
}

// Plan reads the site and decides. It reads the slot holders first and the
// queue only if a slot is empty (so a no-op run costs one listing). The
// holder listing also proves the credentials: WordPress answers it with
// 400 rest_forbidden_status for an anonymous request.
//
// It returns the plan and the posts it read. Errors come from site
// unchanged (wrapped with what was being read).
func (p *Publisher) Plan(ctx context.Context, site Reader, now time.Time) (Plan, error) {
	if err := p.Rules.Schedule.Validate(); err != nil {
		return Plan{}, err
	}
	slots := Slots(now, p.Rules.Schedule)
	held, err := site.ListPosts(ctx, holderQuery(slots))
	if err != nil {
		return Plan{}, fmt.Errorf("read scheduled posts: %w", err)
	}
	plan := Decide(now, p.Rules, held)
	if !plan.NeedsQueue() && !p.ReadQueue {
		return plan, nil
	}
	empty := len(plan.Empty())
	q := wpclient.ListQuery{
		Statuses:    []wpclient.Status{p.Rules.queueStatus()},
		Categories:  p.Filter.Categories,
		Tags:        p.Filter.Tags,
		Authors:     p.Filter.Authors,
		OrderBy:     string(orderOr(p.Rules.Order)),
		Order:       "asc",
		WithContent: true,
		Limit:       empty + p.ExtraQueue + 100,
	}
	queue, err := site.ListPosts(ctx, q)
	if err != nil {
		return Plan{}, fmt.Errorf("read queued posts: %w", err)
	}
	posts := append(slices.Clip(held), queue...)
	plan = Decide(now, p.Rules, posts)
	plan.QueueRead = true
	if plan.Queue == nil {
		plan.Queue = []wpclient.Post{}
	}
	return plan, nil
}

// Recheck re-reads the slot holders of the slots plan left empty (no
// holder, no draft) and returns those slots with the holders found now. A
// run that found a slot empty and the queue dry calls it before reporting
// "no publishable draft": another run may have filled the slot after this
// run's first read (it took the last draft before this run read the
// queue). One listing.
func (p *Publisher) Recheck(ctx context.Context, site Reader, plan Plan) ([]SlotPlan, error) {
	empty := plan.Empty()
	if len(empty) == 0 {
		return nil, nil
	}
	held, err := site.ListPosts(ctx, holderQuery(empty))
	if err != nil {
		return nil, fmt.Errorf("re-read scheduled posts: %w", err)
	}
	out := make([]SlotPlan, 0, len(empty))
	for _, s := range empty {
		sp := SlotPlan{Slot: s}
		for _, h := range held {
			if fills(h, plan.Now) && s.Contains(h.DateGMT) {
				sp.Holders = append(sp.Holders, h)
			}
		}
		out = append(out, sp)
	}
	return out, nil
}

func orderOr(o Order) Order {
	if o == "" {
		return OrderID
	}
	return o
}

// OutcomeKind says what happened to one assignment.
type OutcomeKind string

// The outcomes of an assignment.
const (
	// Scheduled: the update's answer (or a re-read after a lost answer)
	// shows the post future at the slot, and the verification read shows
	// it alone in the slot.
	Scheduled OutcomeKind = "scheduled"
	// Yielded: after our write the slot held another post that wins (one
	// this run did not see in the queue, or earlier in queue order); this
	// run set its own post back to draft.
	Yielded OutcomeKind = "yielded"
	// Failed: see Outcome.Err.
	Failed OutcomeKind = "failed"
	// Unknown: the run was stopped (interrupt or deadline) while the
	// update was in flight; the site may or may not have applied it.
	Unknown OutcomeKind = "unknown"
	// NotRun: an earlier failure stopped the run before this assignment.
	NotRun OutcomeKind = "not-run"
)

// Outcome is what happened to one assignment.
type Outcome struct {
	Assignment
	Kind OutcomeKind
	// Post is the post as the site last showed it.
	Post wpclient.Post
	// Retried reports that the update was sent a second time after the
	// first answer was lost and a re-read showed the post unchanged.
	Retried bool
	// Winner is the post that kept the slot when Kind is Yielded.
	Winner *wpclient.Post
	Err    error
}

// Result is the outcome of [Publisher.Apply].
type Result struct {
	Plan     Plan
	Outcomes []Outcome
	// Verified holds the slots as the verification read showed them, or
	// nil when nothing was written.
	Verified []SlotPlan
}

// VerifyError reports that the site does not show what was written: the
// update's answer, or the verification read, disagrees. wpqueue makes no
// further change after it. The CLI maps it to exit status 5.
type VerifyError struct {
	PostID int
	// What says what the site showed, e.g. `status "publish" (published at
	// once)` or `date_gmt 2026-11-30T22:00:00, want 2026-11-30T23:00:00`.
	What string
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("verification failed for post %d: %s; wpqueue made no further change", e.PostID, e.What)
}

// ErrVerify matches every *VerifyError with errors.Is.
var ErrVerify = errors.New("verification failed")

// Is makes errors.Is(err, ErrVerify) true.
func (e *VerifyError) Is(target error) bool { return target == ErrVerify }

// Apply executes plan's assignments in slot order, then verifies.
//
// For each assignment it sends one update (status=future, date_gmt = the
// slot, UTC) and checks the answer shows exactly that. If the update fails
// or its answer is lost or unreadable, it re-reads that post id: future at
// the slot means the write took; still queued means it sends the same
// update once more; anything else stops the run. It never picks another
// post. Credentials errors and refused redirects stop at once.
//
// After the writes, one listing re-reads the slots: each must hold exactly
// one post. If a slot holds our post and another, our post stays only if
// every other holder was in our queue snapshot later in queue order (its
// writer yields); otherwise this run sets its own post back to draft at
// its former date and reports [Yielded]. Apply never touches a post it did
// not write in this call.
//
// The returned error is the first failure (wrapping a *VerifyError for a
// disagreeing site); Result lists every outcome either way.
func (p *Publisher) Apply(ctx context.Context, site Writer, plan Plan) (Result, error) {
	log := p.log()
	res := Result{Plan: plan}
	var firstErr error
	for _, a := range plan.Assignments() {
		o := Outcome{Assignment: a, Post: a.Post}
		if firstErr != nil {
			o.Kind = NotRun
			res.Outcomes = append(res.Outcomes, o)
			continue
		}
		if err := ctx.Err(); err != nil {
			firstErr = err
			o.Kind, o.Err = NotRun, err
			res.Outcomes = append(res.Outcomes, o)
			continue
		}
		o = p.schedule(ctx, site, a)
		if o.Err != nil {
			firstErr = o.Err
			log.Error("schedule failed", "post_id", a.Post.ID, "slot", a.Slot.At, "err", o.Err)
		} else {
			log.Info("scheduled", "post_id", a.Post.ID, "slot", a.Slot.At, "retried", o.Retried)
		}
		res.Outcomes = append(res.Outcomes, o)
	}
	wrote := false
	for _, o := range res.Outcomes {
		if o.Kind == Scheduled {
			wrote = true
		}
	}
	if !wrote {
		return res, firstErr
	}
	if err := p.verify(ctx, site, &res); err != nil && firstErr == nil {
		firstErr = err
	}
	return res, firstErr
}

// schedule sends one update and settles it, re-reading after a failure.
func (p *Publisher) schedule(ctx context.Context, site Writer, a Assignment) Outcome {
	o := Outcome{Assignment: a, Post: a.Post, Kind: Failed}
	got, err := site.SchedulePost(ctx, a.Post.ID, a.Slot.At)
	if err != nil {
		if ctx.Err() != nil {
			o.Kind = Unknown
			o.Err = fmt.Errorf("stopped while scheduling post %d; the site may have applied the update: run `wpqueue status` to see: %w", a.Post.ID, err)
			return o
		}
		if !settleable(err) {
			o.Err = fmt.Errorf("schedule post %d: %w", a.Post.ID, err)
			return o
		}
		p.log().Warn("update failed or its answer was lost; re-reading the post", "post_id", a.Post.ID, "err", err)
		cur, rerr := site.GetPost(ctx, a.Post.ID)
		switch {
		case rerr != nil:
			o.Err = fmt.Errorf("schedule post %d: %w (and the re-read failed: %v)", a.Post.ID, err, rerr)
			return o
		case cur.Status == wpclient.StatusFuture && cur.DateGMT.Equal(a.Slot.At):
			got = cur // the write took; the answer was lost
		case cur.Status == a.Post.Status:
			o.Retried = true
			got, err = site.SchedulePost(ctx, a.Post.ID, a.Slot.At)
			if err != nil {
				o.Err = fmt.Errorf("schedule post %d (second try after re-read): %w", a.Post.ID, err)
				return o
			}
		default:
			o.Post = cur
			o.Err = &VerifyError{PostID: a.Post.ID, What: fmt.Sprintf("after a failed update the post shows %s; it changed outside this run", describe(cur))}
			return o
		}
	}
	o.Post = got
	if got.Status != wpclient.StatusFuture || !got.DateGMT.Equal(a.Slot.At) {
		o.Err = &VerifyError{PostID: a.Post.ID, What: fmt.Sprintf("asked for status future at date_gmt %s, the site answered %s", a.Slot.At.Format(wpclient.DateLayout), describe(got))}
		return o
	}
	o.Kind = Scheduled
	return o
}

// settleable reports whether after err the write may or may not have
// taken, so a re-read must settle it.
func settleable(err error) bool {
	var re *wpclient.RedirectError
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, wpclient.ErrCredentials),
		errors.Is(err, wpclient.ErrReadOnly), errors.As(err, &re):
		return false
	}
	var ae *wpclient.APIError
	if errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 500 && ae.Status != 408 && ae.Status != 429 {
		return false // WordPress refused it; nothing was written
	}
	return true
}

func describe(p wpclient.Post) string {
	s := fmt.Sprintf("status %q at date_gmt %s", p.Status, p.DateGMT.Format(wpclient.DateLayout))
	if p.Status == wpclient.StatusPublish {
		s += " (published at once)"
	}
	return s
}

// verify re-reads the slots of the written assignments and resolves a slot
// that holds our post and another.
func (p *Publisher) verify(ctx context.Context, site Writer, res *Result) error {
	log := p.log()
	var slots []Slot
	for _, sp := range res.Plan.Slots {
		slots = append(slots, sp.Slot)
	}
	held, err := site.ListPosts(ctx, holderQuery(slots))
	if err != nil {
		return fmt.Errorf("verification read: %w", err)
	}
	after := Decide(res.Plan.Now, p.Rules, held)
	res.Verified = after.Slots

	var firstErr error
	for i := range res.Outcomes {
		o := &res.Outcomes[i]
		if o.Kind != Scheduled {
			continue
		}
		var sp SlotPlan
		for _, v := range after.Slots {
			if v.Slot.At.Equal(o.Slot.At) {
				sp = v
			}
		}
		mine := slices.IndexFunc(sp.Holders, func(h wpclient.Post) bool { return h.ID == o.Post.ID })
		if mine < 0 && len(sp.Holders) > 0 {
			// Another run scheduled our post elsewhere after our write (it
			// read the queue before we did) and the slot holds another
			// post: the slot is filled, and the post is that run's now.
			w := sp.Holders[0]
			o.Kind, o.Winner = Yielded, &w
			log.Warn("after our write another run moved our post; the slot is held by another post", "post_id", o.Post.ID, "holder", w.ID, "slot", o.Slot.At)
			continue
		}
		if mine < 0 {
			o.Kind = Failed
			o.Err = &VerifyError{PostID: o.Post.ID, What: "the update was accepted but a re-read of the slot does not show the post; answers look cached (a page cache in front of the REST API) or the post was changed meanwhile"}
			if firstErr == nil {
				firstErr = o.Err
			}
			continue
		}
		if len(sp.Holders) == 1 {
			continue
		}
		winner := p.winner(res.Plan, o.Post, sp.Holders)
		if winner.ID == o.Post.ID {
			log.Warn("slot holds two posts; ours is first in queue order and stays, the other run yields", "post_id", o.Post.ID, "slot", o.Slot.At)
			continue
		}
		log.Warn("slot already filled by another post; setting ours back to draft", "post_id", o.Post.ID, "winner", winner.ID, "slot", o.Slot.At)
		back, err := site.SetDraft(ctx, o.Post.ID, o.Assignment.Post.Date)
		w := winner
		o.Winner = &w
		if err != nil || back.Status != o.Assignment.Post.Status && back.Status != wpclient.StatusDraft {
			o.Kind = Failed
			if err == nil {
				err = &VerifyError{PostID: o.Post.ID, What: "setting it back to draft answered " + describe(back)}
			}
			o.Err = fmt.Errorf("slot %s holds posts %d and %d; giving back post %d failed: %w",
				o.Slot.At.Format(time.RFC3339), winner.ID, o.Post.ID, o.Post.ID, err)
			if firstErr == nil {
				firstErr = o.Err
			}
			continue
		}
		o.Kind = Yielded
		o.Post = back
	}
	return firstErr
}

// winner picks which of a slot's holders stays, by a rule every run
// computes alike. Our post stays only if every other holder was in our
// queue snapshot, later than ours in queue order. Why this converges: a run
// reads the slot before the queue, so a run that put a later post into the
// same slot read that slot before our write; it read the queue either
// before our write, and so saw ours ahead of its own, or after it, and so
// did not see ours in the queue at all: either way it yields by this same
// rule. A holder we never saw in the queue (published by hand,
// or scheduled by a run that wrote before we read the queue) wins.
func (p *Publisher) winner(plan Plan, mine wpclient.Post, holders []wpclient.Post) wpclient.Post {
	pos := map[int]int{}
	order := 0
	for _, sp := range plan.Slots {
		if sp.Draft != nil {
			pos[sp.Draft.ID] = order
			order++
		}
	}
	for _, q := range plan.Queue {
		pos[q.ID] = order
		order++
	}
	minePos := pos[mine.ID]
	for _, h := range holders {
		if h.ID == mine.ID {
			continue
		}
		hp, seen := pos[h.ID]
		if !seen || hp < minePos {
			return h
		}
	}
	return mine
}
