package config

import "testing"

// BenchmarkLoadEnvOnly: Load for an env-only setup (no file).
// Run: go test -run '^$' -bench Load -benchmem ./config/
func BenchmarkLoadEnvOnly(b *testing.B) {
	b.Setenv("WPQUEUE_SITE_URL", "http://127.0.0.1:1")
	b.Setenv("WPQUEUE_SITE_USERNAME", "a")
	b.Setenv("WPQUEUE_SITE_PASSWORD", "x")
	b.Chdir(b.TempDir())
	for b.Loop() {
		if _, err := Load(LoadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
