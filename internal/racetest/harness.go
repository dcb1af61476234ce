package racetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wpqueue/wpqueue/internal/faultproxy"
)

// Options configure a harness.
type Options struct {
	// Root is the module root: scripts/wordpress.sh and the packages to
	// build are found there.
	Root string
	// WPQueue is the wpqueue binary to test; "" builds ./cmd/wpqueue,
	// from the working tree, or from the commit Rev when it is set.
	WPQueue string
	Rev     string
	// Self is a binary that runs the start shim (see [ShimMain]) until the
	// harness has built internal/racetest/shim; "" means os.Executable.
	Self string
	// Work is where binaries, lock files and the site go; "" makes a
	// directory under the user's cache directory (not under /tmp, where
	// wpqueue warns about every lock file), removed at Close unless Keep.
	Work string
	Keep bool
	// PortLo and PortHi bound the WordPress port (default 18200-18249).
	PortLo, PortHi int
	// Zone is the site's time zone (default Asia/Seoul).
	Zone string
	// Progress receives one line per round and what the harness does.
	Progress io.Writer
}

// Harness is a running WordPress, the binaries under test, and a
// launcher.
type Harness struct {
	opt  Options
	work string
	Site *Site
	L    *Launcher
	// Bin holds the binaries: wpqueue, checkcreate, oexcl, flockonly,
	// trivial.
	Bin map[string]string
	// Under says which wpqueue is tested: the binary given, a commit, or
	// the working tree (with its uncommitted changes).
	Under   string
	siteDir string

	mu       sync.Mutex
	proxies  []*faultproxy.Proxy
	stopOnce sync.Once
	dog      *os.Process

	// Bench collects timings other scenarios measure on the way.
	Bench BenchData
	// proxyErrs are requests a closed machine's proxy failed to forward.
	proxyErrs []string
}

// BenchData are timings collected by the scenarios.
type BenchData struct {
	// RoundWall is, per round of scenario 1, the time from the shared
	// start instant to the last process's end.
	RoundWall []time.Duration
	// RoundN is the number of processes in those rounds.
	RoundN int
	// Losers are lock losers' start-to-exit times in those rounds.
	Losers []time.Duration
}

// New builds the binaries and starts WordPress. Close stops it, also after
// an error.
func New(ctx context.Context, opt Options) (h *Harness, err error) {
	if opt.PortLo == 0 {
		opt.PortLo, opt.PortHi = 18200, 18249
	}
	if opt.Zone == "" {
		opt.Zone = "Asia/Seoul"
	}
	if opt.Progress == nil {
		opt.Progress = io.Discard
	}
	if opt.Self == "" {
		if opt.Self, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	h = &Harness{opt: opt, Bin: map[string]string{}}
	if opt.Work == "" {
		parent, cerr := os.UserCacheDir()
		if cerr != nil || os.MkdirAll(parent, 0o700) != nil {
			parent = ""
		}
		if h.work, err = os.MkdirTemp(parent, "wpqueue-race-"); err != nil {
			return nil, err
		}
	} else {
		h.work = opt.Work
		if err := os.MkdirAll(h.work, 0o755); err != nil {
			return nil, err
		}
	}
	h.L = NewLauncher(opt.Self)
	defer func() {
		if err != nil {
			h.Close()
			h = nil
		}
	}()
	script := filepath.Join(opt.Root, "scripts", "wordpress.sh")
	if _, err := os.Stat(script); err != nil {
		return h, fmt.Errorf("no scripts/wordpress.sh under the module root %s: %w", opt.Root, err)
	}
	if out, err := exec.CommandContext(ctx, "bash", script, "install", "--check").CombinedOutput(); err != nil {
		return h, fmt.Errorf("WordPress is not installed (%s): run scripts/wordpress.sh install as root", strings.TrimSpace(string(out)))
	}
	port, err := PickPort(opt.PortLo, opt.PortHi)
	if err != nil {
		return h, err
	}
	h.siteDir = filepath.Join(h.work, "site")
	if dog, err := startWatchdog(script, h.siteDir); err == nil {
		h.dog = dog
	} else {
		fmt.Fprintf(opt.Progress, "no watchdog (%v): if the harness is killed, run scripts/wordpress.sh stop --dir %s\n", err, h.siteDir)
	}

	var wg sync.WaitGroup
	var buildErr, siteErr error
	var siteLog bytes.Buffer
	wg.Add(2)
	go func() {
		defer wg.Done()
		buildErr = h.build(ctx)
	}()
	go func() {
		defer wg.Done()
		t0 := time.Now()
		h.Site, siteErr = StartSite(ctx, script, h.siteDir, port, opt.Zone, 5, &siteLog)
		if siteErr == nil {
			fmt.Fprintf(opt.Progress, "started WordPress %s (zone %s, drafts %v) in %.1fs\n", h.Site.URL, opt.Zone, h.Site.Drafts, time.Since(t0).Seconds())
		}
	}()
	wg.Wait()
	if siteErr != nil {
		return h, fmt.Errorf("%w\n%s", siteErr, tail(siteLog.String(), 20))
	}
	if buildErr != nil {
		return h, buildErr
	}
	// The small shim binary instead of this harness re-executed: the
	// shim's exec is inside every measured start-to-exit time, and tearing
	// down a 10 MB process costs more than a 2 MB one.
	h.L.Self = h.Bin["shim"]
	return h, nil
}

func (h *Harness) build(ctx context.Context) error {
	bin := filepath.Join(h.work, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	pkgs := []string{"./internal/racetest/strategies/checkcreate", "./internal/racetest/strategies/oexcl",
		"./internal/racetest/strategies/flockonly", "./internal/racetest/trivial", "./internal/racetest/shim"}
	switch {
	case h.opt.WPQueue != "":
		abs, err := filepath.Abs(h.opt.WPQueue)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("--wpqueue: %w", err)
		}
		h.Bin["wpqueue"] = abs
		h.Under = "the binary " + abs
	case h.opt.Rev != "":
		sha, err := gitOut(ctx, h.opt.Root, "rev-parse", "--verify", h.opt.Rev+"^{commit}")
		if err != nil {
			return fmt.Errorf("-rev %s: %v", h.opt.Rev, err)
		}
		src := filepath.Join(h.work, "src")
		if err := os.MkdirAll(src, 0o755); err != nil {
			return err
		}
		archive := exec.CommandContext(ctx, "git", "-C", h.opt.Root, "archive", "--format=tar", sha)
		untar := exec.CommandContext(ctx, "tar", "-x", "-C", src)
		pipe, err := archive.StdoutPipe()
		if err != nil {
			return err
		}
		untar.Stdin = pipe
		if err := archive.Start(); err != nil {
			return err
		}
		out, err := untar.CombinedOutput()
		if werr := archive.Wait(); err == nil && werr != nil {
			err = werr
		}
		if err != nil {
			return fmt.Errorf("git archive %s | tar -x: %v\n%s", sha, err, out)
		}
		cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, "wpqueue"), "./cmd/wpqueue")
		cmd.Dir = src
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/wpqueue at %s: %v\n%s", sha, err, out)
		}
		h.Bin["wpqueue"] = filepath.Join(bin, "wpqueue")
		h.Under = "wpqueue built from commit " + sha[:12]
	default:
		pkgs = append(pkgs, "./cmd/wpqueue")
		h.Under = "wpqueue built from the working tree"
		if sha, err := gitOut(ctx, h.opt.Root, "rev-parse", "--short=12", "HEAD"); err == nil {
			h.Under += " at " + sha
			if dirty, err := gitOut(ctx, h.opt.Root, "status", "--porcelain", "--untracked-files=no", "--", "cmd/wpqueue", "config", "lockfile", "publisher", "wpclient", "go.mod", "go.sum"); err == nil && dirty != "" {
				h.Under += " with uncommitted changes in: " + strings.Join(strings.Fields(strings.ReplaceAll(dirty, " M ", " ")), " ")
			}
		}
	}
	cmd := exec.CommandContext(ctx, "go", append([]string{"build", "-o", bin + "/"}, pkgs...)...)
	cmd.Dir = h.opt.Root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	for _, p := range pkgs {
		name := filepath.Base(p)
		if _, ok := h.Bin[name]; !ok {
			h.Bin[name] = filepath.Join(bin, name)
		}
	}
	return nil
}

func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...).Output()
	return strings.TrimSpace(string(out)), err
}

// startWatchdog starts, in its own session, a shell that waits for this
// process to end and then stops the site in dir by its recorded PIDs (for
// a harness killed without a chance to clean up). Close kills it first.
func startWatchdog(script, dir string) (*os.Process, error) {
	const sh = `pid=$1 script=$2 dir=$3
while kill -0 "$pid" 2>/dev/null; do sleep 1; done
if [ -f "$dir/pids" ]; then bash "$script" stop --dir "$dir" >/dev/null 2>&1; fi`
	cmd := exec.Command("bash", "-c", sh, "wpqueue-race-watchdog", fmt.Sprint(os.Getpid()), script, dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go cmd.Wait()
	return cmd.Process, nil
}

// Close kills every process the harness started that still runs, closes
// the proxies, stops WordPress through the script and removes the work
// directory (unless Keep). Safe to call twice.
func (h *Harness) Close() error {
	var err error
	h.stopOnce.Do(func() {
		if h.L != nil {
			h.L.KillAll()
		}
		h.mu.Lock()
		for _, p := range h.proxies {
			p.Close()
		}
		h.mu.Unlock()
		if h.siteDir != "" {
			t0 := time.Now()
			err = StopSite(filepath.Join(h.opt.Root, "scripts", "wordpress.sh"), h.siteDir)
			if err == nil {
				fmt.Fprintf(h.opt.Progress, "stopped WordPress (%.1fs)\n", time.Since(t0).Seconds())
			}
		}
		if h.dog != nil {
			// Its session: the shell and its sleep.
			syscall.Kill(-h.dog.Pid, syscall.SIGKILL)
		}
		if !h.opt.Keep && h.opt.Work == "" && err == nil {
			os.RemoveAll(h.work)
		} else {
			fmt.Fprintf(h.opt.Progress, "work directory kept: %s\n", h.work)
		}
	})
	return err
}

func (h *Harness) progress(format string, args ...any) {
	fmt.Fprintf(h.opt.Progress, format+"\n", args...)
}

// ---------------------------------------------------------------- machines

// Machine is one simulated machine: its own proxy in front of the site
// (so faults can be placed per machine), its own lock file and home.
type Machine struct {
	Name  string
	Proxy *faultproxy.Proxy
	Lock  string
	Home  string
}

// NewMachine creates a machine with a fresh proxy, lock file and home.
func (h *Harness) NewMachine(name string) (*Machine, error) {
	p, err := faultproxy.New(h.Site.URL)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.proxies = append(h.proxies, p)
	h.mu.Unlock()
	dir, err := os.MkdirTemp(h.work, "machine-"+name+"-")
	if err != nil {
		return nil, err
	}
	m := &Machine{Name: name, Proxy: p, Lock: filepath.Join(dir, "locks", "site.lock"), Home: filepath.Join(dir, "home")}
	if err := os.MkdirAll(m.Home, 0o700); err != nil {
		return nil, err
	}
	return m, nil
}

// CloseMachine closes the machine's proxy.
func (h *Harness) CloseMachine(m *Machine) {
	m.Proxy.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range m.Proxy.UpstreamErrors() {
		h.proxyErrs = append(h.proxyErrs, m.Name+": "+e)
	}
	for i, p := range h.proxies {
		if p == m.Proxy {
			h.proxies = append(h.proxies[:i], h.proxies[i+1:]...)
			break
		}
	}
}

// baseEnv is the environment every program gets: nothing inherited but
// PATH, a home without a wpqueue config, and a machine zone far from the
// site's.
func (m *Machine) baseEnv() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + m.Home,
		"XDG_CONFIG_HOME=" + filepath.Join(m.Home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(m.Home, ".local", "state"),
		"TZ=Pacific/Chatham",
		"LANG=C.UTF-8",
	}
}

// WPQueueEnv is a wpqueue run's environment on machine m: the site through
// m's proxy, m's lock file, one daily slot at 07:00, plus extra.
func (h *Harness) WPQueueEnv(m *Machine, extra ...string) []string {
	return append(append(m.baseEnv(),
		"WPQUEUE_SITE_URL="+m.Proxy.URL(),
		"WPQUEUE_SITE_USERNAME="+h.Site.Username,
		"WPQUEUE_SITE_PASSWORD_FILE="+h.Site.PasswordFile,
		"WPQUEUE_LOCK_PATH="+m.Lock,
		"WPQUEUE_SCHEDULE_TIMES=07:00",
	), extra...)
}

// Publish is one `wpqueue publish --output json` process on machine m.
func (h *Harness) Publish(m *Machine, label string, extra ...string) Proc {
	return Proc{Label: label, Path: h.Bin["wpqueue"], Args: []string{"publish", "--output", "json"},
		Env: h.WPQueueEnv(m, extra...), Dir: m.Home}
}

// Strategy is one run of a baseline strategy program on machine m.
func (h *Harness) Strategy(m *Machine, name, label string) Proc {
	return Proc{Label: label, Path: h.Bin[name], Env: append(m.baseEnv(),
		"NAIVE_SITE_URL="+m.Proxy.URL(),
		"NAIVE_USERNAME="+h.Site.Username,
		"NAIVE_PASSWORD_FILE="+h.Site.PasswordFile,
		"NAIVE_ZONE="+h.Site.ZoneName,
		"NAIVE_TIME=07:00",
		"NAIVE_LOCK="+m.Lock,
	), Dir: m.Home}
}

// Slot is the slot a run started now aims at.
func (h *Harness) Slot(now time.Time) time.Time {
	return NextSlot(now, h.Site.Zone, 7, 0, 15*time.Minute)
}

// LockFree reports whether the lock file at path can be locked now (the
// OS released it), and releases it again.
func LockFree(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false, err
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

// HoldLock takes the lock file at path (as a running wpqueue would) until
// release is called.
func HoldLock(path string) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// ---------------------------------------------------------------- reports

// Report is the part of wpqueue's JSON report (README "JSON output") the
// harness reads.
type Report struct {
	Slots []struct {
		State  string    `json:"state"`
		Post   *postRef  `json:"post"`
		Winner *postRef  `json:"winner"`
		Error  string    `json:"error"`
		At     time.Time `json:"at"`
	} `json:"slots"`
	Warnings []string `json:"warnings"`
	Requests int      `json:"requests"`
	ExitCode int      `json:"exit_code"`
	Error    string   `json:"error"`
}

type postRef struct {
	ID int `json:"id"`
}

// ParseReport reads the one-site JSON report of a publish run; nil when
// there is none.
func ParseReport(stdout string) *Report {
	for _, line := range strings.Split(stdout, "\n") {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var r Report
		if json.Unmarshal([]byte(line), &r) == nil {
			return &r
		}
	}
	return nil
}

// State is the first slot's state ("scheduled", "filled", ...), "lock"
// for a run that exited 75, or "-" when there is no report.
func (r *Report) State() string {
	if r == nil {
		return "-"
	}
	if len(r.Slots) == 0 {
		if r.ExitCode == 75 {
			return "lock"
		}
		return "no-slot"
	}
	return r.Slots[0].State
}

// PostID is the first slot's post (0 when none).
func (r *Report) PostID() int {
	if r == nil || len(r.Slots) == 0 || r.Slots[0].Post == nil {
		return 0
	}
	return r.Slots[0].Post.ID
}

// Hist counts strings, printed in order of first appearance... sorted.
type Hist map[string]int

func (h Hist) String() string {
	var keys []string
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, h[k]))
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, ", ")
}

// ExitState is "<exit status> <slot state>", or "killed" for a run ended
// by SIGKILL.
func ExitState(r Result, rep *Report) string {
	if r.Code == -1 {
		if r.Signal == syscall.SIGKILL {
			return "killed"
		}
		return "signal " + r.Signal.String()
	}
	return fmt.Sprintf("%d %s", r.Code, rep.State())
}

// CodeHist counts exit statuses.
func CodeHist(rs []Result) Hist {
	h := Hist{}
	for _, r := range rs {
		k := fmt.Sprintf("%d", r.Code)
		if r.Code == -1 {
			k = "killed"
		}
		h[k]++
	}
	return h
}

// errorLine returns the last "wpqueue: ..." line of a run's stderr (its
// error), or "".
func errorLine(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "wpqueue: ") {
			return lines[i]
		}
	}
	return ""
}

// firstLine returns the first line of s that is not empty, shortened.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 200 {
				l = l[:200] + "…"
			}
			return l
		}
	}
	return ""
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
