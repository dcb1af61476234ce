package wpclient

import (
	"context"
	"errors"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
)

// Fuzz targets for the REST JSON decoding (issue 4, class 14). Without
// -fuzz only the seeds and testdata/fuzz run, which takes milliseconds:
//
//	go test -run '^$' -fuzz FuzzDecodePost -fuzztime 2m ./wpclient/
//	go test -run '^$' -fuzz FuzzIndex -fuzztime 2m ./wpclient/

// fuzzSeeds adds every fixture in testdata, plus a few hand-made bodies.
func fuzzSeeds(f *testing.F, add func(body []byte)) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		add(b)
	}
	for _, s := range []string{
		"", "null", "[]", "{}", "[null]", `"x"`, "\xEF\xBB\xBF{}", "\xEF\xBB\xBF\xEF\xBB\xBF[]",
		`{"id":4,"status":"future","title":{"raw":null},"content":{"raw":" \n"},"date":null,"date_gmt":"0000-00-00T00:00:00","modified_gmt":null}`,
		`{"id":4,"date_gmt":"2026-13-40T25:61:61"}`, `{"id":4,"date_gmt":"2026-11-30T22:00:00Z"}`, `{"id":4.5}`, `{"id":"4"}`,
		`[{"id":4},{"id":4}]`, `{"id":4,"title":"plain string"}`, `{"id":-1}`, `{"id":1e400}`,
		"<br />\n<b>Notice</b>: x<br />\n" + `{"id":4,"status":"draft"}`, "junk [1,2", `{"code":"rest_forbidden_status","data":{"details":{"status":{"code":"rest_forbidden_status"}}}}`,
		`{"code":"x","message":"` + testPassword + `","data":{"status":"401"}}`, `{"code":"x","data":{"params":{"status":1}}}`,
	} {
		add([]byte(s))
	}
}

// FuzzDecodePost feeds arbitrary answers to the decoders of a post, a list
// of posts and an error answer: they never panic, a decoded post carries
// the id asked for and UTC dates, an error has the documented type, and no
// message shows the password.
func FuzzDecodePost(f *testing.F) {
	fuzzSeeds(f, func(b []byte) {
		for _, st := range []uint16{200, 400, 401, 403, 404, 500} {
			f.Add(b, st)
		}
	})
	c, err := New(testSite, testCreds, Options{APIRoot: testRoot})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, status uint16) {
		st := 200 + int(status)%400 // 200..599
		a := &answer{status: st, header: http.Header{"Content-Type": {"application/json; charset=UTF-8"}},
			contentType: "application/json; charset=UTF-8", body: c.stripBOM(body, "fuzz")}
		r := request{method: http.MethodGet, route: "/wp/v2/posts/4", url: postsURL + "/4", display: postsURL + "/4"}
		check := func(err error) {
			if err != nil && strings.Contains(err.Error(), testPassword) {
				t.Fatalf("message shows the password: %v", err)
			}
		}
		checkPost := func(p Post) {
			for _, d := range []time.Time{p.DateGMT, p.ModifiedGMT} {
				if !d.IsZero() && d.Location() != time.UTC {
					t.Fatalf("date %v is not UTC", d)
				}
			}
		}
		if st >= 300 {
			err := c.classify(r, a)
			if err == nil {
				t.Fatal("classify returned nil")
			}
			check(err)
			var (
				ce *CredentialsError
				ae *APIError
				nj *NotJSONError
			)
			if !errors.As(err, &ce) && !errors.As(err, &ae) && !errors.As(err, &nj) {
				t.Fatalf("classify gave %T: %v", err, err)
			}
			if st == 401 && !errors.Is(err, ErrCredentials) {
				t.Fatalf("HTTP 401 is not ErrCredentials: %v", err)
			}
			return
		}
		p, err := c.decodePost(r, a, 4, false)
		check(err)
		if err == nil {
			if p.ID != 4 {
				t.Fatalf("decoded post %d, asked for 4", p.ID)
			}
			checkPost(p)
		} else if _, werr := c.decodePost(r, a, 4, true); werr == nil || !strings.Contains(werr.Error(), "re-read post 4") {
			t.Fatalf("a failed write answer does not say to re-read the post: %v", werr)
		}
		var batch []wirePost
		if err := c.decode(r, a, "a JSON list of posts", &batch); err != nil {
			check(err)
			if !errors.Is(err, ErrNotJSON) {
				t.Fatalf("list decoding error %v is not ErrNotJSON", err)
			}
			return
		}
		for _, w := range batch {
			if p, err := w.post(); err == nil {
				checkPost(p)
			} else {
				check(err)
			}
		}
	})
}

// FuzzIndex serves an arbitrary body, status and gmt_offset as the REST
// index at a pinned root and at ?rest_route=/ (discovery): Index never
// panics; a result has a root, an offset within ±14 h and a valid
// AppPasswords; an error matches one of the documented sentinels.
func FuzzIndex(f *testing.F) {
	fuzzSeeds(f, func(b []byte) { f.Add(b, uint16(200), false) })
	for _, off := range []string{`"0"`, `1`, `5.5`, `"-9.5"`, `null`, `""`, `"UTC+2"`, `99`, `NaN`, `1e999`, `-0`, `"+5"`, `"5,5"`, `[]`, `{}`, `true`} {
		f.Add([]byte(`{"name":"s","gmt_offset":`+off+`,"timezone_string":"","namespaces":["wp/v2"],"authentication":{"application-passwords":{}}}`), uint16(200), true)
		f.Add([]byte(`{"name":"s","gmt_offset":`+off+`,"namespaces":["wp/v2"],"authentication":[]}`), uint16(200), false)
	}
	f.Fuzz(func(t *testing.T, body []byte, status uint16, pin bool) {
		st := 200 + int(status)%400
		if st >= 300 && st < 400 {
			st = 200 // redirects need a Location; tested elsewhere
		}
		mt := httpmock.NewMockTransport()
		mt.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
			resp := httpmock.NewBytesResponse(st, body)
			resp.Header.Set("Content-Type", "application/json; charset=UTF-8")
			resp.Request = req
			return resp, nil
		})
		opts := Options{HTTPClient: &http.Client{Transport: mt}, MaxAttempts: 1}
		if pin {
			opts.APIRoot = testRoot
		}
		c, err := New(testSite, testCreds, opts)
		if err != nil {
			t.Fatal(err)
		}
		idx, err := c.Index(context.Background())
		if err != nil {
			if strings.Contains(err.Error(), testPassword) {
				t.Fatalf("message shows the password: %v", err)
			}
			for _, want := range []error{ErrNoAPI, ErrNotJSON, ErrCredentials, ErrUnavailable} {
				if errors.Is(err, want) {
					return
				}
			}
			t.Fatalf("error %v (%T) matches no sentinel", err, err)
		}
		if idx.Root == "" || math.IsNaN(idx.GMTOffset) || idx.GMTOffset < -14 || idx.GMTOffset > 14 {
			t.Fatalf("index %+v", idx)
		}
		if idx.AppPasswords < AppPasswordsUnknown || idx.AppPasswords > AppPasswordsNotOffered {
			t.Fatalf("AppPasswords %d", idx.AppPasswords)
		}
		if pin && idx.Via != ViaPinned || !pin && idx.Via == ViaPinned {
			t.Fatalf("Via %q with pinned %v", idx.Via, pin)
		}
	})
}
