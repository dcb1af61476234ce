package main

import (
	"fmt"
	"time"

	"github.com/wpqueue/wpqueue/config"
	"github.com/wpqueue/wpqueue/publisher"
	"github.com/wpqueue/wpqueue/wpclient"
)

// siteReport is what publish and status print for one site: the JSON
// object documented in README.md ("JSON output"), and the source of the
// text output.
type siteReport struct {
	Site    string `json:"site"`
	URL     string `json:"url"`
	Command string `json:"command"`
	DryRun  bool   `json:"dry_run"`
	// Now is the instant the plan was made for, UTC.
	Now            time.Time  `json:"now"`
	Timezone       string     `json:"timezone,omitempty"`
	TimezoneSource string     `json:"timezone_source,omitempty"`
	Slots          []slotView `json:"slots"`
	// Queue is the publishable queue after this run, in queue order
	// (status: the next drafts; publish: what is left). null when the
	// queue was not read because every slot was filled.
	Queue    []postView `json:"queue"`
	Missed   []postView `json:"missed"`
	Skipped  []skipView `json:"skipped"`
	Warnings []string   `json:"warnings"`
	// Requests is the number of HTTP requests this run sent to the site.
	Requests int64  `json:"requests"`
	ExitCode int    `json:"exit_code"`
	Error    string `json:"error,omitempty"`

	loc *time.Location
	// For the queue warning, made once the run is over (finish).
	lowQueue, emptySlots int
}

// Slot states in reports.
const (
	stateFilled    = "filled"    // held a post before this run
	stateScheduled = "scheduled" // this run scheduled a post into it
	statePlanned   = "planned"   // dry run: a run would schedule this post
	stateEmpty     = "empty"     // no publishable draft for it
	stateYielded   = "yielded"   // another run's post won; ours went back to draft
	stateFailed    = "failed"
	stateUnknown   = "unknown"   // interrupted while the update was in flight
	stateBlocked   = "blocked"   // a missed-schedule post in its window goes out when WP-Cron runs
	statePreempted = "preempted" // filled, or the post changed, just before our write
	stateNotRun    = "not-run"   // an earlier failure stopped the run
)

type slotView struct {
	// At is the slot instant, UTC; Local the same instant in the site
	// zone, RFC 3339 with the zone's offset.
	At    time.Time `json:"at"`
	Local string    `json:"local"`
	State string    `json:"state"`
	// Post is the post that fills (or would fill) the slot.
	Post *postView `json:"post,omitempty"`
	// Holders lists every post in the slot's window when there is more
	// than one.
	Holders []postView `json:"holders,omitempty"`
	// Winner is the other run's post when State is yielded.
	Winner *postView `json:"winner,omitempty"`
	Error  string    `json:"error,omitempty"`
}

type postView struct {
	ID int `json:"id"`
	// Title is the raw title (title.raw), exactly as typed.
	Title  string `json:"title"`
	Status string `json:"status"`
	// DateGMT is the post's date_gmt, UTC; DateLocal the same instant in
	// the site zone.
	DateGMT   time.Time `json:"date_gmt"`
	DateLocal string    `json:"date_local"`
	Link      string    `json:"link,omitempty"`
}

type skipView struct {
	postView
	Reason string `json:"reason"`
}

func newReport(s config.Site, command string, dryRun bool) *siteReport {
	return &siteReport{Site: s.Name, URL: s.Site.URL, Command: command, DryRun: dryRun,
		Slots: []slotView{}, Missed: []postView{}, Skipped: []skipView{}, Warnings: []string{}}
}

func (r *siteReport) view(p wpclient.Post) postView {
	v := postView{ID: p.ID, Title: p.Title, Status: string(p.Status), DateGMT: p.DateGMT, Link: p.Link}
	if r.loc != nil && !p.DateGMT.IsZero() {
		v.DateLocal = p.DateGMT.In(r.loc).Format(time.RFC3339)
	}
	return v
}

func (r *siteReport) viewPtr(p wpclient.Post) *postView { v := r.view(p); return &v }

func (r *siteReport) warn(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

// setZone records the zone slots are computed in.
func (r *siteReport) setZone(env *siteEnv) {
	r.loc = env.loc
	r.Timezone = env.loc.String()
	r.TimezoneSource = string(env.source)
	if env.source == publisher.ZoneFromGMTOffset && env.loc.String() != "UTC" {
		r.warn("the site uses a manual UTC offset (%s), which has no daylight saving time; pick a city in Settings → General, or set schedule.timezone", env.loc)
	}
}

// fromPlan fills slots, queue and warnings from a plan.
func (r *siteReport) fromPlan(p publisher.Plan, lowQueue int) {
	r.Now = p.Now.Truncate(time.Second)
	r.Slots = r.Slots[:0]
	for _, sp := range p.Slots {
		v := slotView{At: sp.Slot.At, Local: sp.Slot.At.In(r.loc).Format(time.RFC3339)}
		switch {
		case sp.Filled():
			v.State = stateFilled
			v.Post = r.viewPtr(sp.Holders[0])
			if len(sp.Holders) > 1 {
				for _, h := range sp.Holders {
					v.Holders = append(v.Holders, r.view(h))
				}
				r.warn("slot %s holds %d posts (%s); wpqueue adds no more and changes none of them", r.when(sp.Slot.At), len(sp.Holders), postList(sp.Holders))
			}
		case len(sp.Blocked) > 0:
			v.State = stateBlocked
			v.Post = r.viewPtr(sp.Blocked[0])
			r.warn("slot %s gets no post: missed-schedule post #%d %s is dated inside its window and goes out as soon as WP-Cron runs", r.when(sp.Slot.At), sp.Blocked[0].ID, quote(sp.Blocked[0].Title))
		case sp.Draft != nil:
			v.State = statePlanned
			v.Post = r.viewPtr(*sp.Draft)
		default:
			v.State = stateEmpty
		}
		r.Slots = append(r.Slots, v)
	}
	for _, m := range p.Missed {
		r.Missed = append(r.Missed, r.view(m))
		r.warn("missed schedule: post #%d %s was due %s and is still scheduled (WP-Cron did not run; a visit to the site or a real cron job calling wp-cron.php publishes it)", m.ID, quote(m.Title), r.when(m.DateGMT))
	}
	for _, s := range p.Skipped {
		r.Skipped = append(r.Skipped, skipView{postView: r.view(s.Post), Reason: s.Reason})
		r.warn("draft #%d %s is never scheduled: %s", s.Post.ID, quote(s.Post.Title), s.Reason)
	}
	if p.QueueRead {
		r.Queue = []postView{}
		for _, q := range p.Queue {
			r.Queue = append(r.Queue, r.view(q))
		}
	}
	r.lowQueue, r.emptySlots = lowQueue, len(p.Empty())
}

// finish adds the queue warning, once the queue in the report is final.
func (r *siteReport) finish() {
	if r.Queue == nil {
		return // not read: every slot was filled
	}
	switch n := len(r.Queue); {
	case n == 0 && r.emptySlots > 0:
		r.warn("the queue is empty: %d upcoming slot(s) will stay empty", r.emptySlots)
	case n == 0 && r.Command == "status":
		r.warn("the queue is empty: the next free slot will stay empty unless a draft is added")
	case n == 0:
		r.warn("the queue is empty after this run: the next free slot will stay empty unless a draft is added")
	case n < r.lowQueue:
		r.warn("the queue is low: %d publishable draft(s) left (alerts.low_queue is %d)", n, r.lowQueue)
	}
}

// fromResult overlays what Apply did on the planned slots.
func (r *siteReport) fromResult(res publisher.Result) {
	var back []postView
	for _, o := range res.Outcomes {
		if o.Kind != publisher.Scheduled && o.Kind != publisher.Unknown && o.Post.Status == o.Assignment.Post.Status {
			// Not written, or given back: still queued, ahead of the rest.
			back = append(back, r.view(o.Post))
		}
		for i := range r.Slots {
			if !r.Slots[i].At.Equal(o.Slot.At) {
				continue
			}
			v := &r.Slots[i]
			v.Post = r.viewPtr(o.Post)
			if o.Winner != nil {
				v.Winner = r.viewPtr(*o.Winner)
			}
			switch o.Kind {
			case publisher.Scheduled:
				v.State = stateScheduled
			case publisher.Yielded:
				v.State = stateYielded
			case publisher.NotRun:
				v.State = stateNotRun
			case publisher.Unknown:
				v.State = stateUnknown
			case publisher.Preempted:
				v.State = statePreempted
				r.warn("slot %s: %s; nothing written", r.when(o.Slot.At), o.Note)
			default:
				v.State = stateFailed
				if o.Err != nil {
					v.Error = o.Err.Error()
				}
			}
		}
	}
	if len(back) > 0 && r.Queue != nil {
		r.Queue = append(back, r.Queue...)
	}
}

// fromRecheck records slots that another run filled after this run's first
// read, and returns how many are still empty.
func (r *siteReport) fromRecheck(again []publisher.SlotPlan) int {
	empty := 0
	for _, sp := range again {
		if !sp.Filled() {
			empty++
			continue
		}
		for i := range r.Slots {
			if r.Slots[i].At.Equal(sp.Slot.At) {
				r.Slots[i].State = stateFilled
				r.Slots[i].Post = r.viewPtr(sp.Holders[0])
			}
		}
	}
	r.emptySlots = empty
	return empty
}

// when formats an instant as site time and UTC:
// "Tue 2026-12-01 07:00 KST (2026-11-30 22:00 UTC)".
func (r *siteReport) when(t time.Time) string {
	return fmt.Sprintf("%s (%s UTC)", t.In(r.loc).Format("Mon 2006-01-02 15:04 MST"), t.UTC().Format("2006-01-02 15:04"))
}

func postList(ps []wpclient.Post) string {
	s := ""
	for i, p := range ps {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("#%d %s", p.ID, p.Status)
	}
	return s
}
