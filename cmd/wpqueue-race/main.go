// Command wpqueue-race proves wpqueue's exactly-once promise on a real
// WordPress: simultaneous starts on one and two machines, kills, lost
// answers, read faults, a shared log file, the classic lock strategies
// next to wpqueue, and start-up benchmarks. It starts its own WordPress
// with scripts/wordpress.sh (ports 18200-18249), runs the scenarios,
// prints one Markdown table per scenario, and stops the site (also on
// Ctrl-C). See docs/exactly-once.md.
//
//	go run ./cmd/wpqueue-race -rev HEAD > results.md   # everything (30-60 minutes)
//	go run ./cmd/wpqueue-race -R 3                     # a smoke test of the working tree
//	go run ./cmd/wpqueue-race -scenarios one-machine,two-machines -R 20 -N 10
//
// It is a test tool, not part of wpqueue.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/wpqueue/wpqueue/internal/racetest"
)

func main() {
	if racetest.IsShim() {
		code, err := racetest.ShimMain()
		fmt.Fprintln(os.Stderr, err)
		os.Exit(code)
	}
	os.Exit(run())
}

func run() int {
	p := racetest.DefaultPlan()
	var (
		scenarios = flag.String("scenarios", strings.Join(racetest.ScenarioNames, ","), "comma-separated scenarios: "+strings.Join(racetest.ScenarioNames, ", "))
		rounds    = flag.Int("R", 0, "rounds of every scenario (0: each scenario's default: 200, 100, 50, 50, 1, -, 20)")
		procs     = flag.Int("N", 0, "simultaneous runs: scenario 1, and per machine in scenario 2 (0: 20 and 10)")
		wpqueue   = flag.String("wpqueue", "", "the wpqueue binary to test (default: go build ./cmd/wpqueue)")
		rev       = flag.String("rev", "", "build wpqueue from this git commit (e.g. HEAD) instead of the working tree")
		root      = flag.String("root", "", "the module root (default: found from the working directory)")
		work      = flag.String("work", "", "work directory (default: a new temporary directory, removed at the end)")
		keep      = flag.Bool("keep", false, "keep the work directory (site logs and database, lock files)")
		quiet     = flag.Bool("q", false, "no progress lines on stderr")
	)
	flag.IntVar(&p.TwoForced, "forced", p.TwoForced, "scenario 2: rounds per forced order of arrival")
	flag.IntVar(&p.LogRuns, "log-runs", p.LogRuns, "scenario 6: simultaneous runs sharing the log file")
	flag.IntVar(&p.ExpN, "exp-n", p.ExpN, "experiment: simultaneous starts per round")
	flag.StringVar(&p.FaultFilter, "faults", "", "scenario 5: only the cells whose \"FAULT on READ (HOW OFTEN)\" contains this, e.g. \"reset on verification\"")
	flag.IntVar(&p.BenchReps, "bench-reps", p.BenchReps, "benchmarks: batches of 20 (and a third as many of 100)")
	flag.Parse()
	p.Scenarios = nil
	for _, s := range strings.Split(*scenarios, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !contains(racetest.ScenarioNames, s) {
			fmt.Fprintf(os.Stderr, "wpqueue-race: unknown scenario %q (known: %s)\n", s, strings.Join(racetest.ScenarioNames, ", "))
			return 2
		}
		p.Scenarios = append(p.Scenarios, s)
	}
	if *rounds > 0 {
		// -R scales every scenario; flags given explicitly still win.
		explicit := p
		p.Scale(*rounds)
		flag.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "forced":
				p.TwoForced = explicit.TwoForced
			case "log-runs":
				p.LogRuns = explicit.LogRuns
			case "exp-n":
				p.ExpN = explicit.ExpN
			case "bench-reps":
				p.BenchReps = explicit.BenchReps
			}
		})
	}
	if *procs > 0 {
		p.OneN, p.TwoN = *procs, *procs
	}
	if *root == "" {
		r, err := findRoot()
		if err != nil {
			fmt.Fprintln(os.Stderr, "wpqueue-race:", err)
			return 2
		}
		*root = r
	}
	progress := os.Stderr
	if *quiet {
		progress = nil
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	t0 := time.Now()
	opt := racetest.Options{Root: *root, WPQueue: *wpqueue, Rev: *rev, Work: *work, Keep: *keep}
	if progress != nil {
		opt.Progress = progress
	}
	h, err := racetest.New(ctx, opt)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wpqueue-race:", err)
		return 1
	}
	// Ctrl-C: kill the runs in flight (by PID) at once; Close then stops
	// WordPress.
	go func() {
		<-ctx.Done()
		h.L.KillAll()
	}()
	fmt.Printf("<!-- wpqueue-race %s; started %s; %s; WordPress %s, zone %s; %d CPUs, load average %s -->\n\n",
		strings.Join(os.Args[1:], " "), t0.UTC().Format(time.RFC3339), h.Under, h.Site.Version, h.Site.ZoneName, runtime.NumCPU(), racetest.LoadAvg())
	tables := h.Run(ctx, p, os.Stdout)
	if err := h.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "wpqueue-race:", err)
	}
	fmt.Printf("<!-- finished in %s; load average %s -->\n", time.Since(t0).Round(time.Second), racetest.LoadAvg())
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(os.Stderr, "wpqueue-race: interrupted")
		return 130
	case len(racetest.Failed(tables)) > 0:
		fmt.Fprintf(os.Stderr, "wpqueue-race: FAILED: %s\n", strings.Join(racetest.Failed(tables), "; "))
		return 1
	}
	return 0
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// findRoot walks up from the working directory to the directory holding
// go.mod and scripts/wordpress.sh.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "scripts", "wordpress.sh")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("cannot find the module root (go.mod and scripts/wordpress.sh) above the working directory; use -root")
		}
		dir = parent
	}
}
