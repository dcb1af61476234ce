package publisher

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wpqueue/wpqueue/wpclient"
)

func draft(id int, title string) wpclient.Post {
	return wpclient.Post{ID: id, Status: wpclient.StatusDraft, Title: title, HasContent: true,
		DateGMT: utc("2026-11-01T00:00:00Z").Add(time.Duration(id) * time.Hour), Date: "2026-11-01T09:00:00"}
}

func at(p wpclient.Post, status wpclient.Status, when string) wpclient.Post {
	p.Status = status
	p.DateGMT = utc(when)
	return p
}

// summary renders a plan compactly for table tests: one line per slot.
func summary(p Plan) []string {
	var out []string
	for _, sp := range p.Slots {
		s := sp.Slot.At.Format("01-02T15:04") + " "
		switch {
		case len(sp.Holders) > 0:
			var ids []string
			for _, h := range sp.Holders {
				ids = append(ids, fmt.Sprintf("%d/%s", h.ID, h.Status))
			}
			s += fmt.Sprint("held ", ids)
		case len(sp.Blocked) > 0:
			s += fmt.Sprint("blocked ", ids(sp.Blocked))
		case sp.Draft != nil:
			s += fmt.Sprintf("assign %d", sp.Draft.ID)
		default:
			s += "empty"
		}
		out = append(out, s)
	}
	return out
}

func ids(ps []wpclient.Post) []int {
	out := []int{}
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func TestDecide(t *testing.T) {
	now := utc("2026-11-29T23:00:00Z") // 08:00 Nov 30 in Seoul
	seoul := mustLoc(t, "Asia/Seoul")
	daily := func(ahead int) Rules {
		return Rules{Schedule: Schedule{Location: seoul, Times: clocks("07:00"), Ahead: ahead, Lead: 15 * time.Minute}}
	}
	// Next slot: Dec 1 07:00 KST = Nov 30 22:00 UTC; window [Nov 30 10:00, Dec 1 10:00) UTC.
	tests := []struct {
		name        string
		rules       Rules
		posts       []wpclient.Post
		want        []string
		wantMissed  []int
		wantSkipped []string
		wantQueue   []int // nil: queue not read
	}{
		{"empty slot takes the first draft by id", daily(1),
			[]wpclient.Post{draft(9, "c"), draft(4, "a"), draft(6, "b")},
			[]string{"11-30T22:00 assign 4"}, nil, nil, []int{6, 9}},
		{"slot held by a scheduled post: nothing to do, queue not read", daily(1),
			[]wpclient.Post{at(draft(5, "x"), wpclient.StatusFuture, "2026-11-30T22:00:00Z")},
			[]string{"11-30T22:00 held [5/future]"}, nil, nil, nil},
		{"slot held by a post published by hand inside the window", daily(1),
			[]wpclient.Post{at(draft(5, "x"), wpclient.StatusPublish, "2026-11-30T12:00:00Z"), draft(7, "d")},
			[]string{"11-30T22:00 held [5/publish]"}, nil, nil, []int{7}},
		{"private post holds too", daily(1),
			[]wpclient.Post{at(draft(5, "x"), wpclient.StatusPrivate, "2026-12-01T09:59:59Z")},
			[]string{"11-30T22:00 held [5/private]"}, nil, nil, nil},
		{"a post just outside the window does not hold", daily(1),
			[]wpclient.Post{at(draft(5, "x"), wpclient.StatusFuture, "2026-12-01T10:00:00Z"), draft(7, "d")},
			[]string{"11-30T22:00 assign 7"}, nil, nil, []int{}},
		{"missed schedule outside the window: reported, slot filled from the queue", daily(1),
			[]wpclient.Post{at(draft(5, "x"), wpclient.StatusFuture, "2026-11-29T22:00:00Z"),
				at(draft(3, "y"), wpclient.StatusFuture, "2026-11-29T22:30:00Z"), draft(7, "d")},
			[]string{"11-30T22:00 assign 7"}, []int{5, 3}, nil, []int{}},
		{"future post dated exactly now is missed", daily(1),
			[]wpclient.Post{at(draft(5, "x"), wpclient.StatusFuture, "2026-11-29T23:00:00Z")},
			[]string{"11-30T22:00 empty"}, []int{5}, nil, nil},
		{"empty title and empty content are skipped", daily(1),
			[]wpclient.Post{draft(2, "  "), func() wpclient.Post { p := draft(3, "no body"); p.HasContent = false; return p }(), draft(8, "ok")},
			[]string{"11-30T22:00 assign 8"}, nil, []string{"2: empty title", "3: empty content"}, []int{}},
		{"ahead 3 with two drafts: fills two in order, one empty", daily(3),
			[]wpclient.Post{draft(12, "b"), draft(11, "a")},
			[]string{"11-30T22:00 assign 11", "12-01T22:00 assign 12", "12-02T22:00 empty"}, nil, nil, []int{}},
		{"ahead 3, middle slot held: first and last filled", daily(3),
			[]wpclient.Post{at(draft(1, "h"), wpclient.StatusFuture, "2026-12-01T22:00:00Z"), draft(12, "b"), draft(11, "a"), draft(13, "c")},
			[]string{"11-30T22:00 assign 11", "12-01T22:00 held [1/future]", "12-02T22:00 assign 12"}, nil, nil, []int{13}},
		{"two posts already in one slot: reported, no third", daily(1),
			[]wpclient.Post{at(draft(1, "h"), wpclient.StatusFuture, "2026-11-30T22:00:00Z"), at(draft(2, "i"), wpclient.StatusPublish, "2026-11-30T20:00:00Z"), draft(7, "d")},
			[]string{"11-30T22:00 held [1/future 2/publish]"}, nil, nil, []int{7}}, // nearest to the slot first
		{"no drafts at all: slot stays empty", daily(1),
			nil, []string{"11-30T22:00 empty"}, nil, nil, nil},
		{"pending queue ignores drafts", Rules{Schedule: daily(1).Schedule, QueueStatus: wpclient.StatusPending},
			[]wpclient.Post{draft(4, "a"), func() wpclient.Post { p := draft(6, "p"); p.Status = wpclient.StatusPending; return p }()},
			[]string{"11-30T22:00 assign 6"}, nil, nil, []int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.posts)
			p := Decide(now, tt.rules, tt.posts)
			if diff := cmp.Diff(tt.want, summary(p)); diff != "" {
				t.Errorf("slots (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(in, tt.posts); diff != "" {
				t.Errorf("Decide modified its input:\n%s", diff)
			}
			var missed []int
			for _, m := range p.Missed {
				missed = append(missed, m.ID)
			}
			if !slices.Equal(missed, tt.wantMissed) {
				t.Errorf("missed = %v, want %v", missed, tt.wantMissed)
			}
			var skipped []string
			for _, s := range p.Skipped {
				skipped = append(skipped, fmt.Sprintf("%d: %s", s.Post.ID, s.Reason))
			}
			if !slices.Equal(skipped, tt.wantSkipped) {
				t.Errorf("skipped = %v, want %v", skipped, tt.wantSkipped)
			}
			if tt.wantQueue == nil {
				if p.Queue != nil {
					t.Errorf("queue = %v, want nil (not read)", ids(p.Queue))
				}
			} else if !slices.Equal(ids(p.Queue), tt.wantQueue) {
				t.Errorf("queue = %v, want %v", ids(p.Queue), tt.wantQueue)
			}
			if !p.Now.Equal(now) {
				t.Errorf("Now = %v", p.Now)
			}
		})
	}
}

// A missed-schedule post in the part of the upcoming slot's window that is
// already past does not fill the slot, but WordPress publishes it when its
// cron next runs: the slot is blocked, nothing is added.
func TestDecideMissedInsideWindowBlocks(t *testing.T) {
	now := utc("2026-11-30T12:00:00Z") // 21:00 in Seoul; next slot 07:00, window from 19:00
	r := Rules{Schedule: Schedule{Location: mustLoc(t, "Asia/Seoul"), Times: clocks("07:00"), Ahead: 1, Lead: 15 * time.Minute}}
	p := Decide(now, r, []wpclient.Post{at(draft(5, "x"), wpclient.StatusFuture, "2026-11-30T11:00:00Z"), draft(7, "d")})
	if diff := cmp.Diff([]string{"11-30T22:00 blocked [5]"}, summary(p)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(p.Missed) != 1 || len(p.Assignments()) != 0 || len(p.Empty()) != 0 || p.Slots[0].Filled() {
		t.Errorf("plan = %+v", p)
	}
}

func TestDecideIsDeterministic(t *testing.T) {
	now := utc("2026-11-29T23:00:00Z")
	r := Rules{Schedule: Schedule{Location: time.UTC, Times: clocks("07:00", "19:00"), Ahead: 4}}
	posts := []wpclient.Post{draft(5, "e"), draft(3, "c"), draft(1, "a"), at(draft(2, "b"), wpclient.StatusFuture, "2026-11-30T19:00:00Z"), draft(4, "d")}
	first := summary(Decide(now, r, posts))
	for i := 0; i < 20; i++ {
		shuffled := slices.Clone(posts)
		slices.Reverse(shuffled)
		if i%2 == 0 {
			shuffled[0], shuffled[2] = shuffled[2], shuffled[0]
		}
		if diff := cmp.Diff(first, summary(Decide(now, r, shuffled))); diff != "" {
			t.Fatalf("input order changed the plan:\n%s", diff)
		}
	}
}

func TestSortQueue(t *testing.T) {
	mk := func(id int, title, date, mod string) wpclient.Post {
		return wpclient.Post{ID: id, Title: title, DateGMT: utc(date), ModifiedGMT: utc(mod)}
	}
	posts := []wpclient.Post{
		mk(7, "banana", "2026-01-03T00:00:00Z", "2026-02-01T00:00:00Z"),
		mk(3, "Cherry", "2026-01-01T00:00:00Z", "2026-02-03T00:00:00Z"),
		mk(5, "apple", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"),
		mk(4, "Apple", "2026-01-02T00:00:00Z", "2026-02-02T00:00:00Z"),
	}
	tests := map[Order][]int{
		OrderID:       {3, 4, 5, 7},
		"":            {3, 4, 5, 7},
		OrderDate:     {3, 5, 4, 7}, // 3 and 5 tie on date: id breaks it
		OrderModified: {5, 7, 4, 3}, // 5 and 7 tie
		OrderTitle:    {4, 5, 7, 3}, // case-insensitive; "Apple" < "apple" on the raw tie-break
	}
	for o, want := range tests {
		p := slices.Clone(posts)
		SortQueue(p, o)
		if !slices.Equal(ids(p), want) {
			t.Errorf("order %q: %v, want %v", o, ids(p), want)
		}
	}
}

// ExampleDecide shows a plan for a site in Seoul with one daily slot.
func ExampleDecide() {
	seoul, _ := time.LoadLocation("Asia/Seoul")
	now := time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC) // Nov 30, 08:00 in Seoul
	rules := Rules{Schedule: Schedule{Location: seoul, Times: []Clock{{7, 0}}, Ahead: 1, Lead: 15 * time.Minute}}
	posts := []wpclient.Post{
		{ID: 12, Status: wpclient.StatusDraft, Title: "Second", HasContent: true},
		{ID: 10, Status: wpclient.StatusDraft, Title: "First", HasContent: true},
	}
	plan := Decide(now, rules, posts)
	for _, a := range plan.Assignments() {
		fmt.Printf("post %d %q -> %s (%s UTC)\n", a.Post.ID, a.Post.Title,
			a.Slot.Local(seoul).Format("2006-01-02 15:04 MST"), a.Slot.At.Format("15:04"))
	}
	// Output: post 10 "First" -> 2026-12-01 07:00 KST (22:00 UTC)
}

// BenchmarkDecide: a site with 200 scheduled or published posts around
// the slots and 1000 queued drafts, 30 slots ahead.
// Run: go test -run '^$' -bench Decide -benchmem ./publisher/
func BenchmarkDecide(b *testing.B) {
	now := utc("2026-11-29T23:00:00Z")
	rules := Rules{Schedule: Schedule{Location: mustLoc(b, "Europe/Berlin"), Times: clocks("07:00", "19:00"), Ahead: 30, Lead: 15 * time.Minute}}
	var posts []wpclient.Post
	for i := 0; i < 200; i++ {
		posts = append(posts, at(draft(i+1, "held"), wpclient.StatusPublish, now.Add(time.Duration(i-100)*time.Hour).Format(time.RFC3339)))
	}
	for i := 0; i < 1000; i++ {
		posts = append(posts, draft(1000+i, fmt.Sprintf("draft %d", i)))
	}
	for b.Loop() {
		Decide(now, rules, posts)
	}
}
