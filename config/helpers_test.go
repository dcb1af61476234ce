package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	_ "time/tzdata" // the binary embeds it; tests must not depend on the host's zoneinfo
)

// testdataDir is the repository's testdata/config directory, made absolute
// before any test changes the working directory.
var testdataDir = func() string {
	p, err := filepath.Abs(filepath.Join("..", "testdata", "config"))
	if err != nil {
		panic(err)
	}
	return p
}()

// testdata returns the absolute path of a file in testdata/config.
func testdata(name string) string { return filepath.Join(testdataDir, name) }

// isolate gives the test an empty working directory, an empty user config
// directory and no WPQUEUE_* variables, so nothing on the host leaks in.
// It returns the working directory.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	home := filepath.Join(dir, "home")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("AppData", filepath.Join(home, "AppData")) // os.UserConfigDir on Windows
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(strings.ToUpper(name), "WPQUEUE_") {
			t.Setenv(name, "") // restores the value after the test
			os.Unsetenv(name)
		}
	}
	return dir
}

// writeFile writes content to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeYAML marshals a nested map into dir/name and returns the path.
func writeYAML(t *testing.T, dir, name string, tree map[string]any) string {
	t.Helper()
	data, err := yaml.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, name, string(data))
}

// setKey sets key ("schedule.times", or "sites.blog.schedule.times") in tree.
func setKey(tree map[string]any, key string, val any) {
	parts := strings.Split(key, ".")
	m := tree
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = val
}

// flags returns a flag set with RegisterFlags applied and args parsed.
func flags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("wpqueue", pflag.ContinueOnError)
	RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return fs
}

// mustLoad loads or fails the test.
func mustLoad(t *testing.T, opts LoadOptions) *Config {
	t.Helper()
	cfg, err := Load(opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return cfg
}

// fieldError loads, expects a failure matching ErrConfig, and returns the
// first *FieldError in it.
func fieldError(t *testing.T, opts LoadOptions) (*FieldError, error) {
	t.Helper()
	cfg, err := Load(opts)
	if err == nil {
		t.Fatalf("Load succeeded, want an error; got %+v", cfg)
	}
	if !errors.Is(err, ErrConfig) {
		t.Errorf("errors.Is(%v, ErrConfig) = false", err)
	}
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) holds no *FieldError", err, err)
	}
	return fe, err
}
