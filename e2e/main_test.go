package e2e

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// requireEnv makes a WordPress that cannot be started a test failure
// instead of a skip.
const requireEnv = "WPQUEUE_REQUIRE_WORDPRESS"

// siteSpec is one WordPress instance the suite starts.
type siteSpec struct {
	name string
	// args are extra options for scripts/wordpress.sh start.
	args []string
	// zone is how the test computes slots for the site, independently of
	// the product: an IANA zone, or a fixed offset.
	zone func() (*time.Location, error)
	// zoneLabel is what status prints for the zone and its source.
	zoneLabel string
}

func ianaZone(name string) func() (*time.Location, error) {
	return func() (*time.Location, error) { return time.LoadLocation(name) }
}

func fixedZone(hours float64) func() (*time.Location, error) {
	return func() (*time.Location, error) {
		return time.FixedZone(fmt.Sprintf("test%+g", hours), int(hours*3600)), nil
	}
}

// The instances. Each gets its own port and state directory; the tests of
// one instance run one after another and reset its posts in between.
var specs = []siteSpec{
	{name: "seoul", args: []string{"--timezone", "Asia/Seoul", "--drafts", "5"},
		zone: ianaZone("Asia/Seoul"), zoneLabel: "Asia/Seoul (the site's timezone_string)"},
	// A default install: timezone_string "" and gmt_offset "0" (a string).
	{name: "utc", args: []string{"--drafts", "5"},
		zone: fixedZone(0), zoneLabel: "UTC (the site's gmt_offset)"},
	{name: "pretty", args: []string{"--permalinks", "pretty", "--timezone", "Europe/Berlin", "--drafts", "5"},
		zone: ianaZone("Europe/Berlin"), zoneLabel: "Europe/Berlin (the site's timezone_string)"},
	{name: "offset", args: []string{"--gmt-offset", "5.5", "--drafts", "5"},
		zone: fixedZone(5.5), zoneLabel: "UTC+5:30 (the site's gmt_offset)"},
	// A default install (plain permalinks, UTC) with a must-use plugin that
	// bends WordPress's answers for requests whose User-Agent asks for it
	// (hostile_test.go, testdata/mu-plugins/hostile.php).
	{name: "hostile", args: []string{"--drafts", "5", "--mu-plugin", "testdata/mu-plugins/hostile.php"},
		zone: fixedZone(0), zoneLabel: "UTC (the site's gmt_offset)"},
}

// suite is the shared state TestMain sets up.
var suite struct {
	root      string // module root
	script    string // scripts/wordpress.sh, absolute
	tmp       string // everything the suite writes
	bin       string // the built wpqueue
	require   bool
	skip      string // non-empty: every test skips with this
	fatal     string // non-empty: every test fails with this
	startedMu sync.Mutex
	started   []string // state dirs to stop at the end
	sites     map[string]*wpSite
	startErr  map[string]error
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	suite.require = os.Getenv(requireEnv) == "1"
	suite.sites = map[string]*wpSite{}
	suite.startErr = map[string]error{}
	if testing.Short() {
		suite.skip = "end-to-end tests against a real WordPress are skipped under -short"
		return m.Run()
	}
	root, err := filepath.Abs("..")
	if err == nil {
		_, err = os.Stat(filepath.Join(root, "go.mod"))
	}
	if err != nil {
		suite.fatal = fmt.Sprintf("cannot find the module root from %s: %v", mustGetwd(), err)
		return m.Run()
	}
	suite.root = root
	suite.script = filepath.Join(root, "scripts", "wordpress.sh")

	if out, err := exec.Command("bash", suite.script, "install", "--check").CombinedOutput(); err != nil {
		msg := fmt.Sprintf("WordPress is not installed on this machine (%s): run scripts/wordpress.sh install (as root)",
			strings.TrimSpace(string(out)))
		if suite.require {
			suite.fatal = msg + " [" + requireEnv + "=1]"
		} else {
			suite.skip = msg
		}
		return m.Run()
	}

	suite.tmp, err = os.MkdirTemp("", "wpqueue-e2e-")
	if err != nil {
		suite.fatal = err.Error()
		return m.Run()
	}
	keep := os.Getenv("WPQUEUE_E2E_KEEP") == "1"
	defer func() {
		if !keep {
			os.RemoveAll(suite.tmp)
		}
	}()

	// Sites are stopped at the normal end and on SIGINT/SIGTERM; when the
	// test binary dies otherwise (a panicking test, -timeout, SIGKILL), a
	// watchdog outside it stops them.
	var dirs []string
	for _, sp := range specs {
		dirs = append(dirs, filepath.Join(suite.tmp, sp.name))
	}
	if dog, err := startWatchdog(dirs); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: no watchdog (%v); if this binary is killed, stop the sites with scripts/wordpress.sh stop --dir DIR\n", err)
	} else {
		defer func() {
			// Its process group: bash and its tail, started below with setsid.
			syscall.Kill(-dog.Pid, syscall.SIGKILL)
			dog.Wait()
		}()
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sigs
		fmt.Fprintf(os.Stderr, "e2e: %v: stopping WordPress sites\n", s)
		stopAll()
		os.Exit(1)
	}()
	defer stopAll()

	t0 := time.Now()
	var wg sync.WaitGroup
	buildErr := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		buildErr <- buildBinary()
	}()
	var mu sync.Mutex
	for _, sp := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := startSite(sp)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				suite.startErr[sp.name] = err
				return
			}
			suite.sites[sp.name] = s
		}()
	}
	wg.Wait()
	if err := <-buildErr; err != nil {
		suite.fatal = err.Error()
	}
	var each []string
	for _, sp := range specs {
		if s := suite.sites[sp.name]; s != nil {
			each = append(each, fmt.Sprintf("%s %s (%.1fs)", sp.name, s.url, s.startTime.Seconds()))
		} else {
			each = append(each, sp.name+" FAILED")
		}
	}
	fmt.Fprintf(os.Stderr, "e2e: built wpqueue and started %d of %d WordPress sites in %.1fs under %s: %s\n",
		len(suite.sites), len(specs), time.Since(t0).Seconds(), suite.tmp, strings.Join(each, ", "))
	for name, err := range suite.startErr {
		fmt.Fprintf(os.Stderr, "e2e: site %s: %v\n", name, err)
	}

	code := m.Run()
	if code != 0 && !keep {
		keep = true
		fmt.Fprintf(os.Stderr, "e2e: a test failed; the sites' state directories (logs, databases) are kept in %s\n", suite.tmp)
	}
	return code
}

// startWatchdog starts, in its own session, a shell that waits for this
// test binary to end and then stops the sites in dirs by their recorded
// PIDs. After a normal end the caller kills it first (the sites are
// already stopped).
func startWatchdog(dirs []string) (*os.Process, error) {
	script := `pid=$1 script=$2; shift 2
tail --pid="$pid" -f /dev/null 2>/dev/null
while kill -0 "$pid" 2>/dev/null; do sleep 1; done
for d; do
	if [ -f "$d/pids" ]; then bash "$script" stop --dir "$d"; fi
done`
	args := append([]string{"-c", script, "e2e-watchdog", fmt.Sprint(os.Getpid()), suite.script}, dirs...)
	cmd := exec.Command("bash", args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd.Process, nil
}

func mustGetwd() string {
	wd, _ := os.Getwd()
	return wd
}

// buildBinary builds ./cmd/wpqueue, or takes the binary named by
// WPQUEUE_E2E_BINARY (to test a release build, or a modified copy).
func buildBinary() error {
	if bin := os.Getenv("WPQUEUE_E2E_BINARY"); bin != "" {
		abs, err := filepath.Abs(bin)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("WPQUEUE_E2E_BINARY: %w", err)
		}
		suite.bin = abs
		return nil
	}
	suite.bin = filepath.Join(suite.tmp, "bin", "wpqueue")
	cmd := exec.Command("go", "build", "-o", suite.bin, "./cmd/wpqueue")
	cmd.Dir = suite.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/wpqueue: %v\n%s", err, out)
	}
	return nil
}

// Ports come from 18100-18199 (a developer's sites use 18080/18090),
// starting at an offset from the PID so that two suites running at once
// are unlikely to try the same ones.
var ports struct {
	mu   sync.Mutex
	next int
	used map[int]bool
}

// freePort hands out a port in 18100-18199 that nothing listens on now
// and that this suite has not handed out before.
func freePort() (int, error) {
	const lo, span = 18100, 100
	ports.mu.Lock()
	defer ports.mu.Unlock()
	if ports.used == nil {
		ports.used = map[int]bool{}
		ports.next = os.Getpid() % span
	}
	for i := 0; i < span; i++ {
		p := lo + (ports.next+i)%span
		if ports.used[p] {
			continue
		}
		ports.used[p] = true
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		l.Close()
		ports.next = (ports.next + i + 1) % span
		return p, nil
	}
	return 0, fmt.Errorf("no free port left in %d-%d", lo, lo+span-1)
}

// startSite runs scripts/wordpress.sh start and prepares the site for the
// tests: post 1 moved out of every upcoming slot window, then a snapshot
// of the posts that reset restores.
func startSite(sp siteSpec) (*wpSite, error) {
	dir := filepath.Join(suite.tmp, sp.name)
	loc, err := sp.zone()
	if err != nil {
		return nil, fmt.Errorf("test zone for %s: %w", sp.name, err)
	}
	suite.startedMu.Lock()
	suite.started = append(suite.started, dir)
	suite.startedMu.Unlock()

	t0 := time.Now()
	var stdout, stderr bytes.Buffer
	// Another program may take the port between the check and the start;
	// the script then refuses it, and another port is tried.
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		args := append([]string{suite.script, "start", "--port", fmt.Sprint(port), "--dir", dir}, sp.args...)
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		cmd := exec.CommandContext(ctx, "bash", args...)
		stdout.Reset()
		stderr.Reset()
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		cancel()
		if err == nil {
			break
		}
		if attempt < 3 && strings.Contains(stderr.String(), "already in use") {
			continue
		}
		return nil, fmt.Errorf("scripts/wordpress.sh start for site %q (port %d) failed: %v\n%s", sp.name, port, err, tail(stderr.String(), 25))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if got := lines[len(lines)-1]; got != dir {
		return nil, fmt.Errorf("scripts/wordpress.sh start printed %q as its last line, want the state dir %q", got, dir)
	}
	s, err := newSite(sp, dir, loc)
	if err != nil {
		return nil, err
	}
	s.startTime = time.Since(t0)
	// Post 1 ("Hello world!") is published at install time, i.e. now: it
	// sits inside the window of the next slot whenever that slot is less
	// than ~12 h away, which would make "nothing to do" depend on the time
	// of day. It goes back a year here; TestHandPublished puts a post into
	// the window on purpose.
	if _, err := s.sqlErr(`UPDATE wp_posts SET post_date = post_date - INTERVAL 1 YEAR,
		post_date_gmt = post_date_gmt - INTERVAL 1 YEAR, post_modified = post_modified - INTERVAL 1 YEAR,
		post_modified_gmt = post_modified_gmt - INTERVAL 1 YEAR WHERE ID = 1`); err != nil {
		return nil, err
	}
	if _, err := s.sqlErr(`DROP TABLE IF EXISTS wpq_snap_posts, wpq_snap_postmeta, wpq_snap_terms;
		CREATE TABLE wpq_snap_posts AS SELECT * FROM wp_posts;
		CREATE TABLE wpq_snap_postmeta AS SELECT * FROM wp_postmeta;
		CREATE TABLE wpq_snap_terms AS SELECT * FROM wp_term_relationships`); err != nil {
		return nil, err
	}
	ids, err := s.sqlErr(`SELECT ID FROM wp_posts WHERE post_type='post' AND post_status='draft' ORDER BY ID`)
	if err != nil {
		return nil, err
	}
	s.drafts = parseInts(ids)
	if len(s.drafts) != 5 {
		return nil, fmt.Errorf("site %s: want 5 seeded drafts, found %v", sp.name, s.drafts)
	}
	return s, nil
}

// stopAll stops every site started (or half started) by its recorded
// PIDs, through the script. Safe to call twice.
func stopAll() {
	suite.startedMu.Lock()
	dirs := suite.started
	suite.started = nil
	suite.startedMu.Unlock()
	var wg sync.WaitGroup
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "pids")); err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := exec.Command("bash", suite.script, "stop", "--dir", dir).CombinedOutput()
			if err != nil {
				fmt.Fprintf(os.Stderr, "e2e: stopping %s: %v\n%s", dir, err, out)
			}
		}()
	}
	wg.Wait()
}

// needSite returns the named site, or skips (fails, with
// WPQUEUE_REQUIRE_WORDPRESS=1) when WordPress is not available.
func needSite(t *testing.T, name string) *wpSite {
	t.Helper()
	if suite.skip != "" {
		t.Skip(suite.skip)
	}
	if suite.fatal != "" {
		t.Fatal(suite.fatal)
	}
	if err := suite.startErr[name]; err != nil {
		msg := fmt.Sprintf("WordPress site %q could not be started: %v\n(packages missing? run scripts/wordpress.sh install)", name, err)
		if suite.require {
			t.Fatal(msg + "\n[" + requireEnv + "=1]")
		}
		t.Skip(msg)
	}
	s := suite.sites[name]
	if s == nil {
		t.Fatalf("no site %q", name)
	}
	s.mu.Lock()
	t.Cleanup(s.mu.Unlock)
	return s
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

var errNoEnv = errors.New("env file lacks a key")
