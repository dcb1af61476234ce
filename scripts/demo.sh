#!/usr/bin/env bash
# demo.sh: install and start a real WordPress on 127.0.0.1, then run
# wpqueue's main job against it as a user would: dry run, publish, publish
# again (nothing to do), status. Leaves the site running; the last lines
# say how to use and stop it.
#
#   scripts/demo.sh [--port N] [--timezone ZONE]     (default 18080, Asia/Seoul)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib-go.sh
find_go

port=18080 zone=Asia/Seoul
while [ $# -gt 0 ]; do
	case $1 in
	--port) port=$2; shift 2 ;;
	--timezone) zone=$2; shift 2 ;;
	*) echo "usage: scripts/demo.sh [--port N] [--timezone ZONE]" >&2; exit 2 ;;
	esac
done

if [ -t 1 ]; then
	step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
else
	step() { printf '\n$ %s\n' "$*"; }
fi

scripts/wordpress.sh install
go build -o bin/wpqueue ./cmd/wpqueue
dir=$(scripts/wordpress.sh start --port "$port" --timezone "$zone" --drafts 5 | tail -n 1)

# The site's address, login name and application password file, as a
# systemd unit or Task Scheduler action would pass them.
set -a
# shellcheck disable=SC1091
. "$dir/env"
set +a
cd "$dir"   # no stray wpqueue.yaml from the current directory

run() {
	step "wpqueue $*"
	local rc=0
	"$OLDPWD/bin/wpqueue" "$@" || rc=$?
	echo "(exit status $rc)"
}
run publish --dry-run
run publish
run publish
run status
cat <<EOT

The site keeps running at $WPQUEUE_SITE_URL (state in $dir).
Use it:   set -a; . $dir/env; set +a; bin/wpqueue status
Stop it:  scripts/wordpress.sh stop --dir $dir --purge    (--purge also deletes $dir)
EOT
