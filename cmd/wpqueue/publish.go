package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wpqueue/wpqueue/config"
	"github.com/wpqueue/wpqueue/lockfile"
	"github.com/wpqueue/wpqueue/publisher"
)

type publishOptions struct {
	dryRun bool
	wait   time.Duration
}

func (a *app) newPublishCmd() *cobra.Command {
	var o publishOptions
	cmd := &cobra.Command{
		Use:   "publish",
		Short: "Schedule the next queued draft into each empty upcoming slot",
		Long: `publish fills the upcoming slots of each site: it takes the site's lock
(without waiting unless --wait), reads which upcoming slots already hold a
scheduled, published or private post, schedules the first queued draft into
each empty slot (status future at the slot's date_gmt; nothing else about
the post changes) and verifies from the site that each slot now holds
exactly one post.

Run it as often as you like: when the slots are filled it does nothing.

--dry-run reads the site and prints the plan. It takes no lock, and its
HTTP client refuses to send anything but GET.

` + exitStatusHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runSites(cmd.Context(), "publish", func(ctx context.Context, s config.Site, log *slog.Logger) *siteReport {
				return a.publishSite(ctx, s, o, log)
			})
		},
	}
	cmd.Flags().BoolVarP(&o.dryRun, "dry-run", "n", false, "print the plan; write nothing and take no lock")
	cmd.Flags().DurationVar(&o.wait, "wait", 0, "wait up to this long for another run to release the site's lock (default: do not wait)")
	return cmd
}

func (a *app) publishSite(ctx context.Context, s config.Site, o publishOptions, log *slog.Logger) (rep *siteReport) {
	rep = newReport(s, "publish", o.dryRun)
	if !o.dryRun {
		lk, err := lockSite(ctx, s, o.wait, log)
		if err != nil {
			return rep.fail(err)
		}
		defer func() {
			if err := lk.Release(); err != nil {
				log.Warn("releasing the lock", "path", lk.Path(), "err", err)
			}
		}()
	}
	env, err := a.openSite(ctx, s, o.dryRun, log)
	if env != nil {
		defer func() { rep.Requests = env.client.Requests() }()
	}
	if err != nil {
		return rep.fail(err)
	}
	rep.setZone(env)
	plan, err := env.pub.Plan(ctx, env.client, a.now())
	if err != nil {
		return rep.fail(err)
	}
	rep.fromPlan(plan, s.Alerts.LowQueue)
	if !o.dryRun && len(plan.Assignments()) > 0 {
		res, err := env.pub.Apply(ctx, env.client, plan)
		rep.fromResult(res)
		if err != nil {
			return rep.fail(err)
		}
	}
	if dbl := doubleSlots(plan); dbl != nil && !o.dryRun {
		// Another machine's run may be giving its post back right now
		// (its write landed, its give-back is in flight): look again,
		// read-only, before calling the slot double.
		if a.settle > 0 {
			if err := sleepCtx(ctx, a.settle); err != nil {
				return rep.fail(err)
			}
			again, err := env.pub.Plan(ctx, env.client, plan.Now)
			if err != nil {
				return rep.fail(err)
			}
			dbl = doubleSlots(again)
		}
		if dbl != nil {
			return rep.fail(dbl)
		}
	}
	if len(plan.Empty()) == 0 {
		return rep
	}
	empty := len(plan.Empty())
	if !o.dryRun {
		// Another run may have filled a slot after our first read (it took
		// the last draft before we read the queue): look again before
		// reporting a dry queue.
		again, err := env.pub.Recheck(ctx, env.client, plan)
		if err != nil {
			return rep.fail(err)
		}
		empty = rep.fromRecheck(again)
	}
	if empty > 0 {
		return rep.fail(&noDraftError{empty: empty})
	}
	return rep
}

// fail records err as the site's outcome.
func (r *siteReport) fail(err error) *siteReport {
	r.Error = err.Error()
	r.ExitCode = exitCode(err)
	switch {
	case errors.Is(err, context.Canceled):
		r.Error = "interrupted: " + r.Error
	case errors.Is(err, lockfile.ErrLocked):
		r.Error += " (it ends by itself; run again later, or wait for it with --wait DURATION)"
	}
	return r
}

// runSites runs fn for every selected site, prints the reports and returns
// the combined exit status.
func (a *app) runSites(ctx context.Context, command string, fn func(context.Context, config.Site, *slog.Logger) *siteReport) error {
	cfg, sites, err := a.load()
	if err != nil {
		return err
	}
	log, closeLog, err := a.logger(cfg)
	if err != nil {
		return &usageError{err.Error()}
	}
	defer closeLog()
	for _, w := range cfg.Warnings {
		log.Warn(w)
	}
	ctx, cancel := a.withTimeout(ctx)
	defer cancel()

	code := exitOK
	for i, s := range sites {
		rep := fn(ctx, s, log.With("site", s.Name))
		if rep.Now.IsZero() { // it failed before planning
			rep.Now = a.now().UTC().Truncate(time.Second)
		}
		if rep.Error != "" && ctx.Err() != nil && !errors.Is(ctx.Err(), context.Canceled) {
			// The run deadline, not the site, ended it.
			rep.Error = fmt.Sprintf("the run took longer than --timeout %s (%s)", a.timeout, rep.Error)
			rep.ExitCode = exitError
		}
		if errors.Is(ctx.Err(), context.Canceled) && rep.ExitCode != exitOK {
			rep.ExitCode = exitInterrupted
		}
		rep.finish()
		// One record per site and run, whatever happened (lock losers
		// too), so that a shared --log-file counts every run.
		log.Info("run finished", "site", s.Name, "command", command, "pid", os.Getpid(),
			"exit_code", rep.ExitCode, "requests", rep.Requests, "error", rep.Error)
		if err := a.print(rep, i, len(sites)); err != nil {
			return err
		}
		code = worse(code, rep.ExitCode)
	}
	if code != exitOK {
		return &exitStatus{code}
	}
	return nil
}

// doubleSlots reports an upcoming slot that already held more than one
// post when this run read it: a failed promise (another run that could not
// give its post back, or a person) that wpqueue will not repair, because it
// never touches a post it did not write in the same run. Exit 5, so that
// monitoring sees it on every run until someone fixes it.
func doubleSlots(p publisher.Plan) error {
	for _, sp := range p.Slots {
		if len(sp.Holders) > 1 {
			ids := make([]string, len(sp.Holders))
			for i, h := range sp.Holders {
				ids[i] = fmt.Sprintf("#%d (%s)", h.ID, h.Status)
			}
			return &publisher.VerifyError{What: fmt.Sprintf(
				"the slot at %s holds %d posts: %s; unschedule all but one by hand",
				sp.Slot.At.Format(time.RFC3339), len(sp.Holders), strings.Join(ids, ", "))}
		}
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
