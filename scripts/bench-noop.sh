#!/usr/bin/env bash
# bench-noop.sh: wall time of a no-op `wpqueue publish` (every slot filled)
# against the local WordPress, beside curl sending the same requests, and
# the number of HTTP requests each mode sends. Figures go to
# docs/benchmarks.md.
#
#   scripts/bench-noop.sh [--runs N] [--port P]      (default 40 runs, port 18097)
#
# Starts its own WordPress (scripts/wordpress.sh) and stops it at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/lib-go.sh
find_go

runs=40 port=18097
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--port) port=$2; shift 2 ;;
	*) echo "usage: scripts/bench-noop.sh [--runs N] [--port P]" >&2; exit 2 ;;
	esac
done

work=$(mktemp -d)
go build -o "$work/wpqueue" ./cmd/wpqueue
dir=$(scripts/wordpress.sh start --port "$port" --timezone Asia/Seoul --drafts 3 --dir "$work/wp" | tail -n 1)
trap '"$root"/scripts/wordpress.sh stop --dir "$dir" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
set -a
# shellcheck disable=SC1091
. "$dir/env"
set +a
cd "$work"
pw=$(tr -d '\n' <"$WPQUEUE_SITE_PASSWORD_FILE")

./wpqueue publish >/dev/null # fill the slot: every later run is a no-op

# urls MODE: the URLs a no-op run of MODE sends, from its debug log.
urls() {
	"$@" --log-level debug --log-format json 2>&1 >/dev/null |
		sed -n 's/.*"msg":"http".*"url":"\([^"]*\)".*/\1/p'
}
pinned=(env WPQUEUE_SITE_API_ROOT="$WPQUEUE_SITE_URL/?rest_route=/" WPQUEUE_SCHEDULE_TIMEZONE=Asia/Seoul ./wpqueue publish)
default=(./wpqueue publish)
mapfile -t pinned_urls < <(urls "${pinned[@]}")
mapfile -t default_urls < <(urls "${default[@]}")

# curl_same URL...: the same GETs, same headers, one connection per request
# like wpqueue's separate process runs. The password goes through stdin.
curl_same() {
	local u
	for u in "$@"; do
		printf 'user = "%s:%s"\n' "$WPQUEUE_SITE_USERNAME" "$pw" |
			curl -sS -K - -o /dev/null -H 'Cache-Control: no-cache' -H 'Pragma: no-cache' \
				-H 'Accept: application/json, */*;q=0.1' "${u//_wpq=/_wpq=c$RANDOM}"
	done
}

# median_ms CMD...: median wall time of runs executions, in ms.
median_ms() {
	local i t0 t1 times=()
	"$@" >/dev/null 2>&1 # warm-up
	for ((i = 0; i < runs; i++)); do
		t0=${EPOCHREALTIME/./}
		"$@" >/dev/null 2>&1
		t1=${EPOCHREALTIME/./}
		times+=($(((t1 - t0))))
	done
	printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m/1000}'
}

p_w=$(median_ms "${pinned[@]}")
p_c=$(median_ms curl_same "${pinned_urls[@]}")
d_w=$(median_ms "${default[@]}")
d_c=$(median_ms curl_same "${default_urls[@]}")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }

echo "no-op wpqueue publish vs curl, median of $runs runs, Debian wordpress $(dpkg-query -W -f='${Version}' wordpress 2>/dev/null), 127.0.0.1, $(nproc) cores"
printf '| mode | HTTP requests | wpqueue (ms) | curl, same requests (ms) | ratio |\n|---|---|---|---|---|\n'
printf '| site.api_root + schedule.timezone set | %d | %s | %s | %s |\n' "${#pinned_urls[@]}" "$p_w" "$p_c" "$(ratio "$p_w" "$p_c")"
printf '| defaults (discovery + timezone from the index) | %d | %s | %s | %s |\n' "${#default_urls[@]}" "$d_w" "$d_c" "$(ratio "$d_w" "$d_c")"
