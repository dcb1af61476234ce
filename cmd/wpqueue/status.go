package main

import (
	"context"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/wpqueue/wpqueue/config"
)

func (a *app) newStatusCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the site's zone, the upcoming slots, the queue and warnings",
		Long: `status reads each site (nothing is written, no lock is taken) and shows:
the time zone slots are computed in and where it came from, each upcoming
slot with the post that fills it (id, raw title, status, date in site time
and UTC) or "empty" with the draft the next run would pick, the next
drafts in queue order, and warnings: missed-schedule posts, drafts that
are never scheduled (empty title or content), an empty or low queue.

` + exitStatusHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runSites(cmd.Context(), "status", a.statusSite)
		},
	}
	return cmd
}

func (a *app) statusSite(ctx context.Context, s config.Site, log *slog.Logger) (rep *siteReport) {
	rep = newReport(s, "status", true)
	env, err := a.openSite(ctx, s, true, log)
	if env != nil {
		defer func() { rep.Requests = env.client.Requests() }()
	}
	if err != nil {
		return rep.fail(err)
	}
	rep.setZone(env)
	env.pub.ReadQueue = true
	plan, err := env.pub.Plan(ctx, env.client, a.now())
	if err != nil {
		return rep.fail(err)
	}
	rep.fromPlan(plan, s.Alerts.LowQueue)
	return rep
}
