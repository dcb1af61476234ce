package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// LoadOptions says where [Load] looks for settings.
type LoadOptions struct {
	// Path is the --config file. "" searches ./wpqueue.yaml, then
	// <os.UserConfigDir()>/wpqueue/config.yaml; finding neither is fine
	// (env-only setups), but an explicit Path must exist.
	Path string
	// Flags holds the flags added by [RegisterFlags]. It may be nil; only
	// flags whose Changed is true override other sources.
	Flags *pflag.FlagSet
}

// layer is where a value came from; a higher layer wins.
type layer int

const (
	layerDefault layer = iota
	layerTopFile
	layerTopEnv
	layerSiteFile
	layerSiteEnv
	layerFlag
)

// fromFile reports whether the value was written in the config file.
func (l layer) fromFile() bool { return l == layerTopFile || l == layerSiteFile }

// value is one resolved setting.
type value struct {
	raw   any    // as viper returns it: string (env, flags), YAML types (file), typed defaults
	layer layer  // where it came from
	key   string // key path to blame in errors: "schedule.ahead" or "sites.blog.schedule.ahead"
}

// resolver answers "what is key K for site S" using one viper instance.
//
// Viper holds every source: SetDefault and BindEnv for each top-level key
// (so env-only setups work, viper#761), BindEnv for each per-site key, the
// file, and BindPFlag for each flag. Viper has no notion of inheritance, so
// the resolver walks the layers itself and asks viper only for the layer it
// has chosen; for a top-level key viper's own order (changed flag > env >
// file > default) is the same.
type resolver struct {
	v       *viper.Viper
	flags   map[string]*pflag.Flag // key -> bound flag
	fileDir string                 // directory of the config file, for relative paths
}

// get resolves d for site ("" for the top level only). Precedence, highest
// first: changed flag > per-site env > per-site file > top-level env >
// top-level file > default.
func (r *resolver) get(site string, d *keyDef) value {
	if f := r.flags[d.key]; f != nil && f.Changed {
		return value{r.v.Get(d.key), layerFlag, d.key}
	}
	if site != "" {
		sk := "sites." + site + "." + d.key
		if envSet(siteEnvName(site, d.key)) {
			return value{r.v.Get(sk), layerSiteEnv, sk}
		}
		if r.v.InConfig(sk) {
			return value{r.v.Get(sk), layerSiteFile, sk}
		}
	}
	if envSet(envName(d.key)) {
		return value{r.v.Get(d.key), layerTopEnv, d.key}
	}
	if r.v.InConfig(d.key) {
		return value{r.v.Get(d.key), layerTopFile, d.key}
	}
	return value{r.v.Get(d.key), layerDefault, d.key}
}

// envSet matches viper: an empty variable counts as unset.
func envSet(name string) bool { return os.Getenv(name) != "" }

// Load reads the config file (if any), the WPQUEUE_* environment and the
// changed flags in opts.Flags, and returns the validated configuration.
// Every error it returns matches [ErrConfig] and holds a *[FieldError];
// several problems are joined with errors.Join, in a stable order.
// Load reads the password file but opens no other file.
func Load(opts LoadOptions) (*Config, error) {
	path, data, err := readConfigFile(opts.Path)
	if err != nil {
		return nil, err
	}
	var info fileInfo
	if path != "" {
		root, err := parseYAML(path, data)
		if err != nil {
			return nil, err
		}
		if info, err = checkKeys(path, root); err != nil {
			return nil, err
		}
	}

	v := viper.New()
	v.SetConfigType("yaml")
	for _, d := range keyDefs {
		v.SetDefault(d.key, d.def)
		if err := v.BindEnv(d.key, envName(d.key)); err != nil {
			return nil, &FieldError{Key: d.key, Err: err}
		}
	}
	if path != "" {
		if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
			return nil, &FieldError{Value: path, Err: fmt.Errorf("%s: %w", path, err)}
		}
	}
	r := &resolver{v: v, flags: map[string]*pflag.Flag{}}
	if path != "" {
		r.fileDir = filepath.Dir(path)
	}
	if opts.Flags != nil {
		for _, d := range keyDefs {
			if d.noFlag {
				continue
			}
			if f := opts.Flags.Lookup(flagName(d.key)); f != nil {
				if err := v.BindPFlag(d.key, f); err != nil {
					return nil, &FieldError{Key: d.key, Err: err}
				}
				r.flags[d.key] = f
			}
		}
	}
	names := slices.Clone(info.siteNames)
	slices.Sort(names)
	for _, name := range names {
		for _, d := range keyDefs {
			if d.topOnly {
				continue
			}
			if err := v.BindEnv("sites."+name+"."+d.key, siteEnvName(name, d.key)); err != nil {
				return nil, &FieldError{Key: "sites." + name + "." + d.key, Err: err}
			}
		}
	}

	var errs errList
	cfg := &Config{File: path}
	cfg.Log = (&builder{r: r, errs: &errs}).buildLog()
	if info.hasSites {
		for _, name := range names {
			cfg.Sites = append(cfg.Sites, (&builder{r: r, site: name, errs: &errs}).buildSite())
		}
	} else {
		b := &builder{r: r, errs: &errs}
		s := b.buildSite()
		s.Name = DefaultSiteName
		cfg.Sites = []Site{s}
	}
	checkSiteEnv(names, path, &errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	cfg.Warnings = append(cfg.Warnings, strayEnv()...)
	if path != "" && bytes.Contains(data, []byte("password:")) {
		if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s holds a password and other users can read it (mode %04o); run: chmod 600 %s", path, st.Mode().Perm(), path))
		}
	}
	return cfg, nil
}

// notKeys are WPQUEUE_* variables that are not config keys but are known
// (read by the project's test suite).
var notKeys = map[string]bool{"WPQUEUE_REQUIRE_WORDPRESS": true}

// strayEnv warns about top-level WPQUEUE_* variables that match no key (a
// typo such as WPQUEUE_SHEDULE_AHEAD would otherwise be ignored).
func strayEnv() []string {
	known := map[string]bool{}
	var names []string
	for _, d := range keyDefs {
		known[envName(d.key)] = true
		names = append(names, strings.ToLower(envName(d.key)))
	}
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		up := strings.ToUpper(name)
		if !strings.HasPrefix(up, "WPQUEUE_") || strings.HasPrefix(up, "WPQUEUE_SITES_") || known[up] || notKeys[up] {
			continue
		}
		msg := fmt.Sprintf("environment variable %s matches no config key and is ignored", name)
		if s := suggest(strings.ToLower(up), names); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.ToUpper(s))
		}
		out = append(out, msg)
	}
	slices.Sort(out)
	return out
}

// checkSiteEnv reports WPQUEUE_SITES_* variables that match no site and
// key: a typo there would otherwise fall back silently to the top-level
// value, e.g. another site's URL.
func checkSiteEnv(names []string, path string, errs *errList) {
	known := map[string]bool{}
	for _, name := range names {
		for _, d := range keyDefs {
			if !d.topOnly {
				known[siteEnvName(name, d.key)] = true
			}
		}
	}
	where := "no sites: in the config file"
	if len(names) > 0 {
		where = "sites: " + strings.Join(names, ", ")
	}
	if path == "" {
		where = "no config file"
	}
	var stray []string
	for _, kv := range os.Environ() {
		name, val, _ := strings.Cut(kv, "=")
		if up := strings.ToUpper(name); strings.HasPrefix(up, "WPQUEUE_SITES_") && val != "" && !known[up] {
			stray = append(stray, name)
		}
	}
	slices.Sort(stray)
	for _, name := range stray {
		errs.add(fieldErr(name, "", "matches no site and key (%s); sites are defined in the config file", where))
	}
}
