package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ostiumio/ostium/internal/buildinfo"
)

// version is this binary's one-line version, for what reports it (the
// support bundle's manifest).
var version = buildinfo.Read().String()

func newVersionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "print the version, commit and build date",
		Long: `Print the version, the commit built, its date, and the Go version and
platform. A release build carries what its build script gave the linker;
a plain go build from a git checkout carries the commit and its time as
the Go toolchain stamped them (+dirty when the tree had changes).`,
		Example: `  ostium version
  ostium version --json`,
		Args: cobra.NoArgs,
	}
	asJSON := cmd.Flags().Bool("json", false, "print JSON: version, commit, date, modified, source, go, platform")
	cmd.RunE = func(c *cobra.Command, _ []string) error {
		in := buildinfo.Read()
		if *asJSON {
			enc := json.NewEncoder(c.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(in)
		}
		_, err := fmt.Fprintln(c.OutOrStdout(), "ostium", in)
		return err
	}
	return cmd
}
