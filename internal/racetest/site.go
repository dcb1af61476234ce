package racetest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Site is one WordPress started by scripts/wordpress.sh, with a snapshot of
// its posts that Reset restores.
type Site struct {
	Script       string
	Dir          string
	URL          string // the site itself, e.g. http://127.0.0.1:18200
	Username     string
	PasswordFile string
	Password     string
	Zone         *time.Location
	ZoneName     string
	// Drafts are the seeded drafts' ids, ascending (queue order id).
	Drafts []int
	// Base is every post (post_type post) as the snapshot holds it.
	Base map[int]Row
	// Version is WordPress's $wp_version (wp-includes/version.php).
	Version string
}

// Row is one post as the database holds it.
type Row struct {
	ID         int
	Status     string
	Date       string // post_date, site-local, "YYYY-MM-DD hh:mm:ss"
	DateGMT    string // post_date_gmt; "0000-00-00 00:00:00" for a floating draft
	Modified   string // post_modified_gmt
	Name       string // post_name (slug)
	ContentMD5 string // title, content, excerpt, author, parent, password, comment status
}

const sqlLayout = "2006-01-02 15:04:05"

var versionRe = regexp.MustCompile(`\$wp_version = '([^']+)'`)

// rowColumns are the columns Row reads, in order.
const rowColumns = `ID, post_status, post_date, post_date_gmt, post_modified_gmt, post_name,
	MD5(CONCAT_WS(0x1f, post_title, post_content, post_excerpt, post_author, post_parent, post_password, comment_status))`

// PickPort returns a free port in [lo, hi] starting at an offset from the
// PID, so that two harnesses started at once are unlikely to collide.
func PickPort(lo, hi int) (int, error) {
	span := hi - lo + 1
	off := os.Getpid() % span
	for i := 0; i < span; i++ {
		p := lo + (off+i)%span
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		l.Close()
		return p, nil
	}
	return 0, fmt.Errorf("no free port in %d-%d", lo, hi)
}

// StartSite runs `scripts/wordpress.sh start` (site zone zone, drafts
// seeded drafts) in dir, moves post 1 ("Hello world!", published at install
// time, so inside the next slot's window) a year back, and snapshots the
// posts. The caller must call Stop, also after an error (dir may hold a
// half-started site).
func StartSite(ctx context.Context, script, dir string, port int, zone string, drafts int, logw *bytes.Buffer) (*Site, error) {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, "bash", script, "start", "--port", strconv.Itoa(port), "--dir", dir,
		"--timezone", zone, "--drafts", strconv.Itoa(drafts), "--title", "wpqueue race harness")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if logw != nil {
		cmd.Stderr = logw
	}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("scripts/wordpress.sh start --port %d --dir %s: %v", port, dir, err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if got := lines[len(lines)-1]; got != dir {
		return nil, fmt.Errorf("scripts/wordpress.sh start printed %q last, want %q", got, dir)
	}
	env, err := readEnv(filepath.Join(dir, "env"))
	if err != nil {
		return nil, err
	}
	s := &Site{Script: script, Dir: dir, Zone: loc, ZoneName: zone,
		URL: env["WPQUEUE_SITE_URL"], Username: env["WPQUEUE_SITE_USERNAME"], PasswordFile: env["WPQUEUE_SITE_PASSWORD_FILE"]}
	if s.URL == "" || s.Username == "" || s.PasswordFile == "" {
		return nil, fmt.Errorf("%s/env lacks the site URL, username or password file", dir)
	}
	pw, err := os.ReadFile(s.PasswordFile)
	if err != nil {
		return nil, err
	}
	s.Password = strings.TrimSpace(string(pw))
	if b, err := os.ReadFile(filepath.Join(dir, "wp", "wp-includes", "version.php")); err == nil {
		if m := versionRe.FindSubmatch(b); m != nil {
			s.Version = string(m[1])
		}
	}
	if _, err := s.SQL(ctx, `UPDATE wp_posts SET post_date = post_date - INTERVAL 1 YEAR,
		post_date_gmt = post_date_gmt - INTERVAL 1 YEAR, post_modified = post_modified - INTERVAL 1 YEAR,
		post_modified_gmt = post_modified_gmt - INTERVAL 1 YEAR WHERE ID = 1;
		DROP TABLE IF EXISTS wpq_snap_posts, wpq_snap_postmeta, wpq_snap_terms;
		CREATE TABLE wpq_snap_posts AS SELECT * FROM wp_posts;
		CREATE TABLE wpq_snap_postmeta AS SELECT * FROM wp_postmeta;
		CREATE TABLE wpq_snap_terms AS SELECT * FROM wp_term_relationships`); err != nil {
		return nil, err
	}
	rows, err := s.Rows(ctx)
	if err != nil {
		return nil, err
	}
	s.Base = rows
	for id, r := range rows {
		if r.Status == "draft" {
			s.Drafts = append(s.Drafts, id)
		}
	}
	sort.Ints(s.Drafts)
	if len(s.Drafts) != drafts {
		return nil, fmt.Errorf("want %d seeded drafts, found %v", drafts, s.Drafts)
	}
	return s, nil
}

// StopSite stops the site in dir by its recorded PIDs, through the script.
func StopSite(script, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "pids")); err != nil {
		return nil
	}
	out, err := exec.Command("bash", script, "stop", "--dir", dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("scripts/wordpress.sh stop --dir %s: %v\n%s", dir, err, out)
	}
	return nil
}

// readEnv parses the KEY=value lines the script writes (values bare or
// single-quoted for the shell).
func readEnv(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok || strings.HasPrefix(k, "#") {
			continue
		}
		// 'a'\''b' -> a'b
		if strings.HasPrefix(v, "'") {
			v = strings.ReplaceAll(strings.Trim(v, "'"), `'\''`, "'")
		}
		out[k] = v
	}
	return out, sc.Err()
}

// SQL runs query on the site's database and returns the tab-separated
// output.
func (s *Site) SQL(ctx context.Context, query string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, "bash", s.Script, "sql", "--dir", s.Dir, query)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("sql: %v: %s\nquery: %s", err, strings.TrimSpace(stderr.String()), query)
	}
	return stdout.String(), nil
}

// Reset restores posts, their meta and terms to the snapshot: every
// seeded draft a draft again, same content, floating date.
func (s *Site) Reset(ctx context.Context) error {
	_, err := s.SQL(ctx, `DELETE FROM wp_posts; INSERT INTO wp_posts SELECT * FROM wpq_snap_posts;
		DELETE FROM wp_postmeta; INSERT INTO wp_postmeta SELECT * FROM wpq_snap_postmeta;
		DELETE FROM wp_term_relationships; INSERT INTO wp_term_relationships SELECT * FROM wpq_snap_terms`)
	return err
}

// Rows returns every post (post_type post) by id.
func (s *Site) Rows(ctx context.Context) (map[int]Row, error) {
	out, err := s.SQL(ctx, "SELECT "+rowColumns+" FROM wp_posts WHERE post_type='post' ORDER BY ID")
	if err != nil {
		return nil, err
	}
	return parseRows(out)
}

func parseRows(out string) (map[int]Row, error) {
	rows := map[int]Row{}
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			return nil, fmt.Errorf("unexpected SQL row %q", line)
		}
		id, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, fmt.Errorf("unexpected SQL row %q", line)
		}
		rows[id] = Row{ID: id, Status: f[1], Date: f[2], DateGMT: f[3], Modified: f[4], Name: f[5], ContentMD5: f[6]}
	}
	return rows, nil
}

// SetFuture schedules post id at `at` directly in the database (as another
// tool would have).
func (s *Site) SetFuture(ctx context.Context, id int, at time.Time) error {
	_, err := s.SQL(ctx, fmt.Sprintf(`UPDATE wp_posts SET post_status='future', post_date='%s', post_date_gmt='%s' WHERE ID=%d`,
		at.In(s.Zone).Format(sqlLayout), at.UTC().Format(sqlLayout), id))
	return err
}

// NextSlot returns the first instant at hh:mm site-local, every day, at
// least lead after now: how wpqueue computes its next slot (README "How a
// run decides"), computed here independently of the product.
func NextSlot(now time.Time, loc *time.Location, hh, mm int, lead time.Duration) time.Time {
	earliest := now.Add(lead)
	l := earliest.In(loc)
	for d := 0; d < 3; d++ {
		at := time.Date(l.Year(), l.Month(), l.Day()+d, hh, mm, 0, 0, loc)
		if !at.Before(earliest) {
			return at
		}
	}
	panic("unreachable")
}

// State is what a round left on the site.
type State struct {
	Slot time.Time
	// Holders fill the slot: publish or private, or future and not yet
	// due, dated in the slot's window [slot-12h, slot+12h).
	Holders []int
	// Stray are future posts outside the slot's window (a write aimed at
	// another time).
	Stray []int
	// Lost are snapshot posts gone from the site; Changed are posts whose
	// content (title, body, excerpt, author, parent, password, comment
	// status) differs from the snapshot.
	Lost, Changed []int
	// Drafts counts the posts still draft; GivenBack lists drafts whose row
	// differs from the snapshot (a run scheduled and then gave them back),
	// with the columns that differ.
	Drafts    int
	GivenBack map[int][]string
	Rows      map[int]Row
}

// Double reports two or more posts in the slot.
func (st State) Double() bool { return len(st.Holders) > 1 }

// EmptyWithDrafts reports a slot left empty while drafts remain.
func (st State) EmptyWithDrafts() bool { return len(st.Holders) == 0 && st.Drafts > 0 }

// Intact reports that no post was lost or changed.
func (st State) Intact() bool { return len(st.Lost) == 0 && len(st.Changed) == 0 }

// Problems lists what is wrong with a round that should leave exactly one
// post in the slot, want (0: any post).
func (st State) Problems(want int) []string {
	var p []string
	switch {
	case len(st.Holders) > 1:
		p = append(p, fmt.Sprintf("slot holds %d posts %v", len(st.Holders), st.Holders))
	case len(st.Holders) == 0 && st.Drafts > 0:
		p = append(p, fmt.Sprintf("slot empty while %d drafts remain", st.Drafts))
	case want != 0 && len(st.Holders) == 1 && st.Holders[0] != want:
		p = append(p, fmt.Sprintf("slot holds post %d, want %d (first in queue order)", st.Holders[0], want))
	}
	if len(st.Stray) > 0 {
		p = append(p, fmt.Sprintf("future posts outside the slot: %v", st.Stray))
	}
	if len(st.Lost) > 0 {
		p = append(p, fmt.Sprintf("posts lost: %v", st.Lost))
	}
	if len(st.Changed) > 0 {
		p = append(p, fmt.Sprintf("post content changed: %v", st.Changed))
	}
	return p
}

// Inspect reads the site and compares it with the snapshot for the slot
// at `slot`.
func (s *Site) Inspect(ctx context.Context, slot, now time.Time) (State, error) {
	rows, err := s.Rows(ctx)
	if err != nil {
		return State{}, err
	}
	return s.inspect(rows, slot, now), nil
}

func (s *Site) inspect(rows map[int]Row, slot, now time.Time) State {
	st := State{Slot: slot, Rows: rows, GivenBack: map[int][]string{}}
	lo, hi := slot.Add(-12*time.Hour), slot.Add(12*time.Hour)
	var ids []int
	for id := range rows {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		r := rows[id]
		gmt, err := time.ParseInLocation(sqlLayout, r.DateGMT, time.UTC)
		inWindow := err == nil && !gmt.Before(lo) && gmt.Before(hi)
		switch r.Status {
		case "publish", "private":
			if inWindow {
				st.Holders = append(st.Holders, id)
			}
		case "future":
			switch {
			case inWindow && gmt.After(now):
				st.Holders = append(st.Holders, id)
			default:
				st.Stray = append(st.Stray, id)
			}
		case "draft", "pending":
			st.Drafts++
			if b, ok := s.Base[id]; ok {
				if d := diffRow(b, r); len(d) > 0 {
					st.GivenBack[id] = d
				}
			}
		}
	}
	for id, b := range s.Base {
		r, ok := rows[id]
		switch {
		case !ok:
			st.Lost = append(st.Lost, id)
		case r.ContentMD5 != b.ContentMD5:
			st.Changed = append(st.Changed, id)
		}
	}
	sort.Ints(st.Lost)
	sort.Ints(st.Changed)
	return st
}

// diffRow names the columns (besides content) in which a differs from b.
func diffRow(b, a Row) []string {
	var d []string
	for _, c := range []struct{ name, b, a string }{
		{"post_status", b.Status, a.Status},
		{"post_date", b.Date, a.Date},
		{"post_date_gmt", b.DateGMT, a.DateGMT},
		{"post_modified_gmt", b.Modified, a.Modified},
		{"post_name", b.Name, a.Name},
	} {
		if c.b != c.a {
			d = append(d, fmt.Sprintf("%s %q→%q", c.name, c.b, c.a))
		}
	}
	return d
}
