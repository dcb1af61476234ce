// Package config loads wpqueue's settings from a YAML file, WPQUEUE_*
// environment variables and command-line flags into a plain [Config], one
// [Site] per WordPress site, and validates them.
//
// # Where settings come from
//
// [Load] reads at most one YAML file: the --config path if given (it must
// exist), else the first of ./wpqueue.yaml and
// <os.UserConfigDir()>/wpqueue/config.yaml that exists (on Linux
// $XDG_CONFIG_HOME/wpqueue/config.yaml or ~/.config/wpqueue/config.yaml).
// No file at all is fine: every key can be set through the environment.
//
// A key's variable is WPQUEUE_ followed by the key upper-cased with dots
// turned into underscores: site.password_file is WPQUEUE_SITE_PASSWORD_FILE.
// An empty variable counts as unset. Lists in variables and flags are
// comma-separated: WPQUEUE_SCHEDULE_TIMES="07:00,19:00". A key's flag is
// the key with dots and underscores turned into dashes:
// --site-password-file. There is no flag for site.password, so the password
// never shows in a process list; use WPQUEUE_SITE_PASSWORD, the file, or
// --site-password-file.
//
// # Keys
//
//	key                        type                          default            flag
//	site.url                   absolute http(s) URL          required           --site-url
//	site.username              WordPress login name          required           --site-username
//	site.password              application password (secret) ""                 none
//	site.password_file         file holding the password     ""                 --site-password-file
//	site.api_root              REST API root URL             "" (discover)      --site-api-root
//	site.allow_insecure_http   bool; permits http:// URLs    false              --site-allow-insecure-http
//	site.user_agent            User-Agent header             "" (client's own)  --site-user-agent
//	site.timeout               duration per request, > 0     30s                --site-timeout
//	schedule.times             list of HH:MM, 24-hour        [07:00]            --schedule-times
//	schedule.days              list of weekdays              every day          --schedule-days
//	schedule.ahead             slots to keep filled, 1..1000 1                  --schedule-ahead
//	schedule.lead              duration >= 0                 15m                --schedule-lead
//	schedule.timezone          IANA zone name                "" (the site's)    --schedule-timezone
//	queue.status               draft or pending              draft              --queue-status
//	queue.category             category slug or id           "" (any)           --queue-category
//	queue.tag                  tag slug or id                "" (any)           --queue-tag
//	queue.author               numeric user id               "" (any)           --queue-author
//	queue.order                id, date, modified or title   id                 --queue-order
//	lock.path                  lock file path                "" (per-user)      --lock-path
//	alerts.low_queue           int >= 0                      3                  --alerts-low-queue
//	alerts.empty_within        duration >= 0                 12h                --alerts-empty-within
//	log.level                  debug, info, warn or error    warn               --log-level
//	log.format                 text or json                  text               --log-format
//	log.file                   path; JSON lines appended     ""                 --log-file
//
// Durations use Go syntax (30s, 15m, 2h30m; a bare 0 is allowed). Weekdays
// are monday..sunday or mon..sun in any case. Booleans accept true/false,
// yes/no, on/off and 1/0. Times are site-local unless schedule.timezone is
// set. The password and the password file's contents are trimmed of
// surrounding white space (and a byte order mark); inner spaces, as in
// "abcd efgh ijkl mnop qrst uvwx", are kept. Setting both site.password and
// site.password_file at the same level is an error; at different levels the
// higher one wins (see below). A relative password_file, lock.path or
// log.file written in the config file is relative to the file's directory;
// one from a variable or flag is relative to the working directory.
//
// # Several sites
//
// A file without sites: describes one site, named "default". A file with
// sites: maps site names to the same sections (site, schedule, queue, lock,
// alerts; log is shared and stays at the top level):
//
//	site:
//	  username: editor          # every site inherits these
//	schedule:
//	  times: ["07:00", "19:00"]
//	sites:
//	  blog:
//	    site:
//	      url: https://blog.example.com
//	  shop-news:
//	    site:
//	      url: https://shop.example.com
//	      username: shopkeeper  # overrides the top-level value
//	    schedule:
//	      days: [mon, wed, fri]
//
// The top-level sections then only hold defaults that every site inherits
// key by key. Site names match [a-z0-9][a-z0-9_-]*. The variable for a
// per-site key is WPQUEUE_SITES_<NAME>_<KEY>, the name upper-cased with '-'
// turned into '_': WPQUEUE_SITES_SHOP_NEWS_SITE_PASSWORD. Sites exist only
// in the file; a WPQUEUE_SITES_* variable that matches no site and key is
// an error, since a typo there would silently fall back to the top-level
// value.
//
// # Precedence
//
// For each key of each site, highest first:
//
//  1. a flag given on the command line (it applies to every site);
//  2. the per-site variable, WPQUEUE_SITES_<NAME>_<KEY>;
//  3. the per-site value in the file, sites.<name>.<key>;
//  4. the top-level variable, WPQUEUE_<KEY>;
//  5. the top-level value in the file;
//  6. the default.
//
// Without sites: levels 2 and 3 do not exist. site.password and
// site.password_file count as one setting here: whichever is set at the
// higher level wins.
//
// # Errors
//
// Every error from [Load] and [Config.Select] matches [ErrConfig] with
// errors.Is. Each problem is a *[FieldError] naming the full key path
// ("sites.blog.schedule.ahead") and the offending value (never the
// password). Unknown keys in the file are errors, with the nearest known
// key suggested. Load reports all the problems it finds at once (joined
// with errors.Join), not only the first. With sites:, a top-level value is
// checked where a site inherits it; one that every site overrides is not.
package config
