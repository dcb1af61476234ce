package racetest

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// Plan says which scenarios run and how big.
type Plan struct {
	Scenarios []string

	OneRounds, OneN int // scenario 1 (200 × 20)
	TwoRounds, TwoN int // scenario 2 (100 × 10 per machine)
	TwoForced       int // scenario 2, rounds per forced arrival order (5)
	Kills           int // scenario 3, kills per point (50)
	Lost            int // scenario 4, rounds (50)
	FaultRounds     int // scenario 5, rounds per fault and target (1)
	LogRuns         int // scenario 6, simultaneous runs (50)
	ExpRounds, ExpN int // the experiment (20 × 5)
	BenchReps       int // benchmarks: batches per contention level (10)
	// FaultFilter keeps only the read-fault cells whose name contains it.
	FaultFilter string
}

// Scenario names, in the order they run.
var ScenarioNames = []string{"one-machine", "two-machines", "kills", "lost-answers", "read-faults", "log", "experiment", "bench"}

// DefaultPlan is the full run the issue asks for.
func DefaultPlan() Plan {
	return Plan{Scenarios: ScenarioNames,
		OneRounds: 200, OneN: 20, TwoRounds: 100, TwoN: 10, TwoForced: 5, Kills: 50, Lost: 50,
		FaultRounds: 1, LogRuns: 50, ExpRounds: 20, ExpN: 5, BenchReps: 10}
}

// Scale sets every round count to r (a smoke test: r = 2..5), keeping
// at least one round per forced case and fault.
func (p *Plan) Scale(r int) {
	p.OneRounds, p.TwoRounds, p.Kills, p.Lost, p.ExpRounds = r, r, r, r, r
	p.TwoForced = max(1, min(r, p.TwoForced))
	p.FaultRounds = 1
	p.BenchReps = max(1, min(r, p.BenchReps))
}

// Has reports whether the plan includes the scenario.
func (p Plan) Has(name string) bool {
	for _, s := range p.Scenarios {
		if s == name {
			return true
		}
	}
	return false
}

// Run runs the plan's scenarios in order, printing each table to out as it
// completes, and returns the tables.
func (h *Harness) Run(ctx context.Context, p Plan, out io.Writer) []Table {
	var tables []Table
	emit := func(ts ...Table) {
		for _, t := range ts {
			tables = append(tables, t)
			fmt.Fprintln(out, t.Markdown())
		}
	}
	for _, name := range ScenarioNames {
		if !p.Has(name) || ctx.Err() != nil {
			continue
		}
		t0 := time.Now()
		h.progress("== %s", name)
		switch name {
		case "one-machine":
			emit(h.OneMachine(ctx, p.OneRounds, p.OneN))
		case "two-machines":
			emit(h.TwoMachines(ctx, p.TwoRounds, p.TwoN, p.TwoForced)...)
		case "kills":
			emit(h.Kills(ctx, p.Kills))
		case "lost-answers":
			emit(h.LostAnswers(ctx, p.Lost))
		case "read-faults":
			emit(h.ReadFaults(ctx, p.FaultRounds, p.FaultFilter))
		case "log":
			emit(h.LogAppends(ctx, p.LogRuns)...)
		case "experiment":
			emit(h.Experiment(ctx, p.ExpRounds, p.ExpN))
		case "bench":
			emit(h.Benchmarks(ctx, p.BenchReps)...)
		}
		h.mu.Lock()
		errs := h.proxyErrs
		h.proxyErrs = nil
		h.mu.Unlock()
		if len(errs) > 0 {
			t := Table{Title: name + ": requests the proxy failed to forward (answered 502; not injected)"}
			for _, e := range errs {
				t.Note("%s", e)
			}
			emit(t)
		}
		h.progress("== %s took %.0fs", name, time.Since(t0).Seconds())
	}
	return tables
}

// Failed lists the titles of failed tables.
func Failed(ts []Table) []string {
	var out []string
	for _, t := range ts {
		if t.Failed {
			out = append(out, strings.SplitN(t.Title, ":", 2)[0])
		}
	}
	return out
}
