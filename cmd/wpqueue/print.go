package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
)

// print writes one site's report in the chosen format. JSON output is one
// object per site, one per line (JSON Lines). Errors also go to stderr in
// both formats, so cron mail and journald show them.
func (a *app) print(r *siteReport, i, n int) error {
	if r.Error != "" {
		prefix := "wpqueue: "
		if n > 1 {
			prefix += r.Site + ": "
		}
		fmt.Fprintf(a.streams.Err, "%s%s\n", prefix, r.Error)
	}
	if a.output == "json" {
		// Titles stay as typed (no \u0026 for &), so the line can be grepped.
		enc := json.NewEncoder(a.streams.Out)
		enc.SetEscapeHTML(false)
		return enc.Encode(r)
	}
	w := a.streams.Out
	if n > 1 {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "== %s (%s)\n", r.Site, r.URL)
		if r.Error != "" {
			fmt.Fprintf(w, "error: %s\n", r.Error)
		}
	}
	if r.loc == nil { // failed before the zone was known
		return nil
	}
	if r.Command == "status" {
		return r.writeStatus(w)
	}
	return r.writePublish(w)
}

func (r *siteReport) writePublish(w io.Writer) error {
	if r.DryRun {
		fmt.Fprintln(w, "dry run: nothing is written")
	}
	// "nothing to do" only when the run had nothing to do at all.
	filled := "nothing to do: slot %s holds %s\n"
	for _, s := range r.Slots {
		if s.State != stateFilled && s.State != stateBlocked {
			filled = "already filled: slot %s holds %s\n"
		}
	}
	for _, s := range r.Slots {
		slot := r.when(s.At)
		switch s.State {
		case stateFilled:
			fmt.Fprintf(w, filled, slot, postRef(s.Post, true))
		case stateScheduled:
			fmt.Fprintf(w, "scheduled %s for %s\n", postRef(s.Post, false), slot)
		case statePlanned:
			verb := "would schedule"
			if !r.DryRun {
				verb = "planned"
			}
			fmt.Fprintf(w, "%s %s for %s\n", verb, postRef(s.Post, false), slot)
		case stateEmpty:
			fmt.Fprintf(w, "slot %s stays empty: no publishable draft is queued\n", slot)
		case stateYielded:
			fmt.Fprintf(w, "slot %s was filled meanwhile by %s (another run); %s went back to draft\n", slot, postRef(s.Winner, true), postRef(s.Post, false))
		case stateFailed:
			fmt.Fprintf(w, "FAILED to schedule %s for %s\n", postRef(s.Post, false), slot)
		case stateBlocked:
			fmt.Fprintf(w, "slot %s gets nothing: %s is a missed schedule in its window\n", slot, postRef(s.Post, true))
		case statePreempted:
			if s.Winner != nil {
				fmt.Fprintf(w, "nothing to do: slot %s was filled meanwhile by %s\n", slot, postRef(s.Winner, true))
			} else {
				fmt.Fprintf(w, "not written: %s changed after the plan was made\n", postRef(s.Post, true))
			}
		case stateUnknown:
			fmt.Fprintf(w, "INTERRUPTED while scheduling %s for %s: the site may have applied it; run 'wpqueue status' to see\n", postRef(s.Post, false), slot)
		case stateNotRun:
			fmt.Fprintf(w, "not attempted: %s for %s (an earlier step failed)\n", postRef(s.Post, false), slot)
		}
	}
	for _, m := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
	return nil
}

func (r *siteReport) writeStatus(w io.Writer) error {
	src := map[string]string{
		"schedule.timezone": "from schedule.timezone",
		"timezone_string":   "the site's timezone_string",
		"gmt_offset":        "the site's gmt_offset",
	}[r.TimezoneSource]
	if len(r.Slots) == 0 && r.Error != "" {
		return nil // nothing was read; the error (on stderr) says why
	}
	fmt.Fprintf(w, "site      %s (%s)\n", r.Site, r.URL)
	fmt.Fprintf(w, "timezone  %s (%s)\n", r.Timezone, src)
	fmt.Fprintf(w, "now       %s\n", r.when(r.Now))
	fmt.Fprintln(w, "\nupcoming slots")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, s := range r.Slots {
		local := s.At.In(r.loc).Format("Mon 2006-01-02 15:04 MST")
		utc := s.At.UTC().Format("2006-01-02 15:04") + " UTC"
		switch s.State {
		case stateFilled:
			fmt.Fprintf(tw, "  %s\t%s\t#%d\t%s\t%s\n", local, utc, s.Post.ID, quote(s.Post.Title), s.Post.Status)
			for _, h := range s.Holders[min(1, len(s.Holders)):] {
				fmt.Fprintf(tw, "  \t\t#%d\t%s\t%s (second post in this slot)\n", h.ID, quote(h.Title), h.Status)
			}
		case statePlanned:
			fmt.Fprintf(tw, "  %s\t%s\tempty\t\tnext run schedules #%d %s\n", local, utc, s.Post.ID, quote(s.Post.Title))
		case stateBlocked:
			fmt.Fprintf(tw, "  %s\t%s\t#%d\t%s\tmissed schedule: goes out when WP-Cron runs; nothing added\n", local, utc, s.Post.ID, quote(s.Post.Title))
		default:
			fmt.Fprintf(tw, "  %s\t%s\tempty\t\tno publishable draft queued\n", local, utc)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Queue != nil {
		fmt.Fprintf(w, "\nqueue (%d publishable, in queue order)\n", len(r.Queue))
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for i, q := range r.Queue {
			if i == 10 {
				fmt.Fprintf(tw, "  … %d more\n", len(r.Queue)-10)
				break
			}
			fmt.Fprintf(tw, "  #%d\t%s\t%s\n", q.ID, quote(q.Title), q.Status)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w, "\nwarnings")
		for _, m := range r.Warnings {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
	return nil
}

// postRef renders `post #4 "Title"`, with the status when withStatus.
func postRef(p *postView, withStatus bool) string {
	if p == nil {
		return "a post"
	}
	s := fmt.Sprintf("post #%d %s", p.ID, quote(p.Title))
	if withStatus {
		s += " (" + p.Status + ")"
	}
	return s
}

// quote renders a title in double quotes as typed: quotes, HTML, Korean and
// emoji (ZWJ sequences included) come out unchanged, which %q does not do
// (it writes \" and \u200d). Only control characters (newline, tab,
// terminal escapes) and bidi controls are escaped, so a title cannot break
// a line or restyle the terminal.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			q := strconv.QuoteRuneToASCII(r) // '\n', '\x1b', '\u202e'
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}
