// Package deps pins the project's module requirements while the packages
// that use them are being written. Deleted once every dependency is used.
package deps

import (
	_ "github.com/go-resty/resty/v2"
	_ "github.com/gofrs/flock"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/jarcoal/httpmock"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/pflag"
	_ "github.com/spf13/viper"
)
