package config

import (
	"fmt"
	"io"
	"log/slog"
)

// Secret holds a password. Every way of printing or encoding it (fmt with
// any verb, encoding/json, encoding.TextMarshaler, log/slog) yields
// "[redacted]"; only [Secret.Reveal] returns the value. Fields of type
// Secret must stay exported: fmt does not call methods on unexported fields.
type Secret string

// Reveal returns the secret value. Call it only where the value is sent
// to the site.
func (s Secret) Reveal() string { return string(s) }

// String returns "[redacted]".
func (s Secret) String() string { return redacted }

// GoString returns "[redacted]", for %#v.
func (s Secret) GoString() string { return redacted }

// Format writes "[redacted]" for every verb (quoted for %q), so that no
// verb (%x, %d, %s...) can print the value.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		_, _ = io.WriteString(f, `"`+redacted+`"`)
		return
	}
	_, _ = io.WriteString(f, redacted)
}

// MarshalJSON returns the JSON string "[redacted]".
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText returns "[redacted]".
func (s Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// LogValue returns "[redacted]", for log/slog.
func (s Secret) LogValue() slog.Value { return slog.StringValue(redacted) }
