// Package e2e holds wpqueue's end-to-end tests: they build the wpqueue
// binary once, start real WordPress sites on 127.0.0.1 with
// scripts/wordpress.sh (MariaDB and php -S, one state directory and port
// per site) and run the binary against them as a subprocess, checking the
// sites' state through SQL and the REST API.
//
// Run them with
//
//	go test -count=1 -v ./e2e/
//
// Every test skips, with the reason, when WordPress cannot be started (the
// Debian packages are missing: run scripts/wordpress.sh install as root)
// and under -short. With WPQUEUE_REQUIRE_WORDPRESS=1 a site that cannot be
// started fails the tests instead (for CI). WPQUEUE_E2E_KEEP=1 keeps the
// state directories (logs, databases) after the run; they are also kept
// when a test fails. WPQUEUE_E2E_BINARY=PATH tests that binary instead of
// building ./cmd/wpqueue. The sites are always stopped at the end by the PIDs
// the script recorded; if the test binary is killed (e.g. by -timeout),
// stop a leftover site with scripts/wordpress.sh stop --dir DIR, DIR being
// the one logged at start.
//
// This file exists for the package documentation; the tests are in the
// _test.go files.
package e2e
