package config

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrConfig matches every error [Load] and [Config.Select] return:
// errors.Is(err, ErrConfig) is true for each of them, so the CLI can map
// all configuration problems to one exit status.
var ErrConfig = errors.New("config: invalid configuration")

// redacted replaces secret values wherever they would be shown.
const redacted = "[redacted]"

// FieldError reports one configuration problem.
//
// Key is the full key path of the setting at fault as the user would write
// it ("schedule.times", "sites.blog.schedule.ahead"), or the variable's
// name for a stray WPQUEUE_SITES_* variable, or "" for a problem with the
// config file as a whole (missing, unreadable, not YAML; Value is then the
// file's path). When a site
// inherits a bad top-level value, Key is the top-level key, since that is
// where the fix goes.
//
// Value is the offending value as text. It is "[redacted]" for the
// password and "" when no single value is at fault (a missing required
// key, an unknown key).
type FieldError struct {
	Key   string
	Value string
	Err   error
}

// Error returns "config: <key>: <problem>", or "config: <sentence>" when the
// problem reads better as a sentence that names the key itself.
func (e *FieldError) Error() string {
	if _, ok := e.Err.(sentence); ok || e.Key == "" {
		return "config: " + e.Err.Error()
	}
	return "config: " + e.Key + ": " + e.Err.Error()
}

// sentence is a problem whose text already names the key
// ("site.url is required ..."), so FieldError.Error must not repeat it.
type sentence struct{ err error }

func (s sentence) Error() string { return s.err.Error() }
func (s sentence) Unwrap() error { return s.err }

// Unwrap returns the underlying cause.
func (e *FieldError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrConfig].
func (e *FieldError) Is(target error) bool { return target == ErrConfig }

// fieldErr builds a FieldError whose message is "config: key: problem".
func fieldErr(key, value string, format string, args ...any) *FieldError {
	return &FieldError{Key: key, Value: value, Err: fmt.Errorf(format, args...)}
}

// sentenceErr builds a FieldError whose message is "config: " + the
// formatted sentence, which names the key itself.
func sentenceErr(key, value string, format string, args ...any) *FieldError {
	return &FieldError{Key: key, Value: value, Err: sentence{fmt.Errorf(format, args...)}}
}

// errList collects problems in the order they are found, dropping exact
// duplicates (several sites inheriting one bad top-level value report it once).
type errList struct {
	errs []error
	seen map[string]bool
}

func (l *errList) add(err error) {
	if err == nil {
		return
	}
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	if msg := err.Error(); !l.seen[msg] {
		l.seen[msg] = true
		l.errs = append(l.errs, err)
	}
}

// err returns nil, the single error, or all of them joined.
func (l *errList) err() error {
	switch len(l.errs) {
	case 0:
		return nil
	case 1:
		return l.errs[0]
	default:
		return errors.Join(l.errs...)
	}
}

// suggest returns the candidate nearest to word by edit distance, or "" if
// none is near enough to be a plausible typo.
func suggest(word string, candidates []string) string {
	best, bestDist := "", -1
	cands := append([]string(nil), candidates...)
	sort.Strings(cands) // ties go to the alphabetically first candidate
	lw := strings.ToLower(word)
	if len(lw) >= 3 {
		for _, c := range cands {
			if strings.HasPrefix(c, lw) { // an abbreviation: "sched" -> "schedule"
				return c
			}
		}
	}
	for _, c := range cands {
		d := editDistance(strings.ToLower(word), c)
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := max(2, len(word)/3)
	if bestDist < 0 || bestDist > limit || bestDist >= len(word) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, counted in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
