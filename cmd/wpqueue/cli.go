package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wpqueue/wpqueue/config"
	"github.com/wpqueue/wpqueue/wpclient"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

// Streams are the standard streams a command uses.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// app holds what every command shares: streams, the clock, flag values
// and the injectable HTTP client (tests).
type app struct {
	streams    Streams
	now        func() time.Time
	httpClient *http.Client

	configPath string
	output     string
	siteNames  []string
	timeout    time.Duration
	flags      *pflag.FlagSet
	// settle is how long publish waits before reading a slot that holds
	// two posts again (another machine's give-back may be in flight);
	// 0 does not look again.
	settle time.Duration
}

// exitStatus carries an exit code whose message was already printed.
type exitStatus struct{ code int }

func (e *exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// Execute runs wpqueue with args and returns the exit status.
func Execute(ctx context.Context, args []string, s Streams) int {
	a := &app{streams: s, now: time.Now, settle: 2 * time.Second}
	return a.execute(ctx, args)
}

func (a *app) execute(ctx context.Context, args []string) int {
	root := a.newRootCmd()
	root.SetArgs(args)
	root.SetIn(a.streams.In)
	root.SetOut(a.streams.Out)
	root.SetErr(a.streams.Err)
	err := root.ExecuteContext(ctx)
	var es *exitStatus
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &es):
		return es.code
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(a.streams.Err, "wpqueue: %s\n", line)
	}
	code := exitCode(err)
	if errors.Is(err, config.ErrConfig) && a.configPath == "" && noConfigFile() {
		fmt.Fprintf(a.streams.Err, "wpqueue: no config file was found (looked for %s); see 'Set it up for your site' in the README\n", strings.Join(config.SearchPaths(), " and "))
	}
	if code == exitError && isCobraUsageError(err) {
		code = exitUsage
	}
	if code == exitUsage && !errors.Is(err, config.ErrConfig) {
		fmt.Fprintln(a.streams.Err, "Run 'wpqueue --help' for usage.")
	}
	return code
}

// noConfigFile reports whether none of the default config files exists.
func noConfigFile() bool {
	for _, p := range config.SearchPaths() {
		if _, err := os.Stat(p); err == nil {
			return false
		}
	}
	return true
}

// isCobraUsageError recognises cobra's own argument errors, which it
// returns as plain errors.
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires ", "invalid argument", "flag needs an argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func (a *app) newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "wpqueue",
		Short: "Schedule the next WordPress draft into the next empty slot, exactly once",
		Long: `wpqueue keeps a WordPress site's upcoming publishing slots filled from its
queue of drafts, through the REST API and an application password.

It takes a per-site OS lock, reads which upcoming slots already hold a
scheduled or published post, schedules the first queued draft into each
empty slot (status future at the slot's date_gmt) and verifies the result
from the site. The site is the record of what was done: running it again,
at any hour and from any machine, does nothing when the slots are filled.

` + exitStatusHelp,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       versionString(),
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err.Error()} })
	pf := root.PersistentFlags()
	pf.StringVarP(&a.configPath, "config", "c", "", "config file (default ./wpqueue.yaml, then the user config dir)")
	pf.StringVarP(&a.output, "output", "o", "text", "output format: text or json")
	pf.StringArrayVar(&a.siteNames, "site", nil, "act on this site of the config only (repeatable)")
	pf.DurationVar(&a.timeout, "timeout", 5*time.Minute, "give up a run that takes longer than this (0: no limit)")
	config.RegisterFlags(pf)
	a.flags = pf

	root.AddCommand(a.newPublishCmd(), a.newStatusCmd(), a.newVersionCmd())
	root.SetVersionTemplate("wpqueue {{.Version}}\n")
	return root
}

func versionString() string {
	v := version
	if v == "" {
		v = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	return fmt.Sprintf("%s (%s, %s/%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func (a *app) newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(a.streams.Out, "wpqueue %s\n", versionString())
			return err
		},
	}
}

// load reads the config and picks the sites named by --site.
func (a *app) load() (*config.Config, []config.Site, error) {
	switch a.output {
	case "text", "json":
	default:
		return nil, nil, &usageError{fmt.Sprintf("--output %q: want text or json", a.output)}
	}
	cfg, err := config.Load(config.LoadOptions{Path: a.configPath, Flags: a.flags})
	if err != nil {
		return nil, nil, err
	}
	sites, err := cfg.Select(a.siteNames)
	if err != nil {
		return nil, nil, err
	}
	return cfg, sites, nil
}

// logger builds the run's logger: text or JSON on stderr at log.level,
// plus JSON lines appended to log.file when set. Each record is written
// with one write call on a file opened with O_APPEND, so runs that share a
// log file never tear each other's lines.
func (a *app) logger(cfg *config.Config) (*slog.Logger, func(), error) {
	opts := &slog.HandlerOptions{Level: cfg.Log.Level}
	var h slog.Handler
	if cfg.Log.Format == "json" {
		h = slog.NewJSONHandler(a.streams.Err, opts)
	} else {
		h = slog.NewTextHandler(a.streams.Err, opts)
	}
	closeFn := func() {}
	if cfg.Log.File != "" {
		f, err := os.OpenFile(cfg.Log.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("log.file: %w", err)
		}
		closeFn = func() { _ = f.Close() }
		h = teeHandler{h, slog.NewJSONHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug})}
	}
	return slog.New(h), closeFn, nil
}

// teeHandler sends each record to two handlers.
type teeHandler struct{ a, b slog.Handler }

func (t teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return t.a.Enabled(ctx, l) || t.b.Enabled(ctx, l)
}

func (t teeHandler) Handle(ctx context.Context, r slog.Record) error {
	var errs []error
	if t.a.Enabled(ctx, r.Level) {
		errs = append(errs, t.a.Handle(ctx, r.Clone()))
	}
	if t.b.Enabled(ctx, r.Level) {
		errs = append(errs, t.b.Handle(ctx, r))
	}
	return errors.Join(errs...)
}

func (t teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return teeHandler{t.a.WithAttrs(as), t.b.WithAttrs(as)}
}

func (t teeHandler) WithGroup(name string) slog.Handler {
	return teeHandler{t.a.WithGroup(name), t.b.WithGroup(name)}
}

// withTimeout bounds a whole run, so a scheduler never piles up runs
// against a site that stalls.
func (a *app) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if a.timeout <= 0 {
		return context.WithCancel(ctx)
	}
	// No cause: net/http returns context.Cause from a cancelled request,
	// and the packages below recognise context.DeadlineExceeded.
	return context.WithTimeout(ctx, a.timeout)
}

func newClient(s config.Site, hc *http.Client, readOnly bool, log *slog.Logger) (*wpclient.Client, error) {
	return wpclient.New(s.Site.URL, wpclient.Credentials{Username: s.Site.Username, Password: s.Site.Password.Reveal()}, wpclient.Options{
		HTTPClient:        hc,
		APIRoot:           s.Site.APIRoot,
		UserAgent:         s.Site.UserAgent,
		Timeout:           s.Site.Timeout,
		ReadOnly:          readOnly,
		AllowInsecureHTTP: s.Site.AllowInsecureHTTP,
		Logger:            log,
	})
}
