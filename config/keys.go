package config

import (
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// kind is how a key's value is written and decoded.
type kind int

const (
	kindString kind = iota
	kindBool
	kindInt
	kindDuration
	kindList // a YAML list, or a comma-separated string (env, flag)
)

// keyDef describes one configuration key. The table below is the single
// source for viper defaults, env bindings, flags and the unknown-key check.
type keyDef struct {
	key     string // "schedule.times"
	kind    kind
	def     any    // default: string, bool, int, time.Duration or []string
	noFlag  bool   // true for the password, which is never a flag
	topOnly bool   // true for log.*, which is not per site
	usage   string // flag help, without the key and env suffix
}

// Keys, in the order of the table in doc.go.
var keyDefs = []keyDef{
	{key: "site.url", kind: kindString, def: "", usage: "WordPress site address, e.g. https://example.com (required)"},
	{key: "site.username", kind: kindString, def: "", usage: "WordPress login name (required)"},
	{key: "site.password", kind: kindString, def: "", noFlag: true},
	{key: "site.password_file", kind: kindString, def: "", usage: "file holding the application password"},
	{key: "site.api_root", kind: kindString, def: "", usage: "REST API root URL; empty = discover it from the site"},
	{key: "site.allow_insecure_http", kind: kindBool, def: false, usage: "allow a plain http:// site URL (the password then travels unencrypted)"},
	{key: "site.user_agent", kind: kindString, def: "", usage: "User-Agent header; empty = the client default"},
	{key: "site.timeout", kind: kindDuration, def: 30 * time.Second, usage: "timeout for each HTTP request"},
	{key: "schedule.times", kind: kindList, def: []string{"07:00"}, usage: "publishing times, HH:MM 24-hour in the site's zone, comma-separated"},
	{key: "schedule.days", kind: kindList, def: []string{}, usage: "publishing weekdays (monday..sunday or mon..sun), comma-separated; empty = every day"},
	{key: "schedule.ahead", kind: kindInt, def: 1, usage: "how many upcoming slots to keep filled (1..1000)"},
	{key: "schedule.lead", kind: kindDuration, def: 15 * time.Minute, usage: "skip slots starting sooner than this (at least 1m)"},
	{key: "schedule.timezone", kind: kindString, def: "", usage: "IANA time zone of the slots; empty = the site's own"},
	{key: "queue.status", kind: kindString, def: "draft", usage: "status of queued posts: draft or pending"},
	{key: "queue.category", kind: kindString, def: "", usage: "only queue posts in this category (slug or id)"},
	{key: "queue.tag", kind: kindString, def: "", usage: "only queue posts with this tag (slug or id)"},
	{key: "queue.author", kind: kindString, def: "", usage: "only queue posts by this user id"},
	{key: "queue.order", kind: kindString, def: "id", usage: "queue order: id, date, modified or title"},
	{key: "lock.path", kind: kindString, def: "", usage: "lock file path; empty = a per-user default"},
	{key: "alerts.low_queue", kind: kindInt, def: 3, usage: "warn when fewer than this many publishable drafts remain"},
	{key: "alerts.empty_within", kind: kindDuration, def: 12 * time.Hour, usage: "monitoring: warn when the next slot is still empty this close to it"},
	{key: "log.level", kind: kindString, def: "warn", topOnly: true, usage: "log level on stderr: debug, info, warn or error"},
	{key: "log.format", kind: kindString, def: "text", topOnly: true, usage: "log format: text or json"},
	{key: "log.file", kind: kindString, def: "", topOnly: true, usage: "append JSON log lines to this file"},
}

// keyIndex maps a key to its definition.
var keyIndex = func() map[string]*keyDef {
	m := make(map[string]*keyDef, len(keyDefs))
	for i := range keyDefs {
		m[keyDefs[i].key] = &keyDefs[i]
	}
	return m
}()

// sectionNames lists the top-level sections; siteSectionNames those allowed
// under sites.<name>.
var (
	sectionNames     = []string{"site", "schedule", "queue", "lock", "alerts", "log"}
	siteSectionNames = []string{"site", "schedule", "queue", "lock", "alerts"}
)

// leaves returns the key names inside section ("url", "username", ...).
func leaves(section string) []string {
	var out []string
	for _, d := range keyDefs {
		if s, leaf, _ := strings.Cut(d.key, "."); s == section {
			out = append(out, leaf)
		}
	}
	return out
}

// flagName is the flag for key: "site.allow_insecure_http" -> "site-allow-insecure-http".
func flagName(key string) string {
	return strings.NewReplacer(".", "-", "_", "-").Replace(key)
}

// envName is the top-level variable for key: "site.url" -> "WPQUEUE_SITE_URL".
func envName(key string) string {
	return "WPQUEUE_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// siteEnvName is the per-site variable: ("my-blog", "site.url") ->
// "WPQUEUE_SITES_MY_BLOG_SITE_URL".
func siteEnvName(site, key string) string {
	return "WPQUEUE_SITES_" + siteEnvPart(site) + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// siteEnvPart is a site name as it appears in a variable name.
func siteEnvPart(site string) string {
	return strings.ToUpper(strings.ReplaceAll(site, "-", "_"))
}

// RegisterFlags adds a flag for every configuration key except
// site.password (a secret never belongs on a command line, where other
// users can read it from the process list). Each flag is named after its
// key with dots and underscores turned into dashes (site.password_file is
// --site-password-file) and its help names the key and its environment
// variable. List flags take comma-separated values. [Load] reads only the
// flags whose Changed is true, so the defaults shown here never mask a file
// or environment value.
func RegisterFlags(fs *pflag.FlagSet) {
	for _, d := range keyDefs {
		if d.noFlag {
			continue
		}
		name := flagName(d.key)
		usage := d.usage + " [" + d.key + ", $" + envName(d.key) + "]"
		switch d.kind {
		case kindString:
			fs.String(name, d.def.(string), usage)
		case kindBool:
			fs.Bool(name, d.def.(bool), usage)
		case kindInt:
			fs.Int(name, d.def.(int), usage)
		case kindDuration:
			fs.Duration(name, d.def.(time.Duration), usage)
		case kindList:
			fs.StringSlice(name, d.def.([]string), usage)
		}
	}
}
