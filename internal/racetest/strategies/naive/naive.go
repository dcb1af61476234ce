// Package naive is the work the classic local-lock strategies of the
// experiment do once they hold their lock: "schedule the next draft for the
// next slot" with two REST calls and no check of what the site already
// holds. It is the baseline wpqueue is compared with, not a product.
//
// Environment: NAIVE_SITE_URL (e.g. http://127.0.0.1:18200, ?rest_route=
// is used), NAIVE_USERNAME, NAIVE_PASSWORD_FILE, NAIVE_ZONE (the site's IANA
// zone), NAIVE_TIME (HH:MM, default 07:00), NAIVE_LOCK (the lock file).
package naive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Taken and Released report on stderr when the lock was taken and
// released (Unix nanoseconds), so the harness can tell two holders at once
// from a run that took the lock after another released it.
func Taken() { fmt.Fprintf(os.Stderr, "lock taken %d\n", time.Now().UnixNano()) }

// Released: see Taken.
func Released() { fmt.Fprintf(os.Stderr, "lock released %d\n", time.Now().UnixNano()) }

// LockPath returns NAIVE_LOCK, or exits 2 when it is unset.
func LockPath() string {
	p := os.Getenv("NAIVE_LOCK")
	if p == "" {
		fmt.Fprintln(os.Stderr, "NAIVE_LOCK is not set")
		os.Exit(2)
	}
	return p
}

// Work schedules the first draft (queue order id) for the next slot: the
// first HH:MM site-local at least 15 minutes ahead. It prints what it did
// and returns the exit status.
func Work() int {
	if err := work(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	return 0
}

func work() error {
	base := strings.TrimRight(os.Getenv("NAIVE_SITE_URL"), "/") + "/"
	user := os.Getenv("NAIVE_USERNAME")
	pw, err := os.ReadFile(os.Getenv("NAIVE_PASSWORD_FILE"))
	if err != nil {
		return err
	}
	loc, err := time.LoadLocation(os.Getenv("NAIVE_ZONE"))
	if err != nil {
		return err
	}
	hh, mm := 7, 0
	if t := os.Getenv("NAIVE_TIME"); t != "" {
		if _, err := fmt.Sscanf(t, "%d:%d", &hh, &mm); err != nil {
			return fmt.Errorf("NAIVE_TIME %q: %v", t, err)
		}
	}
	c := &http.Client{Timeout: 30 * time.Second}
	call := func(method, route string, q url.Values, body any, v any) error {
		if q == nil {
			q = url.Values{}
		}
		q.Set("rest_route", route)
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, err := http.NewRequest(method, base+"?"+q.Encode(), rd)
		if err != nil {
			return err
		}
		req.SetBasicAuth(user, strings.TrimSpace(string(pw)))
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if resp.StatusCode != 200 {
			return fmt.Errorf("%s %s: HTTP %d: %.200s", method, route, resp.StatusCode, b)
		}
		return json.Unmarshal(b, v)
	}
	var drafts []struct {
		ID int `json:"id"`
	}
	if err := call("GET", "/wp/v2/posts", url.Values{"status": {"draft"}, "orderby": {"id"}, "order": {"asc"},
		"per_page": {"1"}, "context": {"edit"}, "_fields": {"id"}}, nil, &drafts); err != nil {
		return err
	}
	if len(drafts) == 0 {
		fmt.Println("no draft to schedule")
		return nil
	}
	now := time.Now()
	earliest := now.Add(15 * time.Minute).In(loc)
	slot := time.Date(earliest.Year(), earliest.Month(), earliest.Day(), hh, mm, 0, 0, loc)
	if slot.Before(earliest) {
		slot = time.Date(earliest.Year(), earliest.Month(), earliest.Day()+1, hh, mm, 0, 0, loc)
	}
	var got struct {
		ID      int    `json:"id"`
		Status  string `json:"status"`
		DateGMT string `json:"date_gmt"`
	}
	id := drafts[0].ID
	if err := call("POST", fmt.Sprintf("/wp/v2/posts/%d", id), url.Values{"_fields": {"id,status,date_gmt"}},
		map[string]string{"status": "future", "date_gmt": slot.UTC().Format("2006-01-02T15:04:05")}, &got); err != nil {
		return err
	}
	fmt.Printf("scheduled post #%d for %s (%s)\n", got.ID, slot.Format("2006-01-02 15:04 MST"), got.Status)
	return nil
}
