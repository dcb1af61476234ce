package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to Load as the config file: it must
// return a config or an error matching ErrConfig, and never panic. Without
// -fuzz only the seeds run, which takes milliseconds.
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"minimal.yaml", "full.yaml", "multi.yaml", "unknown-key.yaml", "syntax-error.yaml"} {
		data, err := os.ReadFile(testdata(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"", "- a", "site: 1", "sites: [a]", "sites: {a: 1}", "sites: {a: {site: 1}}",
		"a: &x {b: 1}\nc: {<<: *x}", "site: &s {<<: *s}", "schedule: {times: [[1]], days: {a: b}}",
		"site: {url: '\x00', timeout: 1e400}", "schedule: {ahead: 18446744073709551616}",
		"sites: {a: {<<: [*x]}}", "? [a]\n: b", "site: {password_file: /dev/null}",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "wpqueue.yaml")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(LoadOptions{Path: p})
		switch {
		case err != nil && !errors.Is(err, ErrConfig):
			t.Fatalf("error %v does not match ErrConfig", err)
		case err == nil && len(cfg.Sites) == 0:
			t.Fatal("no error and no sites")
		}
	})
}
