package wpclient

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
)

func TestReadOnlyWritesRefused(t *testing.T) {
	c, mt, _ := newTestClient(t, testSite, Options{ReadOnly: true}) // not pinned: not even discovery may run
	mt.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		t.Errorf("request reached the transport: %s %s", req.Method, req.URL)
		return nil, errors.New("test: unexpected")
	})
	ctx := context.Background()
	_, err := c.SchedulePost(ctx, 4, time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC))
	if !errors.Is(err, ErrReadOnly) {
		t.Errorf("SchedulePost: %v, want ErrReadOnly", err)
	}
	_, err = c.Unschedule(ctx, 4, StatusDraft, "2026-11-24T09:00:00")
	if !errors.Is(err, ErrReadOnly) {
		t.Errorf("Unschedule: %v, want ErrReadOnly", err)
	}
	if calls(mt) != 0 || c.Requests() != 0 {
		t.Errorf("mock saw %d calls, Requests() = %d; want 0", calls(mt), c.Requests())
	}
}

// TestReadOnlyTransport checks the structural guarantee: whatever code path
// builds a request, the read-only client's transport refuses it unless it is
// a GET or HEAD.
func TestReadOnlyTransport(t *testing.T) {
	c, mt, _ := pinned(t, Options{ReadOnly: true})
	mt.RegisterResponder("GET", postsURL, reply(200, "[]"))
	mt.RegisterResponder("HEAD", postsURL, reply(200, ""))
	for _, method := range []string{"POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
		mt.RegisterResponder(method, postsURL+"/4", reply(200, "{}"))
		req, err := http.NewRequest(method, postsURL+"/4", strings.NewReader(`{"status":"future"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.hc.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("raw %s through the client's transport: %v, want ErrReadOnly", method, err)
		}
		// Through resty as well.
		if _, err := c.rc.R().SetBody(`{}`).Execute(method, postsURL+"/4"); !errors.Is(err, ErrReadOnly) {
			t.Errorf("resty %s: %v, want ErrReadOnly", method, err)
		}
	}
	if n := calls(mt); n != 0 {
		t.Errorf("mock saw %d calls, want 0", n)
	}
	for _, method := range []string{"GET", "HEAD"} {
		req, _ := http.NewRequest(method, postsURL, nil)
		resp, err := c.hc.Do(req)
		if err != nil {
			t.Errorf("%s refused: %v", method, err)
			continue
		}
		resp.Body.Close()
	}
	if _, err := c.ListPosts(context.Background(), listDrafts); err != nil {
		t.Errorf("reads must work in read-only mode: %v", err)
	}
	if n := calls(mt); n != 3 {
		t.Errorf("mock saw %d calls, want 3 reads", n)
	}
}

func TestReadOnlyTransportDirect(t *testing.T) {
	mt := httpmock.NewMockTransport()
	rt := &readOnlyTransport{next: mt}
	req, _ := http.NewRequest("POST", postsURL+"/4", strings.NewReader("{}"))
	if _, err := rt.RoundTrip(req); !errors.Is(err, ErrReadOnly) {
		t.Errorf("RoundTrip(POST) = %v, want ErrReadOnly", err)
	}
	if calls(mt) != 0 {
		t.Error("POST reached the wrapped transport")
	}
}
