package lockfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// appName is the name of wpqueue's directory inside the state directory.
const appName = "wpqueue"

// DefaultDir returns the per-user state directory that holds wpqueue's lock
// files:
//
//   - Linux, BSD and other Unix: $XDG_STATE_HOME/wpqueue if XDG_STATE_HOME is
//     an absolute path, else ~/.local/state/wpqueue.
//   - macOS: ~/Library/Application Support/wpqueue.
//   - Windows: %LOCALAPPDATA%\wpqueue (an error if LOCALAPPDATA is not set).
//
// It does not create the directory.
func DefaultDir() (string, error) {
	return defaultDir(runtime.GOOS, os.Getenv, os.UserHomeDir)
}

// defaultDir is DefaultDir for the given GOOS, environment and home lookup.
func defaultDir(goos string, getenv func(string) string, home func() (string, error)) (string, error) {
	switch goos {
	case "windows":
		dir := getenv("LOCALAPPDATA")
		if dir == "" {
			return "", errors.New("lockfile: %LOCALAPPDATA% is not set; set lock.path")
		}
		return filepath.Join(dir, appName), nil
	case "darwin", "ios":
		h, err := homeDir(home)
		if err != nil {
			return "", err
		}
		return filepath.Join(h, "Library", "Application Support", appName), nil
	default:
		// The XDG Base Directory spec says to ignore relative paths.
		if dir := getenv("XDG_STATE_HOME"); dir != "" && path.IsAbs(dir) {
			return filepath.Join(dir, appName), nil
		}
		h, err := homeDir(home)
		if err != nil {
			return "", err
		}
		return filepath.Join(h, ".local", "state", appName), nil
	}
}

func homeDir(home func() (string, error)) (string, error) {
	h, err := home()
	if err != nil {
		return "", fmt.Errorf("lockfile: cannot find the home directory (set lock.path): %w", err)
	}
	if h == "" {
		return "", errors.New("lockfile: the home directory is empty (set lock.path)")
	}
	return h, nil
}

// PathFor returns the default lock file of the site at siteURL:
// DefaultDir()/locks/<name>.lock. The name is a readable form of the URL's
// host, port and path (lower-cased, characters other than a-z, 0-9, '.' and
// '-' replaced by '_', e.g. "example.test_blog") followed by '-' and a hash of
// the normalised URL, so different sites never share a file. The normalised
// URL is scheme, lower-cased host, port (dropped if it is the scheme's
// default) and path (dot segments resolved, trailing slashes removed); the
// user info, query and fragment are ignored. So http://EXAMPLE.test/ and
// http://example.test:80 map to the same file; http:// and https:// of one
// host map to different files.
func PathFor(siteURL string) (string, error) {
	name, err := lockName(siteURL)
	if err != nil {
		return "", err
	}
	dir, err := DefaultDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "locks", name+".lock"), nil
}

// maxReadable bounds the readable part of a lock file name, keeping the whole
// name far below the usual 255-byte limit.
const maxReadable = 80

// lockName returns the file name (without ".lock") for siteURL.
func lockName(siteURL string) (string, error) {
	norm, readable, err := normalise(siteURL)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(norm))
	return safeName(readable) + "-" + hex.EncodeToString(sum[:6]), nil
}

// normalise returns the normalised URL that identifies a site and the raw
// material of the readable name (host, port and path, not yet made safe).
func normalise(siteURL string) (norm, readable string, err error) {
	u, err := url.Parse(strings.TrimSpace(siteURL))
	if err != nil {
		return "", "", fmt.Errorf("lockfile: site URL: %w", err)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", "", fmt.Errorf("lockfile: site URL %q: want an http:// or https:// URL", siteURL)
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return "", "", fmt.Errorf("lockfile: site URL %q has no host", siteURL)
	}
	port := u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	p := u.Path
	if p != "" {
		p = path.Clean("/" + p)
	}
	if p == "/" {
		p = ""
	}

	hostport := host
	if port != "" {
		hostport = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		hostport = "[" + host + "]" // IPv6 literal
	}
	norm = scheme + "://" + hostport + p

	readable = host
	if port != "" {
		readable += "_" + port
	}
	readable += p
	return norm, readable, nil
}

// safeName lower-cases s and keeps only a-z, 0-9, '.' and '-'; every run of
// other characters becomes one '_'. Leading and trailing '.', '_' and '-'
// are removed (no hidden files, no trailing dots, which Windows drops).
func safeName(s string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
			under = false
		case !under:
			b.WriteByte('_')
			under = true
		}
	}
	out := b.String()
	if len(out) > maxReadable {
		out = out[:maxReadable]
	}
	out = strings.Trim(out, "._-")
	if out == "" {
		out = "site"
	}
	return out
}

// IsUnderTemp reports whether path lies under a temporary directory:
// os.TempDir() and, except on Windows, /tmp, /var/tmp and /dev/shm. Cleaners
// such as systemd-tmpfiles delete old files there, and systemd's PrivateTmp=
// gives a service its own /tmp, so a scheduled run and a manual run would
// lock different files. Symbolic links are resolved as far as the path
// exists. A relative path is taken relative to the working directory.
func IsUnderTemp(path string) bool {
	temps := []string{os.TempDir()}
	if runtime.GOOS != "windows" {
		temps = append(temps, "/tmp", "/var/tmp", "/dev/shm")
	}
	home, _ := os.UserHomeDir()
	return isUnderTemp(path, temps, home)
}

// isUnderTemp reports whether p lies under one of temps. A temp directory that
// is a filesystem root or the home directory (TMPDIR=$HOME) is ignored, since
// everything would then count as temporary.
func isUnderTemp(p string, temps []string, home string) bool {
	cands := variants(p)
	homes := variants(home)
	for _, t := range temps {
		if t == "" {
			continue
		}
		for _, tv := range variants(t) {
			if isRoot(tv) || (home != "" && containsPath(homes, tv)) {
				continue
			}
			for _, c := range cands {
				if within(c, tv) {
					return true
				}
			}
		}
	}
	return false
}

// variants returns the absolute, cleaned path and, if different, the same
// path with symbolic links resolved as far as it exists.
func variants(p string) []string {
	if p == "" {
		return nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return []string{filepath.Clean(p)}
	}
	out := []string{abs}
	if r := resolveExisting(abs); r != abs {
		out = append(out, r)
	}
	return out
}

// resolveExisting resolves symbolic links in the longest existing prefix of
// the absolute path p and appends the rest unchanged.
func resolveExisting(p string) string {
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

func isRoot(p string) bool { return filepath.Dir(p) == p }

func containsPath(list []string, p string) bool {
	for _, q := range list {
		if samePath(q, p) {
			return true
		}
	}
	return false
}

// within reports whether the clean absolute path p is dir or lies below it.
func within(p, dir string) bool {
	if caseInsensitiveFS() {
		p, dir = strings.ToLower(p), strings.ToLower(dir)
	}
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}

func samePath(a, b string) bool {
	if caseInsensitiveFS() {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// caseInsensitiveFS reports whether the usual filesystems of this system
// ignore case in names (Windows, macOS).
func caseInsensitiveFS() bool { return runtime.GOOS == "windows" || runtime.GOOS == "darwin" }
