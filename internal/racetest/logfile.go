package racetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LogAppends is scenario 6: n simultaneous runs append to one --log-file.
//
// wpqueue writes no record that every run writes (a lock loser writes
// none), and its records carry no run id. So the scenario gives each run
// its own site name (a config file with `sites: {runNN: {}}`; every record
// of a site's work carries "site"), and compares, per run, the "http"
// debug records (one per HTTP request, written by wpclient) with the
// request count the run reports in its JSON output. Variant 1: every run
// its own lock file (every run works, so every run writes records).
// Variant 2: one shared lock file (one machine): the losers write nothing.
func (h *Harness) LogAppends(ctx context.Context, n int) []Table {
	t := Table{Title: fmt.Sprintf("6. Log appends: %d simultaneous runs, one --log-file", n),
		Header: []string{"lock files", "runs", "exit statuses", "lines", "valid JSON records", "torn or invalid lines", "runs whose http records = their requests", "runs with no record", "records by message"}}
	for _, shared := range []bool{false, true} {
		if ctx.Err() != nil {
			break
		}
		h.logVariant(ctx, &t, n, shared)
	}
	t.Note("A record carries the run's site name (each run has its own), so records are counted per run. The check: every line is one complete JSON object with time, level and msg; per run, the number of msg=\"http\" records equals the \"requests\" of its JSON report.")
	return []Table{t}
}

func (h *Harness) logVariant(ctx context.Context, t *Table, n int, shared bool) {
	name := "one per run"
	if shared {
		name = "one shared"
	}
	m, err := h.NewMachine("log")
	if err != nil {
		t.Fail("%v", err)
		return
	}
	defer h.CloseMachine(m)
	dir := filepath.Dir(m.Home)
	logPath := filepath.Join(dir, "shared.log")
	var procs []Proc
	for i := 0; i < n; i++ {
		site := fmt.Sprintf("run%02d", i)
		cfg := filepath.Join(dir, site+".yaml")
		if err := os.WriteFile(cfg, []byte("sites:\n  "+site+": {}\n"), 0o600); err != nil {
			t.Fail("%v", err)
			return
		}
		lock := m.Lock
		if !shared {
			lock = filepath.Join(dir, "locks", site+".lock")
		}
		p := h.Publish(m, site, "WPQUEUE_LOCK_PATH="+lock)
		p.Args = append(p.Args, "--config", cfg, "--log-file", logPath)
		procs = append(procs, p)
	}
	o, err := h.Round(ctx, procs)
	if err != nil {
		t.Fail("%v", err)
		return
	}
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fail("%s: %v", name, err)
		return
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(data) == 0 {
		lines = nil
	}
	valid, invalid := 0, 0
	perSite := map[string]int{}
	msgs := Hist{}
	for _, l := range lines {
		var rec map[string]any
		if json.Unmarshal([]byte(l), &rec) != nil || rec["time"] == nil || rec["level"] == nil || rec["msg"] == nil {
			invalid++
			if invalid <= 3 {
				t.Note("%s: invalid line: %.200q", name, l)
			}
			continue
		}
		valid++
		msg, _ := rec["msg"].(string)
		msgs[msg]++
		if site, _ := rec["site"].(string); site != "" && msg == "http" {
			perSite[site]++
		}
	}
	match, none := 0, 0
	for i, r := range o.Results {
		site := procs[i].Label
		rep := o.Reports[i]
		if rep == nil {
			t.Fail("%s: run %s wrote no JSON report: %s", name, site, firstLine(r.Stderr))
			continue
		}
		if perSite[site] == 0 {
			none++
		}
		if perSite[site] == rep.Requests {
			match++
		} else {
			t.Fail("%s: run %s reports %d requests, the log holds %d http records for it", name, site, rep.Requests, perSite[site])
		}
	}
	if invalid > 0 {
		t.Failed = true
	}
	if o.State.Double() {
		t.Fail("%s: the slot holds %v", name, o.State.Holders)
	}
	t.Add(name, len(procs), CodeHist(o.Results), len(lines), valid, invalid, fmt.Sprintf("%d of %d", match, len(procs)), none, msgs)
	h.progress("log %s: %d lines, %d valid, %d invalid; %d of %d runs match; exits %s", name, len(lines), valid, invalid, match, len(procs), CodeHist(o.Results))
}
