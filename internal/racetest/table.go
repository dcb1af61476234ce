package racetest

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Table is one result table, printed as Markdown.
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
	Notes  []string
	// Failed reports that a requirement of the scenario was not met.
	Failed bool
}

// Add appends a row.
func (t *Table) Add(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = fmt.Sprint(c)
	}
	t.Rows = append(t.Rows, row)
}

// Note appends a note printed under the table.
func (t *Table) Note(format string, args ...any) {
	t.Notes = append(t.Notes, fmt.Sprintf(format, args...))
}

// Fail marks the table failed with a note.
func (t *Table) Fail(format string, args ...any) {
	t.Failed = true
	t.Note("FAIL: "+format, args...)
}

// Markdown renders the table.
func (t Table) Markdown() string {
	var b strings.Builder
	if t.Title != "" {
		fmt.Fprintf(&b, "### %s\n\n", t.Title)
	}
	if len(t.Header) > 0 {
		esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
		line := func(cells []string) {
			b.WriteString("|")
			for _, c := range cells {
				b.WriteString(" " + esc(c) + " |")
			}
			b.WriteString("\n")
		}
		line(t.Header)
		b.WriteString("|" + strings.Repeat("---|", len(t.Header)) + "\n")
		for _, r := range t.Rows {
			line(r)
		}
		b.WriteString("\n")
	}
	for _, n := range t.Notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	if len(t.Notes) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// Stats are order statistics of durations.
type Stats struct {
	N                     int
	Min, Median, P99, Max time.Duration
}

// StatsOf computes Stats (nearest-rank percentiles).
func StatsOf(ds []time.Duration) Stats {
	if len(ds) == 0 {
		return Stats{}
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := func(p float64) time.Duration {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return Stats{N: len(s), Min: s[0], Median: rank(0.5), P99: rank(0.99), Max: s[len(s)-1]}
}

// ms formats a duration in milliseconds with one decimal.
func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }

func (s Stats) String() string {
	if s.N == 0 {
		return "—"
	}
	return fmt.Sprintf("median %s ms, p99 %s ms (n=%d)", ms(s.Median), ms(s.P99), s.N)
}
