package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// searchPaths returns the files tried, in order, when no --config is given.
// SearchPaths returns where Load looks for a config file when no path is
// given, in order: ./wpqueue.yaml, then <os.UserConfigDir()>/wpqueue/config.yaml
// ($XDG_CONFIG_HOME or ~/.config on Linux, %AppData% on Windows,
// ~/Library/Application Support on macOS).
func SearchPaths() []string {
	paths := []string{"wpqueue.yaml"}
	if dir, err := os.UserConfigDir(); err == nil {
		paths = append(paths, filepath.Join(dir, "wpqueue", "config.yaml"))
	}
	return paths
}

// readConfigFile returns the absolute path and contents of the config file:
// the explicit one (which must exist), else the first of [searchPaths] that
// exists. It returns "", nil, nil when no searched file exists.
func readConfigFile(explicit string) (string, []byte, error) {
	if explicit != "" {
		data, err := os.ReadFile(explicit)
		if err != nil {
			return "", nil, &FieldError{Value: explicit, Err: fmt.Errorf("cannot read config file: %w", err)}
		}
		return absPath(explicit), data, nil
	}
	for _, p := range SearchPaths() {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", nil, &FieldError{Value: p, Err: fmt.Errorf("cannot read config file: %w", err)}
		}
		return absPath(p), data, nil
	}
	return "", nil, nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// yamlLine finds "line N: message" in a go-yaml error.
var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// parseYAML parses data and returns the document's top-level mapping, or
// nil for an empty document. A syntax error names the file and line.
func parseYAML(path string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			return nil, &FieldError{Value: path, Err: fmt.Errorf("%s:%s: %s", path, m[1], m[2])}
		}
		return nil, &FieldError{Value: path, Err: fmt.Errorf("%s: %s", path, msg)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	root := deref(doc.Content[0])
	if isNull(root) {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, &FieldError{Value: path, Err: fmt.Errorf("%s:%d: want a mapping of keys at the top level, not %s", path, root.Line, describe(root))}
	}
	return root, nil
}

// deref follows YAML aliases.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	default:
		return "a single value"
	}
}

// entry is one key of a YAML mapping, after merge keys (<<) are expanded.
type entry struct {
	key   *yaml.Node
	value *yaml.Node
}

// entries lists the keys of mapping m, expanding merge keys. Keys set
// directly win over merged ones, as in YAML.
func entries(m *yaml.Node) []entry { return entriesDepth(m, 0) }

func entriesDepth(m *yaml.Node, depth int) []entry {
	var direct, merged []entry
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], deref(m.Content[i+1])
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			var srcs []*yaml.Node
			if v.Kind == yaml.SequenceNode {
				for _, s := range v.Content {
					srcs = append(srcs, deref(s))
				}
			} else {
				srcs = []*yaml.Node{v}
			}
			for _, s := range srcs {
				if s != nil && s.Kind == yaml.MappingNode && depth < 10 {
					merged = append(merged, entriesDepth(s, depth+1)...)
				}
			}
			continue
		}
		direct = append(direct, entry{k, v})
	}
	out := direct
	for _, e := range merged {
		if !slices.ContainsFunc(out, func(d entry) bool { return d.key.Value == e.key.Value }) {
			out = append(out, e)
		}
	}
	return out
}

// fileInfo is what the key check learns about the file.
type fileInfo struct {
	hasSites  bool     // sites: holds at least one site
	siteNames []string // as written, unsorted
}

// checkKeys reports every key in the file that wpqueue does not know,
// every section that is not a mapping, duplicate keys and bad site names.
func checkKeys(path string, root *yaml.Node) (fileInfo, error) {
	var info fileInfo
	var errs errList
	if root == nil {
		return info, nil
	}
	topNames := append(slices.Clone(sectionNames), "sites")
	checkDuplicates(path, "", root, &errs)
	for _, e := range entries(root) {
		name := e.key.Value
		switch {
		case name == "sites":
			info.siteNames = checkSites(path, e.value, &errs)
			info.hasSites = len(info.siteNames) > 0
		case slices.Contains(sectionNames, name):
			checkSection(path, name, name, e.value, &errs)
		default:
			errs.add(unknownKey(path, name, suggestion(name, topNames, "")))
		}
	}
	return info, errs.err()
}

// siteName is the shape of a site name.
var siteName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

func checkSites(path string, sites *yaml.Node, errs *errList) []string {
	if isNull(sites) {
		return nil
	}
	if sites.Kind != yaml.MappingNode {
		errs.add(notMapping(path, "sites", sites))
		return nil
	}
	checkDuplicates(path, "sites.", sites, errs)
	var names []string
	envOwner := map[string]string{}
	for _, e := range entries(sites) {
		name := e.key.Value
		if !siteName.MatchString(name) {
			errs.add(fieldErr("sites", name, "%q is not a valid site name (want lower-case letters, digits, '-' and '_', starting with a letter or digit)", name))
			continue
		}
		if other, ok := envOwner[siteEnvPart(name)]; ok {
			errs.add(fieldErr("sites", name, "sites %q and %q share the environment prefix WPQUEUE_SITES_%s_; rename one", other, name, siteEnvPart(name)))
			continue
		}
		envOwner[siteEnvPart(name)] = name
		names = append(names, name)
		site := e.value
		if isNull(site) {
			continue
		}
		prefix := "sites." + name
		if site.Kind != yaml.MappingNode {
			errs.add(notMapping(path, prefix, site))
			continue
		}
		checkDuplicates(path, prefix+".", site, errs)
		for _, se := range entries(site) {
			sec := se.key.Value
			full := prefix + "." + sec
			switch {
			case sec == "log":
				errs.add(sentenceErr(full, "", "unknown key %q in %s (log settings apply to every site; set them at the top level)", full, path))
			case slices.Contains(siteSectionNames, sec):
				checkSection(path, full, sec, se.value, errs)
			default:
				errs.add(unknownKey(path, full, suggestion(sec, siteSectionNames, prefix+".")))
			}
		}
	}
	return names
}

// checkSection checks the keys of one section; full is its key path
// ("schedule" or "sites.blog.schedule").
func checkSection(path, full, section string, n *yaml.Node, errs *errList) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		errs.add(notMapping(path, full, n))
		return
	}
	checkDuplicates(path, full+".", n, errs)
	known := leaves(section)
	for _, e := range entries(n) {
		leaf := e.key.Value
		if slices.Contains(known, leaf) {
			continue
		}
		s := suggestion(leaf, known, full+".")
		if s == "" {
			// A key put in the wrong section: "site.timezone" -> "schedule.timezone".
			for _, d := range keyDefs {
				if _, l, _ := strings.Cut(d.key, "."); l == leaf && !(d.topOnly && strings.HasPrefix(full, "sites.")) {
					s = strings.TrimSuffix(full, section) + d.key
					break
				}
			}
		}
		errs.add(unknownKey(path, full+"."+leaf, s))
	}
}

// checkDuplicates reports a key written twice in one mapping.
func checkDuplicates(path, prefix string, m *yaml.Node, errs *errList) {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Tag == "!!merge" {
			continue
		}
		if line, ok := seen[k.Value]; ok {
			errs.add(sentenceErr(prefix+k.Value, "", "%s:%d: key %q is set twice (first at line %d)", path, k.Line, prefix+k.Value, line))
			continue
		}
		seen[k.Value] = k.Line
	}
}

// suggestion returns prefix + the nearest of candidates to word, or "".
func suggestion(word string, candidates []string, prefix string) string {
	if s := suggest(word, candidates); s != "" {
		return prefix + s
	}
	return ""
}

func unknownKey(path, key, suggestion string) *FieldError {
	hint := ""
	if suggestion != "" {
		hint = " (did you mean " + strconv.Quote(suggestion) + "?)"
	}
	return sentenceErr(key, "", "unknown key %q in %s%s", key, path, hint)
}

func notMapping(path, key string, n *yaml.Node) *FieldError {
	return fieldErr(key, "", "want a mapping of keys, not %s (%s:%d)", describe(n), path, n.Line)
}
