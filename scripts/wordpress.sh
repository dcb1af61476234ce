#!/usr/bin/env bash
# wordpress.sh: install, start and stop a real local WordPress on 127.0.0.1
# for wpqueue's end-to-end tests and for the README demo.
#
# Debian's WordPress package runs on a private MariaDB (socket only, no TCP)
# and PHP's built-in server (php -S); Apache is never installed or started.
# Every process is started by this script and stopped by its recorded PID.
# Run "scripts/wordpress.sh help" for the usage.
set -euo pipefail

readonly PACKAGES=(wordpress php-cli php-mysql mariadb-server php php8.2-cgi micro-httpd)
readonly COMMANDS=(php mariadbd mariadb mariadb-admin mariadb-install-db)
readonly WP_SRC=/usr/share/wordpress
readonly DEFAULT_PORT=18080
readonly ADMIN_USER=admin
readonly ADMIN_EMAIL=admin@example.com
readonly APP_PASSWORD_NAME=wpqueue-tests
readonly DB_NAME=wordpress
readonly PHP_WORKERS=4
readonly READY_TIMEOUT=30 # seconds, for MariaDB and for the REST probe
readonly STOP_TIMEOUT=5   # seconds between TERM and KILL
readonly MARKER=.wpqueue-wp

PROG=${0##*/}
T0=${EPOCHREALTIME/./}

usage() {
	cat <<EOF
Usage: scripts/$PROG COMMAND [OPTIONS]

A real WordPress (Debian package) on 127.0.0.1 for wpqueue's end-to-end tests:
a private MariaDB (socket only) and php -S, all stopped by recorded PIDs.

Commands:
  install [--check]      apt-get install the packages (skips apt when all are present);
                         --check: only report, exit 1 if something is missing
  start [OPTIONS]        (re)create and start a site; prints its DIR as the last stdout line
      --dir DIR            state dir (default /tmp/wpqueue-wp-PORT)
      --port N             HTTP port on 127.0.0.1 (default $DEFAULT_PORT)
      --timezone ZONE      timezone_string, e.g. Europe/Berlin; "" = UTC (default "")
      --gmt-offset H       manual offset instead, e.g. 9, 5.5, -3 (timezone_string "")
      --permalinks MODE    plain (default; use ?rest_route=) or pretty (/%postname%/, /wp-json/)
      --drafts N           seed drafts "Seed draft 1".."Seed draft N" (default 5)
      --title T            site title (default "wpqueue test site")
      --mu-plugin FILE     copy FILE.php into wp-content/mu-plugins (repeatable); done
                           after the readiness probe, before DIR is printed
  stop [--dir DIR | --port N] [--purge]
                         TERM the recorded PIDs, KILL after ${STOP_TIMEOUT}s; --purge deletes DIR
  status [--dir DIR | --port N]
                         running/stopped per recorded PID; exit 0 only if all run
  sql [--dir DIR | --port N] "SQL"
                         run SQL (or stdin when SQL is - or absent) on database "$DB_NAME"
                         (table prefix wp_) as root; tab-separated output, no header
  php [--dir DIR | --port N] FILE.php [ARGS...]
                         run FILE.php with WordPress loaded and the admin as current user
  help                   this text

Files in DIR after start:
  env           KEY=value lines (set -a; . DIR/env; set +a): WPQUEUE_SITE_URL,
                WPQUEUE_SITE_USERNAME, WPQUEUE_SITE_PASSWORD_FILE, WP_DIR, WP_PORT,
                WP_DB_SOCKET, WP_ADMIN_PASSWORD (login password; REST must reject it)
  app-password  the application password "$APP_PASSWORD_NAME", display form with
                spaces and a trailing newline, mode 0600
  pids          "ROLE PID STARTTIME" per process (mariadbd, php, php-worker)
  php.log mariadb.log setup.log    logs
Progress goes to stderr. Needs the packages: scripts/$PROG install
EOF
}

log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() {
	printf '%s: error: %s\n' "$PROG" "$*" >&2
	exit 1
}
usage_error() {
	printf '%s: %s (see: scripts/%s help)\n' "$PROG" "$*" "$PROG" >&2
	exit 2
}

# elapsed prints the seconds since the script started, e.g. "1.3".
elapsed() {
	local us=$((${EPOCHREALTIME/./} - T0))
	printf '%d.%d' $((us / 1000000)) $((us % 1000000 / 100000))
}

# random_hex prints 32 random hex digits.
random_hex() {
	od -An -tx1 -N16 /dev/urandom | tr -d ' \n'
}

# php_quote prints $1 as a PHP single-quoted string literal.
php_quote() {
	local s=${1//\\/\\\\}
	s=${s//\'/\\\'}
	printf "'%s'" "$s"
}

# env_quote prints $1 bare when it is plain, else single-quoted for the shell.
env_quote() {
	if [[ $1 =~ ^[A-Za-z0-9_./:@%+=,-]+$ ]]; then
		printf '%s' "$1"
	else
		printf "'%s'" "${1//\'/\'\\\'\'}"
	fi
}

# tail_log prints the last lines of a log file, indented, to stderr.
tail_log() {
	if [[ -s $1 ]]; then
		printf '%s: --- last lines of %s ---\n' "$PROG" "$1" >&2
		tail -n "${2:-20}" "$1" | sed 's/^/    /' >&2
	fi
}

# ---------------------------------------------------------------- packages

# missing_packages prints the packages (and commands) that are not installed.
missing_packages() {
	local p c status
	status=$(dpkg-query -W -f='${Package} ${Status}\n' "${PACKAGES[@]}" 2>/dev/null || true)
	for p in "${PACKAGES[@]}"; do
		[[ $'\n'$status$'\n' == *$'\n'"$p install ok installed"$'\n'* ]] || printf '%s\n' "$p"
	done
	for c in "${COMMANDS[@]}"; do
		command -v "$c" >/dev/null 2>&1 || printf 'command:%s\n' "$c"
	done
	[[ -f $WP_SRC/wp-load.php ]] || printf 'file:%s\n' "$WP_SRC/wp-load.php"
}

require_installed() {
	local missing
	missing=$(missing_packages)
	if [[ -n $missing ]]; then
		die "missing: $(printf '%s' "$missing" | tr '\n' ' ')
  run: scripts/$PROG install"
	fi
}

cmd_install() {
	local check=0
	while (($#)); do
		case $1 in
		--check) check=1 ;;
		-h | --help) usage; exit 0 ;;
		*) usage_error "install: unknown argument: $1" ;;
		esac
		shift
	done
	local missing
	missing=$(missing_packages)
	if [[ -z $missing ]]; then
		log "all packages are installed (${PACKAGES[*]})"
		return 0
	fi
	if ((check)); then
		log "missing: $(printf '%s' "$missing" | tr '\n' ' ')"
		exit 1
	fi
	((EUID == 0)) || die "install needs root (apt-get)"
	log "installing: ${PACKAGES[*]}"
	# Package scripts must not start a system MariaDB. Where no policy-rc.d
	# forbids it already, put one in place for the duration of the install.
	local policy=/usr/sbin/policy-rc.d made_policy=0
	if [[ ! -e $policy ]]; then
		printf '#!/bin/sh\n# temporary, by wpqueue scripts/wordpress.sh\nexit 101\n' >"$policy"
		chmod 0755 "$policy"
		made_policy=1
		# shellcheck disable=SC2064 # expand now: the path is fixed
		trap "rm -f '$policy'" EXIT
	fi
	apt-get update >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${PACKAGES[@]}" >&2
	if ((made_policy)); then
		rm -f "$policy"
		trap - EXIT
	fi
	if dpkg-query -W -f='${Status}' apache2 apache2-bin 2>/dev/null | grep -q 'install ok installed'; then
		log "warning: Apache got installed; it is not used"
	fi
	missing=$(missing_packages)
	[[ -z $missing ]] || die "still missing after install: $(printf '%s' "$missing" | tr '\n' ' ')"
	log "installed in $(elapsed) s"
}

# ---------------------------------------------------------------- processes

# proc_info PID sets P_STATE and P_START (start time in clock ticks
# since boot, to tell a reused PID apart) from /proc; fails if PID is gone.
# No subshells: this runs in loops.
proc_info() {
	local stat
	{ read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
	stat=${stat##*) } # the command name may hold spaces and parentheses
	local -a f
	read -r -a f <<<"$stat"
	# f[0] is field 3 (state), f[19] field 22 (starttime)
	P_STATE=${f[0]} P_START=${f[19]}
}

# alive PID STARTTIME: the very process we started still exists and is no
# zombie (PID 1 here reaps orphans late, so a stopped one may linger as Z).
alive() {
	proc_info "$1" || return 1
	[[ $P_START == "$2" && $P_STATE != Z && $P_STATE != X ]]
}

# children PID prints "PID STARTTIME" for each child of PID.
children() {
	local f stat
	local -a fs
	for f in /proc/[0-9]*/stat; do
		{ read -r stat <"$f"; } 2>/dev/null || continue
		stat=${stat##*) }
		read -r -a fs <<<"$stat"
		if [[ ${fs[1]} == "$1" ]]; then
			f=${f#/proc/}
			printf '%s %s\n' "${f%/stat}" "${fs[19]}"
		fi
	done
}

# record ROLE PID: append a process to DIR/pids.
record() {
	proc_info "$2" || return 1
	printf '%s %s %s\n' "$1" "$2" "$P_START" >>"$DIR/pids"
}

# record_workers: append the php -S worker children not recorded yet.
record_workers() {
	local parent=$1 pid start
	while read -r pid start; do
		[[ -n $pid ]] || continue
		grep -q "^php-worker $pid " "$DIR/pids" 2>/dev/null ||
			printf 'php-worker %s %s\n' "$pid" "$start" >>"$DIR/pids"
	done < <(children "$parent")
}

# stop_dir: stop every recorded process of DIR. Quiet when nothing runs.
stop_dir() {
	local pidfile=$DIR/pids recorded
	[[ -f $pidfile ]] || return 0
	recorded=$'\n'$(<"$pidfile")$'\n'
	local -a roles=() pids=() starts=()
	local role pid start
	while read -r role pid start; do
		[[ -n $pid ]] || continue
		roles+=("$role") pids+=("$pid") starts+=("$start")
		# Workers forked after the record was written are children of the parent.
		if [[ $role == php ]] && alive "$pid" "$start"; then
			local cpid cstart
			while read -r cpid cstart; do
				[[ -n $cpid ]] || continue
				[[ $recorded == *$'\n'"php-worker $cpid $cstart"$'\n'* ]] ||
					roles+=(php-worker) pids+=("$cpid") starts+=("$cstart")
			done < <(children "$pid")
		fi
	done <<<"$recorded"
	local i n=${#pids[@]} running=0
	# php first (parent and workers: workers survive a TERM to the parent), then MariaDB.
	local phase
	for phase in php mariadbd; do
		for ((i = 0; i < n; i++)); do
			[[ ${roles[i]} == "$phase"* ]] || continue
			if alive "${pids[i]}" "${starts[i]}"; then
				kill -TERM "${pids[i]}" 2>/dev/null || true
				running=$((running + 1))
			fi
		done
	done
	((running)) || return 0
	log "stopping $running process(es) in $DIR"
	local deadline=$((${EPOCHREALTIME/./} + STOP_TIMEOUT * 1000000)) left
	while :; do
		left=0
		for ((i = 0; i < n; i++)); do
			alive "${pids[i]}" "${starts[i]}" && left=$((left + 1))
		done
		((left)) || break
		if ((${EPOCHREALTIME/./} > deadline)); then
			for ((i = 0; i < n; i++)); do
				if alive "${pids[i]}" "${starts[i]}"; then
					log "KILL ${roles[i]} ${pids[i]} (still running after ${STOP_TIMEOUT}s)"
					kill -KILL "${pids[i]}" 2>/dev/null || true
				fi
			done
			deadline=$((${EPOCHREALTIME/./} + 3000000))
			local j
			for ((j = 0; j < 30; j++)); do
				left=0
				for ((i = 0; i < n; i++)); do
					alive "${pids[i]}" "${starts[i]}" && left=$((left + 1))
				done
				((left)) || break
				sleep 0.1
			done
			((left == 0)) || die "$left process(es) in $DIR survived SIGKILL"
			break
		fi
		sleep 0.05
	done
}

# ---------------------------------------------------------------- options

# resolve_dir: DIR from --dir, or from --port, as an absolute path.
resolve_dir() {
	local dir=$1 port=$2
	[[ -n $dir ]] || dir=/tmp/wpqueue-wp-$port
	[[ $dir == /* ]] || dir=$PWD/$dir
	DIR=${dir%/}
	[[ -n $DIR ]] || die "refusing to use / as the state dir"
}

valid_port() {
	if ! [[ $1 =~ ^[0-9]+$ ]] || ((10#$1 < 1 || 10#$1 > 65535)); then
		usage_error "bad port: $1"
	fi
}

# parse_target parses --dir/--port (and --purge for stop) and sets DIR, REST.
parse_target() {
	local cmd=$1 dir="" port=$DEFAULT_PORT
	shift
	PURGE=0
	REST=()
	while (($#)); do
		case $1 in
		--dir) (($# >= 2)) || usage_error "--dir needs a value"; dir=$2; shift ;;
		--dir=*) dir=${1#*=} ;;
		--port) (($# >= 2)) || usage_error "--port needs a value"; port=$2; shift ;;
		--port=*) port=${1#*=} ;;
		--purge) [[ $cmd == stop ]] || usage_error "$cmd: unknown option --purge"; PURGE=1 ;;
		-h | --help) usage; exit 0 ;;
		--) shift; REST+=("$@"); break ;;
		-?*) usage_error "$cmd: unknown option: $1" ;;
		*) REST+=("$@"); break ;; # the SQL, or FILE.php and its arguments
		esac
		shift
	done
	valid_port "$port"
	resolve_dir "$dir" "$port"
}

# load_env: read DIR/env (written by start).
load_env() {
	[[ -f $DIR/env ]] || die "no site in $DIR (no env file); start one with: scripts/$PROG start --dir $DIR"
	# shellcheck disable=SC1091 # written by cmd_start
	. "$DIR/env"
}

# ---------------------------------------------------------------- start

cmd_start() {
	local dir="" port=$DEFAULT_PORT timezone="" gmt_offset="" use_offset=0
	local permalinks=plain drafts=5 title="wpqueue test site"
	local -a mu_plugins=()
	while (($#)); do
		case $1 in
		--*=*) set -- "${1%%=*}" "${1#*=}" "${@:2}"; continue ;;
		--dir | --port | --timezone | --gmt-offset | --permalinks | --drafts | --title | --mu-plugin)
			(($# >= 2)) || usage_error "$1 needs a value"
			case $1 in
			--dir) dir=$2 ;;
			--port) port=$2 ;;
			--timezone) timezone=$2 ;;
			--gmt-offset) gmt_offset=$2; use_offset=1 ;;
			--permalinks) permalinks=$2 ;;
			--drafts) drafts=$2 ;;
			--title) title=$2 ;;
			--mu-plugin) mu_plugins+=("$2") ;;
			esac
			shift
			;;
		-h | --help) usage; exit 0 ;;
		*) usage_error "start: unknown argument: $1" ;;
		esac
		shift
	done
	valid_port "$port"
	[[ $drafts =~ ^[0-9]+$ ]] || usage_error "--drafts must be a number >= 0: $drafts"
	drafts=$((10#$drafts))
	[[ $permalinks == plain || $permalinks == pretty ]] || usage_error "--permalinks must be plain or pretty: $permalinks"
	if ((use_offset)); then
		[[ $gmt_offset =~ ^[+-]?[0-9]+(\.[0-9]+)?$ ]] || usage_error "--gmt-offset must be a number of hours, e.g. 9, 5.5, -3: $gmt_offset"
		[[ -z $timezone ]] || usage_error "give --timezone or --gmt-offset, not both"
	fi
	[[ $timezone =~ ^[A-Za-z0-9_/+-]*$ ]] || usage_error "bad --timezone: $timezone"
	local f seen=" "
	for f in "${mu_plugins[@]}"; do
		[[ -f $f && -r $f ]] || usage_error "--mu-plugin: no such file: $f"
		[[ $f == *.php ]] || usage_error "--mu-plugin must be a .php file: $f"
		[[ $seen != *" ${f##*/} "* ]] || usage_error "--mu-plugin: two files named ${f##*/}"
		seen+="${f##*/} "
	done
	require_installed
	# shellcheck disable=SC2016 # PHP code, not shell
	if [[ -n $timezone ]] && ! php -r 'exit(in_array($argv[1], timezone_identifiers_list(DateTimeZone::ALL_WITH_BC), true) ? 0 : 1);' -- "$timezone"; then
		usage_error "--timezone: PHP knows no zone named $timezone (e.g. Europe/Berlin, Asia/Seoul, UTC)"
	fi
	resolve_dir "$dir" "$port"

	# Everything but the final DIR line goes to stderr.
	exec 3>&1 1>&2

	# A previous site in DIR is stopped by its recorded PIDs.
	if [[ -f $DIR/pids ]]; then
		stop_dir
	fi
	if (exec 9<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		die "port $port on 127.0.0.1 is already in use (another site? scripts/$PROG stop --port $port)"
	fi

	# DIR must be new, empty, or made by this script: its content is replaced.
	if [[ -e $DIR && ! -d $DIR ]]; then
		die "$DIR exists and is not a directory"
	fi
	if [[ -d $DIR && ! -e $DIR/$MARKER && -n $(ls -A "$DIR") ]]; then
		die "$DIR is not empty and was not made by this script; pick another --dir"
	fi
	if [[ -f $DIR/sockdir ]]; then
		local old_sockdir
		old_sockdir=$(<"$DIR/sockdir")
		[[ $old_sockdir != /tmp/wpqueue-sock.* ]] || rm -rf -- "$old_sockdir"
	fi
	mkdir -p -- "$DIR"
	find "$DIR" -mindepth 1 -delete
	: >"$DIR/$MARKER"
	: >"$DIR/pids"

	# On any failure from here on, stop what was started and point at the logs.
	trap 'start_failed $?' EXIT

	# Unix socket paths are limited to 107 bytes; a long DIR gets a short socket dir.
	local sock=$DIR/mysqld.sock
	if ((${#sock} > 100)); then
		local sockdir
		sockdir=$(mktemp -d /tmp/wpqueue-sock.XXXXXX)
		printf '%s\n' "$sockdir" >"$DIR/sockdir"
		sock=$sockdir/mysqld.sock
	fi

	log "starting WordPress in $DIR on http://127.0.0.1:$port"
	local user
	user=$(id -un)
	init_datadir "$user"
	setsid mariadbd --no-defaults --datadir="$DIR/db" --user="$user" \
		--socket="$sock" --pid-file="$DIR/mysqld.pid" --log-error="$DIR/mariadb.log" \
		--skip-networking --innodb-log-file-size=8M --innodb-buffer-pool-size=32M \
		--skip-name-resolve --skip-log-bin --performance-schema=OFF \
		</dev/null >>"$DIR/mariadb.log" 2>&1 3>&- &
	local db_pid=$!
	record mariadbd "$db_pid" || {
		tail_log "$DIR/mariadb.log"
		die "mariadbd exited at once"
	}
	local db_start=$P_START
	local deadline=$((SECONDS + READY_TIMEOUT))
	until mariadb-admin --no-defaults --socket="$sock" -u root --connect-timeout=2 ping >/dev/null 2>&1; do
		if ! alive "$db_pid" "$db_start"; then
			tail_log "$DIR/mariadb.log"
			die "mariadbd exited during startup"
		fi
		if ((SECONDS >= deadline)); then
			tail_log "$DIR/mariadb.log"
			die "MariaDB not ready after ${READY_TIMEOUT}s"
		fi
		sleep 0.1
	done
	local db_password
	db_password=$(random_hex)
	mariadb --no-defaults --socket="$sock" -u root <<SQL
CREATE DATABASE $DB_NAME CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER 'wp'@'localhost' IDENTIFIED BY '$db_password';
GRANT ALL PRIVILEGES ON $DB_NAME.* TO 'wp'@'localhost';
SQL
	log "MariaDB ready ($(elapsed) s), pid $db_pid, socket $sock"

	# A private copy of the core: Debian's own wp-config.php is a dispatcher
	# that reads /etc/wordpress/config-HOST.php, shared by every port.
	copy_core
	if [[ -L $DIR/wp/wp-content ]]; then
		rm -f "$DIR/wp/wp-content"
	fi
	mkdir -p "$DIR/wp/wp-content/mu-plugins" "$DIR/wp/wp-content/plugins" \
		"$DIR/wp/wp-content/themes" "$DIR/wp/wp-content/uploads"
	local url=http://127.0.0.1:$port
	write_wp_config "$url" "$sock" "$db_password"
	write_php_helpers

	local admin_password
	admin_password=$(random_hex)
	local tz_mode=zone
	((use_offset)) && tz_mode=offset
	if ! WPQ_TITLE=$title WPQ_ADMIN_USER=$ADMIN_USER WPQ_ADMIN_EMAIL=$ADMIN_EMAIL \
		WPQ_ADMIN_PASSWORD=$admin_password WPQ_TZ_MODE=$tz_mode WPQ_TIMEZONE=$timezone \
		WPQ_GMT_OFFSET=$gmt_offset WPQ_PERMALINKS=$permalinks WPQ_DRAFTS=$drafts \
		WPQ_APP_PASSWORD_NAME=$APP_PASSWORD_NAME WPQ_APP_PASSWORD_FILE=$DIR/app-password \
		php -d display_errors=stderr -d log_errors=0 "$DIR/setup.php" >"$DIR/setup.log" 2>&1; then
		tail_log "$DIR/setup.log"
		die "WordPress setup failed (see $DIR/setup.log)"
	fi
	log "WordPress installed ($(elapsed) s): $(tail -n 1 "$DIR/setup.log")"

	# php -S forks PHP_WORKERS workers; they outlive a TERM to the parent,
	# so their PIDs are recorded too.
	PHP_CLI_SERVER_WORKERS=$PHP_WORKERS setsid php -d display_errors=0 -d log_errors=1 \
		-d opcache.revalidate_freq=0 \
		-S "127.0.0.1:$port" -t "$DIR/wp" "$DIR/router.php" \
		</dev/null >>"$DIR/php.log" 2>&1 3>&- &
	local php_pid=$!
	record php "$php_pid" || {
		tail_log "$DIR/php.log"
		die "php -S exited at once"
	}
	local php_start=$P_START
	local code=000
	deadline=$((SECONDS + READY_TIMEOUT))
	while :; do
		record_workers "$php_pid"
		if ! alive "$php_pid" "$php_start"; then
			tail_log "$DIR/php.log"
			die "php -S exited during startup"
		fi
		code=$(WPQ_URL="$url/?rest_route=/wp/v2/users/me" WPQ_USER=$ADMIN_USER \
			WPQ_PASSWORD_FILE=$DIR/app-password php "$DIR/probe.php" 2>>"$DIR/php.log" || true)
		[[ $code != 200 ]] || break
		if ((SECONDS >= deadline)); then
			tail_log "$DIR/php.log"
			die "no authenticated 200 from $url/?rest_route=/wp/v2/users/me after ${READY_TIMEOUT}s (last status: ${code:-none})"
		fi
		sleep 0.1
	done
	record_workers "$php_pid"
	local nworkers
	nworkers=$(grep -c '^php-worker ' "$DIR/pids" || true)
	((nworkers == PHP_WORKERS)) || log "warning: $nworkers php workers recorded, expected $PHP_WORKERS"

	# Must-use plugins go in only now, so that the probe above checks the stock
	# site, not one a plugin bends on purpose (say, by dropping Authorization).
	# WordPress reads the directory on every request; nobody has DIR yet.
	if ((${#mu_plugins[@]})); then
		for f in "${mu_plugins[@]}"; do
			cp -- "$f" "$DIR/wp/wp-content/mu-plugins/${f##*/}"
		done
		code=$(WPQ_URL="$url/?rest_route=/" WPQ_USER="" WPQ_PASSWORD_FILE=/dev/null \
			php "$DIR/probe.php" 2>>"$DIR/php.log" || true)
		log "mu-plugins: ${mu_plugins[*]##*/} (GET ?rest_route=/ now answers $code)"
	fi

	{
		printf 'WPQUEUE_SITE_URL=%s\n' "$(env_quote "$url")"
		printf 'WPQUEUE_SITE_USERNAME=%s\n' "$ADMIN_USER"
		printf 'WPQUEUE_SITE_PASSWORD_FILE=%s\n' "$(env_quote "$DIR/app-password")"
		printf 'WP_DIR=%s\n' "$(env_quote "$DIR")"
		printf 'WP_PORT=%s\n' "$port"
		printf 'WP_DB_SOCKET=%s\n' "$(env_quote "$sock")"
		printf 'WP_ADMIN_PASSWORD=%s\n' "$admin_password"
	} >"$DIR/env"
	chmod 0600 "$DIR/env"

	trap - EXIT
	log "ready in $(elapsed) s: $url (permalinks $permalinks, $drafts drafts, pids: $(awk '{print $2}' "$DIR/pids" | tr '\n' ' '))"
	printf '%s\n' "$DIR" >&3
}

# copy_core: DIR/wp as a private copy of the core. wp-admin and wp-includes
# (56 of 57 MB) are hard links to the package's files when /tmp and /usr
# share a filesystem (0.1 s instead of 0.5-1.7 s): bend WordPress with
# --mu-plugin, never by editing core files in place.
copy_core() {
	mkdir -p "$DIR/wp"
	local f
	for f in "$WP_SRC"/* "$WP_SRC"/.[!.]*; do
		[[ -e $f || -L $f ]] || continue
		case ${f##*/} in
		wp-config.php | .htaccess) ;; # Debian's dispatcher and Apache's file
		wp-admin | wp-includes)
			cp -al -- "$f" "$DIR/wp/" 2>/dev/null || {
				rm -rf -- "$DIR/wp/${f##*/}"
				cp -a -- "$f" "$DIR/wp/"
			}
			;;
		*) cp -a -- "$f" "$DIR/wp/" ;;
		esac
	done
}

# init_datadir USER: DIR/db as made by mariadb-install-db. The pristine result
# is kept once per MariaDB build and user in /tmp/wpqueue-wp-dbtemplate-*
# and copied from there (~0.1 s instead of ~2 s).
init_datadir() {
	local user=$1 bin key tpl tmp
	bin=$(command -v mariadbd)
	key=$(stat -L -c '%s-%Y' "$bin")
	tpl=/tmp/wpqueue-wp-dbtemplate-$user-$key
	if [[ ! -f $tpl/done ]]; then
		tmp=$(mktemp -d "$tpl.XXXXXX")
		if ! mariadb-install-db --no-defaults --datadir="$tmp/db" --user="$user" \
			--auth-root-authentication-method=socket --skip-test-db \
			--innodb-log-file-size=8M >"$DIR/mariadb-install.log" 2>&1; then
			rm -rf -- "$tmp"
			tail_log "$DIR/mariadb-install.log"
			die "mariadb-install-db failed"
		fi
		: >"$tmp/done"
		# Atomic; when another start won the race, its template is used.
		mv -T -- "$tmp" "$tpl" 2>/dev/null || rm -rf -- "$tmp"
		log "MariaDB datadir template made ($(elapsed) s): $tpl"
	fi
	cp -a -- "$tpl/db" "$DIR/db"
}

# start_failed STATUS: EXIT trap of start; stops what was started.
start_failed() {
	trap - EXIT
	if (($1 != 0)); then
		stop_dir || true
		log "start failed; logs are in $DIR"
	fi
	exit "$1"
}

write_wp_config() {
	local url=$1 sock=$2 db_password=$3 key salts="" pool i=0
	pool=$(od -An -tx1 -N256 /dev/urandom | tr -d ' \n') # 512 hex digits, 64 per key
	for key in AUTH_KEY SECURE_AUTH_KEY LOGGED_IN_KEY NONCE_KEY AUTH_SALT SECURE_AUTH_SALT LOGGED_IN_SALT NONCE_SALT; do
		salts+="define('$key', '${pool:i:64}');"$'\n'
		i=$((i + 64))
	done
	cat >"$DIR/wp/wp-config.php" <<PHP
<?php
// Written by wpqueue scripts/wordpress.sh for a local test site. Not for production.
define('DB_NAME', '$DB_NAME');
define('DB_USER', 'wp');
define('DB_PASSWORD', '$db_password');
define('DB_HOST', $(php_quote "localhost:$sock"));
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
$salts
\$table_prefix = 'wp_';

// Application passwords over plain http need the "local" environment.
define('WP_ENVIRONMENT_TYPE', 'local');
define('WP_HOME', $(php_quote "$url"));
define('WP_SITEURL', $(php_quote "$url"));
define('WP_CONTENT_DIR', __DIR__ . '/wp-content');
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('DISABLE_WP_CRON', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_AUTO_UPDATE_CORE', false);
define('WP_DEBUG', false);

if (!defined('ABSPATH')) {
	define('ABSPATH', __DIR__ . '/');
}
require_once ABSPATH . 'wp-settings.php';
PHP
}

write_php_helpers() {
	# The non-interactive install; parameters come from WPQ_* variables.
	cat >"$DIR/setup.php" <<'PHP'
<?php
// Written by wpqueue scripts/wordpress.sh: installs WordPress without a browser.
define('WP_INSTALLING', true);
// Pluggable: there is no mail transport here.
function wp_new_blog_notification($blog_title, $blog_url, $user_id, $password) {}

function fail($msg) { fwrite(STDERR, "setup: $msg\n"); exit(1); }
function env($name) { $v = getenv($name); return $v === false ? '' : $v; }

require __DIR__ . '/wp/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';

$tz_mode = env('WPQ_TZ_MODE');
$timezone = env('WPQ_TIMEZONE');
if ($tz_mode === 'zone' && $timezone !== '' && !in_array($timezone, timezone_identifiers_list(DateTimeZone::ALL_WITH_BC), true)) {
	fail("unknown timezone: $timezone");
}
$offset = env('WPQ_GMT_OFFSET');
if ($tz_mode === 'offset' && (!is_numeric($offset) || (float)$offset < -12 || (float)$offset > 14)) {
	fail("gmt offset out of range -12..14: $offset");
}

$result = wp_install(env('WPQ_TITLE'), env('WPQ_ADMIN_USER'), env('WPQ_ADMIN_EMAIL'), false, '', wp_slash(env('WPQ_ADMIN_PASSWORD')));
$uid = (int)$result['user_id'];
if ($uid <= 0) { fail('wp_install made no user'); }
wp_set_current_user($uid);

if ($tz_mode === 'offset') {
	update_option('timezone_string', '');
	// Stored as the admin screen stores it: a string ("9", "5.5", "-3").
	update_option('gmt_offset', (string)(0 + $offset));
} else {
	update_option('timezone_string', $timezone);
	update_option('gmt_offset', 0);
}

global $wp_rewrite;
$wp_rewrite->set_permalink_structure(env('WPQ_PERMALINKS') === 'pretty' ? '/%postname%/' : '');
$wp_rewrite->flush_rules(false);

$created = WP_Application_Passwords::create_new_application_password($uid, array('name' => env('WPQ_APP_PASSWORD_NAME')));
if (is_wp_error($created)) { fail('application password: ' . $created->get_error_message()); }
$file = env('WPQ_APP_PASSWORD_FILE');
umask(077);
if (file_put_contents($file, WP_Application_Passwords::chunk_password($created[0]) . "\n") === false) { fail("cannot write $file"); }
chmod($file, 0600);

// Drafts one minute apart, oldest first, all in the past: ids and dates ascend.
$n = (int)env('WPQ_DRAFTS');
$now = new DateTimeImmutable('now', wp_timezone());
$ids = array();
for ($k = 1; $k <= $n; $k++) {
	$id = wp_insert_post(array(
		'post_type' => 'post',
		'post_status' => 'draft',
		'post_author' => $uid,
		'post_title' => "Seed draft $k",
		'post_content' => "Body of seed draft $k.",
		'post_date' => $now->modify(sprintf('-%d minutes', $n - $k + 1))->format('Y-m-d H:i:s'),
	), true);
	if (is_wp_error($id)) { fail("draft $k: " . $id->get_error_message()); }
	$ids[] = $id;
}
printf("admin user %d, timezone_string '%s', gmt_offset %s, permalinks '%s', drafts %s\n",
	$uid, get_option('timezone_string'), get_option('gmt_offset'), get_option('permalink_structure'),
	$ids ? min($ids) . '..' . max($ids) : 'none');
PHP

	# Readiness probe: prints the HTTP status of an authenticated GET.
	cat >"$DIR/probe.php" <<'PHP'
<?php
$user = (string)getenv('WPQ_USER');
$http = array('ignore_errors' => true, 'timeout' => 5, 'follow_location' => 0);
if ($user !== '') {
	$pw = trim((string)@file_get_contents(getenv('WPQ_PASSWORD_FILE')));
	$http['header'] = 'Authorization: Basic ' . base64_encode($user . ':' . $pw);
}
$ctx = stream_context_create(array('http' => $http));
@file_get_contents(getenv('WPQ_URL'), false, $ctx);
$status = isset($http_response_header[0]) && preg_match('{^HTTP/\S+ (\d{3})}', $http_response_header[0], $m) ? $m[1] : '000';
echo $status;
PHP

	# Router for php -S: real files as they are, everything else to index.php.
	cat >"$DIR/router.php" <<'PHP'
<?php
$wpq_path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
if (is_string($wpq_path) && $wpq_path !== '/' && file_exists($_SERVER['DOCUMENT_ROOT'] . urldecode($wpq_path))) {
	return false;
}
unset($wpq_path);
$_SERVER['SCRIPT_NAME'] = $_SERVER['PHP_SELF'] = '/index.php';
$_SERVER['SCRIPT_FILENAME'] = $_SERVER['DOCUMENT_ROOT'] . '/index.php';
require $_SERVER['DOCUMENT_ROOT'] . '/index.php';
PHP

	# Runs a snippet with WordPress loaded and the admin as the current user.
	cat >"$DIR/run.php" <<'PHP'
<?php
if ($argc < 2) { fwrite(STDERR, "usage: php run.php FILE.php [ARGS...]\n"); exit(2); }
$wpq_file = $argv[1];
$argv = array_slice($argv, 1);
$argc = count($argv);
require __DIR__ . '/wp/wp-load.php';
$wpq_admin = get_user_by('login', 'admin');
if ($wpq_admin) { wp_set_current_user($wpq_admin->ID); }
unset($wpq_admin);
require $wpq_file;
PHP
}

# ---------------------------------------------------------------- other commands

cmd_stop() {
	parse_target stop "$@"
	((${#REST[@]} == 0)) || usage_error "stop: unexpected argument: ${REST[0]}"
	if [[ ! -f $DIR/pids ]]; then
		log "nothing recorded in $DIR"
	else
		stop_dir
		log "stopped ($(elapsed) s)"
	fi
	if ((PURGE)) && [[ -d $DIR ]]; then
		[[ -e $DIR/$MARKER ]] || die "$DIR was not made by this script; not deleting it"
		if [[ -f $DIR/sockdir ]]; then
			local sockdir
			sockdir=$(<"$DIR/sockdir")
			[[ $sockdir != /tmp/wpqueue-sock.* ]] || rm -rf -- "$sockdir"
		fi
		rm -rf -- "$DIR"
		log "deleted $DIR"
	fi
}

cmd_status() {
	parse_target status "$@"
	((${#REST[@]} == 0)) || usage_error "status: unexpected argument: ${REST[0]}"
	if [[ ! -s $DIR/pids ]]; then
		echo "no site recorded in $DIR"
		return 1
	fi
	local role pid start all=0 up=0
	while read -r role pid start; do
		[[ -n $pid ]] || continue
		all=$((all + 1))
		if alive "$pid" "$start"; then
			up=$((up + 1))
			printf '%-10s %7s running\n' "$role" "$pid"
		else
			printf '%-10s %7s stopped\n' "$role" "$pid"
		fi
	done <"$DIR/pids"
	if [[ -f $DIR/env ]]; then
		printf 'url        %s\n' "$(sed -n 's/^WPQUEUE_SITE_URL=//p' "$DIR/env")"
	fi
	((up == all))
}

cmd_sql() {
	parse_target sql "$@"
	((${#REST[@]} <= 1)) || usage_error "sql: give the SQL as one argument"
	load_env
	if ((${#REST[@]} == 0)) || [[ ${REST[0]} == - ]]; then
		mariadb --no-defaults --socket="$WP_DB_SOCKET" -u root -N -B "$DB_NAME"
	else
		mariadb --no-defaults --socket="$WP_DB_SOCKET" -u root -N -B "$DB_NAME" -e "${REST[0]}"
	fi
}

cmd_php() {
	parse_target php "$@"
	((${#REST[@]} >= 1)) || usage_error "php: give a FILE.php"
	[[ -f ${REST[0]} ]] || die "no such file: ${REST[0]}"
	load_env
	local file=${REST[0]}
	[[ $file == /* ]] || file=$PWD/$file
	php -d display_errors=stderr "$DIR/run.php" "$file" "${REST[@]:1}"
}

main() {
	(($#)) || {
		usage >&2
		exit 2
	}
	local cmd=$1
	shift
	case $cmd in
	install) cmd_install "$@" ;;
	start) cmd_start "$@" ;;
	stop) cmd_stop "$@" ;;
	status) cmd_status "$@" ;;
	sql) cmd_sql "$@" ;;
	php) cmd_php "$@" ;;
	help | -h | --help) usage ;;
	*) usage_error "unknown command: $cmd" ;;
	esac
}

main "$@"
