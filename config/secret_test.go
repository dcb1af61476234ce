package config

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestSecretNeverPrinted(t *testing.T) {
	isolate(t)
	const pw = "abcd efgh ijkl mnop qrst uvwx" // as in full.yaml
	cfg := mustLoad(t, LoadOptions{Path: testdata("full.yaml")})
	site := cfg.Sites[0]
	if got := site.Site.Password.Reveal(); got != pw {
		t.Fatalf("Reveal() = %q, want %q", got, pw)
	}
	values := map[string]any{
		"*Config": cfg, "Config": *cfg, "Site": site, "SiteAccess": site.Site,
		"Secret": site.Site.Password, "*Secret": &site.Site.Password, "[]Site": cfg.Sites,
	}
	leaks := []string{pw, "abcd", hex.EncodeToString([]byte("abcd")), fmt.Sprintf("%q", pw)[1:5]}
	check := func(what, out string) {
		t.Helper()
		for _, leak := range leaks {
			if strings.Contains(out, leak) {
				t.Errorf("%s shows the password (%q): %s", what, leak, out)
			}
		}
	}
	for name, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3s"} {
			check(name+" "+verb, fmt.Sprintf(verb, v))
		}
		check(name+" Sprint", fmt.Sprint(v))
		check(name+" Sprintln", fmt.Sprintln(v))
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("json.Marshal(%s): %v", name, err)
		}
		check(name+" json", string(data))
		var text, js bytes.Buffer
		slog.New(slog.NewTextHandler(&text, nil)).Info("m", "v", v)
		slog.New(slog.NewJSONHandler(&js, nil)).Info("m", "v", v)
		check(name+" slog text", text.String())
		check(name+" slog json", js.String())
	}
	if got := fmt.Sprintf("%v|%s|%q|%#v", site.Site.Password, site.Site.Password, site.Site.Password, site.Site.Password); got != `[redacted]|[redacted]|"[redacted]"|[redacted]` {
		t.Errorf("formatted secret = %s", got)
	}
	if data, _ := json.Marshal(site.Site.Password); string(data) != `"[redacted]"` {
		t.Errorf("json = %s", data)
	}
	if data, _ := site.Site.Password.MarshalText(); string(data) != redacted {
		t.Errorf("text = %s", data)
	}
	if s := site.Site.Password.String() + site.Site.Password.GoString(); s != redacted+redacted {
		t.Errorf("String+GoString = %s", s)
	}
}

func TestClockString(t *testing.T) {
	for c, want := range map[Clock]string{{7, 0}: "07:00", {23, 59}: "23:59", {0, 5}: "00:05"} {
		if got := c.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", c, got, want)
		}
	}
	data, err := json.Marshal([]Clock{{7, 0}, {19, 30}})
	if err != nil || string(data) != `["07:00","19:30"]` {
		t.Errorf("json = %s, %v", data, err)
	}
}
