package racetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the start shim.
func TestMain(m *testing.M) {
	if IsShim() {
		code, err := ShimMain()
		fmt.Fprintln(os.Stderr, err)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func TestNextSlot(t *testing.T) {
	seoul, err := time.LoadLocation("Asia/Seoul")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ now, want string }{
		{"2026-11-29T21:00:00Z", "2026-11-29T22:00:00Z"}, // 06:00 KST -> 07:00 today
		{"2026-11-29T21:45:00Z", "2026-11-29T22:00:00Z"}, // exactly lead before
		{"2026-11-29T21:46:00Z", "2026-11-30T22:00:00Z"}, // less than lead before: tomorrow
		{"2026-11-29T23:53:00Z", "2026-11-30T22:00:00Z"},
	} {
		now, _ := time.Parse(time.RFC3339, c.now)
		want, _ := time.Parse(time.RFC3339, c.want)
		if got := NextSlot(now, seoul, 7, 0, 15*time.Minute); !got.Equal(want) {
			t.Errorf("NextSlot(%s) = %s, want %s", c.now, got.UTC(), c.want)
		}
	}
}

func TestInspect(t *testing.T) {
	base, err := parseRows("4\tdraft\t2026-11-30 08:00:00\t0000-00-00 00:00:00\t0000-00-00 00:00:00\t\taaa\n" +
		"5\tdraft\t2026-11-30 08:00:01\t0000-00-00 00:00:00\t0000-00-00 00:00:00\t\tbbb\n" +
		"6\tdraft\t2026-11-30 08:00:02\t0000-00-00 00:00:00\t0000-00-00 00:00:00\t\tccc\n" +
		"7\tdraft\t2026-11-30 08:00:03\t0000-00-00 00:00:00\t0000-00-00 00:00:00\t\tddd\n")
	if err != nil {
		t.Fatal(err)
	}
	s := &Site{Base: base}
	slot := time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC)
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	rows, err := parseRows("4\tfuture\t2026-12-01 07:00:00\t2026-11-30 22:00:00\t2026-11-30 00:00:01\tseed-draft-1\taaa\n" +
		"5\tdraft\t2026-11-30 08:00:01\t2026-11-29 23:00:01\t2026-11-30 00:00:02\tseed-draft-2\tbbb\n" +
		"6\tfuture\t2026-12-02 07:00:00\t2026-12-01 22:00:00\t2026-11-30 00:00:01\tseed-draft-3\tccc\n" +
		"7\tdraft\t2026-11-30 08:00:03\t0000-00-00 00:00:00\t0000-00-00 00:00:00\t\tCHANGED\n")
	if err != nil {
		t.Fatal(err)
	}
	st := s.inspect(rows, slot, now)
	if len(st.Holders) != 1 || st.Holders[0] != 4 || len(st.Stray) != 1 || st.Stray[0] != 6 {
		t.Errorf("holders %v stray %v, want [4] and [6]", st.Holders, st.Stray)
	}
	if st.Drafts != 2 || len(st.Changed) != 1 || st.Changed[0] != 7 || len(st.Lost) != 0 {
		t.Errorf("drafts %d changed %v lost %v", st.Drafts, st.Changed, st.Lost)
	}
	if d := strings.Join(st.GivenBack[5], "; "); !strings.Contains(d, "post_date_gmt") || !strings.Contains(d, "post_name") || strings.Contains(d, "post_date ") {
		t.Errorf("given back: %q", d)
	}
	if p := st.Problems(4); len(p) != 2 {
		t.Errorf("problems %q, want the stray post and the changed content", p)
	}
	delete(rows, 4)
	if st := s.inspect(rows, slot, now); !st.EmptyWithDrafts() || len(st.Lost) != 1 {
		t.Errorf("without post 4: empty %v lost %v", st.EmptyWithDrafts(), st.Lost)
	}
}

func TestStatsAndTable(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	st := StatsOf(ds)
	if st.Median != 50*time.Millisecond || st.P99 != 99*time.Millisecond || st.Max != 100*time.Millisecond {
		t.Errorf("stats %+v", st)
	}
	tb := Table{Title: "T", Header: []string{"a", "b"}}
	tb.Add("x|y", 2)
	tb.Note("n")
	want := "### T\n\n| a | b |\n|---|---|\n| x\\|y | 2 |\n\n- n\n\n"
	if got := tb.Markdown(); got != want {
		t.Errorf("markdown:\n%q\nwant\n%q", got, want)
	}
}

func TestParseReport(t *testing.T) {
	r := ParseReport(`{"site":"default","slots":[{"at":"2026-11-30T22:00:00Z","state":"yielded","post":{"id":5},"winner":{"id":4}}],"requests":6,"exit_code":0}` + "\n")
	if r == nil || r.State() != "yielded" || r.PostID() != 5 || r.Slots[0].Winner.ID != 4 || r.Requests != 6 {
		t.Fatalf("report %+v", r)
	}
	if got := ParseReport(`{"slots":[],"exit_code":75}`).State(); got != "lock" {
		t.Errorf("lock loser state %q", got)
	}
	if got := ParseReport("not json").State(); got != "-" {
		t.Errorf("no report: %q", got)
	}
}

// TestShimStartsTogether starts processes behind the start shim (this test
// binary) and checks that they all began at the shared instant.
func TestShimStartsTogether(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	l := NewLauncher(self)
	l.Timeout = 20 * time.Second
	var procs []Proc
	for i := 0; i < 5; i++ {
		procs = append(procs, Proc{Path: sh, Args: []string{"-c", "echo $$ $WPQUEUE_RACE_SHIM; exit 3"}, Env: []string{"PATH=" + os.Getenv("PATH")}})
	}
	rs, tm, err := l.Run(context.Background(), procs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		f := strings.Fields(r.Stdout)
		if r.Code != 3 || len(f) != 1 || f[0] != strconv.Itoa(r.PID) {
			t.Errorf("process %d: exit %d, stdout %q (want exit 3, its own PID %d, no shim variables left)", i, r.Code, r.Stdout, r.PID)
		}
		if r.Ready.IsZero() || r.Start.IsZero() || r.End.Before(r.Start) {
			t.Errorf("process %d: ready %v start %v end %v", i, r.Ready, r.Start, r.End)
		}
	}
	// The spread depends on the machine's load; it is reported, not
	// asserted (the harness reports it per scenario).
	t.Logf("timing: %+v", tm)
}

// TestSmoke runs a short version of every scenario against a real
// WordPress. It needs the Debian packages (scripts/wordpress.sh install)
// and takes about a minute, so it runs only with WPQUEUE_RACE=1.
func TestSmoke(t *testing.T) {
	if os.Getenv("WPQUEUE_RACE") != "1" {
		t.Skip("set WPQUEUE_RACE=1 to run the race harness against a real WordPress (about a minute)")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	var progress strings.Builder
	h, err := New(ctx, Options{Root: root, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := h.Close(); err != nil {
			t.Error(err)
		}
	}()
	p := DefaultPlan()
	p.Scale(2)
	p.LogRuns = 10
	p.FaultFilter = "503 + Retry-After: 1 on slot listing"
	p.Scenarios = []string{"one-machine", "two-machines", "kills", "lost-answers", "read-faults", "log", "experiment"}
	var out strings.Builder
	tables := h.Run(ctx, p, &out)
	t.Log(out.String())
	if f := Failed(tables); len(f) > 0 {
		t.Errorf("failed: %s\nprogress:\n%s", strings.Join(f, "; "), progress.String())
	}
}
