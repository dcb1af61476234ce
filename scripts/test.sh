#!/usr/bin/env bash
# test.sh: run every test of wpqueue, including the end-to-end suite on a
# real WordPress (installed here with Debian packages if missing; the
# tests start and stop their own instances on 127.0.0.1).
#
#   scripts/test.sh [go test flags...]     e.g. scripts/test.sh -run TestDecide
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib-go.sh
find_go

scripts/wordpress.sh install
export WPQUEUE_REQUIRE_WORDPRESS=${WPQUEUE_REQUIRE_WORDPRESS:-1}
go vet ./...
go test -count=1 -race -timeout 30m "$@" ./...
