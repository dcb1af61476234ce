package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// wpSite is one running WordPress started by scripts/wordpress.sh.
type wpSite struct {
	spec      siteSpec
	dir       string
	url       string
	username  string
	pwFile    string
	password  string // the application password, display form (with spaces)
	adminPass string // the login password; REST must reject it, and it must never show
	loc       *time.Location
	drafts    []int // the seeded drafts' ids, ascending
	startTime time.Duration
	mu        sync.Mutex // one test at a time per site
}

func newSite(sp siteSpec, dir string, loc *time.Location) (*wpSite, error) {
	env, err := readEnvFile(filepath.Join(dir, "env"))
	if err != nil {
		return nil, err
	}
	s := &wpSite{spec: sp, dir: dir, loc: loc}
	for key, dst := range map[string]*string{
		"WPQUEUE_SITE_URL": &s.url, "WPQUEUE_SITE_USERNAME": &s.username,
		"WPQUEUE_SITE_PASSWORD_FILE": &s.pwFile, "WP_ADMIN_PASSWORD": &s.adminPass,
	} {
		v, ok := env[key]
		if !ok || v == "" {
			return nil, fmt.Errorf("%s/env: %w: %s", dir, errNoEnv, key)
		}
		*dst = v
	}
	b, err := os.ReadFile(s.pwFile)
	if err != nil {
		return nil, err
	}
	s.password = strings.TrimSpace(string(b))
	if len(strings.ReplaceAll(s.password, " ", "")) != 24 {
		return nil, fmt.Errorf("%s: want a 24-character application password, got %d characters", s.pwFile, len(s.password))
	}
	return s, nil
}

// readEnvFile parses the KEY=value lines the script writes. A value is
// bare or single-quoted for the shell, where a quote inside a quoted value
// is written as quote, backslash, quote, quote.
func readEnvFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		k, raw, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		var v strings.Builder
		for i := 0; i < len(raw); i++ {
			switch c := raw[i]; c {
			case '\'':
				j := strings.IndexByte(raw[i+1:], '\'')
				if j < 0 {
					return nil, fmt.Errorf("%s: unterminated quote in %q", path, line)
				}
				v.WriteString(raw[i+1 : i+1+j])
				i += j + 1
			case '\\':
				if i+1 < len(raw) {
					i++
					v.WriteByte(raw[i])
				}
			default:
				v.WriteByte(c)
			}
		}
		out[k] = v.String()
	}
	return out, sc.Err()
}

// ---------------------------------------------------------------- SQL

// sqlErr runs SQL through scripts/wordpress.sh sql and returns its
// tab-separated output.
func (s *wpSite) sqlErr(query string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", suite.script, "sql", "--dir", s.dir, query)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("sql on %s: %v: %s\nquery: %s", s.spec.name, err, strings.TrimSpace(stderr.String()), query)
	}
	return stdout.String(), nil
}

func (s *wpSite) sql(t *testing.T, query string) string {
	t.Helper()
	out, err := s.sqlErr(query)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func parseInts(s string) []int {
	var out []int
	for _, f := range strings.Fields(s) {
		n, err := strconv.Atoi(f)
		if err == nil {
			out = append(out, n)
		}
	}
	return out
}

// reset restores the posts, their meta and terms to the snapshot taken
// after start (seeded drafts floating, post 1 a year back), so every test
// starts from the same site.
func (s *wpSite) reset(t *testing.T) {
	t.Helper()
	s.sql(t, `DELETE FROM wp_posts; INSERT INTO wp_posts SELECT * FROM wpq_snap_posts;
		DELETE FROM wp_postmeta; INSERT INTO wp_postmeta SELECT * FROM wpq_snap_postmeta;
		DELETE FROM wp_term_relationships; INSERT INTO wp_term_relationships SELECT * FROM wpq_snap_terms`)
}

// dumpAll returns every row of wp_posts (all types, revisions included)
// with every column that a write would touch: equal dumps mean nothing
// was written.
func (s *wpSite) dumpAll(t *testing.T) string {
	t.Helper()
	return s.sql(t, `SELECT ID, post_type, post_status, post_date, post_date_gmt, post_modified,
		post_modified_gmt, post_name, post_parent, MD5(post_title), MD5(post_content), MD5(post_excerpt)
		FROM wp_posts ORDER BY ID`) +
		"--meta\n" + s.sql(t, `SELECT meta_id, post_id, meta_key, MD5(meta_value) FROM wp_postmeta ORDER BY meta_id`) +
		"--terms\n" + s.sql(t, `SELECT object_id, term_taxonomy_id FROM wp_term_relationships ORDER BY 1, 2`)
}

// contentDump is what scheduling must never change about the posts:
// title, body, excerpt, author, parent, terms.
func (s *wpSite) contentDump(t *testing.T) string {
	t.Helper()
	return s.sql(t, `SELECT ID, MD5(post_title), MD5(post_content), MD5(post_excerpt), post_author,
		post_parent, post_password, comment_status FROM wp_posts WHERE post_type='post' ORDER BY ID`) +
		"--terms\n" + s.sql(t, `SELECT r.object_id, r.term_taxonomy_id FROM wp_term_relationships r
		JOIN wp_posts p ON p.ID = r.object_id WHERE p.post_type='post' ORDER BY 1, 2`)
}

// row is one post as the database holds it.
type row struct {
	ID                      int
	Status                  string
	Date, DateGMT, Modified string // "YYYY-MM-DD hh:mm:ss"; Date is site-local
	Title                   string
}

func (s *wpSite) rows(t *testing.T) map[int]row {
	t.Helper()
	out := map[int]row{}
	for _, line := range strings.Split(strings.TrimSpace(s.sql(t, `SELECT ID, post_status, post_date,
		post_date_gmt, post_modified, post_title FROM wp_posts WHERE post_type='post' ORDER BY ID`)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			t.Fatalf("unexpected SQL row %q", line)
		}
		id, _ := strconv.Atoi(f[0])
		out[id] = row{ID: id, Status: f[1], Date: f[2], DateGMT: f[3], Modified: f[4], Title: f[5]}
	}
	return out
}

// holders returns the ids of the posts that fill the slot at `at`
// (daily slots: the window is [at-12h, at+12h)): status publish or
// private, or future and not yet due (a future post whose date has passed
// missed its schedule and fills nothing), post_date_gmt inside the
// window, ordered by id.
func (s *wpSite) holders(t *testing.T, at time.Time) []int {
	t.Helper()
	lo, hi := at.Add(-12*time.Hour), at.Add(12*time.Hour)
	return parseInts(s.sql(t, fmt.Sprintf(`SELECT ID FROM wp_posts WHERE post_type='post'
		AND (post_status IN ('publish','private') OR (post_status='future' AND post_date_gmt > UTC_TIMESTAMP()))
		AND post_date_gmt >= '%s' AND post_date_gmt < '%s' ORDER BY ID`,
		lo.UTC().Format(sqlLayout), hi.UTC().Format(sqlLayout))))
}

const (
	sqlLayout  = "2006-01-02 15:04:05"
	restLayout = "2006-01-02T15:04:05"
)

// setPost sets a post's status and dates directly in the database, as an
// editor (or another tool) would have; date_gmt zero means floating.
func (s *wpSite) setPost(t *testing.T, id int, status string, at time.Time) {
	t.Helper()
	s.sql(t, fmt.Sprintf(`UPDATE wp_posts SET post_status='%s', post_date='%s', post_date_gmt='%s' WHERE ID=%d`,
		status, at.In(s.loc).Format(sqlLayout), at.UTC().Format(sqlLayout), id))
}

// ---------------------------------------------------------------- REST

// restPost is a post as the REST API shows it in edit context.
type restPost struct {
	ID      int    `json:"id"`
	Status  string `json:"status"`
	Date    string `json:"date"`
	DateGMT string `json:"date_gmt"`
	Title   struct {
		Raw string `json:"raw"`
	} `json:"title"`
	Content struct {
		Raw string `json:"raw"`
	} `json:"content"`
}

// restGet sends an authenticated GET to ?rest_route=route (which works
// with every permalink setting) and decodes the JSON answer into v.
func (s *wpSite) restGet(t *testing.T, route string, query url.Values, v any) {
	t.Helper()
	q := url.Values{"rest_route": {route}}
	for k, vs := range query {
		q[k] = vs
	}
	req, err := http.NewRequest(http.MethodGet, s.url+"/?"+q.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(s.username, s.password)
	req.Header.Set("Cache-Control", "no-cache")
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", route, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", route, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d: %.500s", route, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v in %.500s", route, err, body)
	}
}

func (s *wpSite) restPost(t *testing.T, id int) restPost {
	t.Helper()
	var p restPost
	s.restGet(t, fmt.Sprintf("/wp/v2/posts/%d", id), url.Values{"context": {"edit"}}, &p)
	return p
}

// restFuture lists the posts the REST API shows as scheduled.
func (s *wpSite) restFuture(t *testing.T) []restPost {
	t.Helper()
	var ps []restPost
	s.restGet(t, "/wp/v2/posts", url.Values{"status": {"future"}, "context": {"edit"}, "per_page": {"100"},
		"orderby": {"id"}, "order": {"asc"}}, &ps)
	return ps
}

// ---------------------------------------------------------------- running wpqueue

// runOpts changes the environment of one wpqueue run.
type runOpts struct {
	env   []string // extra KEY=value
	unset []string // keys of the base environment to leave out
	lock  string   // WPQUEUE_LOCK_PATH; default: a fresh file in a temp dir
	dir   string   // working directory; default: a fresh temp dir
}

type result struct {
	args           []string
	env            []string // the WPQUEUE_* part, for messages
	code           int
	stdout, stderr string
	took           time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("wpqueue %s (env %s): exit %d after %s\n--- stdout:\n%s--- stderr:\n%s",
		strings.Join(r.args, " "), strings.Join(r.env, " "), r.code, r.took.Round(time.Millisecond), r.stdout, r.stderr)
}

// baseEnv is the environment of a wpqueue run: nothing inherited from the
// developer's environment but PATH (no WPQUEUE_* leaking in), a HOME and
// XDG_CONFIG_HOME without a wpqueue config, the machine zone set to one
// far from every site's (the product must use the site's zone, never
// the local one), and the site's env file plus a lock path.
func (s *wpSite) baseEnv(t *testing.T, o runOpts) (full, shown []string) {
	t.Helper()
	home := t.TempDir()
	if o.lock == "" {
		o.lock = filepath.Join(t.TempDir(), "wpqueue.lock")
	}
	wp := []string{
		"WPQUEUE_SITE_URL=" + s.url,
		"WPQUEUE_SITE_USERNAME=" + s.username,
		"WPQUEUE_SITE_PASSWORD_FILE=" + s.pwFile,
		"WPQUEUE_LOCK_PATH=" + o.lock,
	}
	full = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"TZ=Pacific/Chatham",
		"LANG=C.UTF-8",
	}
	// A key in unset or in o.env replaces the base value.
	drop := map[string]bool{}
	for _, k := range o.unset {
		drop[k] = true
	}
	for _, kv := range o.env {
		k, _, _ := strings.Cut(kv, "=")
		drop[k] = true
	}
	for _, kv := range wp {
		if k, _, _ := strings.Cut(kv, "="); !drop[k] {
			shown = append(shown, kv)
		}
	}
	full = append(full, shown...)
	full = append(full, o.env...)
	for _, kv := range o.env {
		if k, _, _ := strings.Cut(kv, "="); k == "WPQUEUE_SITE_PASSWORD" {
			kv = k + "=<hidden>"
		}
		shown = append(shown, kv)
	}
	return full, shown
}

// command prepares one wpqueue run without starting it.
func (s *wpSite) command(t *testing.T, o runOpts, args ...string) (*exec.Cmd, []string) {
	t.Helper()
	env, shown := s.baseEnv(t, o)
	dir := o.dir
	if dir == "" {
		dir = t.TempDir()
	}
	cmd := exec.Command(suite.bin, args...)
	cmd.Env, cmd.Dir = env, dir
	return cmd, shown
}

// run runs wpqueue once and checks that its output holds no secret.
func (s *wpSite) run(t *testing.T, o runOpts, args ...string) result {
	t.Helper()
	cmd, shown := s.command(t, o, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("wpqueue %s: still running after 90s; killed\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), stdout.String(), stderr.String())
	}
	r := result{args: args, env: shown, stdout: stdout.String(), stderr: stderr.String(), took: time.Since(t0)}
	r.code = exitCodeOf(t, err)
	s.checkNoSecrets(t, r, o.env...)
	t.Logf("ran wpqueue %s: exit %d in %s", strings.Join(args, " "), r.code, r.took.Round(time.Millisecond))
	return r
}

func exitCodeOf(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode()
	}
	t.Fatalf("wpqueue did not exit normally: %v", err)
	return -1
}

// secrets are the strings no output may contain: the application password
// with and without its spaces, the Basic credentials built from it, the
// login password, and any password given in extra (WPQUEUE_SITE_PASSWORD).
func (s *wpSite) secrets(extra ...string) []string {
	pws := []string{s.password, strings.ReplaceAll(s.password, " ", "")}
	for _, kv := range extra {
		if v, ok := strings.CutPrefix(kv, "WPQUEUE_SITE_PASSWORD="); ok && v != "" {
			pws = append(pws, v, strings.ReplaceAll(v, " ", ""))
		}
	}
	var out []string
	for _, pw := range pws {
		out = append(out, pw, base64.StdEncoding.EncodeToString([]byte(s.username+":"+pw)))
	}
	return append(out, s.adminPass)
}

func (s *wpSite) checkNoSecrets(t *testing.T, r result, extra ...string) {
	t.Helper()
	s.checkTextNoSecrets(t, "the output of wpqueue "+strings.Join(r.args, " "), r.stdout+r.stderr, extra...)
}

func (s *wpSite) checkTextNoSecrets(t *testing.T, where, text string, extra ...string) {
	t.Helper()
	for _, sec := range s.secrets(extra...) {
		if strings.Contains(text, sec) {
			t.Errorf("a secret (%d characters, starting %.4q) appears in %s:\n%s", len(sec), sec, where, text)
		}
	}
}

// ---------------------------------------------------------------- assertions

func wantCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit %d, got:\n%s", code, r)
	}
}

func wantContains(t *testing.T, r result, stream, text string) {
	t.Helper()
	got := r.stdout
	if stream == "stderr" {
		got = r.stderr
	}
	if !strings.Contains(got, text) {
		t.Errorf("want %s to contain %q, got:\n%s", stream, text, r)
	}
}

// wantSame fails with a line diff when two dumps differ.
func wantSame(t *testing.T, what, before, after string) {
	t.Helper()
	if before == after {
		return
	}
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	inB := map[string]bool{}
	for _, l := range b {
		inB[l] = true
	}
	inA := map[string]bool{}
	for _, l := range a {
		inA[l] = true
	}
	var d strings.Builder
	for _, l := range b {
		if !inA[l] {
			fmt.Fprintf(&d, "- %s\n", l)
		}
	}
	for _, l := range a {
		if !inB[l] {
			fmt.Fprintf(&d, "+ %s\n", l)
		}
	}
	t.Errorf("%s changed (- before, + after):\n%s", what, d.String())
}
