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
	// Unschedule sends {"status":status,"date":date} (the post's former
	// status and site-local date) to give back a post this run scheduled.
	Unschedule(ctx context.Context, id int, status wpclient.Status, date string) (wpclient.Post, error)
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
	// Sleep waits d or until ctx ends; nil uses a timer. Tests make it
	// instant.
	Sleep func(ctx context.Context, d time.Duration) error
	// Clock, when set, is read just before each write: a slot less than
	// a minute away by then is not written (WordPress would publish at
	// once). The plan itself never reads a clock.
	Clock func() time.Time
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
		// A filled slot must never look empty: an account that may not
		// read other users' posts gets a *wpclient.HiddenPostsError.
		Complete: true,
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
	q := wpclient.ListQuery{
		Statuses:    []wpclient.Status{p.Rules.queueStatus()},
		Categories:  p.Filter.Categories,
		Tags:        p.Filter.Tags,
		Authors:     p.Filter.Authors,
		OrderBy:     string(orderOr(p.Rules.Order)),
		Order:       "asc",
		WithContent: true,
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
// holder, no draft) and returns those slots with the holders (and
// missed-schedule posts, in Blocked) found now. A
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
			switch {
			case !s.Contains(h.DateGMT):
			case fills(h, plan.Now):
				sp.Holders = append(sp.Holders, h)
			case h.Status == wpclient.StatusFuture:
				sp.Blocked = append(sp.Blocked, h)
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
	// Preempted: just before the write, a fresh read showed the slot
	// already filled or the post changed since the plan (another run or a
	// person got there first); nothing was written.
	Preempted OutcomeKind = "preempted"
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
	// Winner is the post that kept the slot when Kind is Yielded or
	// Preempted (nil when the post itself changed).
	Winner *wpclient.Post
	// Note says why, for Preempted and Yielded.
	Note string
	Err  error
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
	// PostID is the post this run wrote, or 0 when the failure is not
	// about a write of this run (a slot found holding two posts).
	PostID int
	// GivenBack reports that the run gave its own post back to the queue
	// (so that runs reading the same stale answers cannot stack posts).
	GivenBack bool
	// What says what the site showed, e.g. `status "publish" (published at
	// once)` or `date_gmt 2026-11-30T22:00:00, want 2026-11-30T23:00:00`.
	What string
}

func (e *VerifyError) Error() string {
	if e.PostID == 0 {
		return fmt.Sprintf("verification failed: %s; wpqueue made no change", e.What)
	}
	if e.GivenBack {
		return fmt.Sprintf("verification failed for post %d: %s; wpqueue gave the post back to the queue and made no other change", e.PostID, e.What)
	}
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
	for i, a := range plan.Assignments() {
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
		if p.Clock != nil && a.Slot.At.Sub(p.Clock()) < time.Minute {
			o.Kind = Preempted
			o.Note = "the slot is less than a minute away by now (the run took long); WordPress would publish at once, so nothing was written"
			log.Warn(o.Note, "post_id", a.Post.ID, "slot", a.Slot.At)
			res.Outcomes = append(res.Outcomes, o)
			continue
		}
		if i > 0 {
			// The plan's reads are older now: another run may have filled
			// this slot, or taken or changed this post, meanwhile.
			if pre, err := p.preempted(ctx, site, plan.Now, a); err != nil || pre != nil {
				if err != nil {
					firstErr = err
					o.Kind, o.Err = Failed, err
				} else {
					o = *pre
					log.Warn("not written: "+o.Note, "post_id", a.Post.ID, "slot", a.Slot.At)
				}
				res.Outcomes = append(res.Outcomes, o)
				continue
			}
		}
		o = p.schedule(ctx, site, a)
		if o.Err != nil {
			firstErr = o.Err
			// The caller reports o.Err; log it only for --log-file.
			log.Debug("schedule failed", "post_id", a.Post.ID, "slot", a.Slot.At, "err", o.Err)
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

// preempted reads the slot and the post again just before a write that is
// not the plan's first. It returns a Preempted outcome when the slot holds
// a post now or the post is no longer as planned (status or modified_gmt
// changed: published by hand, taken by another run), nil to go ahead.
func (p *Publisher) preempted(ctx context.Context, site Writer, now time.Time, a Assignment) (*Outcome, error) {
	held, err := site.ListPosts(ctx, holderQuery([]Slot{a.Slot}))
	if err != nil {
		return nil, fmt.Errorf("re-read slot before writing post %d: %w", a.Post.ID, err)
	}
	for _, h := range held {
		if fills(h, now) && a.Slot.Contains(h.DateGMT) {
			return &Outcome{Assignment: a, Kind: Preempted, Post: a.Post, Winner: &h,
				Note: fmt.Sprintf("the slot was filled by post %d after the plan was made", h.ID)}, nil
		}
	}
	cur, err := site.GetPost(ctx, a.Post.ID)
	if err != nil {
		return nil, fmt.Errorf("re-read post %d before writing: %w", a.Post.ID, err)
	}
	if cur.Status != a.Post.Status || !cur.ModifiedGMT.Equal(a.Post.ModifiedGMT) {
		return &Outcome{Assignment: a, Kind: Preempted, Post: cur,
			Note: fmt.Sprintf("post %d changed after the plan was made (now %s)", cur.ID, describe(cur))}, nil
	}
	return nil, nil
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
	// A 4xx other than 408/429 refused the request: nothing was written.
	// WordPress answers JSON (APIError); a firewall in front answers HTML
	// (NotJSONError, e.g. a WAF's 403), which must not be re-sent either.
	refused := func(status int) bool { return status >= 400 && status < 500 && status != 408 && status != 429 }
	var ae *wpclient.APIError
	if errors.As(err, &ae) && refused(ae.Status) {
		return false
	}
	var nj *wpclient.NotJSONError
	if errors.As(err, &nj) && refused(nj.Status) {
		return false
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
	// A read replica or a cache may lag behind our writes: when a written
	// post is missing from the listing, look again after a pause before
	// deciding anything from its absence.
	var after Plan
	for try := 0; ; try++ {
		held, err := site.ListPosts(ctx, holderQuery(slots))
		if err != nil {
			return fmt.Errorf("verification read: %w", err)
		}
		after = Decide(res.Plan.Now, p.Rules, held)
		if try == len(lagWaits) || !missingWrite(res.Outcomes, after) {
			break
		}
		log.Info("the verification read does not show our write yet; reading again", "wait", lagWaits[try])
		if err := p.sleep(ctx, lagWaits[try]); err != nil {
			return fmt.Errorf("verification read: %w", err)
		}
	}
	res.Verified = after.Slots

	var firstErr error
	fail := func(o *Outcome, err error) {
		o.Kind, o.Err = Failed, err
		if firstErr == nil {
			firstErr = err
		}
	}
	for i := range res.Outcomes {
		o := &res.Outcomes[i]
		if o.Kind != Scheduled {
			continue
		}
		sp := slotOf(after, o.Slot)
		holders := sp.Holders
		if !slices.ContainsFunc(holders, func(h wpclient.Post) bool { return h.ID == o.Post.ID }) {
			// The listing does not show our post in its slot. Ask for the
			// post itself: a listing can lag or be cached, a single post
			// read less so.
			cur, err := site.GetPost(ctx, o.Post.ID)
			switch {
			case err == nil && cur.Status == wpclient.StatusFuture && cur.DateGMT.Equal(o.Slot.At) && len(holders) > 0:
				holders = append(slices.Clone(holders), cur) // still ours, beside another post
			case err == nil && len(holders) > 0:
				// Another run scheduled our post elsewhere or gave it back
				// after our write; the slot holds another post.
				w := holders[0]
				o.Kind, o.Winner, o.Post = Yielded, &w, cur
				o.Note = fmt.Sprintf("after our write the post changed (now %s); the slot holds post %d", describe(cur), w.ID)
				log.Warn(o.Note, "post_id", o.Post.ID, "slot", o.Slot.At)
				continue
			default:
				fail(o, p.notListed(ctx, site, o))
				continue
			}
		}
		if len(holders) == 1 {
			continue
		}
		winner := p.winner(res.Plan, o.Post, holders)
		if winner.ID == o.Post.ID {
			log.Warn("slot holds two posts; ours comes first and stays, the other run gives its post back", "post_id", o.Post.ID, "slot", o.Slot.At)
			continue
		}
		log.Warn("slot already filled by another post; giving ours back to the queue", "post_id", o.Post.ID, "winner", winner.ID, "slot", o.Slot.At)
		w := winner
		o.Winner = &w
		back, err := p.giveBack(ctx, site, o)
		if err != nil {
			fail(o, fmt.Errorf("slot %s holds posts %d and %d; giving back post %d failed: %w",
				o.Slot.At.Format(time.RFC3339), winner.ID, o.Post.ID, o.Post.ID, err))
			continue
		}
		o.Kind, o.Post = Yielded, back
		o.Note = fmt.Sprintf("the slot was filled by post %d", winner.ID)
	}
	return firstErr
}

// lagWaits are the pauses before reading the slots again when the
// verification read does not show our write (replica lag).
var lagWaits = []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond}

func (p *Publisher) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
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

// missingWrite reports whether a post this run scheduled is not among its
// slot's holders in after.
func missingWrite(outs []Outcome, after Plan) bool {
	for _, o := range outs {
		if o.Kind != Scheduled {
			continue
		}
		if !slices.ContainsFunc(slotOf(after, o.Slot).Holders, func(h wpclient.Post) bool { return h.ID == o.Post.ID }) {
			return true
		}
	}
	return false
}

func slotOf(p Plan, s Slot) SlotPlan {
	for _, v := range p.Slots {
		if v.Slot.At.Equal(s.At) {
			return v
		}
	}
	return SlotPlan{Slot: s}
}

// giveBack returns our post to the queue (former status and local date).
// If the update fails, it reads the post: already back means done; still
// scheduled at our slot means it sends the update once more.
func (p *Publisher) giveBack(ctx context.Context, site Writer, o *Outcome) (wpclient.Post, error) {
	back, err := site.Unschedule(ctx, o.Post.ID, o.Assignment.Post.Status, o.Assignment.Post.Date)
	if err == nil && back.Status == o.Assignment.Post.Status {
		return back, nil
	}
	cur, rerr := site.GetPost(ctx, o.Post.ID)
	switch {
	case rerr != nil:
	case cur.Status == o.Assignment.Post.Status:
		return cur, nil
	case cur.Status == wpclient.StatusFuture && cur.DateGMT.Equal(o.Slot.At):
		back, err = site.Unschedule(ctx, o.Post.ID, o.Assignment.Post.Status, o.Assignment.Post.Date)
		if err == nil && back.Status == o.Assignment.Post.Status {
			return back, nil
		}
	}
	if err == nil {
		err = &VerifyError{PostID: o.Post.ID, What: "giving it back to the queue answered " + describe(back)}
	}
	return wpclient.Post{}, err
}

// winner picks which of a slot's holders stays, by a rule every run
// computes alike from what it can see. Our post stays only if every other
// holder was queued in our snapshot (so its writer is another run, not a
// person) and has a higher post id; otherwise we yield.
//
// Why the other run then yields too: it wrote after reading the slot empty,
// and it read the queue either before our write (it saw ours queued with
// the lower id) or after it (it never saw ours queued); by this same rule
// it yields in both cases, provided its verification read comes after our
// write. With ahead = 1 and queue order id that always holds: had it read
// the queue while ours was queued it would have chosen ours (lower id,
// same order), so it read the queue after our write and verifies after
// that. Post ids, unlike dates, modification times or titles, cannot
// change between two runs' reads, so both runs compare alike even when the
// queue order is date, modified or title. See docs/architecture.md for the
// remaining window with ahead > 1.
func (p *Publisher) winner(plan Plan, mine wpclient.Post, holders []wpclient.Post) wpclient.Post {
	seen := map[int]bool{}
	for _, sp := range plan.Slots {
		if sp.Draft != nil {
			seen[sp.Draft.ID] = true
		}
	}
	for _, q := range plan.Queue {
		seen[q.ID] = true
	}
	for _, h := range holders {
		if h.ID == mine.ID {
			continue
		}
		if !seen[h.ID] || h.ID < mine.ID {
			return h
		}
	}
	return mine
}

// notListed explains a written post that the verification read does not
// show in its slot while no other post holds it. It reads the post by id:
// if the post is future at the slot, the listing is stale (a cache in
// front of the REST API answered from its store) and the run gives its
// post back to the queue, so that later runs, reading the same stale
// listing, cannot stack posts into the slot; otherwise the post changed
// meanwhile and is left as it is. Either way the result is a *VerifyError.
func (p *Publisher) notListed(ctx context.Context, site Writer, o *Outcome) error {
	cur, err := site.GetPost(ctx, o.Post.ID)
	if err != nil {
		return &VerifyError{PostID: o.Post.ID, What: fmt.Sprintf("the update was accepted but a re-read of the slot does not show the post, and reading the post failed (%v)", err)}
	}
	if cur.Status != wpclient.StatusFuture || !cur.DateGMT.Equal(o.Slot.At) {
		o.Post = cur
		return &VerifyError{PostID: o.Post.ID, What: "the post changed right after the update: it now shows " + describe(cur)}
	}
	back, err := site.Unschedule(ctx, o.Post.ID, o.Assignment.Post.Status, o.Assignment.Post.Date)
	if err != nil || back.Status != o.Assignment.Post.Status {
		return &VerifyError{PostID: o.Post.ID, What: fmt.Sprintf("the post is scheduled but the listing of the slot does not show it: answers look cached (a page cache in front of the REST API); giving the post back to the queue failed too (%v), so check the slot by hand", err)}
	}
	o.Post = back
	return &VerifyError{PostID: o.Post.ID, GivenBack: true, What: "the post is scheduled but the listing of the slot does not show it: answers look cached (a page cache or CDN in front of the REST API; exclude /wp-json/ and ?rest_route= from caching)"}
}
