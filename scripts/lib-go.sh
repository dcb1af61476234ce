# shellcheck shell=bash
# lib-go.sh: find the Go toolchain for the project's scripts. Sourced.
# Go is at /usr/local/go on the project's machines; PATH may not have it
# in a non-login shell (cron, CI, a fresh root shell).
find_go() {
	if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
		export PATH="/usr/local/go/bin:$PATH"
	fi
	if ! command -v go >/dev/null 2>&1; then
		echo "error: Go is not installed (want Go 1.26 or later: https://go.dev/doc/install, or /usr/local/go)" >&2
		exit 1
	fi
}
